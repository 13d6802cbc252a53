package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// Shipper ships what an ended run changed: it reads the run's changes, commits them as
// the person, pushes the run's branch and opens a pull request for it, recording each on
// the run. It is the one place those rules live, for every face of segwi: segwi push and
// segwi commit build one from the settings they loaded, the hub from the core's. An ask
// run is to change nothing: nothing of it is committed, pushed or opened.
type Shipper struct {
	Settings settings.Settings
	StateDir string
	// AllowLoopbackHTTP accepts http:// remotes and APIs on loopback: for tests only.
	AllowLoopbackHTTP bool
	// Log gets what the person should know that is no error: a process the run left
	// running that was killed, an attempt that could not be recorded. Nil writes nothing.
	Log logger.Logf
}

// ErrNotEnded is wrapped by Commit's error for a run that has not ended.
var ErrNotEnded = errors.New("the run has not ended")

// Changes reads the changes of the run id (or unique id prefix) from its base (see
// changes.Take), live or ended: close the snapshot when done. It returns when git has
// answered or ctx is done.
func (s Shipper) Changes(ctx context.Context, id string) (*changes.Snapshot, runs.Info, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return nil, runs.Info{}, err
	}
	base := changes.Base{}
	if info.Base != nil {
		base = *info.Base
	}
	snap, err := changes.Take(ctx, gitcmd.New("", "", nil), base)
	if err != nil {
		return nil, info, fmt.Errorf("reading the changes of run %s: %w", info.ID, err)
	}
	return snap, info, nil
}

// Diff writes the diff of the changes of the run id (or unique id prefix) from its base
// to w, whole, as git prints it (changes.WriteDiff): nothing is listed or counted first,
// so it costs about what git diff costs on the same changes. It returns when git has
// answered or ctx is done.
func (s Shipper) Diff(ctx context.Context, id string, w io.Writer) error {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return err
	}
	base := changes.Base{}
	if info.Base != nil {
		base = *info.Base
	}
	if err := changes.WriteDiff(ctx, gitcmd.New("", "", nil), base, nil, w); err != nil {
		return fmt.Errorf("reading the changes of run %s: %w", info.ID, err)
	}
	return nil
}

// quiet kills what the ended run info left running (runs.KillLeftovers), naming each
// process killed through Log: no process of the run may change the checkout, or its git
// configuration, while segwi commits or pushes from it.
func (s Shipper) quiet(info runs.Info) error {
	killed, err := runs.KillLeftovers(s.StateDir, info.ID)
	for _, p := range killed {
		if p.Killed {
			s.Log.Printf("killed process %d, which run %s left running: %s", p.PID, info.ID, p.Command)
		}
	}
	return err
}

// Commit commits the uncommitted changes of the ended run id as the person (see
// changes.Commit: their git identity, hooks and signing off, the files already changed
// before the run left out unless opts.Include names them), and records the commit on the
// run (runs.EventCommit). An empty opts.Message is the run's task's first line. Its errors
// wrap runs.ErrAskRun, ErrNotEnded, or are changes' (*changes.RefusedError for what the person
// can mend). It returns when git has answered or ctx is done.
func (s Shipper) Commit(ctx context.Context, id string, opts changes.CommitOptions) (changes.Committed, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return changes.Committed{}, err
	}
	switch {
	case info.Kind == runs.KindAsk:
		return changes.Committed{}, fmt.Errorf("commit of run %s: %w", info.ID, runs.ErrAskRun)
	case !info.State.Final():
		return changes.Committed{}, fmt.Errorf("commit of run %s: %w (it is %s); commit once it has ended, or stop it", info.ID, ErrNotEnded, info.State)
	case info.Base == nil:
		info.Base = &changes.Base{}
	}
	if err := s.quiet(info); err != nil {
		return changes.Committed{}, fmt.Errorf("commit of run %s: %w", info.ID, err)
	}
	if strings.TrimSpace(opts.Message) == "" {
		opts.Message = runs.WorkTitle(info)
	}
	if opts.Reflog == "" {
		opts.Reflog = "segwi: commit of run " + info.ID
	}
	c, err := changes.Commit(ctx, gitcmd.New("", "", nil), *info.Base, opts)
	if err != nil {
		return changes.Committed{}, fmt.Errorf("commit of run %s: %w", info.ID, err)
	}
	if _, err := runs.Annotate(s.StateDir, info.ID, runs.Event{Type: runs.EventCommit, Text: runs.CommitText(c), Commit: &c}, nil); err != nil {
		s.Log.Printf("run %s: the commit %s is not on the run's record: %v", info.ID, c.Commit, err)
	}
	return c, nil
}

