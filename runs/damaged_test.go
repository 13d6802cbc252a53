package runs_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
)

// damagedFiles returns the files of ds.
func damagedFiles(ds []runs.Damaged) []string {
	var files []string
	for _, d := range ds {
		files = append(files, d.File)
	}
	slices.Sort(files)
	return files
}

func infoIDs(infos []runs.Info) []string {
	var ids []string
	for _, in := range infos {
		ids = append(ids, in.ID)
	}
	return ids
}

// A damaged record is reported, not fatal: the manager starts, the good runs list, and
// each damaged file is named with its folder.
func TestNewManagerReportsDamagedRecordsAndStarts(t *testing.T) {
	state := t.TempDir()
	st := records.WriteDamaged(t, state)

	m, err := runs.NewManager(runs.Config{StateDir: state, Runtime: claude.Runtime{}})
	if err != nil {
		t.Fatalf("NewManager: %v; want a manager, with the damaged records reported", err)
	}
	want := []string{st.BadInfo, st.InterruptedEvents}
	slices.Sort(want)
	if diff := cmp.Diff(want, damagedFiles(m.Damaged())); diff != "" {
		t.Errorf("Damaged files (-want +got):\n%s", diff)
	}
	for _, d := range m.Damaged() {
		if d.Dir != filepath.Dir(d.File) || d.Err == nil {
			t.Errorf("damaged %+v: want its run's folder and what went wrong", d)
		}
		if msg := d.Error(); !strings.Contains(msg, d.File) || !strings.Contains(msg, "move its folder "+d.Dir+" away") {
			t.Errorf("a person reads %q: want the file and what to do", msg)
		}
	}

	infos, damaged, err := runs.List(state)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if diff := cmp.Diff([]string{st.Good, st.Unreadable, st.Interrupted}, infoIDs(infos)); diff != "" {
		t.Errorf("runs listed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{st.BadInfo}, damagedFiles(damaged)); diff != "" {
		t.Errorf("List's damaged files (-want +got):\n%s", diff)
	}
	// The run a gone segwi left is marked interrupted in its run.json, though its events
	// could not take the note.
	if in := infos[2]; in.State != runs.StateInterrupted {
		t.Errorf("run %s is %s, want interrupted", in.ID, in.State)
	}
}

func TestReadEventsSaysWhichFileCannotBeRead(t *testing.T) {
	state := t.TempDir()
	st := records.WriteDamaged(t, state)
	garbled := filepath.Join(runs.RunsDir(state), st.Good, "events.jsonl")

	tests := []struct {
		name  string
		setup func(t *testing.T)
		id    string
		file  string
		want  string
	}{
		{"an events file that is a folder", func(*testing.T) {}, st.Unreadable, st.UnreadableEvents, "is a directory"},
		{"an events file none of whose lines is an event", func(t *testing.T) {
			if err := os.WriteFile(garbled, []byte("\x00\x01binary\nnot json\n"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, st.Good, garbled, "none of its 2 lines is an event"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup(t)
			err := runs.ReadEvents(state, tt.id, func(runs.Event) error { return nil })
			var d runs.Damaged
			if !errors.As(err, &d) || d.File != tt.file || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadEvents = %v; want a Damaged naming %s and saying %q", err, tt.file, tt.want)
			}
			if !strings.Contains(err.Error(), "the run is still listed") {
				t.Errorf("ReadEvents = %q; want it to say what it costs", err)
			}
		})
	}
}
