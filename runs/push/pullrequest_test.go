package push

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeGitHub is an httptest GitHub REST API for one repository, segwi/app, whose default
// branch is trunk. Calls nobody expected fail the test.
type fakeGitHub struct {
	t      *testing.T
	prefix string // "" for api.github.com, "/api/v3" for an Enterprise server
	status int    // when not 0, POST /pulls answers this status with answer
	answer string
	scopes string // GET /user's X-OAuth-Scopes; "" for none (a fine-grained token)

	mu    sync.Mutex
	calls []string       // "METHOD PATH"
	body  map[string]any // the last pull request asked for
}

func (g *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, r.Method+" "+r.URL.Path)
	if r.Header.Get("Authorization") != "Bearer "+testToken {
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`))
		return
	}
	if got := r.Header.Get("Accept"); got != "application/vnd.github+json" {
		g.t.Errorf("Accept = %q, want application/vnd.github+json", got)
	}
	switch r.Method + " " + r.URL.Path {
	case "GET " + g.prefix + "/user":
		if g.scopes != "" {
			w.Header().Set("X-OAuth-Scopes", g.scopes)
		}
		w.Write([]byte(`{"login":"octocat","id":1}`))
	case "GET " + g.prefix + "/repos/segwi/app":
		w.Write([]byte(`{"full_name":"segwi/app","default_branch":"trunk"}`))
	case "POST " + g.prefix + "/repos/segwi/app/pulls":
		if err := json.NewDecoder(r.Body).Decode(&g.body); err != nil {
			g.t.Errorf("decoding the pull request: %v", err)
		}
		if g.status != 0 {
			w.WriteHeader(g.status)
			w.Write([]byte(g.answer))
			return
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"number":42,"html_url":"https://github.com/segwi/app/pull/42","state":"open"}`))
	default:
		g.t.Errorf("unexpected call %s %s", r.Method, r.URL.Path)
		http.NotFound(w, r)
	}
}

// seen returns the calls made so far.
func (g *fakeGitHub) seen() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.calls...)
}

// lastBody returns the last pull request asked for.
func (g *fakeGitHub) lastBody() map[string]any {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.body
}

func startFakeGitHub(t *testing.T, g *fakeGitHub) *httptest.Server {
	t.Helper()
	g.t = t
	srv := httptest.NewServer(g)
	t.Cleanup(srv.Close)
	return srv
}

func tokenFunc(tok string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return tok, nil }
}

