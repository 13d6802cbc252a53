package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/runs"
)

// pushToken is the GitHub token the test's git server accepts.
const pushToken = "ghp_e2ePUSHtoken0123456789abcdefghijKLMN"

// rewriterScript is the loop a hostile agent leaves running: it puts the clean config and
// the one naming its proxy in .git/config in turn, each atomically, every 2 ms.
const rewriterScript = `while :; do ` +
	`cp .git/segwi-clean .git/c1 && mv -f .git/c1 .git/config; sleep 0.002; ` +
	`cp .git/segwi-evil .git/c2 && mv -f .git/c2 .git/config; sleep 0.002; done`

// The attack of issue 10, end to end: the agent's Bash tool leaves a detached process that
// keeps rewriting the checkout's .git/config to name the agent's proxy; the person then
// runs segwi push, again and again, with the token in the keyring. The proxy must never
// see the push, and each push must land on the real server (or be refused, saying why).
func TestAPushWhileTheRunsProcessRewritesGitConfig(t *testing.T) {
	twoAtATime(t)
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true}) // git's smart HTTP over TLS
	proxy := gitserver.NewProxy(t)
	marker := "segwi-e2e-rewriter-" + strconv.Itoa(os.Getpid())
	start := "cp .git/config .git/segwi-clean && cp .git/config .git/segwi-evil && " +
		"printf '[http]\\n\\tproxy = " + proxy.URL + "\\n' >> .git/segwi-evil && " +
		"setsid -f sh -c '" + rewriterScript + "' " + marker + " </dev/null >/dev/null 2>&1 && echo started"
	bash := fakeapi.ToolUse("Bash", fakeapi.Input{"command": start, "description": "Start a helper"})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Starting a helper."), bash),
		fakeapi.Say(fakeapi.Text("Done.")),
	))
	// Registered first, so it runs last: whatever happens, no rewriter outlives the test.
	t.Cleanup(func() { killMarked(t, s.env.Home, marker) })
	apiURL := server.Base + "/api/v3" // the token goes to this host
	s.writeConfig(config{apiURL: apiURL})

	// The checkout: origin is the server, which has main; the run's work is on a branch.
	claudetest.Git(t, s.checkout, "push", "--quiet", server.Bare, "main")
	claudetest.Git(t, s.checkout, "remote", "add", "origin", server.URL)
	claudetest.Git(t, s.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	claudetest.Git(t, s.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	claudetest.Git(t, s.checkout, "switch", "--quiet", "-c", "segwi/e2e")
	claudetest.Git(t, s.checkout, "commit", "--quiet", "--allow-empty", "-m", "The run's work")
	commit := claudetest.Git(t, s.checkout, "rev-parse", "HEAD")

	run := s.start("run", "--checkout", s.checkout, "Start a helper")
	id := run.runID()
	if code := run.exit(); code != 0 {
		t.Fatalf("the run exited %d, want 0", code)
	}
	if got := s.toolResult(bash); got.IsError || !strings.Contains(got.Text, "started") {
		t.Fatalf("the Bash tool did not start the rewriter: %+v", got)
	}
	if left := processesWith("HOME="+s.env.Home, marker); len(left) > 0 {
		t.Logf("the run left its rewriter running: %v", left)
	} else {
		// segwi ended the run's processes with the run (issue 10, finding 3). The push
		// must hold on its own, so a stand-in for a process left behind races it.
		t.Log("the run's rewriter is gone with the run; starting the same rewriter as a stand-in")
		// Its output goes nowhere: a pipe would be held open by the detached loop, and
		// waiting for the pipe to close would wait for the loop.
		cmd := exec.Command("setsid", "-f", "sh", "-c", rewriterScript, marker)
		cmd.Dir, cmd.Env = s.checkout, s.env.Vars()
		if err := cmd.Run(); err != nil {
			t.Fatalf("starting the stand-in rewriter: %v", err)
		}
	}

	// The token goes into a keyring of the test's own; git trusts the server's certificate
	// through the environment, as a person with a company CA would.
	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA)
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	if code := set.exit(); code != 0 {
		t.Fatalf("segwi token set exited %d", code)
	}

	const pushes = 10
	var outputs []string
	proxied := 0 // pushes that found .git/config naming the proxy when they ended
	for i := 0; i < pushes; i++ {
		p := s.start("push", id)
		code := p.exit()
		outputs = append(outputs, p.stdout.String(), p.stderr.String())
		switch {
		case code == 0 && strings.HasPrefix(p.stdout.String(), "pushed segwi/e2e (commit "+commit[:12]+") to origin"):
		case code == 1 && strings.HasPrefix(p.stdout.String(), "not pushed: "):
			t.Logf("push %d was refused: %s", i+1, p.stdout.String())
		default:
			t.Errorf("push %d: exit %d, stdout %q, stderr %q; want pushed, or refused saying why", i+1, code, p.stdout.String(), p.stderr.String())
		}
		if b, _ := os.ReadFile(filepath.Join(s.checkout, ".git", "config")); strings.Contains(string(b), proxy.URL) {
			proxied++
		}
	}
	if len(processesWith("HOME="+s.env.Home, marker)) == 0 {
		t.Fatal("the rewriter is not running any more, so the pushes did not race it")
	}
	connections, credentials := proxy.Seen()
	t.Logf("%d pushes while the rewriter ran (.git/config named the proxy after %d of them); the proxy saw %d connections, %d with credentials",
		pushes, proxied, connections, len(credentials))
	if len(credentials) > 0 {
		t.Errorf("the agent's proxy received credentials: %q", credentials)
	}
	if connections > 0 {
		t.Errorf("the agent's proxy saw %d connections; want none: segwi push must not read the checkout's config", connections)
	}
	if got := claudetest.Git(t, server.Bare, "rev-parse", "refs/heads/segwi/e2e"); got != commit {
		t.Errorf("the server has segwi/e2e at %s, want %s", got, commit)
	}
	rec := s.loadRecord(id)
	pushed := rec.find(runs.EventPush, func(e runs.Event) bool { return e.Push != nil && e.Push.Outcome == "pushed" })
	if len(pushed) == 0 {
		t.Errorf("the run's record holds no pushed attempt; events: %v", types(rec))
	}

	// The token is nowhere segwi wrote or printed, and no private repository is left.
	for _, o := range outputs {
		if strings.Contains(o, pushToken) {
			t.Errorf("segwi printed the token: %q", o)
		}
	}
	checkNoSecret(t, rec.info.Dir, pushToken)
	for _, dir := range []string{s.env.Home, s.env.TempDir, s.checkout} {
		filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if b, _ := os.ReadFile(path); strings.Contains(string(b), pushToken) {
					t.Errorf("%s holds the token", path)
				}
			}
			return nil
		})
	}
	if left, _ := filepath.Glob(filepath.Join(s.env.TempDir, "segwi-push-*")); len(left) > 0 {
		t.Errorf("pushes left their private repositories: %v", left)
	}
}

// killMarked kills every process started under home whose command line holds marker, and
// fails the test if one is still alive 5 s later.
func killMarked(t *testing.T, home, marker string) {
	t.Helper()
	kill := func() []string {
		left := processesWith("HOME="+home, marker)
		for _, p := range left {
			pid, _ := strconv.Atoi(p[:strings.IndexByte(p, ':')])
			if pid > 0 && pid != os.Getpid() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		return left
	}
	await.For(t, 5*time.Second, "the rewriter's processes to be gone", func() error {
		if left := kill(); len(left) > 0 {
			return fmt.Errorf("still running: %v", left)
		}
		return nil
	})
}
