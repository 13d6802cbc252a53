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
// changes.Take), live or ended: the changes of its conversation, counted from the first
// run's base (runs.Conversation.Base), so that a continuation's changes hold the earlier
// runs' too and the files changed before the first run are the ones set apart. Close the
// snapshot when done. It returns when git has answered or ctx is done.
func (s Shipper) Changes(ctx context.Context, id string) (*changes.Snapshot, runs.Conversation, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return nil, runs.Conversation{}, err
	}
	conv := runs.ConversationOf(s.StateDir, info)
	snap, err := changes.Take(ctx, gitcmd.New("", "", nil), conv.Base())
	if err != nil {
		return nil, conv, fmt.Errorf("reading the changes of %s: %w", conv.Name(), err)
	}
	return snap, conv, nil
}

// Diff writes the diff of the changes of the run id (or unique id prefix) to w, whole, as
// git prints it (changes.WriteDiff): the changes of its conversation, from the first run's
// base, as Changes reads them. Nothing is listed or counted first, so it costs about what
// git diff costs on the same changes. It returns when git has answered or ctx is done.
func (s Shipper) Diff(ctx context.Context, id string, w io.Writer) error {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return err
	}
	conv := runs.ConversationOf(s.StateDir, info)
	if err := changes.WriteDiff(ctx, gitcmd.New("", "", nil), conv.Base(), nil, w); err != nil {
		return fmt.Errorf("reading the changes of %s: %w", conv.Name(), err)
	}
	return nil
}

// conversation reads the conversation of the run id, for what ships its work: every run of
// it must have ended, and none may be an ask run. Errors wrap runs.ErrNotFound,
// runs.ErrAskRun and ErrNotEnded; what is an error of the operation op.
func (s Shipper) conversation(op, id string) (runs.Conversation, runs.Info, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return runs.Conversation{}, runs.Info{}, err
	}
	conv := runs.ConversationOf(s.StateDir, info)
	if info.Kind == runs.KindAsk {
		return conv, info, fmt.Errorf("%s of run %s: %w", op, info.ID, runs.ErrAskRun)
	}
	if live, ok := conv.Live(); ok {
		if live.ID == info.ID {
			return conv, info, fmt.Errorf("%s of run %s: %w (it is %s); %s once it has ended, or stop it", op, info.ID, ErrNotEnded, info.State, op)
		}
		return conv, info, fmt.Errorf("%s of run %s: %w: run %s, which continues it, is %s; %s once it has ended, or stop it",
			op, info.ID, ErrNotEnded, live.ID, live.State, op)
	}
	return conv, info, nil
}

