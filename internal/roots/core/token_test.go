package core_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token/keyring"
)

// A pull request is opened after a push, through segwi.github.apiURL: when that names a
// host other than the one the token was saved for (an edit the person confirmed without
// reading it), the token does not go there.
func TestAPullRequestGoesOnlyToTheHostTheTokenWasSavedFor(t *testing.T) {
	keyring.MockInit()
	var calls, withToken atomic.Int32
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "" {
			withToken.Add(1)
		}
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"number": 3, "html_url": "https://example.invalid/me/repo/pull/3"}`))
	}))
	t.Cleanup(api.Close)
	apiURL := api.URL + "/api/v3"

	state := t.TempDir()
	const id = "20250101-000000-abcdef"
	records.WriteRun(t, state, runs.Info{ID: id, Kind: runs.KindBuild, State: runs.StateSucceeded, Prompt: "Fix the login"})
	pushed := push.Attempt{Remote: "origin", URL: "https://github.com/me/repo.git", Branch: "segwi/fix", Outcome: push.Pushed}
	if _, err := runs.AppendEvent(state, id, runs.Event{Type: runs.EventPush, Push: &pushed}); err != nil {
		t.Fatal(err)
	}
	s := settings.Default()
	s.GitHub.APIURL = apiURL
	ship := core.Shipper{Settings: s, StateDir: state, AllowLoopbackHTTP: true}
	ctx := context.Background()

	if err := keyring.Set(ctx, "ghp_savedForGitHub", "https://api.github.com"); err != nil {
		t.Fatal(err)
	}
	_, err := ship.OpenPullRequest(ctx, id, core.PullRequestOptions{Base: "main"})
	var refused *push.RefusedError
	if !errors.As(err, &refused) || refused.Reason != push.ReasonTokenHost ||
		!strings.Contains(refused.Msg, "the GitHub token was saved for api.github.com (git: github.com), not for "+strings.TrimPrefix(api.URL, "http://")) {
		t.Fatalf("OpenPullRequest through another host = %v, want a token-host refusal", err)
	}
	if calls.Load() != 0 {
		t.Errorf("the API on another host got %d calls, want none", calls.Load())
	}

	if err := keyring.Set(ctx, "ghp_savedForThisAPI", apiURL); err != nil {
		t.Fatal(err)
	}
	if pr, err := ship.OpenPullRequest(ctx, id, core.PullRequestOptions{Base: "main"}); err != nil || pr.Number != 3 {
		t.Fatalf("OpenPullRequest through the token's own host = %+v, %v", pr, err)
	}
	if withToken.Load() != 1 {
		t.Errorf("the API got %d calls with the token, want 1", withToken.Load())
	}
}
