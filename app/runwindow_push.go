package app

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/segwi/segwi/internal/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
)

// corePusher is the run window's pusher: runs/push with the keyring's token, to the
// remote the settings give the checkout's repository.
type corePusher struct {
	settings func() settings.Settings
	stateDir string // where the runs' records are
}

// Check runs push's local checks without the token or the network.
func (p corePusher) Check(ctx context.Context, checkout string) error {
	_, err := push.Check(ctx, core.PushRequest(p.settings(), p.stateDir, "", checkout, nil))
	var refused *push.RefusedError
	if errors.As(err, &refused) {
		return errors.New(refused.Msg) // the words for a person, without the prefix
	}
	return err
}

// Push ends what the run left running, pushes the checkout's branch, records every
// attempt on the run's events.jsonl, and says what happened.
func (p corePusher) Push(ctx context.Context, runID, checkout string) (string, error) {
	// No process of the run may change the checkout, or its git configuration, while the
	// push reads it.
	if _, err := runs.KillLeftovers(p.stateDir, runID); err != nil {
		return "", err
	}
	req := core.PushRequest(p.settings(), p.stateDir, runID, checkout, func(err error) {
		log.Printf("segwi: run %s: the push attempt is not on the run's record: %v", runID, err)
	})
	a, err := push.Push(ctx, req)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Pushed %s to %s (%s).", a.Branch, a.Remote, a.URL), nil
}
