package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// What a run records reaches its files within a second or so, without a state change to
// force it and without anyone polling: a window or `segwi runs events` reading the record
// of a quiet run sees its last event. Then the recorder arms nothing more.
func TestTheRecordReachesItsFilesWithinASecond(t *testing.T) {
	dir := t.TempDir()
	rec, err := openRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.close()
	began := time.Now()
	rec.event(&Event{RunID: "r1", Seq: 1, Time: began, Type: EventText, Text: "the last words"}, false)
	rec.output([]byte("a line of output\n"))
	for _, f := range []struct{ name, want string }{{eventsFile, "the last words"}, {outputFile, "a line of output"}} {
		await.For(t, 5*time.Second, f.name+" to hold what was recorded", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, f.name))
			return bytes.Contains(b, []byte(f.want))
		})
	}
	t.Logf("on disk %s after the write", time.Since(began).Round(time.Millisecond))
	rec.mu.Lock()
	dirty := rec.dirty
	rec.mu.Unlock()
	if dirty {
		t.Error("the recorder still has something to sync once its files hold everything")
	}
}
