package control

import (
	"context"
	"errors"

	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// The typed commands of a Client. Each sends one command and returns when the tray has
// replied, ctx is done or the connection ends. An error the tray replied with reads as
// the tray's words for a person and matches its sentinel error with errors.Is (see
// Reply.Err); any other error is the channel's.

// do sends cmd and returns the reply, with the tray's error unwrapped to its words.
func (c *Client) do(ctx context.Context, cmd Body) (Reply, error) {
	r, err := c.Do(ctx, cmd)
	var refused *CommandError
	if errors.As(err, &refused) {
		return r, refused.Unwrap()
	}
	return r, err
}

// Start starts a run as spec says and returns its id.
func (c *Client) Start(ctx context.Context, spec record.Spec) (string, error) {
	r, err := c.do(ctx, StartOf(spec))
	return r.Run, err
}

// FollowUp sends text to the run id.
func (c *Client) FollowUp(ctx context.Context, id, text string) error {
	_, err := c.do(ctx, FollowUp{Run: id, Text: text})
	return err
}

// Finish closes the run id's input: it ends once its current turn is done.
func (c *Client) Finish(ctx context.Context, id string) error {
	_, err := c.do(ctx, Finish{Run: id})
	return err
}

// RunWindows tells the tray which run windows are open now, by their runs' ids.
func (c *Client) RunWindows(ctx context.Context, ids []string) error {
	_, err := c.do(ctx, RunWindows{Runs: ids})
	return err
}

// Stop stops the run id: politely the first time, by force the next.
func (c *Client) Stop(ctx context.Context, id string) error {
	_, err := c.do(ctx, Stop{Run: id})
	return err
}

// CheckPush returns nil when the ended run id's branch can be pushed, or why not.
func (c *Client) CheckPush(ctx context.Context, id string) error {
	_, err := c.do(ctx, CheckPush{Run: id})
	return err
}

// Push pushes the ended run id's branch and says what it did, in words.
func (c *Client) Push(ctx context.Context, id string) (string, error) {
	r, err := c.do(ctx, Push{Run: id})
	return r.Text, err
}

// Answer answers a waiting approval request.
func (c *Client) Answer(ctx context.Context, a Answer) error {
	_, err := c.do(ctx, a)
	return err
}

// SaveSettings writes s to the tray's settings file.
func (c *Client) SaveSettings(ctx context.Context, s settings.Settings) error {
	_, err := c.do(ctx, SaveSettings{Settings: s})
	return err
}

// RemoveRetired deletes the retired keys from the tray's settings file.
func (c *Client) RemoveRetired(ctx context.Context) error {
	_, err := c.do(ctx, RemoveRetired{})
	return err
}

// ConfirmEdit puts the new values of e in force and records them as confirmed.
func (c *Client) ConfirmEdit(ctx context.Context, e settings.GuardedEdit) error {
	_, err := c.do(ctx, ConfirmEdit{Edit: e})
	return err
}

// KeepEdit keeps the old values of e in force.
func (c *Client) KeepEdit(ctx context.Context, e settings.GuardedEdit) error {
	_, err := c.do(ctx, KeepEdit{Edit: e})
	return err
}

// TokenStatus reports whether a GitHub token is in the keyring, and for which host.
func (c *Client) TokenStatus(ctx context.Context) (token.State, error) {
	r, err := c.do(ctx, TokenStatus{})
	if err != nil || r.Token == nil {
		return token.State{}, err
	}
	return *r.Token, nil
}

// SetToken stores tok in the keyring for the GitHub API at apiURL.
func (c *Client) SetToken(ctx context.Context, tok, apiURL string) error {
	_, err := c.do(ctx, SetToken{Token: tok, APIURL: apiURL})
	return err
}

// CreateSettings has the tray write a starter settings file where it reads its settings,
// when there is none yet.
func (c *Client) CreateSettings(ctx context.Context) error {
	_, err := c.do(ctx, CreateSettings{})
	return err
}

// CheckToken has the tray check the keyring's token with the GitHub API it was saved for,
// and returns what GitHub said; token.ErrNotFound when there is none.
func (c *Client) CheckToken(ctx context.Context) (TokenCheck, error) {
	r, err := c.do(ctx, CheckToken{})
	if err != nil || r.TokenCheck == nil {
		return TokenCheck{}, err
	}
	return *r.TokenCheck, nil
}

// DeleteToken removes the token from the keyring; token.ErrNotFound when there was none.
func (c *Client) DeleteToken(ctx context.Context) error {
	_, err := c.do(ctx, DeleteToken{})
	return err
}

// RunCanary runs the canary and returns its report, with an error when it did not pass.
func (c *Client) RunCanary(ctx context.Context) (string, error) {
	r, err := c.do(ctx, RunCanary{})
	return r.Text, err
}

// StopCanary stops the canary under way.
func (c *Client) StopCanary(ctx context.Context) error {
	_, err := c.do(ctx, StopCanary{})
	return err
}

// PlanGuard asks the tray what setting up the example guard hook would write.
func (c *Client) PlanGuard(ctx context.Context) (GuardPlan, error) {
	r, err := c.do(ctx, PlanGuard{})
	if err != nil || r.Guard == nil {
		return GuardPlan{}, err
	}
	return *r.Guard, nil
}

// SetUpGuard has the tray write the guard hook's setup named by digest (GuardPlan.Digest)
// and set segwi.canary.guardDeny.
func (c *Client) SetUpGuard(ctx context.Context, digest string) error {
	_, err := c.do(ctx, SetUpGuard{Digest: digest})
	return err
}

// Quit stops every run and ends the tray.
func (c *Client) Quit(ctx context.Context) error {
	_, err := c.do(ctx, Quit{})
	return err
}

// Subscribe asks for the run id's events, which arrive as RunEvents.
func (c *Client) Subscribe(ctx context.Context, id string) error {
	_, err := c.do(ctx, Subscribe{Run: id})
	return err
}

// Unsubscribe ends a Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, id string) error {
	_, err := c.do(ctx, Unsubscribe{Run: id})
	return err
}

