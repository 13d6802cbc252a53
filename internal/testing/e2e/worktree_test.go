package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
)

// Two build runs in one repository at once, with the real Claude Code, each in a worktree
// of its own (segwi run --worktree): they work side by side (each run's Bash call waits
// for the other's to have begun), each edits a file of its own on its own branch, the diff
// of each shows only its own change, and each is committed and pushed to the loopback git
// server on its own branch, while the checkout stays as it was.
func TestTwoBuildRunsInWorktreesOfOneRepositoryAtOnce(t *testing.T) {
	sync := t.TempDir()
	// Each run writes its file, says it began, and waits (at most 60 s) for the other to
	// have begun: "together" shows they ran at the same time.
	call := func(name, other string) fakeapi.Block {
		return fakeapi.ToolUse("Bash", fakeapi.Input{"description": "Add " + name, "command": "printf '" + name + " by its run\\n' > " + name + ".txt && touch " +
			filepath.Join(sync, name) + " && i=0; while [ ! -e " + filepath.Join(sync, other) + " ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; " +
			"test -e " + filepath.Join(sync, other) + " && echo together"})
	}
	footer, header := call("footer", "header"), call("header", "footer")
	s := newScenario(t, func(req *fakeapi.Request) fakeapi.Reply {
		b := header
		if strings.Contains(strings.Join(req.UserText(), "\n"), "footer") {
			b = footer
		}
		switch req.Turn() {
		case 0:
			return fakeapi.Say(fakeapi.Text("Adding it."), b)
		case 1:
			return fakeapi.Say(fakeapi.Text("Added."))
		}
		return fakeapi.Unexpected("a request for turn %d", req.Turn())
	})
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true, Repo: "me/web.git"})
	s.writeConfig(config{apiURL: server.Base + "/api/v3"})
	claudetest.Git(t, s.checkout, "push", "--quiet", server.Bare, "main")
	claudetest.Git(t, s.checkout, "remote", "add", "origin", server.URL)
	claudetest.Git(t, s.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	claudetest.Git(t, s.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	head := claudetest.Git(t, s.checkout, "rev-parse", "HEAD")

	a := s.start("run", "--worktree", "--checkout", s.checkout, "Add a footer")
	b := s.start("run", "--worktree", "--checkout", s.checkout, "Add a header")
	// Each run's processes end with it; the check for leftovers waits for both, since the
	// other run's are the test's own until then.
	if code := a.exit(); code != 0 {
		t.Fatalf("the footer run exited %d, want 0", code)
	}
	wantExit(t, b, 0)
	for _, blk := range []fakeapi.Block{footer, header} {
		if res := s.toolResult(blk); res.IsError || !strings.Contains(res.Text, "together") {
			t.Errorf("the runs did not work side by side: %+v", res)
		}
	}
	if st := claudetest.Status(t, s.checkout); st != "" || claudetest.Git(t, s.checkout, "rev-parse", "--abbrev-ref", "HEAD") != "main" {
		t.Errorf("the checkout changed: %q", st)
	}

	s.env.Set("DBUS_SESSION_BUS_ADDRESS", privateKeyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA)
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	wantExit(t, set, 0)
	for _, c := range []struct {
		p            *proc
		mine, theirs string
	}{{a, "footer", "header"}, {b, "header", "footer"}} {
		id := c.p.runID()
		info := s.loadRecord(id).info
		w := info.Worktree
		if w == nil || info.Checkout != w.Path || w.Commit != head || !strings.HasPrefix(w.Branch, "segwi/add-a-"+c.mine+"-") {
			t.Fatalf("run %s worked in %s with worktree %+v", id, info.Checkout, w)
		}
		if _, err := os.Stat(filepath.Join(s.checkout, c.mine+".txt")); err == nil {
			t.Errorf("%s.txt was written in the checkout", c.mine)
		}
		diff := s.start("runs", "diff", id)
		wantExit(t, diff, 0)
		if out := diff.stdout.String(); !strings.Contains(out, "+"+c.mine+" by its run") || strings.Contains(out, c.theirs) {
			t.Errorf("run %s's diff shows more or less than its own change:\n%s", id, out)
		}
		commit := s.start("commit", id)
		wantExit(t, commit, 0)
		if out := commit.stdout.String(); !strings.Contains(out, "on "+w.Branch+" ") || !strings.Contains(out, "files: "+c.mine+".txt") {
			t.Errorf("segwi commit said:\n%s", out)
		}
		push := s.start("push", id)
		wantExit(t, push, 0)
		made := claudetest.Git(t, w.Path, "rev-parse", "HEAD")
		if got := claudetest.Git(t, server.Bare, "rev-parse", "refs/heads/"+w.Branch); got != made {
			t.Errorf("the server has %s at %s, want the run's commit %s", w.Branch, got, made)
		}
		if files := claudetest.Git(t, server.Bare, "show", "--name-only", "--format=", w.Branch); files != c.mine+".txt" {
			t.Errorf("%s on the server holds %q", w.Branch, files)
		}
	}
	if got := claudetest.Git(t, server.Bare, "rev-parse", "refs/heads/main"); got != head {
		t.Errorf("main on the server moved to %s", got)
	}
}
