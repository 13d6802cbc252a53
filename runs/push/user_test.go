package push

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// A token is checked with GET /user at the API it was saved for: GitHub's login for it and
// a classic token's scopes; GitHub's refusal in its words, without the token; never over
// plain HTTP.
func TestCheckTokenAsksGitHubWhoseItIs(t *testing.T) {
	g := &fakeGitHub{prefix: "/api/v3", scopes: "repo, workflow"}
	srv := startFakeGitHub(t, g)
	ctx := context.Background()
	owner, err := CheckToken(ctx, TokenCheck{APIBase: srv.URL + "/api/v3", Token: testToken, AllowLoopbackHTTP: true})
	if err != nil || owner.Login != "octocat" || !slices.Equal(owner.Scopes, []string{"repo", "workflow"}) {
		t.Errorf("CheckToken = %+v, %v; want octocat with scopes repo and workflow", owner, err)
	}
	if got := g.seen(); !slices.Equal(got, []string{"GET /api/v3/user"}) {
		t.Errorf("calls %q, want one GET /api/v3/user", got)
	}

	g.scopes = ""
	if owner, err := CheckToken(ctx, TokenCheck{APIBase: srv.URL + "/api/v3", Token: testToken, AllowLoopbackHTTP: true}); err != nil || owner.Scopes != nil {
		t.Errorf("a fine-grained token: CheckToken = %+v, %v; want no scopes listed", owner, err)
	}

	bad := "ghp_" + strings.Repeat("Z", 36)
	_, err = CheckToken(ctx, TokenCheck{APIBase: srv.URL + "/api/v3", Token: bad, AllowLoopbackHTTP: true})
	if err == nil || !strings.Contains(err.Error(), "GitHub answered 401 Bad credentials; the token was refused") || strings.Contains(err.Error(), bad) {
		t.Errorf("a refused token: err = %v, want GitHub's 401 in words, without the token", err)
	}

	n := len(g.seen())
	if _, err := CheckToken(ctx, TokenCheck{APIBase: srv.URL + "/api/v3", Token: testToken}); err == nil || !strings.Contains(err.Error(), "is not HTTPS") {
		t.Errorf("plain HTTP: err = %v, want a refusal", err)
	}
	if len(g.seen()) != n {
		t.Error("the token went over plain HTTP")
	}
}
