package remote

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/tailnet"
)

// screenshotDir is where screenshots go: $SEGWI_SCREENSHOTS, as the desktop tests do, else
// the test's artifact directory.
func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("SEGWI_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

// awaitApprovalEvent waits for an event named name of request on es.
func awaitApprovalEvent(t *testing.T, es *tailnet.EventStream, name, request string) string {
	t.Helper()
	// A bound for a hang: on a clean clone's test run, the machine busy compiling, the
	// first event had not come within 10 s (a failure now says whether the stream ended).
	return es.Await(t, 30*time.Second, name, `"request":"`+request+`"`)
}

// logLines is segwi's log, as the page writes it.
type logLines struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	l.mu.Lock()
	l.lines = append(l.lines, line)
	l.mu.Unlock()
	l.t.Log(line)
}

// await waits for a line that holds want.
func (l *logLines) await(t *testing.T, want string) {
	t.Helper()
	await.For(t, 5*time.Second, "a log line with "+want, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return slices.ContainsFunc(l.lines, func(s string) bool { return strings.Contains(s, want) })
	})
}

func body(res *http.Response) string {
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return string(data)
}
