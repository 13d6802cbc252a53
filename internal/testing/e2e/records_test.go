package e2e

import (
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/records"
)

// A damaged run record (a run.json cut short, an events.jsonl that cannot be read or
// written) never stops the command line: segwi runs lists the good runs and names each
// damaged file with what to do, segwi runs events says what is wrong with the file, and
// segwi run warns and runs.
func TestCommandsGoOnBesideDamagedRunRecords(t *testing.T) {
	twoAtATime(t)
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("A README and a hello.txt."))))
	s.writeConfig(config{})
	st := records.WriteDamaged(t, s.stateDir())

	t.Run("segwi runs lists the good runs and names the damaged files", func(t *testing.T) {
		p := s.start("runs", "list")
		wantExit(t, p, 1) // documented: a damaged record makes the exit status 1
		out, errOut := p.stdout.String(), p.stderr.String()
		for _, id := range []string{st.Good, st.Unreadable, st.Interrupted} {
			if !strings.Contains(out, id) {
				t.Errorf("runs list does not list run %s:\n%s", id, out)
			}
		}
		for _, file := range []string{st.BadInfo, st.InterruptedEvents} {
			if !strings.Contains(errOut, file) {
				t.Errorf("runs list does not name the damaged %s on stderr:\n%s", file, errOut)
			}
		}
		if n := strings.Count(errOut, st.BadInfo); n != 1 {
			t.Errorf("runs list names %s %d times on stderr, want once:\n%s", st.BadInfo, n, errOut)
		}
		if !strings.Contains(errOut, "move its folder") {
			t.Errorf("runs list does not say what to do about the damaged records:\n%s", errOut)
		}
	})

	t.Run("segwi runs events says what is wrong with the events file", func(t *testing.T) {
		p := s.start("runs", "events", st.Unreadable)
		wantExit(t, p, 1)
		errOut := p.stderr.String()
		if !strings.Contains(errOut, st.UnreadableEvents) || !strings.Contains(errOut, "is a directory") ||
			!strings.Contains(errOut, "move its folder") {
			t.Errorf("runs events does not say what is wrong with %s and what to do:\n%s", st.UnreadableEvents, errOut)
		}
	})

	// segwi run looks at the runs left live only (see runs.MarkInterrupted), and the
	// listing above read every record: it runs, and leaves naming them to segwi runs and
	// the tray, rather than read 10,000 records at every start to name one again.
	t.Run("segwi run runs beside them", func(t *testing.T) {
		p := s.start("run", "--kind", "ask", "What is in this checkout?")
		id := p.runID()
		wantExit(t, p, 0)
		if !strings.Contains(p.stdout.String(), "A README and a hello.txt.") {
			t.Errorf("segwi run did not print the run's answer:\n%s", p.stdout.String())
		}
		if rec := s.loadRecord(id); rec.info.State != "succeeded" {
			t.Errorf("the run is %s (%s), want succeeded", rec.info.State, rec.info.Reason)
		}
	})
}
