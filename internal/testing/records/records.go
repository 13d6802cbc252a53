// Package records writes run records into a segwi state folder for tests: one run
// (WriteRun), or good runs beside records a crash, a full disk or a careless hand left
// damaged (WriteDamaged), so that a test can check that segwi (the tray, segwi run, segwi
// runs) starts, lists the good runs and names what is damaged.
//
//	st := records.WriteDamaged(t, stateDir)
//	// start segwi; then:
//	if !strings.Contains(stderr, st.BadInfo) { ... } // the damaged run.json is named
package records

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
)

// Damaged is the state folder WriteDamaged wrote: the ids of its runs and the damaged files.
type Damaged struct {
	// Good is a run that succeeded, with a readable record.
	Good string
	// BadInfo is the run.json of a run whose record is cut short (not JSON): that run cannot
	// be listed.
	BadInfo string
	// Unreadable is a run that succeeded but whose events.jsonl cannot be read (it is a
	// folder); its file is UnreadableEvents.
	Unreadable, UnreadableEvents string
	// Interrupted is a run a gone segwi left running, whose events.jsonl cannot be
	// written (it is a folder), so marking it interrupted cannot be recorded there; its file
	// is InterruptedEvents.
	Interrupted, InterruptedEvents string
}

// WriteDamaged writes four runs under stateDir (as settings.StateDir names it): a good one
// and three with damaged files, and returns what it wrote. Nothing in it depends on who reads
// it: root, too, cannot read a folder as a file.
func WriteDamaged(t testing.TB, stateDir string) Damaged {
	t.Helper()
	created := time.Date(2025, 1, 2, 9, 0, 0, 0, time.UTC)
	d := Damaged{
		Good:        "20250102-090000-a00d00",
		Unreadable:  "20250102-090200-c00c00",
		Interrupted: "20250102-090300-d00d00",
	}
	good := WriteRun(t, stateDir, runs.Info{ID: d.Good, Kind: runs.KindAsk, State: runs.StateSucceeded,
		Prompt: "what is here?", Created: created, End: created.Add(time.Minute)})
	writeFile(t, filepath.Join(good, "events.jsonl"),
		`{"run":"`+d.Good+`","seq":1,"time":"2025-01-02T09:00:00Z","type":"state","state":{"from":"queued","to":"starting"}}`+"\n"+
			`{"run":"`+d.Good+`","seq":2,"time":"2025-01-02T09:01:00Z","type":"result","text":"A README and a main.go."}`+"\n")

	bad := filepath.Join(runs.RunsDir(stateDir), "20250102-090100-b00b00")
	d.BadInfo = filepath.Join(bad, "run.json")
	writeFile(t, d.BadInfo, `{"id":"20250102-090100-b00b00","kind":"build","sta`)

	unreadable := WriteRun(t, stateDir, runs.Info{ID: d.Unreadable, Kind: runs.KindBuild, State: runs.StateSucceeded,
		Prompt: "fix the login", Created: created.Add(2 * time.Minute)})
	d.UnreadableEvents = mkdir(t, filepath.Join(unreadable, "events.jsonl"))

	interrupted := WriteRun(t, stateDir, runs.Info{ID: d.Interrupted, Kind: runs.KindBuild, State: runs.StateRunning,
		Prompt: "add a test", Created: created.Add(3 * time.Minute)})
	d.InterruptedEvents = mkdir(t, filepath.Join(interrupted, "events.jsonl"))
	return d
}

// WriteRun writes info as the run.json of its folder under stateDir, the way runs records
// it, and returns the folder.
func WriteRun(t testing.TB, stateDir string, info runs.Info) string {
	t.Helper()
	dir := filepath.Join(runs.RunsDir(stateDir), info.ID)
	b, err := info.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "run.json"), string(b)+"\n")
	return dir
}

func writeFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t testing.TB, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}
