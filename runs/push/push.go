package push

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// DefaultRemote is the remote pushed to when [Request.Remote] is empty.
const DefaultRemote = "origin"

// maxGitOutput caps how much of git's output is kept on an [Attempt].
const maxGitOutput = 16 << 10

// Request says what to push and hands Push what it needs from the rest of segwi.
type Request struct {
	// Checkout is the run's checkout; its current branch is pushed.
	Checkout string
	// Remote is the remote to push to; empty means "origin".
	Remote string
	// RunActive is true while the run has not ended; such a push is refused.
	RunActive bool
	// AskRun is true for an ask run, which is to change nothing: its push is refused.
	AskRun bool

	// Token reads the GitHub token (the keyring's Get). It is called only after every
	// local check passed. Required by Push; Check does not call it.
	Token func(ctx context.Context) (string, error)
	// TokenNotFound is the error Token returns (matched with errors.Is) when no token is
	// set. A *RefusedError from Token (segwi's: a token saved for another host) is the
	// refusal; any other error is reported as a keyring that cannot be read.
	TokenNotFound error
	// TokenHosts are the hosts (name, or name:port) the token may be sent to; empty means
	// github.com. A GitHub Enterprise host is added here from the settings.
	TokenHosts []string

	// Record, when set, is called once for every attempt, refusals included, with words
	// already redacted; the caller appends it to the run's events.
	Record func(Attempt)

	// Git is the git binary; empty means the first git on PATH that only root can change
	// (internal/lib/gitcmd's Program).
	Git string
	// Env is git's environment before Push cleans it; nil means this process's.
	Env []string
	// AllowLoopbackHTTP accepts http:// remotes on 127.0.0.1, ::1 and localhost. It is
	// meant for tests, whose git server has no certificate; HTTPS is required otherwise.
	AllowLoopbackHTTP bool
	// Now returns the time recorded on an attempt; nil means time.Now.
	Now func() time.Time
}

// Target is what a push would send, as found by [Check].
type Target struct {
	Remote string // the remote's name
	URL    string // its push URL, without user or password
	Branch string // the current branch, short name
	Commit string // the branch's commit
	// DefaultBranch is the remote's default branch as recorded locally, or "" when the
	// checkout has no refs/remotes/REMOTE/HEAD.
	DefaultBranch string

	url      remoteURL
	checkout *gitcmd.Checkout // the checkout as the checks read it
}

// Check runs every local check a push makes before it reads the token, without reading
// it, touching the network or recording anything. It returns what would be pushed, or a
// *[RefusedError] saying why not; other errors mean git could not be run. A run window can
// call it to enable its Push button. It returns when the local git commands finish or ctx
// is done.
func Check(ctx context.Context, req Request) (Target, error) {
	return check(ctx, req, &Target{})
}

