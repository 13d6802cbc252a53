package acp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/acp"
)

// The documented sandboxed runtime (scripts/acp-bwrap): the agent writes in the checkout,
// cannot write elsewhere, and its permission requests still reach the person.
func TestABubblewrapRuntime(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		msg := "no bwrap (Debian: bubblewrap); run scripts/setup.sh --test"
		if os.Getenv(claudetest.StrictEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root, err := claudetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := fakeACP()
	if err != nil {
		t.Fatal(err)
	}
	h := harnessFor(t, acp.Runtime{RuntimeName: "sandboxed", Command: []string{filepath.Join(root, "scripts", "acp-bwrap"), bin}}, 30*time.Second, nil)
	// Outside the checkout, in a folder the sandbox shows read-only: the agent program's,
	// which acp-bwrap binds back over its private /tmp. (Not the module's folder: a clone
	// under /tmp is hidden in the sandbox, and the write would fail for another reason.)
	progDir, err := filepath.EvalSymlinks(filepath.Dir(bin))
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(progDir, "sandbox-probe.txt")
	t.Cleanup(func() { os.Remove(outside) })
	dir := checkout(t)
	r := h.start(t, runs.KindBuild, dir, "run echo allow-me > inside.txt", true)
	await.For(t, 20*time.Second, "the first turn to end", func() bool { return r.Info().Waiting == runs.WaitReply })
	if err := r.Send("run echo allow-me > " + outside); err != nil {
		t.Fatal(err)
	}
	await.For(t, 20*time.Second, "the second turn to end", func() bool { return r.Info().Turns == 2 && r.Info().Waiting == runs.WaitReply })
	r.CloseInput()
	info := wait(t, r)
	if b, err := os.ReadFile(filepath.Join(dir, "inside.txt")); err != nil || string(b) != "allow-me\n" {
		t.Errorf("inside.txt = %q, %v; want the write in the checkout to succeed", b, err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the sandboxed agent wrote %s, outside its checkout", outside)
	}
	got := texts(h.events(t, info.ID))
	if len(got) != 2 || !strings.Contains(got[1], "Read-only file system") {
		t.Errorf("the agent said %q, want its write outside refused as read-only", got)
	}
	if n := len(h.d.requests()); n != 2 {
		t.Errorf("%d requests reached the person, want 2", n)
	}
	assertGone(t, info.PID)
}
