package push

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/httpsurl"
	"github.com/segwi/segwi/internal/lib/redact"
)

// DefaultAPIBase is the GitHub REST API used when [PullRequest.APIBase] is empty. A
// GitHub Enterprise server's is https://HOST/api/v3.
const DefaultAPIBase = "https://api.github.com"

// maxAPIAnswer caps how much of an API answer is read.
const maxAPIAnswer = 1 << 20

// PullRequest says which pull request to open, on the repository a push went to.
type PullRequest struct {
	// APIBase is the REST API's base URL; empty means DefaultAPIBase.
	APIBase string
	// RemoteURL is the pushed remote's URL (Attempt.URL); owner and repository are
	// read from its path, as in https://github.com/OWNER/REPO.git.
	RemoteURL string
	// Head is the pushed branch; Base the branch to merge into, empty for the
	// repository's default branch (asked from the API).
	Head, Base string
	// Title and Body describe the change; the title is required.
	Title, Body string
	// Draft opens the pull request as a draft.
	Draft bool

	// Token and TokenNotFound are as in [Request].
	Token         func(ctx context.Context) (string, error)
	TokenNotFound error
	// Client makes the requests; nil means a client with a one-minute timeout.
	Client *http.Client
	// AllowLoopbackHTTP accepts an http:// APIBase on loopback, for tests.
	AllowLoopbackHTTP bool
}

// Opened is a pull request GitHub opened.
type Opened struct {
	Number int    `json:"number"`
	URL    string `json:"html_url"`
	// Head and Base are the branches it was opened for: Base is the default branch when
	// PullRequest.Base was empty.
	Head string `json:"-"`
	Base string `json:"-"`
}

// OpenPullRequest opens a pull request from pr.Head into pr.Base through the GitHub REST
// API, with the token from pr.Token. Token problems are *[RefusedError]s, as with Push;
// GitHub's refusals are errors in its words, without the token. It returns when GitHub
// has answered, the client's timeout passed or ctx is done.
func OpenPullRequest(ctx context.Context, pr PullRequest) (Opened, error) {
	if strings.TrimSpace(pr.Title) == "" {
		return Opened{}, errors.New("open pull request: the title is empty; give the pull request a title")
	}
	if pr.Head == "" {
		return Opened{}, errors.New("open pull request: no branch to open it for; push the run's branch first")
	}
	owner, repo, err := repoFromURL(pr.RemoteURL)
	if err != nil {
		return Opened{}, err
	}
	base, err := apiBase(pr.APIBase, pr.AllowLoopbackHTTP)
	if err != nil {
		return Opened{}, err
	}
	token, err := readToken(ctx, pr.Token, pr.TokenNotFound)
	if err != nil {
		return Opened{}, err
	}
	c := apiClient{base: base, token: token, client: pr.Client, red: newRedactor(token)}
	if c.client == nil {
		c.client = &http.Client{Timeout: time.Minute}
	}
	repoPath := "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo)

	if pr.Base == "" {
		var info struct {
			DefaultBranch string `json:"default_branch"`
		}
		if err := c.do(ctx, http.MethodGet, repoPath, nil, &info); err != nil {
			return Opened{}, fmt.Errorf("open pull request: finding the default branch of %s/%s: %w", owner, repo, err)
		}
		if info.DefaultBranch == "" {
			return Opened{}, fmt.Errorf("open pull request: GitHub did not say which branch of %s/%s is the default; choose the base branch", owner, repo)
		}
		pr.Base = info.DefaultBranch
	}
	if pr.Base == pr.Head {
		return Opened{}, fmt.Errorf("open pull request: %s is both the head and the base; push the run's work on its own branch", pr.Head)
	}
	body := map[string]any{"title": pr.Title, "head": pr.Head, "base": pr.Base, "body": pr.Body, "draft": pr.Draft}
	var opened Opened
	if err := c.do(ctx, http.MethodPost, repoPath+"/pulls", body, &opened); err != nil {
		return Opened{}, fmt.Errorf("open pull request: %s into %s on %s/%s: %w", pr.Head, pr.Base, owner, repo, err)
	}
	opened.Head, opened.Base = pr.Head, pr.Base
	return opened, nil
}

// repoFromURL reads OWNER and REPO from a remote URL like https://host/OWNER/REPO.git.
func repoFromURL(raw string) (owner, repo string, err error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("open pull request: cannot read the repository from remote URL %q; it should look like https://github.com/OWNER/REPO.git", withoutUserinfo(raw))
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || strings.TrimSuffix(parts[1], ".git") == "" {
		return "", "", fmt.Errorf("open pull request: remote URL %s is not OWNER/REPO on a GitHub host; open the pull request yourself", stripUserinfo(u))
	}
	return parts[0], strings.TrimSuffix(parts[1], ".git"), nil
}

// apiBase checks the API base URL: HTTPS, so the token is never sent in the clear.
func apiBase(raw string, allowLoopbackHTTP bool) (string, error) {
	if raw == "" {
		raw = DefaultAPIBase
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("open pull request: the GitHub API base %q is not a URL; set it to https://api.github.com or https://HOST/api/v3", raw)
	}
	if !httpsurl.Allowed(u, allowLoopbackHTTP) {
		return "", fmt.Errorf("open pull request: the GitHub API base %s is not HTTPS, and segwi sends its token only over HTTPS; set an https:// URL", stripUserinfo(u))
	}
	u.User = nil
	return strings.TrimRight(u.String(), "/"), nil
}

// apiClient makes authenticated GitHub REST calls.
type apiClient struct {
	base   string
	token  string
	client *http.Client
	red    *redact.Redactor
}

// apiError is GitHub's answer to a call that failed.
type apiError struct {
	Status  int
	Message string `json:"message"`
	Errors  []struct {
		Message string `json:"message"`
		Code    string `json:"code"`
		Field   string `json:"field"`
	} `json:"errors"`
}

// Is reports whether target is ErrGitHubRefused.
func (e *apiError) Is(target error) bool { return target == ErrGitHubRefused }

func (e *apiError) Error() string {
	var details []string
	for _, d := range e.Errors {
		switch {
		case d.Message != "":
			details = append(details, d.Message)
		case d.Field != "":
			details = append(details, d.Field+" "+d.Code)
		}
	}
	msg := fmt.Sprintf("GitHub answered %d %s", e.Status, e.Message)
	if len(details) > 0 {
		msg += ": " + strings.Join(details, "; ")
	}
	switch e.Status {
	case http.StatusUnauthorized:
		msg += "; the token was refused, set a new one with `segwi token set`"
	case http.StatusForbidden, http.StatusNotFound:
		msg += "; check that the token may open pull requests on this repository"
	}
	return msg
}

// do sends one call with body as JSON (when not nil) and decodes a 2xx answer into out.
func (c apiClient) do(ctx context.Context, method, path string, body, out any) error {
	_, err := c.call(ctx, method, path, body, out)
	return err
}

// call is do, returning the answer's headers too.
func (c apiClient) call(ctx context.Context, method, path string, body, out any) (http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encoding the request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("building the request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("calling GitHub: %w", err) // the URL holds no token
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIAnswer))
	if err != nil {
		return nil, fmt.Errorf("reading GitHub's answer: %s", c.red.String(err.Error()))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &apiError{Status: resp.StatusCode}
		if json.Unmarshal(data, e) != nil || e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		e.Message = c.red.String(e.Message)
		for i := range e.Errors {
			e.Errors[i].Message = c.red.String(e.Errors[i].Message)
		}
		return nil, e
	}
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("reading GitHub's answer: %w", err)
	}
	return resp.Header, nil
}
