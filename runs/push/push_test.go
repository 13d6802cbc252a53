package push

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var errTestNotFound = errors.New("test keyring: secret not found")

// giveToken returns a token reader that answers tok and counts its calls.
func giveToken(tok string, calls *int) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		*calls++
		return tok, nil
	}
}

func TestPushWithTheRightTokenLandsInTheServedRepository(t *testing.T) {
	f := newFixture(t)
	want := f.run(f.checkout, "rev-parse", "HEAD")

	// A git wrapper logs every argv and environment git is started with into the test's
	// HOME, which is searched for the token when the test ends.
	logPath := filepath.Join(f.home, "git-invocations.log")
	wrapper := filepath.Join(f.home, "git-wrapper")
	script := fmt.Sprintf("#!/bin/sh\n{ printf 'argv:'; printf ' %%s' \"$@\"; echo; env; } >> '%s'\nexec '%s' \"$@\"\n", logPath, f.git)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	var calls int
	var records []Attempt
	req := f.request(giveToken(testToken, &calls), &records)
	req.Git = wrapper
	a, err := Push(context.Background(), req)
	f.captureAttempt(a, err)
	if err != nil {
		t.Fatalf("Push: %v\ngit said: %s", err, a.GitOutput)
	}

	if got := f.bareHas("segwi/feature"); got != want {
		t.Errorf("served repository has segwi/feature at %q, want %q", got, want)
	}
	if a.Outcome != Pushed || a.Branch != "segwi/feature" || a.Commit != want || a.Remote != "origin" || a.URL != f.url {
		t.Errorf("attempt = %+v, want pushed segwi/feature at %s to origin (%s)", a, want, f.url)
	}
	if !strings.Contains(a.Message, "pushed segwi/feature") {
		t.Errorf("message = %q, want it to say the branch was pushed", a.Message)
	}
	if len(records) != 1 || records[0] != a {
		t.Errorf("recorded %+v, want exactly the returned attempt", records)
	}
	if calls != 1 {
		t.Errorf("token read %d times, want 1", calls)
	}
	f.mu.Lock()
	users := f.users
	f.mu.Unlock()
	if len(users) == 0 || users[0] != credentialUsername {
		t.Errorf("server saw usernames %q, want %q", users, credentialUsername)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatalf("the git wrapper left no log: %v", err)
	}
	for _, w := range []string{"=credential.helper\n", " push ", "GIT_TERMINAL_PROMPT=0"} {
		if !strings.Contains(string(log), w) {
			t.Errorf("git invocation log lacks %q, so it cannot show where the token went:\n%s", w, log)
		}
	}
	// The remote-tracking branch follows, as after a push by hand.
	if got := f.run(f.checkout, "rev-parse", "refs/remotes/origin/segwi/feature"); got != want {
		t.Errorf("origin/segwi/feature = %q, want %q", got, want)
	}
}

func TestPushWithAWrongTokenFailsAndSaysTheTokenWasRefused(t *testing.T) {
	f := newFixture(t)
	const wrong = "ghp_wrongTOKEN9876543210zyxwvutsrqponmlk"
	var calls int
	var records []Attempt
	a, err := Push(context.Background(), f.request(giveToken(wrong, &calls), &records))
	f.captureAttempt(a, err)
	if err == nil {
		t.Fatalf("Push with a wrong token succeeded: %+v", a)
	}
	var r *RefusedError
	if errors.As(err, &r) {
		t.Fatalf("Push refused (%v), want it to try and fail", err)
	}
	if a.Outcome != Failed {
		t.Errorf("outcome = %q, want %q", a.Outcome, Failed)
	}
	for _, w := range []string{"refused the GitHub token", "segwi token set"} {
		if !strings.Contains(a.Message, w) || !strings.Contains(err.Error(), w) {
			t.Errorf("message %q / error %q lacks %q", a.Message, err, w)
		}
	}
	if got := f.bareHas("segwi/feature"); got != "" {
		t.Errorf("served repository has segwi/feature at %s after a refused token", got)
	}
	if f.requests.Load() == 0 {
		t.Error("the server saw no request, so the wrong token was never tried")
	}
	if len(records) != 1 || records[0].Outcome != Failed {
		t.Errorf("recorded %+v, want one failed attempt", records)
	}
	for _, s := range []string{a.Message, a.GitOutput, err.Error()} {
		if strings.Contains(s, wrong) {
			t.Errorf("output holds the wrong token: %q", s)
		}
	}
}