// pushRequest is the push request for the run info, as PushRequest says, refused for an
// ask run and while the run has not ended.
func (s Shipper) pushRequest(info runs.Info) push.Request {
	req := PushRequest(s.Settings, s.StateDir, info.ID, info.Checkout, func(err error) {
		s.Log.Printf("run %s: the push attempt is not on the run's record: %v", info.ID, err)
	})
	req.AskRun = info.Kind == runs.KindAsk
	req.RunActive = !info.State.Final()
	req.AllowLoopbackHTTP = s.AllowLoopbackHTTP
	return req
}

// CheckPush runs push's local checks for the run id, without the token or the network:
// nil when its branch can be pushed, else a *push.RefusedError saying why not.
func (s Shipper) CheckPush(ctx context.Context, id string) error {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return err
	}
	_, err = push.Check(ctx, s.pushRequest(info))
	return err
}

// Push pushes the current branch of the ended run id's checkout with the keyring's token
// (see push.Push), after killing what the run left running; every attempt, refusals
// included, is on the run's events. It returns when git push ended or ctx is done.
func (s Shipper) Push(ctx context.Context, id string) (push.Attempt, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return push.Attempt{}, err
	}
	req := s.pushRequest(info)
	if !req.RunActive && !req.AskRun {
		if err := s.quiet(info); err != nil {
			return push.Attempt{}, fmt.Errorf("push of run %s: %w", info.ID, err)
		}
	}
	return push.Push(ctx, req)
}

// PullRequestOptions say what pull request to open for a run's pushed branch. Empty
// fields take the defaults: the repository's default branch as Base, the run's task as
// Title (runs.WorkTitle), a body naming the run, its task and its last result.
type PullRequestOptions struct {
	Base, Title, Body string
	Draft             bool
}

// OpenPullRequest opens a pull request for the branch last pushed for the ended run id
// (its last successful push attempt), through the GitHub API of the settings with the
// keyring's token, and records it on the run: run.json's PullRequest is its URL, and a
// runs.EventPullRequest holds it. Its errors wrap runs.ErrAskRun; push's token refusals are
// *push.RefusedErrors. It returns when GitHub answered or ctx is done.
func (s Shipper) OpenPullRequest(ctx context.Context, id string, o PullRequestOptions) (runs.PullRequest, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return runs.PullRequest{}, err
	}
	if info.Kind == runs.KindAsk {
		return runs.PullRequest{}, fmt.Errorf("open pull request for run %s: %w", info.ID, runs.ErrAskRun)
	}
	var pushed *push.Attempt
	var result string // the run's last result, for the default body
	err = runs.ReadEvents(s.StateDir, info.ID, func(e runs.Event) error {
		switch {
		case e.Type == runs.EventPush && e.Push != nil && e.Push.Outcome == push.Pushed:
			pushed = e.Push
		case e.Type == runs.EventResult && e.Text != "":
			result = e.Text
		}
		return nil
	})
	if err != nil {
		return runs.PullRequest{}, fmt.Errorf("open pull request for run %s: %w", info.ID, err)
	}
	if pushed == nil {
		return runs.PullRequest{}, fmt.Errorf("open pull request for run %s: its branch was never pushed; push it first", info.ID)
	}
	if o.Title == "" {
		o.Title = runs.WorkTitle(info)
	}
	if o.Body == "" {
		o.Body = pullRequestBody(info, result)
	}
	opened, err := push.OpenPullRequest(ctx, push.PullRequest{
		APIBase:           s.Settings.GitHub.APIURL,
		RemoteURL:         pushed.URL,
		Head:              pushed.Branch,
		Base:              o.Base,
		Title:             o.Title,
		Body:              o.Body,
		Draft:             o.Draft,
		Token:             tokenFor(s.Settings.GitHub.APIURL),
		TokenNotFound:     token.ErrNotFound,
		AllowLoopbackHTTP: s.AllowLoopbackHTTP,
	})
	if err != nil {
		return runs.PullRequest{}, err
	}
	pr := runs.PullRequest{Number: opened.Number, URL: opened.URL, Head: opened.Head, Base: opened.Base}
	_, err = runs.Annotate(s.StateDir, info.ID, runs.Event{Type: runs.EventPullRequest, Text: pr.URL, PullRequest: &pr},
		func(in *runs.Info) { in.PullRequest = pr.URL })
	if err != nil {
		s.Log.Printf("run %s: pull request %s is not on the run's record: %v", info.ID, pr.URL, err)
	}
	return pr, nil
}

// pullRequestBody is a pull request's default body: which run made the change, its task
// and its last result.
func pullRequestBody(info runs.Info, result string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Made by a segwi %s run (Claude Code), run `%s`, cost $%.4f.\n", info.Kind, info.ID, info.CostUSD)
	if p := strings.TrimSpace(info.Prompt); p != "" {
		fmt.Fprintf(&b, "\n**Prompt**\n\n%s\n", p)
	}
	if result != "" {
		fmt.Fprintf(&b, "\n**Result**\n\n%s\n", result)
	}
	return b.String()
}
