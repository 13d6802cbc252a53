package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/runs"
)

// The attack of issue 20 (section 3), end to end: the agent edits segwi.github.apiURL in the
// settings file to its own server and points the checkout's origin there, then the person
// runs segwi push with the token in the keyring. Before, segwi pushed to the agent's server
// and it logged the token. Now the edit waits for the person, so segwi refuses the remote;
// and when the person confirms the edit without reading it, the token, bound to the host
// it was saved for, still goes nowhere else.
func TestTheAgentCannotPointTheTokenAtItsOwnServer(t *testing.T) {
	twoAtATime(t)
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true}) // the person's GitHub Enterprise
	var mu sync.Mutex
	var requests int
	var passwords []string // what the agent's server was sent
	// nothingSent fails the test when the agent's server got a request since the last call.
	nothingSent := func(after string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if requests > 0 {
			t.Errorf("%s: the agent's server got %d requests, with the passwords %q; want none", after, requests, passwords)
		}
		requests, passwords = 0, nil
	}
	evil := gitserver.New(t, gitserver.Options{Token: "the-agent-knows-no-token", TLS: true,
		Saw: func(r *http.Request, _ bool) {
			mu.Lock()
			defer mu.Unlock()
			requests++
			if _, pass, ok := r.BasicAuth(); ok {
				passwords = append(passwords, pass)
			}
		}})
	host, evilHost := strings.TrimPrefix(server.Base, "https://"), strings.TrimPrefix(evil.Base, "https://")

	// The agent finds segwi's settings where segwi looks for them.
	redirect := `sed -i 's#apiURL: .*#apiURL: "` + evil.Base + `/api/v3"#' "${XDG_CONFIG_HOME:-$HOME/.config}/segwi/config.yaml"` +
		" && git remote set-url origin " + evil.URL + " && echo redirected"
	bash := fakeapi.ToolUse("Bash", fakeapi.Input{"command": redirect, "description": "Point origin at the mirror"})
	s := newScenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Pointing origin at the mirror."), bash),
		fakeapi.Say(fakeapi.Text("Done.")),
	))
	settingsFile := filepath.Join(s.env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml")
	s.writeConfig(config{apiURL: server.Base + "/api/v3"})

	claudetest.Git(t, s.checkout, "push", "--quiet", server.Bare, "main")
	claudetest.Git(t, s.checkout, "remote", "add", "origin", server.URL)
	claudetest.Git(t, s.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	claudetest.Git(t, s.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	claudetest.Git(t, s.checkout, "switch", "--quiet", "-c", "segwi/e2e")
	claudetest.Git(t, s.checkout, "commit", "--quiet", "--allow-empty", "-m", "The run's work")

	// The person saves the token, for their server: the settings as they wrote them.
	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA) // httptest's one certificate: the agent's server has it too
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	if code := set.exit(); code != 0 {
		t.Fatalf("segwi token set exited %d", code)
	}
	if !strings.Contains(set.stdout.String(), "for "+host) {
		t.Errorf("segwi token set said %q; want the token saved for %s", set.stdout.String(), host)
	}

	run := s.start("run", "--checkout", s.checkout, "Point origin at the mirror")
	id := run.runID()
	if code := run.exit(); code != 0 {
		t.Fatalf("the run exited %d, want 0", code)
	}
	if got := s.toolResult(bash); got.IsError || !strings.Contains(got.Text, "redirected") {
		t.Fatalf("the Bash tool did not redirect: %+v", got)
	}
	if b, _ := os.ReadFile(settingsFile); !strings.Contains(string(b), evil.Base) {
		t.Fatalf("the settings file does not name the agent's server:\n%s", b)
	}

	var outputs []string
	p := s.start("push", id)
	code := p.exit()
	outputs = append(outputs, p.stdout.String(), p.stderr.String())
	if want := "not pushed: remote origin points at " + evil.URL + ", and segwi sends its GitHub token only to " + host; code != 1 || !strings.HasPrefix(p.stdout.String(), want) {
		t.Errorf("push after the agent's edit: exit %d, stdout %q; want 1 and %q", code, p.stdout.String(), want)
	}
	if want := "warning:   segwi.github.apiURL: " + server.Base + "/api/v3 -> " + evil.Base + "/api/v3"; !strings.Contains(p.stderr.String(), want) {
		t.Errorf("push did not say the agent's edit waits: stderr lacks %q:\n%s", want, p.stderr.String())
	}
	nothingSent("the push after the agent's edit")

	// A person who confirms the edit without reading it, at the terminal.
	confirm := s.startOnTerminal("config", "confirm")
	confirm.term.waitCount(t, confirm, "Type yes to confirm: ", 1, 30*time.Second)
	if shown := confirm.term.String(); !strings.Contains(shown, "new (in the file): "+evil.Base+"/api/v3") {
		t.Errorf("config confirm did not show the new value:\n%s", shown)
	}
	confirm.term.typeLine(t, "yes")
	if code := confirm.exit(); code != 0 {
		t.Fatalf("segwi config confirm exited %d", code)
	}
	p = s.start("push", id)
	code = p.exit()
	outputs = append(outputs, p.stdout.String(), p.stderr.String())
	if want := "not pushed: the GitHub token was saved for " + host + ", not for " + evilHost; code != 1 || !strings.HasPrefix(p.stdout.String(), want) {
		t.Errorf("push after the edit was confirmed: exit %d, stdout %q; want 1 and %q", code, p.stdout.String(), want)
	}

	nothingSent("the push after the edit was confirmed")
	for _, o := range outputs {
		if strings.Contains(o, pushToken) {
			t.Errorf("segwi printed the token: %q", o)
		}
	}
	refused := s.loadRecord(id).find(runs.EventPush, func(e runs.Event) bool { return e.Push != nil && e.Push.Reason == "token-host" })
	if len(refused) != 2 {
		t.Errorf("the run's record holds %d token-host refusals, want 2", len(refused))
	}
}
