package gitserver_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/segwi/segwi/internal/testing/gitserver"
)

// git runs git in dir with a sealed configuration and env added, and returns its output and error.
func git(t *testing.T, dir string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0", "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@example.invalid",
		"GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@example.invalid"}, env...)
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func TestAPushLandsOnlyWithTheToken(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "over HTTP", true: "over HTTPS"}[tls], func(t *testing.T) {
			var refused atomic.Int64
			srv := gitserver.New(t, gitserver.Options{Token: "tok-0123456789abcdef", TLS: tls,
				Saw: func(_ *http.Request, authorized bool) {
					if !authorized {
						refused.Add(1)
					}
				}})
			var env []string
			if tls {
				env = []string{"GIT_SSL_CAINFO=" + srv.CA}
			}
			checkout := t.TempDir()
			for _, args := range [][]string{{"init", "--quiet", "-b", "main"}, {"commit", "--quiet", "--allow-empty", "-m", "first"}} {
				if out, err := git(t, checkout, env, args...); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			withToken := func(token string) string {
				return strings.Replace(srv.URL, "://", "://someone:"+token+"@", 1)
			}
			if out, err := git(t, checkout, env, "push", "--quiet", withToken("wrong-0123456789"), "main"); err == nil {
				t.Errorf("a push with the wrong token succeeded:\n%s", out)
			}
			if refused.Load() == 0 {
				t.Errorf("the server saw no refused request")
			}
			if out, err := git(t, checkout, env, "push", "--quiet", withToken("tok-0123456789abcdef"), "main"); err != nil {
				t.Fatalf("a push with the token failed: %v\n%s", err, out)
			}
			want, _ := git(t, checkout, nil, "rev-parse", "HEAD")
			if got, err := git(t, srv.Bare, nil, "rev-parse", "refs/heads/main"); err != nil || got != want {
				t.Errorf("the served repository has main at %q (%v), want the pushed %s", got, err, want)
			}
			if filepath.Dir(srv.Bare) != srv.Root {
				t.Errorf("the bare repository %s is not under the root %s", srv.Bare, srv.Root)
			}
		})
	}
}

func TestTheProxyKeepsWhatPassesThroughIt(t *testing.T) {
	for _, tls := range []bool{false, true} {
		t.Run(map[bool]string{false: "a forwarded request", true: "a CONNECT tunnel"}[tls], func(t *testing.T) {
			var backend *httptest.Server
			handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
			if tls {
				backend = httptest.NewTLSServer(handler)
			} else {
				backend = httptest.NewServer(handler)
			}
			defer backend.Close()
			proxy := gitserver.NewProxy(t)
			proxyURL, _ := url.Parse(proxy.URL)
			transport := backend.Client().Transport.(*http.Transport).Clone()
			transport.Proxy = http.ProxyURL(proxyURL)
			req, _ := http.NewRequest("GET", backend.URL, nil)
			req.SetBasicAuth("someone", "secret-0123456789")
			resp, err := (&http.Client{Transport: transport}).Do(req)
			if err != nil {
				t.Fatalf("GET through the proxy: %v", err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) != "hello" {
				t.Errorf("got %q through the proxy, want the backend's hello", body)
			}
			requests, credentials := proxy.Seen()
			if requests != 1 {
				t.Errorf("the proxy saw %d requests, want 1", requests)
			}
			if tls && len(credentials) != 0 {
				t.Errorf("the proxy read %q inside a TLS tunnel", credentials)
			}
			if !tls && (len(credentials) != 1 || !strings.HasPrefix(credentials[0], "Basic ")) {
				t.Errorf("the proxy kept credentials %q, want the request's Basic header", credentials)
			}
		})
	}
}
