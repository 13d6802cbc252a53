package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watch starts a Watcher on path and returns a channel of its changes.
func watch(t *testing.T, path string, current Settings) (*Watcher, <-chan Change) {
	t.Helper()
	changes := make(chan Change, 16)
	w, err := Watch(path, current, func(c Change) { changes <- c })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, changes
}

// next waits for the next change, failing the test after a generous timeout.
func next(t *testing.T, changes <-chan Change) Change {
	t.Helper()
	select {
	case c := <-changes:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no change reported within 10s")
		return Change{}
	}
}

func TestWatcherKeepsTheLastGoodSettingsAfterABadEdit(t *testing.T) {
	p := writeConfig(t, "config.yaml", "segwi:\n  runs:\n    maxConcurrent: 2\n")
	w, changes := watch(t, p, load(t, p).Settings)

	if err := writeFile(p, "segwi:\n  runs:\n    maxConcurrent: 3\n"); err != nil {
		t.Fatal(err)
	}
	c := next(t, changes)
	if c.Err != nil {
		t.Fatalf("good edit: got error %v", c.Err)
	}
	if got := c.Settings.Runs.MaxConcurrent; got != 3 {
		t.Errorf("good edit: got maxConcurrent %d, want 3", got)
	}

	if err := writeFile(p, "segwi:\n  runs:\n    maxConcurrent: 0\n"); err != nil {
		t.Fatal(err)
	}
	c = next(t, changes)
	want := p + ": segwi.runs.maxConcurrent: must be between 1 and 64, got 0"
	if c.Err == nil || c.Err.Error() != want {
		t.Errorf("bad edit: got error %v, want %q", c.Err, want)
	}
	if got := c.Settings.Runs.MaxConcurrent; got != 3 {
		t.Errorf("bad edit: got maxConcurrent %d in force, want the last good 3", got)
	}
	if got := w.Settings().Runs.MaxConcurrent; got != 3 {
		t.Errorf("bad edit: Watcher.Settings() has maxConcurrent %d, want the last good 3", got)
	}

	if err := writeFile(p, "segwi:\n  runs: [\n"); err != nil {
		t.Fatal(err)
	}
	c = next(t, changes)
	if c.Err == nil || !strings.Contains(c.Err.Error(), p+": yaml:") {
		t.Errorf("syntax error: got error %v, want one naming %s", c.Err, p)
	}
	if got := c.Settings.Runs.MaxConcurrent; got != 3 {
		t.Errorf("syntax error: got maxConcurrent %d in force, want the last good 3", got)
	}
}

func TestWatcherSeesASaveByRename(t *testing.T) {
	p := writeConfig(t, "config.yaml", "segwi:\n  runs:\n    maxConcurrent: 2\n")
	_, changes := watch(t, p, load(t, p).Settings)

	tmp := filepath.Join(filepath.Dir(p), ".config.yaml.swp")
	if err := writeFile(tmp, "segwi:\n  runs:\n    maxConcurrent: 5\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	c := next(t, changes)
	if c.Err != nil || c.Settings.Runs.MaxConcurrent != 5 {
		t.Errorf("got maxConcurrent %d and error %v, want 5 and none", c.Settings.Runs.MaxConcurrent, c.Err)
	}
}

func TestWatcherSeesAFileCreatedLater(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	_, changes := watch(t, p, Default())
	if err := writeFile(p, "[segwi.runs]\nstopGrace = \"2s\"\n"); err != nil {
		t.Fatal(err)
	}
	c := next(t, changes)
	if c.Err != nil || c.Settings.Runs.StopGrace != 2*time.Second {
		t.Errorf("got stopGrace %s and error %v, want 2s and none", c.Settings.Runs.StopGrace, c.Err)
	}
	if c.Result == nil || !c.Result.Found {
		t.Errorf("got result %+v, want one for a found file", c.Result)
	}
}

func TestWatchRefusesAMissingDirectory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope", "config.yaml")
	_, err := Watch(p, Default(), func(Change) {})
	if err == nil || !strings.Contains(err.Error(), "create the directory first") {
		t.Errorf("got error %v, want one saying to create the directory", err)
	}
}
