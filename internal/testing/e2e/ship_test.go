package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/sessionbus"
)

// A person's side of a build run, end to end with the real Claude Code: the run edits a
// tracked file (Edit) and adds one (Write) while a file of the person's was already
// changed; segwi records the base, shows both changes, commits them as the person leaving
// their file out, pushes, opens the pull request (recorded on the run), and a continued
// run resumes the session: the model sees the earlier conversation.
func TestABuildRunIsSeenCommittedPushedAndContinued(t *testing.T) {
	twoAtATime(t)
	var s *scenario
	hello := func() string { return filepath.Join(s.checkout, "hello.txt") }
	read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": "HELLO"})
	edit := fakeapi.ToolUse("Edit", fakeapi.Input{"file_path": "HELLO", "old_string": "hello from the test checkout", "new_string": "hello from the run"})
	write := fakeapi.ToolUse("Write", fakeapi.Input{"file_path": "XTXT", "content": "a file the run made\n"})
	const task, next = "Change the greeting and add x.txt", "Now say what you changed"
	replies := []fakeapi.Reply{
		fakeapi.Say(fakeapi.Text("Reading it."), read),
		fakeapi.Say(fakeapi.Text("Changing it."), edit, write),
		fakeapi.Say(fakeapi.Text("Done: the greeting is changed and x.txt added.")),
		fakeapi.Say(fakeapi.Text("I changed hello.txt and added x.txt.")),
	}
	s = newScenario(t, func(req *fakeapi.Request) fakeapi.Reply {
		n := req.Turn()
		if n >= len(replies) {
			return fakeapi.Unexpected("a request for turn %d", n)
		}
		r := replies[n]
		r.Content = slices.Clone(r.Content)
		for i, b := range r.Content {
			// The paths are the checkout's, known once the scenario is made.
			text := strings.ReplaceAll(strings.ReplaceAll(string(b.Input), "HELLO", hello()), "XTXT", filepath.Join(s.checkout, "x.txt"))
			r.Content[i].Input = json.RawMessage(text)
		}
		return r
	})

	server, prs := s.forge(t, 12)
	baseCommit := claudetest.Git(t, s.checkout, "rev-parse", "HEAD")

	run := s.start("run", "--checkout", s.checkout, task)
	id := run.runID()
	if code := run.exit(); code != 0 {
		t.Fatalf("the run exited %d, want 0", code)
	}
	for _, b := range []fakeapi.Block{edit, write} {
		if res := s.toolResult(b); res.IsError {
			t.Fatalf("%s failed: %s", b.Name, res.Text)
		}
	}
	rec := s.loadRecord(id)
	if b := rec.info.Base; b == nil || b.Branch != "segwi/greeting" || b.Commit != baseCommit || !slices.Equal(b.Dirty, []string{"README.md"}) {
		t.Fatalf("the run's base = %+v, want segwi/greeting at %s with README.md dirty", b, baseCommit)
	}

	t.Run("runs diff shows the edit and the new file", func(t *testing.T) {
		p := s.start("runs", "diff", id)
		wantExit(t, p, 0)
		for _, want := range []string{"-hello from the test checkout\n+hello from the run\n", "diff --git a/x.txt b/x.txt\nnew file mode 100644\n", "+a file the run made\n"} {
			if !strings.Contains(p.stdout.String(), want) {
				t.Errorf("runs diff lacks %q:\n%s", want, p.stdout.String())
			}
		}
		stat := s.start("runs", "diff", "--stat", id)
		wantExit(t, stat, 0)
		if out := strings.Join(strings.Fields(stat.stdout.String()), " "); !strings.Contains(out, "modified README.md +1 -0 already changed before the run modified hello.txt +1 -1 added x.txt +1 -0") {
			t.Errorf("runs diff --stat:\n%s", stat.stdout.String())
		}
	})

	t.Run("commit leaves the person's file out, push and the pull request land", func(t *testing.T) {
		p := s.start("commit", id)
		wantExit(t, p, 0)
		if out := p.stdout.String(); !strings.Contains(out, "on segwi/greeting as segwi test <test@segwi.invalid>: "+task+"\n") ||
			!strings.Contains(out, "  files: hello.txt, x.txt\n") || !strings.Contains(out, "left out, already changed before the run: README.md") {
			t.Errorf("segwi commit said:\n%s", out)
		}
		if st := claudetest.Status(t, s.checkout); st != "M README.md" {
			t.Errorf("after the commit, git status = %q, want only the person's README.md", st)
		}
		if files := claudetest.Git(t, s.checkout, "show", "--name-only", "--format=", "HEAD"); files != "hello.txt\nx.txt" {
			t.Errorf("the commit holds %q", files)
		}

		s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
		s.env.Set("GIT_SSL_CAINFO", server.CA)
		s.env.Set("SSL_CERT_FILE", server.CA) // the API client's trust, as git's
		set := s.command([]string{"token", "set"})
		set.cmd.Stdin = strings.NewReader(pushToken + "\n")
		set.run(t)
		wantExit(t, set, 0)
		push := s.start("push", "--pr", id)
		wantExit(t, push, 0)
		commit := claudetest.Git(t, s.checkout, "rev-parse", "HEAD")
		if got := claudetest.Git(t, server.Bare, "rev-parse", "refs/heads/segwi/greeting"); got != commit {
			t.Errorf("the server has segwi/greeting at %s, want the commit %s", got, commit)
		}
		prs := prs()
		if len(prs) != 1 || prs[0]["head"] != "segwi/greeting" || prs[0]["base"] != "main" || prs[0]["title"] != task ||
			!strings.Contains(prs[0]["body"].(string), "run of Claude Code (`"+id+"`)") ||
			!strings.HasPrefix(prs[0]["body"].(string), "Done: the greeting is changed and x.txt added.\n") {
			t.Errorf("pull requests opened: %v", prs)
		}
		if info := s.loadRecord(id).info; info.PullRequest != "https://forge.example/me/web/pull/12" {
			t.Errorf("the run records pull request %q", info.PullRequest)
		}
	})

	t.Run("a continued run resumes the session", func(t *testing.T) {
		p := s.start("run", "--continue", id, next)
		nextID := p.runID()
		wantExit(t, p, 0)
		last := s.srv.Last()
		texts := strings.Join(last.UserText(), "\n")
		if last.Turn() != 3 || !strings.Contains(texts, task) || !strings.Contains(texts, next) {
			t.Errorf("the continued run's request holds %d assistant turns and user text %q; want the earlier 3 and both prompts", last.Turn(), texts)
		}
		if got := s.loadRecord(nextID).info; got.ContinuedFrom != id || got.Checkout != rec.info.Checkout {
			t.Errorf("the continued run: from %q in %s, want %s in %s", got.ContinuedFrom, got.Checkout, id, rec.info.Checkout)
		}
		if got := s.loadRecord(id).info; !slices.Equal(got.ContinuedBy, []string{nextID}) {
			t.Errorf("the earlier run is continued by %q, want [%s]", got.ContinuedBy, nextID)
		}
	})
}

