package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"path/filepath"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// corePusher is the run window's pusher: runs/push with the keyring's token, to the
// remote the settings give the checkout's repository.
type corePusher struct {
	settings func() settings.Settings
	stateDir string // where the runs' records are
}

// request is the push request for checkout under the settings in force.
func (p corePusher) request(checkout string) push.Request {
	s := p.settings()
	req := push.Request{Checkout: checkout, Token: token.Get, TokenNotFound: token.ErrNotFound}
	for _, r := range s.Repositories {
		if filepath.Clean(r.Path) == filepath.Clean(checkout) {
			req.Remote = r.Remote
		}
	}
	// A GitHub Enterprise API names the host the token is for.
	if u, err := url.Parse(s.GitHub.APIURL); err == nil && u.Host != "" && u.Host != "api.github.com" {
		req.TokenHosts = []string{u.Host}
	}
	return req
}

// Check runs push's local checks without the token or the network.
func (p corePusher) Check(ctx context.Context, checkout string) error {
	_, err := push.Check(ctx, p.request(checkout))
	var refused *push.RefusedError
	if errors.As(err, &refused) {
		return errors.New(refused.Msg) // the words for a person, without the prefix
	}
	return err
}

// Push pushes the checkout's branch, records every attempt on the run's events.jsonl,
// and says what happened.
func (p corePusher) Push(ctx context.Context, runID, checkout string) (string, error) {
	req := p.request(checkout)
	var recordErr error
	req.Record = func(a push.Attempt) {
		_, recordErr = runs.AppendEvent(p.stateDir, runID, runs.Event{Type: runs.EventPush, Text: a.Message, Push: &a})
	}
	a, err := push.Push(ctx, req)
	if recordErr != nil {
		log.Printf("segwi: run %s: the push attempt is not on the run's record: %v", runID, recordErr)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Pushed %s to %s (%s).", a.Branch, a.Remote, a.URL), nil
}
