package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/proctest"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings/token/keyring"
)

// askRefusal is why segwi does not push, commit or open a pull request for an ask run.
const askRefusal = "the run is an ask run: it was to change nothing, so segwi ships nothing of it; start a build run for changes"

// pushToken is the token the test's git server and API accept.
const pushToken = "ghp_cliPUSHtest0123456789abcdefghijklmnop"

// forge is a loopback server with a git smart-HTTP endpoint at /me/repo.git (basic auth
// with pushToken) and GitHub's pull request API under /api/v3.
type forge struct {
	*gitserver.Server
	mu  sync.Mutex
	prs []map[string]any
}

func newForge(t *testing.T) *forge {
	t.Helper()
	f := &forge{}
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+pushToken {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v3/repos/me/repo":
			json.NewEncoder(w).Encode(map[string]any{"default_branch": "main"})
		case "POST /api/v3/repos/me/repo/pulls":
			var pr map[string]any
			json.NewDecoder(r.Body).Decode(&pr)
			f.mu.Lock()
			f.prs = append(f.prs, pr)
			f.mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"number": 7, "html_url": "http://forge.invalid/me/repo/pull/7"})
		default:
			http.NotFound(w, r)
		}
	})
	f.Server = gitserver.New(t, gitserver.Options{Token: pushToken, Repo: "me/repo.git", API: api})
	return f
}

