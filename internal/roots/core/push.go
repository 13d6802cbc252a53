package core

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
	"github.com/segwi/segwi/settings/token/keyring"
)

// PushRequest returns the push request for the run runID in checkout under s: the remote of
// the repository entry whose path is the checkout (default origin), the keyring's token
// when it was saved for the host of s's GitHub API (see tokenFor), the hosts that token may
// go to, and a Record that appends each attempt to the run's events.jsonl under stateDir
// (and names the branch of one that landed in its run.json, Info.Pushed), calling
// recordFailed when it cannot. The caller sets RunActive.
func PushRequest(s settings.Settings, stateDir, runID, checkout string, recordFailed func(error)) push.Request {
	return push.Request{
		Checkout:      checkout,
		Remote:        remoteFor(s, checkout),
		Token:         tokenFor(s.GitHub.APIURL),
		TokenNotFound: token.ErrNotFound,
		TokenHosts:    tokenHosts(s.GitHub.APIURL),
		Record: func(a push.Attempt) {
			e := runs.Event{Type: runs.EventPush, Text: a.Message, Push: &a}
			var err error
			if a.Outcome == push.Pushed {
				// On the record too, for the lists of runs (runs.Summary.Pushed).
				_, err = runs.Annotate(stateDir, runID, e, func(in *runs.Info) { in.Pushed = a.Branch })
			} else {
				_, err = runs.AppendEvent(stateDir, runID, e)
			}
			if err != nil && recordFailed != nil {
				recordFailed(err)
			}
		},
	}
}

// remoteFor is the remote of the repository entry whose path is checkout.
func remoteFor(s settings.Settings, checkout string) string {
	for _, r := range s.Repositories {
		if r.Remote != "" && samePath(r.Path, checkout) {
			return r.Remote
		}
	}
	return push.DefaultRemote
}

// samePath reports whether a and b name the same folder, through symlinks too.
func samePath(a, b string) bool {
	clean := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	if clean(a) == clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// tokenHosts returns the hosts the token may go to: github.com for GitHub's own API, the
// API's host for GitHub Enterprise (https://HOST/api/v3).
func tokenHosts(apiURL string) []string {
	host, err := token.APIHost(apiURL)
	if err != nil {
		return []string{push.DefaultTokenHost}
	}
	return []string{token.GitHost(host)}
}

// tokenFor reads the keyring's token for a push or a pull request through the GitHub API
// at apiURL: only when it was saved for that API's host. So the token goes only where the
// person saved it for: a push checks the remote's host against tokenHosts(apiURL), whose
// git host is the one a token saved for apiURL's host pushes to. A token saved for
// another host is refused as push refuses (push.ReasonTokenHost), saying how to save it
// again.
func tokenFor(apiURL string) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		tok, err := keyring.For(ctx, apiURL)
		var other *token.HostError
		if errors.As(err, &other) {
			return "", &push.RefusedError{Reason: push.ReasonTokenHost, Msg: other.Error()}
		}
		return tok, err
	}
}
