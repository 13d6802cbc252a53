package push

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/segwi/segwi/internal/testing/gitserver"
)

// testToken is the token the test server accepts. It is long and unusual so that a
// search for it in files and output cannot match by chance.
const testToken = "ghp_segwiTEST0123456789abcdefghijklmnopQRS"

// fixture is one push scenario: a git smart-HTTP server on loopback serving a bare
// repository (gitserver), and a checkout whose origin is that server. Everything lives under temp
// folders that are searched for the token when the test ends.
type fixture struct {
	t        *testing.T
	env      []string // git's environment: its own HOME and config, no system config
	home     string
	tmp      string // TMPDIR, where pushes make their private repositories
	checkout string
	bare     string // the served bare repository
	url      string // origin's URL
	git      string // path of the real git

	requests atomic.Int64 // requests the server saw
	mu       sync.Mutex   // guards users, tried and captured
	users    []string     // usernames the server saw with the right token
	tried    []string     // user:password of every request with Basic credentials
	captured []string     // every output a person or a log could see
	dirs     []string     // folders searched for the token
}

// newFixture starts the server and prepares a checkout on branch segwi/feature, one
// commit ahead of main, with origin's HEAD recorded as main.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not installed")
	}
	f := &fixture{t: t, git: gitPath}
	f.home = t.TempDir()
	work := t.TempDir()
	// The private repositories of the pushes go here, to be searched and found removed.
	f.tmp = t.TempDir()
	t.Setenv("TMPDIR", f.tmp)
	f.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + f.home,
		"XDG_CONFIG_HOME=" + filepath.Join(f.home, ".config"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Segwi Test", "GIT_AUTHOR_EMAIL=test@example.invalid",
		"GIT_COMMITTER_NAME=Segwi Test", "GIT_COMMITTER_EMAIL=test@example.invalid",
		"LC_ALL=C",
		"TMPDIR=" + f.tmp,
	}

	srv := gitserver.New(t, gitserver.Options{Token: testToken, Saw: func(r *http.Request, authorized bool) {
		f.requests.Add(1)
		user, pass, ok := r.BasicAuth()
		f.mu.Lock()
		defer f.mu.Unlock()
		if ok {
			f.tried = append(f.tried, user+":"+pass)
		}
		if authorized {
			f.users = append(f.users, user)
		}
	}})
	f.bare, f.url = srv.Bare, srv.URL
	f.dirs = []string{f.home, srv.Root, work, f.tmp}

	f.checkout = filepath.Join(work, "checkout")
	f.run("", "init", "--quiet", "-b", "main", f.checkout)
	f.commit("first")
	f.run(f.checkout, "push", "--quiet", f.bare, "main") // seeds the server without HTTP
	f.run(f.checkout, "remote", "add", "origin", f.url)
	f.run(f.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	f.run(f.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	f.run(f.checkout, "switch", "--quiet", "-c", "segwi/feature")
	f.commit("the run's work")

	t.Cleanup(f.assertNoTokenLeft)
	t.Cleanup(f.assertNoPrivateRepositoryLeft)
	return f
}

// assertNoPrivateRepositoryLeft fails the test if a push left its private repository.
func (f *fixture) assertNoPrivateRepositoryLeft() {
	left, _ := filepath.Glob(filepath.Join(f.tmp, privateRepoPrefix+"*"))
	if len(left) > 0 {
		f.t.Errorf("pushes left their private repositories behind: %v", left)
	}
}

// run runs git in dir (the current folder when empty) and returns its trimmed output.
func (f *fixture) run(dir string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command(f.git, args...)
	cmd.Dir = dir
	cmd.Env = f.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit adds a file and commits it on the checkout's current branch.
func (f *fixture) commit(msg string) string {
	f.t.Helper()
	name := strings.ReplaceAll(msg, " ", "-") + ".txt"
	if err := os.WriteFile(filepath.Join(f.checkout, name), []byte(msg+"\n"), 0o644); err != nil {
		f.t.Fatal(err)
	}
	f.run(f.checkout, "add", name)
	f.run(f.checkout, "commit", "--quiet", "-m", msg)
	return f.run(f.checkout, "rev-parse", "HEAD")
}

// request returns a push request for the checkout with the given token reader; every
// attempt and error is kept to be searched for the token.
func (f *fixture) request(token func(context.Context) (string, error), record *[]Attempt) Request {
	return Request{
		Checkout:          f.checkout,
		Token:             token,
		TokenNotFound:     errTestNotFound,
		TokenHosts:        []string{"127.0.0.1"},
		Git:               f.git,
		Env:               f.env,
		AllowLoopbackHTTP: true,
		Record: func(a Attempt) {
			*record = append(*record, a)
		},
	}
}

// capture keeps output that a person or a log could see, to search it for the token.
func (f *fixture) capture(s ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.captured = append(f.captured, s...)
}

// captureAttempt keeps every field of an attempt and the error Push returned.
func (f *fixture) captureAttempt(a Attempt, err error) {
	f.capture(a.Remote, a.URL, a.Branch, a.Commit, string(a.Outcome), string(a.Reason), a.Message, a.GitOutput)
	if err != nil {
		f.capture(err.Error())
	}
}

// bareHas returns the commit of branch in the served repository, or "" when it has none.
func (f *fixture) bareHas(branch string) string {
	f.t.Helper()
	cmd := exec.Command(f.git, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	cmd.Dir = f.bare
	cmd.Env = f.env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// assertNoTokenLeft fails the test if the token is in any file under the test's folders
// or in any captured output.
func (f *fixture) assertNoTokenLeft() {
	t := f.t
	for _, dir := range f.dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if bytes.Contains(data, []byte(testToken)) {
				t.Errorf("the token is in the file %s", path)
			}
			return nil
		})
		if err != nil {
			t.Errorf("searching %s for the token: %v", dir, err)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.captured {
		if strings.Contains(s, testToken) {
			t.Errorf("the token is in captured output: %q", s)
		}
	}
}
