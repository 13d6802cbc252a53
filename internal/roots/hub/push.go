package hub

import (
	"context"
	"errors"
	"fmt"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/push"
)

// shipper is the core's Shipper over the settings in force; it logs through the hub's Log.
func (h *Hub) shipper() core.Shipper {
	return core.Shipper{Settings: h.core.Settings(), StateDir: h.core.StateDir(), Log: h.opts.Log}
}

// endedRun is the record of the run id, which must have ended: a commit or a push reads
// the checkout the run worked in, which no process of the run may still change.
func (h *Hub) endedRun(id string) (runs.Info, error) {
	if h.live(id) != nil {
		return runs.Info{}, fmt.Errorf("run %s is still going: commit or push its work once it has ended", id)
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
	err = h.shipper().CheckPush(ctx, info.ID)
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
	a, err := h.shipper().Push(ctx, info.ID)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Pushed %s to %s (%s).", a.Branch, a.Remote, a.URL), nil
}

// commit commits the ended run id's uncommitted changes as the person; see
// core.Shipper.Commit.
func (h *Hub) commit(ctx context.Context, id string, opts changes.CommitOptions) (changes.Committed, error) {
	info, err := h.endedRun(id)
	if err != nil {
		return changes.Committed{}, err
	}
	return h.shipper().Commit(ctx, info.ID, opts)
}

// openPullRequest opens a pull request for the ended run id's pushed branch and records
// it on the run; see core.Shipper.OpenPullRequest.
func (h *Hub) openPullRequest(ctx context.Context, id string, o core.PullRequestOptions) (runs.PullRequest, error) {
	info, err := h.endedRun(id)
	if err != nil {
		return runs.PullRequest{}, err
	}
	return h.shipper().OpenPullRequest(ctx, info.ID, o)
}
