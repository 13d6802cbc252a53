package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/syncbuf"
	"github.com/segwi/segwi/runs"
)

// `segwi run --json | head -1` closes segwi's stdout after the first line. segwi must not
// die of SIGPIPE with its run left "running": the run goes on and is recorded to its end.
func TestRunOutlivesAClosedStdoutPipe(t *testing.T) {
	twoAtATime(t)
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("A long answer."))))
	s.writeConfig(config{})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(segwiBin, "run", "--json", "--kind", "ask", "what is here?")
	cmd.Dir, cmd.Env = s.checkout, s.env.Vars()
	cmd.Stdout = w
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first := make([]byte, 1)
	if _, err := r.Read(first); err != nil {
		t.Fatalf("reading segwi's first output: %v", err)
	}
	r.Close() // as head does once it has its line

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("segwi did not end within 2 minutes")
	}
	if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && st.Signaled() {
		t.Fatalf("segwi was killed by %v; want it to finish the run. stderr:\n%s", st.Signal(), stderr.String())
	}
	infos, _, err := runs.List(s.stateDir())
	if err != nil || len(infos) != 1 {
		t.Fatalf("runs recorded: %v (%v), want 1", infos, err)
	}
	if got := infos[0].State; got != runs.StateSucceeded {
		t.Errorf("the run is recorded as %s, want succeeded", got)
	}
	events, _ := os.ReadFile(filepath.Join(infos[0].Dir, "events.jsonl"))
	if !strings.Contains(string(events), `"result"`) {
		t.Errorf("events.jsonl lacks the run's result:\n%s", events)
	}
}