func TestOpenPullRequest(t *testing.T) {
	tests := []struct {
		name      string
		prefix    string
		base      string
		wantCalls []string
		wantBase  string
	}{
		{
			name:      "into the given base on github.com",
			base:      "release",
			wantCalls: []string{"POST /repos/segwi/app/pulls"},
			wantBase:  "release",
		},
		{
			name:      "into the default branch, asked from the API, when no base is given",
			wantCalls: []string{"GET /repos/segwi/app", "POST /repos/segwi/app/pulls"},
			wantBase:  "trunk",
		},
		{
			name:      "on a GitHub Enterprise server under /api/v3",
			prefix:    "/api/v3",
			base:      "main",
			wantCalls: []string{"POST /api/v3/repos/segwi/app/pulls"},
			wantBase:  "main",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGitHub{prefix: tt.prefix}
			srv := startFakeGitHub(t, g)
			got, err := OpenPullRequest(context.Background(), PullRequest{
				APIBase:   srv.URL + tt.prefix,
				RemoteURL: "https://github.com/segwi/app.git",
				Head:      "segwi/feature", Base: tt.base,
				Title: "Fix the login", Body: "The run fixed the login.",
				Token: tokenFunc(testToken), AllowLoopbackHTTP: true,
			})
			if err != nil {
				t.Fatalf("OpenPullRequest: %v", err)
			}
			if want := (Opened{Number: 42, URL: "https://github.com/segwi/app/pull/42", Head: "segwi/feature", Base: tt.wantBase}); got != want {
				t.Errorf("opened %+v, want %+v", got, want)
			}
			if diff := cmp.Diff(tt.wantCalls, g.seen()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			wantBody := map[string]any{"title": "Fix the login", "body": "The run fixed the login.", "head": "segwi/feature", "base": tt.wantBase, "draft": false}
			if diff := cmp.Diff(wantBody, g.lastBody()); diff != "" {
				t.Errorf("pull request (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOpenPullRequestSaysWhatGitHubRefused(t *testing.T) {
	tests := []struct {
		name      string
		token     string
		status    int
		answer    string
		wantWords []string
	}{
		{
			name:      "a pull request that already exists",
			token:     testToken,
			status:    http.StatusUnprocessableEntity,
			answer:    `{"message":"Validation Failed","errors":[{"resource":"PullRequest","code":"custom","message":"A pull request already exists for segwi:segwi/feature."}]}`,
			wantWords: []string{"422 Validation Failed", "A pull request already exists"},
		},
		{
			name:      "a wrong token",
			token:     "ghp_wrongTOKEN9876543210zyxwvutsrqponmlk",
			wantWords: []string{"401 Bad credentials", "segwi token set"},
		},
		{
			name:      "an answer that is not JSON",
			token:     testToken,
			status:    http.StatusBadGateway,
			answer:    "<html>bad gateway</html>",
			wantWords: []string{"502 Bad Gateway"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGitHub{status: tt.status, answer: tt.answer}
			srv := startFakeGitHub(t, g)
			_, err := OpenPullRequest(context.Background(), PullRequest{
				APIBase: srv.URL, RemoteURL: "https://github.com/segwi/app", Head: "segwi/feature", Base: "main",
				Title: "t", Token: tokenFunc(tt.token), AllowLoopbackHTTP: true,
			})
			if err == nil {
				t.Fatal("OpenPullRequest succeeded, want an error")
			}
			for _, w := range tt.wantWords {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), tt.token) {
				t.Errorf("error holds the token: %q", err)
			}
		})
	}
}

func TestOpenPullRequestRefusesBeforeCallingGitHub(t *testing.T) {
	errMissing := errors.New("keyring: not found")
	tests := []struct {
		name        string
		change      func(pr *PullRequest)
		wantWords   string
		wantRefusal Reason
	}{
		{name: "an empty title", change: func(pr *PullRequest) { pr.Title = " " }, wantWords: "title is empty"},
		{name: "no head branch", change: func(pr *PullRequest) { pr.Head = "" }, wantWords: "push the run's branch first"},
		{name: "a remote URL without owner and repository", change: func(pr *PullRequest) { pr.RemoteURL = "https://github.com/segwi" }, wantWords: "not OWNER/REPO"},
		{name: "an API base that is not HTTPS", change: func(pr *PullRequest) { pr.AllowLoopbackHTTP = false }, wantWords: "is not HTTPS"},
		{name: "head and base the same", change: func(pr *PullRequest) { pr.Base = pr.Head }, wantWords: "both the head and the base"},
		{
			name:        "no token set",
			change:      func(pr *PullRequest) { pr.Token = func(context.Context) (string, error) { return "", errMissing } },
			wantWords:   "segwi token set",
			wantRefusal: ReasonNoToken,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := &fakeGitHub{}
			srv := startFakeGitHub(t, g)
			pr := PullRequest{
				APIBase: srv.URL, RemoteURL: "https://github.com/segwi/app.git", Head: "segwi/feature", Base: "main",
				Title: "t", Token: tokenFunc(testToken), TokenNotFound: errMissing, AllowLoopbackHTTP: true,
			}
			tt.change(&pr)
			_, err := OpenPullRequest(context.Background(), pr)
			if err == nil || !strings.Contains(err.Error(), tt.wantWords) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantWords)
			}
			var r *RefusedError
			if tt.wantRefusal != "" && (!errors.As(err, &r) || r.Reason != tt.wantRefusal) {
				t.Errorf("error = %#v, want a refusal for %s", err, tt.wantRefusal)
			}
			if calls := g.seen(); len(calls) != 0 {
				t.Errorf("GitHub saw %q, want no call", calls)
			}
		})
	}
}
