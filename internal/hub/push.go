package hub

import (
	"context"
	"errors"
	"fmt"

	"github.com/segwi/segwi/internal/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/push"
)

// endedRun is the record of the run id, which must have ended: a push reads the checkout
// the run worked in, which no process of the run may still change.
func (h *Hub) endedRun(id string) (runs.Info, error) {
	if h.live(id) != nil {
		return runs.Info{}, fmt.Errorf("run %s is still going: push its branch once it has ended", id)
	}
	info, err := runs.Load(h.core.StateDir(), id)
	if err != nil {
		return runs.Info{}, fmt.Errorf("run %s: %w", id, err)
	}
	return info, nil
}

// checkPush runs push's local checks on the ended run id's checkout, without the token or
// the network: nil when its branch can be pushed, else why not, in a person's words.
func (h *Hub) checkPush(ctx context.Context, id string) error {
	info, err := h.endedRun(id)
	if err != nil {
		return err
	}
	_, err = push.Check(ctx, core.PushRequest(h.core.Settings(), h.core.StateDir(), "", info.Checkout, nil))
	var refused *push.RefusedError
	if errors.As(err, &refused) {
		return errors.New(refused.Msg) // the words for a person, without the prefix
	}
	return err
}

// push ends what the ended run id left running, pushes its checkout's branch with the
// keyring's token, records every attempt on the run's events.jsonl, and says what
// happened.
func (h *Hub) push(ctx context.Context, id string) (string, error) {
	info, err := h.endedRun(id)
	if err != nil {
		return "", err
	}
	// No process of the run may change the checkout, or its git configuration, while the
	// push reads it.
	stateDir := h.core.StateDir()
	if _, err := runs.KillLeftovers(stateDir, id); err != nil {
		return "", err
	}
	req := core.PushRequest(h.core.Settings(), stateDir, id, info.Checkout, func(err error) {
		h.opts.Log("run %s: the push attempt is not on the run's record: %v", id, err)
	})
	a, err := push.Push(ctx, req)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Pushed %s to %s (%s).", a.Branch, a.Remote, a.URL), nil
}
