package runs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// A run records where its checkout stood before Claude Code started: the branch, the
// commit, and the files already changed then, on its summary and as an event that comes
// before any of Claude Code's.
func TestARunRecordsItsBaseBeforeClaudeCodeStarts(t *testing.T) {
	m, _ := testManager(t, nil)
	checkout := claudetest.Checkout(t)
	if err := os.WriteFile(filepath.Join(checkout, "hello.txt"), []byte("changed before the run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "notes.txt"), []byte("untracked\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := claudetest.Git(t, checkout, "rev-parse", "HEAD")
	info := wait(t, start(t, m, Spec{Prompt: "fake:success", Checkout: filepath.Join(checkout, ".")}))

	b := info.Base
	if b == nil || b.Branch != "main" || b.Commit != head || b.Repo != checkout || !slices.Equal(b.Dirty, []string{"hello.txt", "notes.txt"}) {
		t.Fatalf("base = %+v, want main at %s with hello.txt and notes.txt dirty", b, head)
	}
	loaded, err := Load(m.config().StateDir, info.ID)
	if err != nil || loaded.Base == nil || loaded.Base.Commit != head {
		t.Errorf("run.json's base = %+v (%v), want the same", loaded.Base, err)
	}
	evs := events(t, m, info.ID)
	baseAt := slices.IndexFunc(evs, func(e Event) bool { return e.Type == EventBase })
	initAt := slices.IndexFunc(evs, func(e Event) bool { return e.Type == EventInit })
	if baseAt < 0 || initAt < 0 || baseAt > initAt {
		t.Fatalf("the base event is at %d, Claude Code's init at %d; want the base first", baseAt, initAt)
	}
	want := "main at " + head[:12] + ", 2 files already changed: hello.txt, notes.txt"
	if got := FormatEvent(evs[baseAt]); !strings.HasSuffix(got, "base      "+want) {
		t.Errorf("the base event reads %q, want it to end %q", got, want)
	}
}

// A run whose checkout segwi cannot read (a .git that is no repository: Start accepts the
// folder by its .git alone) starts as before, and says why it has no base.
func TestARunWhoseGitIsBrokenHasNoBaseAndSaysWhy(t *testing.T) {
	m, _ := testManager(t, nil)
	checkout := t.TempDir()
	// The error names the folder: one that holds a token must not reach the record.
	token := "ghp_" + strings.Repeat("A1b2", 9)
	if err := os.WriteFile(filepath.Join(checkout, ".git"), []byte("gitdir: /nowhere/"+token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info := wait(t, start(t, m, Spec{Checkout: checkout, Prompt: "fake:success"}))
	if info.State != StateSucceeded || info.Base == nil || info.Base.Known() || !strings.Contains(info.Base.Error, "not a git folder") {
		t.Errorf("got %s with base %+v, want a succeeded run whose base says why git could not read it", info.State, info.Base)
	}
	for _, name := range []string{"run.json", "events.jsonl"} {
		data, err := os.ReadFile(filepath.Join(info.Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), token) {
			t.Errorf("%s holds the token git's error named", name)
		}
	}
}