// quiet kills what the ended runs of conv left running (runs.KillLeftovers), naming each
// process killed through Log: no process of the conversation may change the checkout, or
// its git configuration, while segwi commits or pushes from it.
func (s Shipper) quiet(conv runs.Conversation) error {
	for _, r := range conv.Runs {
		killed, err := runs.KillLeftovers(s.StateDir, r.ID)
		for _, p := range killed {
			if p.Killed {
				s.Log.Printf("killed process %d, which run %s left running: %s", p.PID, r.ID, p.Command)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// Commit commits the uncommitted changes of the ended run id's conversation (the run and
// those that continue it, or that it continues: runs.Conversation) as the person (see
// changes.Commit: their git identity, no hooks and no signing, the files already changed
// before the conversation's first run left out unless opts.Include names them), and records
// the commit on the run (runs.EventCommit). An empty opts.Message is the conversation's
// default (runs.Story.CommitMessage: the first task, then Claude's final summary). With
// segwi.provenance.trailer on, the message ends with a Segwi-Runs trailer naming the
// conversation's runs. Its errors wrap runs.ErrAskRun, ErrNotEnded, or are changes'
// (*changes.RefusedError for what the person can mend). It returns when git has answered
// or ctx is done.
func (s Shipper) Commit(ctx context.Context, id string, opts changes.CommitOptions) (changes.Committed, error) {
	conv, info, err := s.conversation("commit", id)
	if err != nil {
		return changes.Committed{}, err
	}
	if err := s.quiet(conv); err != nil {
		return changes.Committed{}, fmt.Errorf("commit of run %s: %w", info.ID, err)
	}
	if strings.TrimSpace(opts.Message) == "" {
		opts.Message = runs.ReadStory(s.StateDir, conv).CommitMessage()
	}
	if s.Settings.Provenance.Trailer {
		opts.Message = runs.WithTrailer(opts.Message, conv.Trailer())
	}
	if opts.Reflog == "" {
		opts.Reflog = "segwi: commit of " + conv.Name()
	}
	c, err := changes.Commit(ctx, gitcmd.New("", "", nil), conv.Base(), opts)
	if err != nil {
		return changes.Committed{}, fmt.Errorf("commit of run %s: %w", info.ID, err)
	}
	if _, err := runs.Annotate(s.StateDir, info.ID, runs.Event{Type: runs.EventCommit, Text: runs.CommitText(c), Commit: &c}, nil); err != nil {
		s.Log.Printf("run %s: the commit %s is not on the run's record: %v", info.ID, c.Commit, err)
	}
	return c, nil
}

// pushRequest is the push request for the run info of the conversation conv, as
// PushRequest says, refused for an ask run and while a run of the conversation has not
// ended.
func (s Shipper) pushRequest(conv runs.Conversation, info runs.Info) push.Request {
	req := PushRequest(s.Settings, s.StateDir, info.ID, info.Checkout, func(err error) {
		s.Log.Printf("run %s: the push attempt is not on the run's record: %v", info.ID, err)
	})
	_, live := conv.Live()
	req.AskRun = info.Kind == runs.KindAsk
	req.RunActive = live
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
	_, err = push.Check(ctx, s.pushRequest(runs.ConversationOf(s.StateDir, info), info))
	return err
}

// Push pushes the current branch of the ended run id's checkout with the keyring's token
// (see push.Push), after killing what the runs of its conversation left running; it is
// refused while one of them has not ended. Every attempt, refusals included, is on the
// run's events; a push that landed is on its record too (runs.Info.Pushed). It returns
// when git push ended or ctx is done.
func (s Shipper) Push(ctx context.Context, id string) (push.Attempt, error) {
	info, err := runs.Load(s.StateDir, id)
	if err != nil {
		return push.Attempt{}, err
	}
	conv := runs.ConversationOf(s.StateDir, info)
	req := s.pushRequest(conv, info)
	if !req.RunActive && !req.AskRun {
		if err := s.quiet(conv); err != nil {
			return push.Attempt{}, fmt.Errorf("push of run %s: %w", info.ID, err)
		}
	}
	return push.Push(ctx, req)
}

// PullRequestOptions say what pull request to open for a run's pushed branch. Empty
// fields take the defaults: the repository's default branch as Base, and the conversation's
// title and body (runs.Story: the first task; Claude's final summary, the conversation and,
// with segwi.provenance.approvals on, what was allowed during it and by whom).
type PullRequestOptions struct {
	Base, Title, Body string
	Draft             bool
}

// OpenPullRequest opens a pull request for the branch last pushed for the ended run id's
// conversation (the last successful push attempt recorded on any of its runs), through the
// GitHub API of the settings with the keyring's token, and records it on the run: run.json's
// PullRequest is its URL, and a runs.EventPullRequest holds it. Its errors wrap
// runs.ErrAskRun and ErrNotEnded; push's token refusals are *push.RefusedErrors. It returns
// when GitHub answered or ctx is done.
func (s Shipper) OpenPullRequest(ctx context.Context, id string, o PullRequestOptions) (runs.PullRequest, error) {
	conv, info, err := s.conversation("open pull request", id)
	if err != nil {
		return runs.PullRequest{}, err
	}
	var pushed *push.Attempt
	for _, r := range conv.Runs {
		err := runs.ReadEvents(s.StateDir, r.ID, func(e runs.Event) error {
			if e.Type == runs.EventPush && e.Push != nil && e.Push.Outcome == push.Pushed && (pushed == nil || !e.Push.Time.Before(pushed.Time)) {
				pushed = e.Push
			}
			return nil
		})
		if err != nil {
			return runs.PullRequest{}, fmt.Errorf("open pull request for run %s: %w", info.ID, err)
		}
	}
	if pushed == nil {
		return runs.PullRequest{}, fmt.Errorf("open pull request for run %s: its branch was never pushed; push it first", info.ID)
	}
	if o.Title == "" || o.Body == "" {
		story := runs.ReadStory(s.StateDir, conv)
		if o.Title == "" {
			o.Title = story.Title()
		}
		if o.Body == "" {
			o.Body = story.PullRequestBody(s.Settings.Provenance.Approvals)
		}
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