func TestPushRefusesBeforeAnyNetworkCall(t *testing.T) {
	notFound := func(context.Context) (string, error) {
		return "", fmt.Errorf("reading keyring: %w", errTestNotFound)
	}
	tests := []struct {
		name      string
		setup     func(f *fixture, req *Request)
		token     func(context.Context) (string, error) // nil: the token must not be read
		reason    Reason
		wantWords string
	}{
		{
			name:      "the remote's default branch is refused",
			setup:     func(f *fixture, _ *Request) { f.run(f.checkout, "switch", "--quiet", "main") },
			reason:    ReasonDefaultBranch,
			wantWords: "default branch of origin",
		},
		{
			name: "a default branch with another name is refused",
			setup: func(f *fixture, _ *Request) {
				f.run(f.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
				f.run(f.checkout, "switch", "--quiet", "-c", "trunk")
			},
			reason:    ReasonDefaultBranch,
			wantWords: "trunk is the default branch",
		},
		{
			name: "main is refused when the remote's default branch is not recorded",
			setup: func(f *fixture, _ *Request) {
				f.run(f.checkout, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD")
				f.run(f.checkout, "switch", "--quiet", "main")
			},
			reason:    ReasonDefaultBranch,
			wantWords: "git remote set-head origin --auto",
		},
		{
			name: "master is refused when the remote's default branch is not recorded",
			setup: func(f *fixture, _ *Request) {
				f.run(f.checkout, "symbolic-ref", "--delete", "refs/remotes/origin/HEAD")
				f.run(f.checkout, "switch", "--quiet", "-c", "master")
			},
			reason:    ReasonDefaultBranch,
			wantWords: "master is usually a default branch",
		},
		{
			name:      "a detached HEAD is refused",
			setup:     func(f *fixture, _ *Request) { f.run(f.checkout, "switch", "--quiet", "--detach", "HEAD") },
			reason:    ReasonDetachedHead,
			wantWords: "detached",
		},
		{
			name:      "a branch without commits is refused",
			setup:     func(f *fixture, _ *Request) { f.run(f.checkout, "switch", "--quiet", "--orphan", "fresh") },
			reason:    ReasonNoCommits,
			wantWords: "has no commit yet",
		},
		{
			name:      "a run that is still active is refused",
			setup:     func(_ *fixture, req *Request) { req.RunActive = true },
			reason:    ReasonRunActive,
			wantWords: "still active",
		},
		{
			name: "a checkout that is gone is refused",
			setup: func(f *fixture, _ *Request) {
				if err := os.RemoveAll(f.checkout); err != nil {
					f.t.Fatal(err)
				}
			},
			reason:    ReasonCheckoutGone,
			wantWords: "is gone",
		},
		{
			name: "a folder that is no longer a git checkout is refused",
			setup: func(f *fixture, _ *Request) {
				if err := os.RemoveAll(filepath.Join(f.checkout, ".git")); err != nil {
					f.t.Fatal(err)
				}
			},
			reason:    ReasonCheckoutGone,
			wantWords: "not a git checkout",
		},
		{
			name: "an ssh remote is refused",
			setup: func(f *fixture, _ *Request) {
				f.run(f.checkout, "remote", "set-url", "origin", "git@github.com:segwi/segwi.git")
			},
			reason:    ReasonNotHTTPS,
			wantWords: "segwi pushes only over HTTPS",
		},
		{
			name: "plain http beyond this machine is refused",
			setup: func(f *fixture, _ *Request) {
				f.run(f.checkout, "remote", "set-url", "origin", "http://example.com/r.git")
			},
			reason:    ReasonNotHTTPS,
			wantWords: "push this remote yourself",
		},
		{
			name:      "plain http on loopback is refused without the test option",
			setup:     func(_ *fixture, req *Request) { req.AllowLoopbackHTTP = false },
			reason:    ReasonNotHTTPS,
			wantWords: "(http)",
		},
		{
			name:      "a host the token is not for is refused",
			setup:     func(_ *fixture, req *Request) { req.TokenHosts = nil },
			reason:    ReasonTokenHost,
			wantWords: "only to github.com",
		},
		{
			name:      "a remote that does not exist is refused",
			setup:     func(_ *fixture, req *Request) { req.Remote = "upstream" },
			reason:    ReasonNoRemote,
			wantWords: "no remote named upstream",
		},
		{
			name: "a remote with two push URLs is refused",
			setup: func(f *fixture, _ *Request) {
				f.run(f.checkout, "remote", "set-url", "--add", "--push", "origin", f.url)
				f.run(f.checkout, "remote", "set-url", "--add", "--push", "origin", "https://github.com/segwi/segwi.git")
			},
			reason:    ReasonRemoteSetup,
			wantWords: "2 push URLs",
		},
		{
			name:      "a remote handled by a foreign vcs helper is refused",
			setup:     func(f *fixture, _ *Request) { f.run(f.checkout, "config", "remote.origin.vcs", "sneaky") },
			reason:    ReasonRemoteSetup,
			wantWords: "git-remote-sneaky",
		},
		{
			name:      "no token set is refused with how to set one",
			token:     notFound,
			reason:    ReasonNoToken,
			wantWords: "`segwi token set`, which reads it from standard input",
		},
		{
			name:      "an empty token is refused as no token",
			token:     func(context.Context) (string, error) { return " \n", nil },
			reason:    ReasonNoToken,
			wantWords: "no GitHub token is set",
		},
		{
			name: "a keyring that cannot be reached is refused in its own words",
			token: func(context.Context) (string, error) {
				return "", errors.New("dbus: org.freedesktop.secrets was not provided")
			},
			reason:    ReasonKeyring,
			wantWords: "dbus: org.freedesktop.secrets was not provided",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			var records []Attempt
			token := tt.token
			if token == nil {
				token = func(context.Context) (string, error) {
					t.Error("the token was read before the local checks refused the push")
					return testToken, nil
				}
			}
			req := f.request(token, &records)
			if tt.setup != nil {
				tt.setup(f, &req)
			}
			a, err := Push(context.Background(), req)
			f.captureAttempt(a, err)

			var r *RefusedError
			if !errors.As(err, &r) {
				t.Fatalf("Push = %v, want a refusal (%s)", err, tt.reason)
			}
			if r.Reason != tt.reason {
				t.Errorf("reason = %q, want %q (%s)", r.Reason, tt.reason, r.Msg)
			}
			if !strings.Contains(r.Msg, tt.wantWords) {
				t.Errorf("message = %q, want it to contain %q", r.Msg, tt.wantWords)
			}
			if a.Outcome != Refused || a.Reason != tt.reason || a.Message != r.Msg {
				t.Errorf("attempt = %+v, want refused for %s with the refusal's words", a, tt.reason)
			}
			if len(records) != 1 || records[0] != a {
				t.Errorf("recorded %+v, want exactly the returned attempt", records)
			}
			if n := f.requests.Load(); n != 0 {
				t.Errorf("the server saw %d requests, want none before a refusal", n)
			}
			if got := f.bareHas("segwi/feature"); got != "" {
				t.Errorf("served repository has segwi/feature at %s after a refusal", got)
			}
		})
	}
}

func TestCheckFindsWhatWouldBePushedWithoutReadingTheToken(t *testing.T) {
	f := newFixture(t)
	req := f.request(nil, new([]Attempt))
	req.Record = func(a Attempt) { t.Errorf("Check recorded an attempt: %+v", a) }
	got, err := Check(context.Background(), req)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	want := Target{
		Remote: "origin", URL: f.url, Branch: "segwi/feature",
		Commit: f.run(f.checkout, "rev-parse", "HEAD"), DefaultBranch: "main",
	}
	got.url, got.checkout = remoteURL{}, nil
	if got != want {
		t.Errorf("Check = %+v, want %+v", got, want)
	}
	if n := f.requests.Load(); n != 0 {
		t.Errorf("the server saw %d requests, want none", n)
	}
}

// A remote URL may carry a user and password of their own (https://user:pass@host/...).
// segwi pushes with its token only: it neither uses nor sends the URL's, and says so. Its
// records never show them, and a refused token is reported as such, not mixed up with
// the URL's password being refused.
func TestARemoteURLWithItsOwnPassword(t *testing.T) {
	const secret = "hunter2-in-the-url"
	const wrong = "ghp_wrongTOKEN9876543210zyxwvutsrqponmlk"
	tests := []struct {
		name    string
		token   string
		outcome Outcome
		words   []string
	}{
		{"is pushed with the token, not with the URL's password", testToken, Pushed,
			[]string{"pushed segwi/feature", "holds a user name or password of its own, which segwi neither used nor sent"}},
		{"reports a wrong token as the token refused", wrong, Failed,
			[]string{"refused the GitHub token", "segwi token set", "which segwi neither used nor sent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			withCreds := strings.Replace(f.url, "http://", "http://someone:"+secret+"@", 1)
			f.run(f.checkout, "remote", "set-url", "origin", withCreds)
			var calls int
			a, err := Push(context.Background(), f.request(giveToken(tt.token, &calls), new([]Attempt)))
			f.captureAttempt(a, err)
			if a.Outcome != tt.outcome || (err == nil) != (tt.outcome == Pushed) {
				t.Fatalf("Push = %v (%s: %s), want %s", err, a.Outcome, a.Message, tt.outcome)
			}
			for _, w := range tt.words {
				if !strings.Contains(a.Message, w) {
					t.Errorf("message %q lacks %q", a.Message, w)
				}
			}
			if a.URL != f.url {
				t.Errorf("attempt URL = %q, want %q", a.URL, f.url)
			}
			for _, s := range []string{a.URL, a.Message, a.GitOutput, fmt.Sprint(err)} {
				if strings.Contains(s, secret) {
					t.Errorf("output holds the URL's password: %q", s)
				}
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			for _, c := range f.tried {
				if user, _, _ := strings.Cut(c, ":"); user != credentialUsername || strings.Contains(c, secret) {
					t.Errorf("the server was sent the URL's own credentials (%s), want only %s and the token", user, credentialUsername)
				}
			}
		})
	}
}

func TestPushGivesNoTokenToAHostTheRemoteRedirectsTo(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var evilAuth []string
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		evilAuth = append(evilAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="evil"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
	}))
	t.Cleanup(evil.Close)
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, evil.URL+r.URL.RequestURI(), http.StatusFound)
	}))
	t.Cleanup(redirector.Close)
	f.run(f.checkout, "remote", "set-url", "origin", redirector.URL+"/repo.git")

	var calls int
	var records []Attempt
	a, err := Push(context.Background(), f.request(giveToken(testToken, &calls), &records))
	f.captureAttempt(a, err)
	if err == nil {
		t.Fatalf("Push through a redirect to another host succeeded: %+v", a)
	}
	evilHost := strings.TrimPrefix(evil.URL, "http://")
	if !strings.Contains(a.Message, "git asked for a password for http://"+evilHost) {
		t.Errorf("message = %q, want it to name the other host %s", a.Message, evilHost)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(evilAuth) == 0 {
		t.Fatal("the other host saw no request, so the redirect was not followed and nothing was tested")
	}
	for _, h := range evilAuth {
		if h != "" {
			t.Errorf("the other host got credentials: %q", h)
		}
	}
}

