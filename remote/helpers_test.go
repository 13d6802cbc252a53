package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
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

// visitor is one device's page: its session cookie and anti-forgery token.
type visitor struct {
	client *http.Client
	base   string
	cookie *http.Cookie
	token  string
}

var tokenMeta = regexp.MustCompile(`<meta name="segwi-token" content="([0-9a-f]+)">`)

// visit loads the page at base as client does, and keeps its session.
func visit(t *testing.T, client *http.Client, base string) *visitor {
	t.Helper()
	res, err := client.Get(base + "/")
	if err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	text := body(res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("loading the page: %s: %s", res.Status, text)
	}
	m := tokenMeta.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the page carries no anti-forgery token:\n%s", text)
	}
	v := &visitor{client: client, base: base, token: m[1]}
	for _, c := range res.Cookies() {
		if c.Name == "segwi-session" {
			v.cookie = c
		}
	}
	if v.cookie == nil || !v.cookie.HttpOnly || v.cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the page's session cookie: %+v, want an HttpOnly, SameSite=Strict segwi-session", v.cookie)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q, want default-src 'none'", csp)
	}
	return v
}

// answer posts an answer as the page does; edit changes the request first.
func (v *visitor) answer(t *testing.T, request, decision, reason string, edit func(*http.Request)) *http.Response {
	t.Helper()
	data, _ := json.Marshal(map[string]string{"request": request, "decision": decision, "reason": reason})
	r, err := http.NewRequest(http.MethodPost, v.base+"/answer", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Origin", v.base)
	r.Header.Set("X-Segwi-Token", v.token)
	r.AddCookie(v.cookie)
	if edit != nil {
		edit(r)
	}
	res, err := v.client.Do(r)
	if err != nil {
		t.Fatalf("posting an answer: %v", err)
	}
	return res
}

// eventStream is the page's event stream, read on a goroutine of its own.
type eventStream struct {
	mu   sync.Mutex
	seen []string // "name data"
}

func (v *visitor) events(t *testing.T) *eventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.base+"/events", nil)
	client := *v.client
	client.Timeout = 0 // a stream
	res, err := client.Do(r)
	if err != nil {
		cancel()
		t.Fatalf("opening the event stream: %v", err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("the event stream: %s %s: %s", res.Status, res.Header.Get("Content-Type"), body(res))
	}
	es := &eventStream{}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				es.mu.Lock()
				es.seen = append(es.seen, name+" "+strings.TrimPrefix(line, "data: "))
				es.mu.Unlock()
			}
		}
	}()
	return es
}

// await waits for an event named name whose data names request, and returns its data.
func (es *eventStream) await(t *testing.T, name, request string) string {
	t.Helper()
	var found string
	await.For(t, 10*time.Second, fmt.Sprintf("a %s event of %s", name, request), func() bool {
		es.mu.Lock()
		defer es.mu.Unlock()
		for _, e := range es.seen {
			if strings.HasPrefix(e, name+" ") && strings.Contains(e, `"request":"`+request+`"`) {
				found = strings.TrimPrefix(e, name+" ")
				return true
			}
		}
		return false
	})
	return found
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

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func body(res *http.Response) string {
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return string(data)
}
