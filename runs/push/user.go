package push

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// TokenCheck says which token to check, at which GitHub API.
type TokenCheck struct {
	// APIBase is the REST API's base URL, as in [PullRequest]; empty means DefaultAPIBase.
	APIBase string
	// Token is the token to check; required.
	Token string
	// Client makes the request; nil means a client with a 30-second timeout.
	Client *http.Client
	// AllowLoopbackHTTP accepts an http:// APIBase on loopback, for tests.
	AllowLoopbackHTTP bool
}

// TokenOwner is what GitHub says of a token it took: whose it is, and what it may do.
type TokenOwner struct {
	Login string `json:"login"`
	// Scopes are a classic token's scopes (GitHub's X-OAuth-Scopes); nil for a
	// fine-grained token, whose permissions GitHub does not list.
	Scopes []string `json:"scopes,omitempty"`
}

// CheckToken asks the GitHub API at c.APIBase whose token c.Token is (GET /user), over
// HTTPS only. GitHub's refusal is an error in its words ("GitHub answered 401 Bad
// credentials; the token was refused, ..."), never holding the token. It returns when
// GitHub has answered, the client's timeout passed or ctx is done.
func CheckToken(ctx context.Context, c TokenCheck) (TokenOwner, error) {
	if c.Token == "" {
		return TokenOwner{}, errors.New("check the GitHub token: no token to check")
	}
	base, err := apiBase(c.APIBase, c.AllowLoopbackHTTP)
	if err != nil {
		return TokenOwner{}, fmt.Errorf("check the GitHub token: %w", err)
	}
	api := apiClient{base: base, token: c.Token, client: c.Client, red: newRedactor(c.Token)}
	if api.client == nil {
		api.client = &http.Client{Timeout: 30 * time.Second}
	}
	var owner TokenOwner
	h, err := api.call(ctx, http.MethodGet, "/user", nil, &owner)
	if err != nil {
		return TokenOwner{}, fmt.Errorf("check the GitHub token at %s: %w", base, err)
	}
	if owner.Login == "" {
		return TokenOwner{}, fmt.Errorf("check the GitHub token at %s: GitHub's answer names no login; is %s a GitHub API?", base, base)
	}
	if v, ok := h["X-Oauth-Scopes"]; ok {
		owner.Scopes = []string{}
		for _, s := range strings.Split(strings.Join(v, ","), ",") {
			if s = strings.TrimSpace(s); s != "" {
				owner.Scopes = append(owner.Scopes, s)
			}
		}
	}
	return owner, nil
}