// Commit commits the ended run id's changes as the person; see Commit. It returns what
// was committed and left out.
func (c *Client) Commit(ctx context.Context, cmd Commit) (record.Committed, error) {
	r, err := c.do(ctx, cmd)
	if err != nil {
		return record.Committed{}, err
	}
	if r.Commit == nil {
		return record.Committed{}, errors.New("commit: the tray's reply holds no commit")
	}
	return *r.Commit, nil
}

// OpenPullRequest opens a pull request for the ended run's pushed branch; see
// OpenPullRequest. It returns the pull request, whose URL is recorded on the run.
func (c *Client) OpenPullRequest(ctx context.Context, cmd OpenPullRequest) (record.PullRequest, error) {
	r, err := c.do(ctx, cmd)
	if err != nil {
		return record.PullRequest{}, err
	}
	if r.PullRequest == nil {
		return record.PullRequest{}, errors.New("open pull request: the tray's reply holds no pull request")
	}
	return *r.PullRequest, nil
}

// Continue starts a run that continues the ended run id with prompt; see Continue. It
// returns the new run's id.
func (c *Client) Continue(ctx context.Context, id, prompt string, keepOpen bool) (string, error) {
	r, err := c.do(ctx, Continue{Run: id, Prompt: prompt, KeepOpen: keepOpen})
	return r.Run, err
}

// Changes returns what the run id changed since its base, with the diff of the file path
// ("" for every file); or, when since is the Stamp of a ChangeSet of path and the checkout
// has not changed since it was read, a ChangeSet that says Unchanged.
func (c *Client) Changes(ctx context.Context, id, path, since string) (ChangeSet, error) {
	return c.changes(ctx, Changes{Run: id, Path: path, Since: since})
}

// ChangedFiles returns the files and commits the run id changed since its base, without
// a diff.
func (c *Client) ChangedFiles(ctx context.Context, id string) (ChangeSet, error) {
	return c.changes(ctx, Changes{Run: id, FilesOnly: true})
}

func (c *Client) changes(ctx context.Context, cmd Changes) (ChangeSet, error) {
	r, err := c.do(ctx, cmd)
	if err != nil {
		return ChangeSet{}, err
	}
	if r.Changes == nil {
		return ChangeSet{}, errors.New("control: the tray's reply to changes holds no changes")
	}
	return *r.Changes, nil
}
