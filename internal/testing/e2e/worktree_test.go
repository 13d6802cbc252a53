package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/runs"
)

// Two build runs in one repository at once, with the real Claude Code, each in a worktree
// of its own (segwi run --worktree): they work side by side (each run's Bash call waits
// for the other's to have begun), each edits a file of its own on its own branch, the diff
// of each shows only its own change, and each is committed and pushed to the loopback git
// server on its own branch, while the checkout stays as it was. Each worktree was set up
// first (the ignored .env copied, the setup command's output in the record), the runs'
// ports are disjoint, a continued run works in the same worktree, and segwi worktrees
// remove refuses the worktree holding uncommitted work and removes the other.
func TestTwoBuildRunsInWorktreesOfOneRepositoryAtOnce(t *testing.T) {
	twoAtATime(t)
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
		case 2:
			return fakeapi.Say(fakeapi.Text("Nothing more to add."))
		}
		return fakeapi.Unexpected("a request for turn %d", req.Turn())
	})
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true, Repo: "me/web.git"})
	s.writeConfig(config{apiURL: server.Base + "/api/v3"})
	// The repository's setup: its ignored .env copied, a command that reads it.
	settingsFile := filepath.Join(s.env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml")
	f, err := os.OpenFile(settingsFile, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "  repositories:\n    - name: web\n      path: %q\n      setup:\n        copy: [.env]\n        run: echo \"setup saw $(cat .env) with port $SEGWI_PORT\"\n", s.checkout)
	f.Close()
	os.WriteFile(filepath.Join(s.checkout, ".gitignore"), []byte(".env\n"), 0o644)
	os.WriteFile(filepath.Join(s.checkout, ".env"), []byte("API_KEY=local-only\n"), 0o600)
	claudetest.Git(t, s.checkout, "add", ".gitignore")
	claudetest.Git(t, s.checkout, "commit", "-qm", "Ignore .env")
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

	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA)
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	wantExit(t, set, 0)
	var ports []*runs.Info
	for _, c := range []struct {
		p            *proc
		mine, theirs string
	}{{a, "footer", "header"}, {b, "header", "footer"}} {
		id := c.p.runID()
		rec := s.loadRecord(id)
		info := rec.info
		ports = append(ports, &info)
		w := info.Worktree
		if info.Ports == nil || len(rec.find(runs.EventSetup, func(e runs.Event) bool {
			return e.Text == fmt.Sprintf("setup saw API_KEY=local-only with port %d", info.Ports.First)
		})) != 1 {
			t.Errorf("run %s's record lacks the setup's output; ports %+v; events: %v", id, info.Ports, types(rec))
		}
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
	if pa, pb := ports[0].Ports, ports[1].Ports; pa != nil && pb != nil && pa.First <= pb.Last() && pb.First <= pa.Last() {
		t.Errorf("the runs side by side shared ports: %s and %s", pa, pb)
	}

	footerRun, headerRun := ports[0], ports[1]
	cont := s.start("run", "--continue", footerRun.ID, "Anything else?")
	contID := cont.runID()
	wantExit(t, cont, 0)
	if got := s.loadRecord(contID).info; got.Checkout != footerRun.Worktree.Path || got.Worktree == nil || got.Worktree.Branch != footerRun.Worktree.Branch {
		t.Errorf("the continued run worked in %s (worktree %+v), want %s", got.Checkout, got.Worktree, footerRun.Worktree.Path)
	}

	os.WriteFile(filepath.Join(headerRun.Worktree.Path, "header.txt"), []byte("changed after the push\n"), 0o644)
	refused := s.start("worktrees", "remove", headerRun.ID)
	wantExit(t, refused, 1)
	if !strings.Contains(refused.stderr.String(), "header.txt") {
		t.Errorf("the refusal does not say what would be lost:\n%s", refused.stderr.String())
	}
	if _, err := os.Stat(headerRun.Worktree.Path); err != nil {
		t.Errorf("the dirty worktree went: %v", err)
	}
	removed := s.start("worktrees", "remove", "--delete-branch", contID)
	wantExit(t, removed, 0)
	if _, err := os.Stat(footerRun.Worktree.Path); err == nil || !strings.Contains(removed.stdout.String(), "its branch "+footerRun.Worktree.Branch+" is kept: it was pushed") {
		t.Errorf("remove of the clean, pushed worktree: %v\n%s", err, removed.stdout.String())
	}
}