// check fills t as facts become known, so a refusal still records what was found.
func check(ctx context.Context, req Request, t *Target) (Target, error) {
	t.Remote = req.Remote
	if t.Remote == "" {
		t.Remote = DefaultRemote
	}
	if req.AskRun {
		return *t, refuse(ReasonAskRun, "%s", AskRunRefusal)
	}
	if req.RunActive {
		return *t, refuse(ReasonRunActive, "the run is still active; wait for it to end, or stop it, then push")
	}
	if runtime.GOOS == "windows" {
		return *t, refuse(ReasonUnsupported, "segwi cannot push on Windows yet; push the branch yourself with git push")
	}
	if req.Checkout == "" {
		return *t, refuse(ReasonCheckoutGone, "the run has no checkout to push from")
	}
	info, err := os.Stat(req.Checkout)
	if err != nil || !info.IsDir() {
		return *t, refuse(ReasonCheckoutGone, "the run's checkout %s is gone, so there is nothing to push", req.Checkout)
	}
	g := checkoutGit(req)
	if _, err := g.Program(); err != nil {
		return *t, fmt.Errorf("push: %w; then push again", err)
	}
	c, err := g.Open(ctx, req.Checkout)
	if err != nil {
		if errors.Is(err, gitcmd.ErrNotGit) {
			return *t, refuse(ReasonCheckoutGone, "%s is not a git checkout any more, so there is nothing to push", req.Checkout)
		}
		return *t, fmt.Errorf("push: %w", err)
	}
	t.checkout = c

	switch {
	case c.HeadRef == "":
		return *t, refuse(ReasonDetachedHead,
			"HEAD in %s is detached (at %s), not on a branch; create one with git switch -c NAME, then push", req.Checkout, gitcmd.Short(c.Head))
	case c.Branch == "":
		return *t, refuse(ReasonDetachedHead, "HEAD in %s points at %s, not at a branch; switch to a branch, then push", req.Checkout, c.HeadRef)
	}
	t.Branch = c.Branch
	if c.Head == "" {
		return *t, refuse(ReasonNoCommits, "branch %s in %s has no commit yet; commit, then push", t.Branch, req.Checkout)
	}
	t.Commit = c.Head

	if !c.RemoteConfigured(t.Remote) {
		return *t, refuse(ReasonNoRemote, "%s has no remote named %s; add it with git remote add %s URL, or choose the repository's remote in segwi's settings",
			req.Checkout, t.Remote, t.Remote)
	}
	list := c.PushURLs(t.Remote)
	if len(list) != 1 {
		t.URL = withoutUserinfo(strings.Join(list, " "))
		return *t, refuse(ReasonRemoteSetup, "remote %s has %d push URLs (%s); segwi pushes to exactly one, so push this remote yourself",
			t.Remote, len(list), t.URL)
	}
	t.URL = withoutUserinfo(list[0])
	if vcs, _ := c.Config.Get("remote." + t.Remote + ".vcs"); vcs != "" {
		return *t, refuse(ReasonRemoteSetup, "remote %s is handled by the git-remote-%s helper (remote.%s.vcs), which segwi does not hand its token to; push this remote yourself",
			t.Remote, vcs, t.Remote)
	}
	u, refusal := checkRemoteURL(t.Remote, list[0], req.AllowLoopbackHTTP, req.TokenHosts)
	if refusal != nil {
		return *t, refusal
	}
	t.url = u
	t.URL = u.display()

	def, err := c.Symref("refs/remotes/" + t.Remote + "/HEAD")
	switch {
	case err != nil:
		return *t, fmt.Errorf("push: reading the default branch of %s in %s: %w", t.Remote, req.Checkout, err)
	case def != "":
		t.DefaultBranch = strings.TrimPrefix(def, "refs/remotes/"+t.Remote+"/")
		if t.Branch == t.DefaultBranch {
			return *t, refuse(ReasonDefaultBranch,
				"%s is the default branch of %s; segwi does not push to it. Create a branch for the run's work (git switch -c NAME), then push that", t.Branch, t.Remote)
		}
	case t.Branch == "main" || t.Branch == "master":
		return *t, refuse(ReasonDefaultBranch,
			"%s is usually a default branch, and this checkout does not record the default branch of %s; if it is not the default, record the real one with git remote set-head %s --auto and push again, otherwise create a branch for the work (git switch -c NAME) and push that",
			t.Branch, t.Remote, t.Remote)
	}
	return *t, nil
}

// Push pushes the commit of the current branch of req.Checkout, as the checks found it, to
// the same branch at req.Remote's push URL, authenticating with the token from req.Token
// through git's credential protocol. git runs in a private repository segwi makes for the
// push and reads no configuration the agent could have written (see the package doc). It returns the attempt, also handed to req.Record, and an error when
// the branch was not pushed: a *[RefusedError] when segwi refused before any network
// call, another error when git push failed. It returns when git push exits or ctx is done.
func Push(ctx context.Context, req Request) (Attempt, error) {
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	a := Attempt{Time: now()}
	a, err := doPush(ctx, req, a)
	if req.Record != nil {
		req.Record(a)
	}
	return a, err
}

func doPush(ctx context.Context, req Request, a Attempt) (Attempt, error) {
	var t Target
	_, err := check(ctx, req, &t)
	a.Remote, a.URL, a.Branch, a.Commit = t.Remote, t.URL, t.Branch, t.Commit
	if err == nil {
		var token string
		token, err = readToken(ctx, req.Token, req.TokenNotFound)
		if err == nil {
			return runPush(ctx, req, t, token, a)
		}
	}
	var r *RefusedError
	if errors.As(err, &r) {
		a.Outcome, a.Reason, a.Message = Refused, r.Reason, r.Msg
	} else {
		a.Outcome, a.Message = Failed, err.Error()
	}
	return a, err
}

// readToken calls token and turns its errors into refusals a person can act on; a
// refusal of token's own (a token saved for another host) is passed on as it is.
func readToken(ctx context.Context, token func(context.Context) (string, error), notFound error) (string, error) {
	if token == nil {
		return "", errors.New("push: no way to read the GitHub token was given (Request.Token is nil)")
	}
	tok, err := token(ctx)
	var refused *RefusedError
	switch {
	case errors.As(err, &refused):
		return "", refused
	case err != nil && notFound != nil && errors.Is(err, notFound), err == nil && strings.TrimSpace(tok) == "":
		return "", refuse(ReasonNoToken, "no GitHub token is set; set one with `segwi token set`, which reads it from standard input, then push again")
	case err != nil:
		return "", refuse(ReasonKeyring, "could not read the GitHub token from the OS keyring: %v; unlock or start the keyring, then push again", err)
	}
	return strings.TrimSpace(tok), nil
}