// A shallow clone lacks the parents of its oldest commits; the private repository the push
// runs from borrows the checkout's objects and its list of shallow commits, so such a
// checkout pushes as it would by hand.
func TestAShallowCheckoutIsPushed(t *testing.T) {
	f := newFixture(t)
	f.run(f.checkout, "switch", "--quiet", "main")
	f.commit("second on main")
	f.run(f.checkout, "push", "--quiet", f.bare, "main")
	shallow := filepath.Join(t.TempDir(), "shallow")
	f.run("", "clone", "--quiet", "--depth", "1", "file://"+f.bare, shallow)
	// The server's main moves on, so the clone cannot stop its walk at a commit the
	// server has: it walks down to its shallow boundary.
	f.commit("third on main, after the clone")
	f.run(f.checkout, "push", "--quiet", f.bare, "main")
	f.checkout = shallow
	f.run(shallow, "remote", "set-url", "origin", f.url)
	f.run(shallow, "switch", "--quiet", "-c", "segwi/shallow")
	want := f.commit("work in a shallow clone")
	if _, err := os.Stat(filepath.Join(shallow, ".git", "shallow")); err != nil {
		t.Fatalf("the clone is not shallow: %v", err)
	}

	var calls int
	a, err := Push(context.Background(), f.request(giveToken(testToken, &calls), new([]Attempt)))
	f.captureAttempt(a, err)
	if err != nil {
		t.Fatalf("Push: %v\ngit said: %s", err, a.GitOutput)
	}
	if got := f.bareHas("segwi/shallow"); got != want {
		t.Errorf("the served repository has segwi/shallow at %q, want %q", got, want)
	}
}
