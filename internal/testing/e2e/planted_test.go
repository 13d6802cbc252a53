package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/runs"
)

// nestedPayload is the Bash call, word for word: a nested repository whose
// core.fsmonitor logs and leaves a detached sleep, added to the checkout as a gitlink.
const nestedPayload = `mkdir sub && cd sub && git init -q && echo s>s && git add s && git commit -qm s && ` +
	`git config core.fsmonitor "sh -c 'echo FSMON >>LOG; setsid -f sleep 907'; false" && cd .. && git add sub`

// Issue 20, section 1, end to end with the real Claude Code: the agent's Bash call makes a
// nested repository with its own fsmonitor. segwi runs diff, segwi commit, the next run's
// base and segwi push each ran it twice, as the person, outside any run, leaving a sleep
// that no sweep ended. Now none of them runs it.
func TestANestedRepositorysFsmonitorNeverRunsFromSegwi(t *testing.T) {
	twoAtATime(t)
	bash := fakeapi.ToolUse("Bash", fakeapi.Input{"command": nestedPayload, "description": "Make a nested repository"})
	first := fakeapi.Turns(fakeapi.Say(fakeapi.Text("Making it."), bash), fakeapi.Say(fakeapi.Text("Done.")))
	s := newScenario(t, func(req *fakeapi.Request) fakeapi.Reply {
		if strings.Contains(strings.Join(req.UserText(), " "), "Look around") {
			return fakeapi.Say(fakeapi.Text("The second run looked."))
		}
		return first(req)
	})
	// The person's own git configuration, which the agent's git reads too.
	s.env.Set("GIT_CONFIG_GLOBAL", "")
	if err := os.WriteFile(filepath.Join(s.env.Home, ".gitconfig"), []byte("[user]\n\tname = segwi test\n\temail = test@segwi.invalid\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true})
	s.writeConfig(config{apiURL: server.Base + "/api/v3"})
	claudetest.Git(t, s.checkout, "push", "--quiet", server.Bare, "main")
	claudetest.Git(t, s.checkout, "remote", "add", "origin", server.URL)
	claudetest.Git(t, s.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	claudetest.Git(t, s.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	claudetest.Git(t, s.checkout, "switch", "--quiet", "-c", "segwi/nested")
	t.Cleanup(func() { killSleeps(t, s.env.Home) })

	run := s.start("run", "--checkout", s.checkout, "Make a nested repository")
	id := run.runID()
	wantExit(t, run, 0)
	if res := s.toolResult(bash); res.IsError {
		t.Fatalf("the payload failed: %s", res.Text)
	}
	log := filepath.Join(s.checkout, "sub", "LOG")
	if got := claudetest.Git(t, filepath.Join(s.checkout, "sub"), "config", "core.fsmonitor"); !strings.Contains(got, "FSMON") {
		t.Fatalf("the nested repository's fsmonitor is %q", got)
	}
	// What the agent's own git ran inside the run is the run's, and was swept with it.
	ranInRun, _ := os.ReadFile(log)
	if left := sleeps(s.env.Home); len(left) > 0 {
		t.Errorf("the run left its sleeps: %v", left)
		killSleeps(t, s.env.Home)
	}
	check := func(what string) {
		t.Helper()
		if b, _ := os.ReadFile(log); string(b) != string(ranInRun) {
			t.Errorf("%s ran the nested repository's fsmonitor: LOG went from %q to %q", what, ranInRun, b)
		}
		if left := sleeps(s.env.Home); len(left) > 0 {
			t.Errorf("%s left the fsmonitor's sleep running: %v", what, left)
			killSleeps(t, s.env.Home)
		}
	}

	diff := s.start("runs", "diff", id)
	wantExit(t, diff, 0)
	if !strings.Contains(diff.stdout.String(), "diff --git a/sub b/sub") {
		t.Errorf("runs diff does not show the nested repository as a gitlink:\n%s", diff.stdout.String())
	}
	check("segwi runs diff")

	commit := s.start("commit", id)
	wantExit(t, commit, 0)
	if !strings.Contains(commit.stdout.String(), "sub") {
		t.Errorf("segwi commit did not commit the gitlink:\n%s", commit.stdout.String())
	}
	if got := claudetest.Git(t, s.checkout, "ls-tree", "HEAD", "sub"); !strings.HasPrefix(got, "160000 commit ") {
		t.Errorf("HEAD holds sub as %q, want a gitlink", got)
	}
	check("segwi commit")

	next := s.start("run", "--checkout", s.checkout, "Look around")
	nextID := next.runID()
	wantExit(t, next, 0)
	if rec := s.loadRecord(nextID); !rec.info.Base.Known() {
		t.Errorf("the next run has no base: %+v", rec.info.Base)
	}
	check("the next run's base")

	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA)
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	if code := set.exit(); code != 0 {
		t.Fatalf("segwi token set exited %d", code)
	}
	p := s.start("push", id)
	wantExit(t, p, 0)
	if got, want := claudetest.Git(t, server.Bare, "rev-parse", "refs/heads/segwi/nested"), claudetest.Git(t, s.checkout, "rev-parse", "HEAD"); got != want {
		t.Errorf("the server has segwi/nested at %s, want %s", got, want)
	}
	check("segwi push")
	if rec := s.loadRecord(id); len(rec.find(runs.EventPush, nil)) == 0 {
		t.Error("the push is not on the run's record")
	}
}

// sleeps returns the fsmonitor's sleeps whose environment names the scenario's home.
func sleeps(home string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		pid := e.Name()
		if pid[0] < '0' || pid[0] > '9' {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		if string(cmd) != "sleep\x00907\x00" {
			continue
		}
		if env, _ := os.ReadFile(filepath.Join("/proc", pid, "environ")); strings.Contains(string(env), home) {
			found = append(found, pid)
		}
	}
	return found
}

// killSleeps kills the sleeps the fsmonitor left, and waits until they are gone.
func killSleeps(t *testing.T, home string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for left := sleeps(home); len(left) > 0; left = sleeps(home) {
		for _, pid := range left {
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
		if time.Now().After(deadline) {
			t.Errorf("could not kill the sleeps %v", left)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