// A run and its continuation are one piece of work, end to end with the real Claude Code:
// the first run edits hello.txt, the continuation (its session resumed) adds notes.txt, and
// a file of the person's was changed before the first run. Committing the continuation
// commits both runs' files, leaves the person's out, and says the first task, Claude's
// final summary and the Segwi-Runs trailer naming both runs; the pull request is titled
// after the first task and tells the whole conversation. Before, the commit held only
// notes.txt (the first run's hello.txt counted as changed before the run) under the
// follow-up's words.
func TestAContinuedConversationIsCommittedAndOpenedAsOne(t *testing.T) {
	twoAtATime(t)
	var s *scenario
	read := fakeapi.ToolUse("Read", fakeapi.Input{"file_path": "HELLO"})
	edit := fakeapi.ToolUse("Edit", fakeapi.Input{"file_path": "HELLO", "old_string": "hello from the test checkout", "new_string": "hello from the run"})
	write := fakeapi.ToolUse("Write", fakeapi.Input{"file_path": "NOTES", "content": "the greeting changed\n"})
	const task, next = "Change the greeting", "Yes, and note it in notes.txt."
	const summary = "The greeting is changed, and notes.txt says so."
	replies := []fakeapi.Reply{
		fakeapi.Say(fakeapi.Text("Reading it."), read),
		fakeapi.Say(fakeapi.Text("Changing it."), edit),
		fakeapi.Say(fakeapi.Text("Done: the greeting is changed. Shall I note it?")),
		fakeapi.Say(fakeapi.Text("Noting it."), write),
		fakeapi.Say(fakeapi.Text(summary)),
	}
	s = newScenario(t, func(req *fakeapi.Request) fakeapi.Reply {
		n := req.Turn()
		if n >= len(replies) {
			return fakeapi.Unexpected("a request for turn %d", n)
		}
		r := replies[n]
		r.Content = slices.Clone(r.Content)
		for i, b := range r.Content {
			text := strings.ReplaceAll(strings.ReplaceAll(string(b.Input), "HELLO", filepath.Join(s.checkout, "hello.txt")), "NOTES", filepath.Join(s.checkout, "notes.txt"))
			r.Content[i].Input = json.RawMessage(text)
		}
		return r
	})

	server, prs := s.forge(t, 13)

	first := s.start("run", "--checkout", s.checkout, task)
	id := first.runID()
	wantExit(t, first, 0)
	cont := s.start("run", "--continue", id, next)
	nextID := cont.runID()
	wantExit(t, cont, 0)
	for _, b := range []fakeapi.Block{edit, write} {
		if res := s.toolResult(b); res.IsError {
			t.Fatalf("%s failed: %s", b.Name, res.Text)
		}
	}

	stat := s.start("runs", "diff", "--stat", nextID)
	wantExit(t, stat, 0)
	if out := strings.Join(strings.Fields(stat.stdout.String()), " "); !strings.HasPrefix(out, "runs "+id+" and "+nextID+": changes since") ||
		!strings.Contains(out, "modified README.md +1 -0 already changed before the first run modified hello.txt +1 -1 added notes.txt +1 -0") {
		t.Errorf("runs diff --stat of the continuation:\n%s", stat.stdout.String())
	}

	p := s.start("commit", nextID)
	wantExit(t, p, 0)
	if out := p.stdout.String(); !strings.Contains(out, ": "+task+"\n") || !strings.Contains(out, "  files: hello.txt, notes.txt\n") ||
		!strings.Contains(out, "left out, already changed before the run: README.md") {
		t.Errorf("segwi commit said:\n%s", out)
	}
	if files := claudetest.Git(t, s.checkout, "show", "--name-only", "--format=", "HEAD"); files != "hello.txt\nnotes.txt" {
		t.Errorf("the commit holds %q, want both runs' files", files)
	}
	if msg, want := claudetest.Git(t, s.checkout, "log", "-1", "--format=%B"), task+"\n\n"+summary+"\n\nSegwi-Runs: "+id+", "+nextID; msg != want {
		t.Errorf("the commit message is %q, want %q", msg, want)
	}
	if st := claudetest.Status(t, s.checkout); st != "M README.md" {
		t.Errorf("after the commit, git status = %q, want only the person's README.md", st)
	}

	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA)
	s.env.Set("SSL_CERT_FILE", server.CA)
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	wantExit(t, set, 0)
	push := s.start("push", "--pr", id) // any run of the conversation names it
	wantExit(t, push, 0)
	opened := prs()
	if len(opened) != 1 {
		t.Fatalf("pull requests opened: %v", opened)
	}
	body, _ := opened[0]["body"].(string)
	if opened[0]["title"] != task || opened[0]["head"] != "segwi/greeting" {
		t.Errorf("the pull request is %q from %v, want %q from segwi/greeting", opened[0]["title"], opened[0]["head"], task)
	}
	for _, want := range []string{
		summary + "\n\n## Conversation\n",
		"Made by a segwi build run of Claude Code and 1 continuation (`" + id + "` and `" + nextID + "`)",
		"**Asked** (`" + id + "`):\n\n> " + task + "\n",
		"**Continued** (`" + nextID + "`):\n\n> " + next + "\n",
		"\n## Approvals\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the pull request's body lacks %q:\n%s", want, body)
		}
	}
}