func TestPush(t *testing.T) {
	home := isolate(t)
	keyring.MockInit()
	// The forge is plain HTTP on loopback, which segwi accepts only with the test option.
	segwi := func(t *testing.T, stdin string, args ...string) result {
		t.Helper()
		return segwiWith(t, Options{AllowLoopbackHTTP: true}, stdin, args...)
	}
	f := newForge(t)
	stateDir := filepath.Join(home, "state", "segwi")

	checkout := t.TempDir()
	claudetest.Git(t, checkout, "init", "--quiet", "-b", "main")
	os.WriteFile(filepath.Join(checkout, "a.txt"), []byte("a\n"), 0o644)
	claudetest.Git(t, checkout, "add", "a.txt")
	claudetest.Git(t, checkout, "commit", "--quiet", "-m", "first")
	claudetest.Git(t, checkout, "push", "--quiet", f.Bare, "main")
	claudetest.Git(t, checkout, "remote", "add", "forge", f.URL)
	claudetest.Git(t, checkout, "update-ref", "refs/remotes/forge/main", "HEAD")
	claudetest.Git(t, checkout, "symbolic-ref", "refs/remotes/forge/HEAD", "refs/remotes/forge/main")

	// The settings name the checkout's remote "forge" and point the API at the forge.
	cfg := writeConfig(t, "segwi:\n  claude:\n    path: "+fakeClaude(t)+"\n  repositories:\n    - name: repo\n      path: "+checkout+
		"\n      remote: forge\n  github:\n    apiURL: "+f.Base+"/api/v3\n")
	onMain := runIDLine(segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "fake:success").stderr)
	claudetest.Git(t, checkout, "switch", "--quiet", "-c", "segwi/fix")
	os.WriteFile(filepath.Join(checkout, "b.txt"), []byte("b\n"), 0o644)
	claudetest.Git(t, checkout, "add", "b.txt")
	claudetest.Git(t, checkout, "commit", "--quiet", "-m", "the run's work")
	commit := claudetest.Git(t, checkout, "rev-parse", "HEAD")
	onBranch := runIDLine(segwi(t, "", "--config", cfg, "run", "--checkout", checkout, "fake:success Fix the login page\nmore notes").stderr)
	var outputs []string

	lastPush := func(t *testing.T, id string) runs.Event {
		var last runs.Event
		runs.ReadEvents(stateDir, id, func(e runs.Event) error {
			if e.Type == runs.EventPush {
				last = e
			}
			return nil
		})
		if last.Push == nil {
			t.Fatalf("no push event on run %s", id)
		}
		return last
	}

	t.Run("without a token it is refused, saying how to set one", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "push", onBranch)
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 1 || !strings.Contains(r.stdout, "not pushed: no GitHub token is set; set one with `segwi token set`") {
			t.Errorf("got exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if e := lastPush(t, onBranch); e.Push.Outcome != "refused" || e.Push.Reason != "no-token" {
			t.Errorf("recorded %+v, want a no-token refusal", e.Push)
		}
	})
	t.Run("a token saved for another host is refused, saying how to save it for this one", func(t *testing.T) {
		if err := keyring.Set(context.Background(), pushToken, "https://api.github.com"); err != nil {
			t.Fatal(err)
		}
		host := strings.TrimPrefix(f.Base, "http://")
		r := segwi(t, "", "--config", cfg, "push", onBranch)
		outputs = append(outputs, r.stdout, r.stderr)
		want := "not pushed: the GitHub token was saved for api.github.com (git: github.com), not for " + host +
			" (segwi.github.apiURL), and segwi sends it only to the host it was saved for; if " + host +
			" is yours, save the token again for it: segwi token set, or Set token in segwi's settings window\n"
		if r.code != 1 || r.stdout != want {
			t.Errorf("got exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
		}
		if e := lastPush(t, onBranch); e.Push.Outcome != "refused" || e.Push.Reason != "token-host" {
			t.Errorf("recorded %+v, want a token-host refusal", e.Push)
		}
		if got := claudetest.Git(t, f.Bare, "for-each-ref", "refs/heads/segwi/"); got != "" {
			t.Errorf("the forge got %s", got)
		}
	})
	if err := keyring.Set(context.Background(), pushToken, f.Base+"/api/v3"); err != nil {
		t.Fatal(err)
	}
	t.Run("the remote's default branch is refused before any network call", func(t *testing.T) {
		claudetest.Git(t, checkout, "switch", "--quiet", "main")
		// The run named by its id's random end, as a person reads it in the list.
		r := segwi(t, "", "--config", cfg, "push", onMain[strings.LastIndex(onMain, "-")+1:])
		claudetest.Git(t, checkout, "switch", "--quiet", "segwi/fix")
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 1 || !strings.HasPrefix(r.stdout, "not pushed: ") || !strings.Contains(r.stdout, "main") {
			t.Errorf("got exit %d, stdout %q", r.code, r.stdout)
		}
		if e := lastPush(t, onMain); e.Push.Reason != "default-branch" {
			t.Errorf("recorded %+v, want a default-branch refusal", e.Push)
		}
	})
	t.Run("a finished run's branch is pushed to its repository's remote, and a PR opened", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "push", "--pr", onBranch)
		outputs = append(outputs, r.stdout, r.stderr)
		want := "pushed segwi/fix (commit " + commit[:12] + ") to forge (" + f.URL + ")\nopened pull request #7: http://forge.invalid/me/repo/pull/7\n"
		if r.code != 0 || r.stdout != want {
			t.Fatalf("got exit %d, stdout %q, stderr %q; want 0, %q", r.code, r.stdout, r.stderr, want)
		}
		if got := claudetest.Git(t, f.Bare, "rev-parse", "refs/heads/segwi/fix"); got != commit {
			t.Errorf("the forge has segwi/fix at %s, want %s", got, commit)
		}
		e := lastPush(t, onBranch)
		if e.Push.Outcome != "pushed" || e.Push.Remote != "forge" || e.Push.Branch != "segwi/fix" || e.Push.Commit != commit {
			t.Errorf("recorded %+v, want the pushed attempt", e.Push)
		}
		if info, err := runs.Load(stateDir, onBranch); err != nil || info.PullRequest != "http://forge.invalid/me/repo/pull/7" {
			t.Errorf("run.json's pull request = %q (%v), want its URL", info.PullRequest, err)
		}
		if r := segwi(t, "", "runs", "show", onBranch); !strings.Contains(r.stdout, "pull request  http://forge.invalid/me/repo/pull/7\n") {
			t.Errorf("runs show lacks the pull request:\n%s", r.stdout)
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.prs) != 1 || f.prs[0]["title"] != "fake:success Fix the login page" || f.prs[0]["head"] != "segwi/fix" || f.prs[0]["base"] != "main" ||
			!strings.Contains(f.prs[0]["body"].(string), "Made by a segwi build run of Claude Code (`"+onBranch+"`)") ||
			!strings.HasPrefix(f.prs[0]["body"].(string), "after escape\n") || !strings.Contains(f.prs[0]["body"].(string), "\n## Approvals\n") {
			t.Errorf("pull requests opened: %v", f.prs)
		}
	})
	t.Run("an ask run's checkout is never pushed, even on a pushable branch", func(t *testing.T) {
		// An ask run is to change nothing: pushing "its" branch would ship what it was not
		// asked to make (or the person's own work, under the ask run's name).
		ask := runIDLine(segwi(t, "", "--config", cfg, "run", "--kind", "ask", "--checkout", checkout, "fake:success where is the login?").stderr)
		claudetest.Git(t, checkout, "commit", "--quiet", "--allow-empty", "-m", "made during the ask run")
		defer claudetest.Git(t, checkout, "reset", "--quiet", "--hard", "HEAD~1")
		r := segwi(t, "", "--config", cfg, "push", "--pr", ask)
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 1 || r.stdout != "not pushed: "+askRefusal+"\n" {
			t.Errorf("got exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		if e := lastPush(t, ask); e.Push.Outcome != "refused" || e.Push.Reason != "ask-run" {
			t.Errorf("recorded %+v, want an ask-run refusal", e.Push)
		}
		if got := claudetest.Git(t, f.Bare, "rev-parse", "refs/heads/segwi/fix"); got != commit {
			t.Errorf("the forge has segwi/fix at %s, want it left at %s", got, commit)
		}
	})
	t.Run("a process the run left is killed before the push reads the token", func(t *testing.T) {
		// It could rewrite the checkout's git config between push's checks and git push.
		pid := proctest.Detach(t, append(os.Environ(), "SEGWI_RUN_ID="+onBranch), 7411)
		r := segwi(t, "", "--config", cfg, "push", onBranch)
		outputs = append(outputs, r.stdout, r.stderr)
		if proctest.Alive(pid, "sleep 7411") {
			t.Errorf("process %d of run %s is alive after segwi push", pid, onBranch)
		}
		var killedAt, pushedAt int64
		runs.ReadEvents(stateDir, onBranch, func(e runs.Event) error {
			switch {
			case e.Type == runs.EventLeftover && e.Process.PID == pid && e.Process.Killed:
				killedAt = e.Seq
			case e.Type == runs.EventPush:
				pushedAt = e.Seq
			}
			return nil
		})
		if killedAt == 0 || killedAt > pushedAt {
			t.Errorf("the kill of process %d is event %d, the push attempt event %d; want the kill recorded first", pid, killedAt, pushedAt)
		}
	})
	t.Run("an unknown run is an error naming it", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "push", "nope")
		if r.code != 1 || !strings.Contains(r.stderr, `run "nope": run not found`) {
			t.Errorf("got exit %d, stderr %q", r.code, r.stderr)
		}
	})
	t.Run("without the test option the plain-http forge is refused, naming the key", func(t *testing.T) {
		r := segwiWith(t, Options{}, "", "--config", cfg, "push", onBranch)
		if r.code != 1 || !strings.Contains(r.stderr, "segwi.github.apiURL: must be an https URL") {
			t.Errorf("got exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("the token is in no file and no output", func(t *testing.T) {
		for _, o := range outputs {
			if strings.Contains(o, pushToken) {
				t.Errorf("printed: %q", o)
			}
		}
		filepath.WalkDir(home, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(path); strings.Contains(string(b), pushToken) {
					t.Errorf("%s holds the token", path)
				}
			}
			return nil
		})
	})
}
