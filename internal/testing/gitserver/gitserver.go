// Package gitserver is the network of segwi's push tests. New starts a git server: git's
// smart HTTP (the real `git http-backend`) on loopback, serving one bare repository to
// clients that send a token as their Basic password, as GitHub takes a token; a test may
// serve it over TLS, see every request, and serve an API of its own beside it (GitHub's,
// for pull requests). NewProxy starts the proxy an agent would name in git's configuration
// to capture a push, which keeps what passes through it. Only tests import it.
package gitserver

import (
	"crypto/subtle"
	"encoding/pem"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Options say what to serve.
type Options struct {
	// Token is the password a client must send (any user name); required.
	Token string
	// Repo is the repository's path under the server's root, "repo.git" when empty; its
	// URL is the server's URL and this path.
	Repo string
	// TLS serves HTTPS with httptest's certificate, written to Server.CA for git's
	// GIT_SSL_CAINFO.
	TLS bool
	// API, when set, serves every path under /api/v3/ instead of git: a fake of
	// GitHub's REST API on the same host, as a GitHub Enterprise server has it.
	API http.Handler
	// Saw, when set, is called with each git request before it is served or refused,
	// and whether its token was right.
	Saw func(r *http.Request, authorized bool)
}

// Server is a running git server. It stops at the end of the test.
type Server struct {
	URL  string // the repository's URL: what a checkout names as its remote
	Base string // the server's URL, without a path
	Root string // the folder it serves; the bare repository is under it
	Bare string // the bare repository's path, for a test to seed it or read its refs
	CA   string // with Options.TLS, a PEM file of the server's certificate
}

// New starts a server for opts, with an empty bare repository (branch main, pushes
// accepted). It skips the test when git is not installed.
func New(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Token == "" {
		t.Fatal("gitserver: Options.Token is empty: a server that takes any password proves nothing")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	if opts.Repo == "" {
		opts.Repo = "repo.git"
	}
	s := &Server{Root: t.TempDir()}
	s.Bare = filepath.Join(s.Root, filepath.FromSlash(opts.Repo))
	// The server's git reads no configuration but the repository's: not the person's, nor
	// one a test plants in its client's HOME.
	env := []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=" + s.Root}
	run(t, git, env, "init", "--quiet", "--bare", "-b", "main", s.Bare)
	run(t, git, env, "-C", s.Bare, "config", "http.receivepack", "true")

	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Dir: s.Root, Env: env}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if opts.API != nil && strings.HasPrefix(r.URL.Path, "/api/v3/") {
			opts.API.ServeHTTP(w, r)
			return
		}
		_, pass, ok := r.BasicAuth()
		authorized := ok && subtle.ConstantTimeCompare([]byte(pass), []byte(opts.Token)) == 1
		if opts.Saw != nil {
			opts.Saw(r, authorized)
		}
		if !authorized {
			w.Header().Set("WWW-Authenticate", `Basic realm="segwi test"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	})
	var srv *httptest.Server
	if opts.TLS {
		srv = httptest.NewTLSServer(handler)
	} else {
		srv = httptest.NewServer(handler)
	}
	t.Cleanup(srv.Close)
	s.Base = srv.URL
	s.URL = srv.URL + "/" + opts.Repo
	if opts.TLS {
		s.CA = filepath.Join(s.Root, "server-ca.pem")
		cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
		if err := os.WriteFile(s.CA, cert, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// run runs git with env, failing the test when it fails.
func run(t testing.TB, git string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(git, args...)
	cmd.Env = append(env, "PATH="+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gitserver: git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