// forge serves a loopback forge for a ship test: a git server over TLS holding the
// checkout's main as me/web.git, and a GitHub API that answers the repository's default
// branch and opens pull request number pr. It points the checkout's origin at it, on a
// branch segwi/greeting, with the person's own unfinished edit of README.md made before
// any run. It returns the server and what the pull requests asked to open held so far.
func (s *scenario) forge(t *testing.T, pr int) (*gitserver.Server, func() []map[string]any) {
	t.Helper()
	var mu sync.Mutex
	var prs []map[string]any
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+pushToken {
			http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
			return
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v3/repos/me/web":
			json.NewEncoder(w).Encode(map[string]any{"default_branch": "main"})
		case "POST /api/v3/repos/me/web/pulls":
			var opened map[string]any
			json.NewDecoder(r.Body).Decode(&opened)
			mu.Lock()
			prs = append(prs, opened)
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"number": pr, "html_url": fmt.Sprintf("https://forge.example/me/web/pull/%d", pr)})
		default:
			http.NotFound(w, r)
		}
	})
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true, Repo: "me/web.git", API: api})
	s.writeConfig(config{apiURL: server.Base + "/api/v3"})
	claudetest.Git(t, s.checkout, "push", "--quiet", server.Bare, "main")
	claudetest.Git(t, s.checkout, "remote", "add", "origin", server.URL)
	claudetest.Git(t, s.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	claudetest.Git(t, s.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	claudetest.Git(t, s.checkout, "switch", "--quiet", "-c", "segwi/greeting")
	if err := os.WriteFile(filepath.Join(s.checkout, "README.md"), []byte(claudetest.CheckoutReadme+"my own note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return server, func() []map[string]any {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(prs)
	}
}
