package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/segwi/segwi/canary"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/push"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
	"github.com/segwi/segwi/settings/token/keyring"
)

// canaryTimeout bounds a canary run started from a window.
const canaryTimeout = 10 * time.Minute

// Handle carries out one command of a client; control.Server has checked that the
// client's role may send it. See control.Handler.
func (h *Hub) Handle(ctx context.Context, p *control.Peer, cmd control.Body) control.Reply {
	<-h.ready
	switch cmd := cmd.(type) {
	case control.Start:
		// The run outlives the command that started it: the person stops it, or the
		// tray's Close does.
		r, err := h.core.Start(context.WithoutCancel(ctx), cmd.Spec())
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Run: r.ID()}
	case control.FollowUp:
		return failed(h.withLive(cmd.Run, func(r *runs.Run) error { return r.Send(cmd.Text) }))
	case control.Finish:
		return failed(h.withLive(cmd.Run, func(r *runs.Run) error { r.CloseInput(); return nil }))
	case control.Stop:
		return failed(h.withLive(cmd.Run, func(r *runs.Run) error { r.Stop(); return nil }))
	case control.RaiseBudget:
		return failed(h.withLive(cmd.Run, func(r *runs.Run) error { return raiseBudget(p, r, cmd.By) }))
	case control.CheckPush:
		return failed(h.checkPush(ctx, cmd.Run))
	case control.Push:
		words, err := h.push(ctx, cmd.Run)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Text: words}
	case control.RemoveWorktree:
		words, err := h.core.RemoveWorktree(ctx, cmd.Run, cmd.DeleteBranch, cmd.Force)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Text: words}
	case control.InspectWorktree:
		loss, err := h.core.InspectWorktree(ctx, cmd.Run)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Worktree: &loss}
	case control.Commit:
		c, err := h.commit(ctx, cmd.Run, changes.CommitOptions{Message: cmd.Message, Include: cmd.Include})
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Commit: &c, Text: "Committed " + runs.CommitText(c) + "."}
	case control.OpenPullRequest:
		pr, err := h.openPullRequest(ctx, cmd.Run, core.PullRequestOptions{Base: cmd.Base, Title: cmd.Title, Body: cmd.Body, Draft: cmd.Draft})
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{PullRequest: &pr}
	case control.Continue:
		r, err := h.core.Continue(context.WithoutCancel(ctx), cmd.Run, cmd.Prompt, cmd.KeepOpen, nil)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Run: r.ID()}
	case control.Answer:
		return failed(h.answer(cmd))
	case control.SaveSettings:
		err := h.core.SaveSettings(h.core.Report().File, cmd.Settings)
		h.republish()
		return failed(err)
	case control.CreateSettings:
		// The watcher reloads the file: its keys are the defaults, so nothing changes.
		return failed(settings.CreateStarter(h.core.Report().File))
	case control.RemoveRetired:
		// The watcher reloads the file; the retired keys are gone from the next report.
		_, err := settings.RemoveRetired(h.core.Report().File)
		return failed(err)
	case control.ConfirmEdit:
		err := h.core.ConfirmEdit(cmd.Edit)
		h.republish()
		return failed(err)
	case control.KeepEdit:
		h.core.KeepEdit(cmd.Edit)
		h.republish()
		return control.Reply{}
	case control.TokenStatus:
		st, err := h.opts.Token.Status(ctx)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Token: &st}
	case control.SetToken:
		apiURL := cmd.APIURL
		if apiURL == "" {
			apiURL = h.core.Settings().GitHub.APIURL
		}
		return failed(h.opts.Token.Set(ctx, cmd.Token, apiURL))
	case control.DeleteToken:
		return failed(h.opts.Token.Delete(ctx))
	case control.CheckToken:
		c, err := h.checkToken(ctx)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{TokenCheck: &c}
	case control.RunCanary:
		report, err := h.runCanary(ctx)
		r := failed(err)
		r.Text = report
		return r
	case control.PlanGuard:
		plan, err := h.planGuard()
		if err != nil {
			return failed(err)
		}
		return control.Reply{Guard: &plan}
	case control.SetUpGuard:
		err := h.setUpGuard(cmd.Digest)
		h.republish()
		return failed(err)
	case control.StopCanary:
		h.stopCanary()
		return control.Reply{}
	case control.Quit:
		return failed(h.quit())
	case control.Subscribe:
		return failed(h.subscribe(p, cmd.Run))
	case control.Unsubscribe:
		h.unsubscribe(p, cmd.Run)
		return control.Reply{}
	case control.RunWindows:
		h.windows.runWindowsOpen(p, cmd.Runs)
		return control.Reply{}
	case control.Changes:
		cs, err := h.changeSet(ctx, cmd)
		if err != nil {
			return control.Failed(err)
		}
		return control.Reply{Changes: &cs}
	}
	return control.Failed(fmt.Errorf("%s: the tray does not carry out this command", cmd.MessageType()))
}

// failed is the reply of a command that returned err: done when err is nil.
func failed(err error) control.Reply { return control.Failed(err) }

// withLive calls do with the live run id; an error wrapping runs.ErrNotRunning when the
// run is not live (it ended, or never was).
func (h *Hub) withLive(id string, do func(*runs.Run) error) error {
	r := h.live(id)
	if r == nil {
		return fmt.Errorf("run %s: %w (it has ended)", id, runs.ErrNotRunning)
	}
	return do(r)
}

// live returns the run id when it has not ended, else nil.
func (h *Hub) live(id string) *runs.Run {
	if r := h.core.Get(id); r != nil && !r.State().Final() {
		return r
	}
	return nil
}

// runCanary runs the canary, one at a time, until it is done, StopCanary is sent, the
// client's connection ends or canaryTimeout passes.
func (h *Hub) runCanary(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, canaryTimeout)
	defer cancel()
	h.mu.Lock()
	if h.canary != nil {
		h.mu.Unlock()
		return "", errors.New("a canary is running already: wait for its report")
	}
	h.canary = cancel
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.canary = nil
		h.mu.Unlock()
	}()
	return h.opts.Canary(ctx)
}

func (h *Hub) stopCanary() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.canary != nil {
		h.canary()
	}
}

// quit stops every run in two steps and then ends the tray.
func (h *Hub) quit() error {
	if h.opts.Quit == nil {
		return errors.New("this tray cannot be quit from a window")
	}
	err := h.core.StopAll()
	if err != nil {
		h.opts.Log.Printf("stopping the runs to quit: %v", err)
	}
	go h.opts.Quit()
	return nil
}

// TokenStore is where the tray keeps the GitHub token: the OS keyring (package
// settings/token) in segwi, a fake in tests. It never hands the token to a client.
type TokenStore interface {
	// Status reports whether a token is stored, and for which host.
	Status(ctx context.Context) (token.State, error)
	// Set stores tok for the GitHub API at apiURL, replacing any token stored before.
	Set(ctx context.Context, tok, apiURL string) error
	// Delete removes the stored token; token.ErrNotFound when there was none.
	Delete(ctx context.Context) error
	// For returns the stored token when it was saved for the GitHub API at apiURL's host;
	// a *token.HostError for another host, token.ErrNotFound when none is stored.
	For(ctx context.Context, apiURL string) (string, error)
}

// keyringToken is the TokenStore of segwi: package settings/token, which bounds every
// keyring call with a timeout.
type keyringToken struct{}

func (keyringToken) Status(ctx context.Context) (token.State, error) { return keyring.Status(ctx) }
func (keyringToken) Set(ctx context.Context, tok, apiURL string) error {
	return keyring.Set(ctx, tok, apiURL)
}
func (keyringToken) Delete(ctx context.Context) error { return keyring.Delete(ctx) }
func (keyringToken) For(ctx context.Context, apiURL string) (string, error) {
	return keyring.For(ctx, apiURL)
}

// checkToken checks the keyring's token with the GitHub API it was saved for: the API URL
// in force when the token was saved for its host (a GitHub Enterprise path included), else
// the one its host stands for (token.APIURL). The token goes nowhere else.
func (h *Hub) checkToken(ctx context.Context) (control.TokenCheck, error) {
	st, err := h.opts.Token.Status(ctx)
	if err != nil {
		return control.TokenCheck{}, err
	}
	if !st.Set {
		return control.TokenCheck{}, fmt.Errorf("check the GitHub token: %w", token.ErrNotFound)
	}
	apiURL := h.core.Settings().GitHub.APIURL
	if host, err := token.APIHost(apiURL); err != nil || !strings.EqualFold(host, st.APIHost) {
		apiURL = token.APIURL(st.APIHost)
	}
	tok, err := h.opts.Token.For(ctx, apiURL)
	if err != nil {
		return control.TokenCheck{}, err
	}
	owner, err := push.CheckToken(ctx, push.TokenCheck{APIBase: apiURL, Token: tok, Client: h.opts.GitHub})
	if err != nil {
		return control.TokenCheck{}, err
	}
	return control.TokenCheck{APIURL: apiURL, Login: owner.Login, Scopes: owner.Scopes}, nil
}

// guardSetup plans the guard hook's setup in the person's home folder.
func (h *Hub) guardSetup() (canary.GuardSetup, error) {
	home := h.opts.Home
	if home == "" {
		var err error
		if home, err = os.UserHomeDir(); err != nil {
			return canary.GuardSetup{}, fmt.Errorf("setting up the guard hook: %w", err)
		}
	}
	return canary.PlanGuardSetup(home)
}

// planGuard says what setting up the guard hook would write, for the person to read.
func (h *Hub) planGuard() (control.GuardPlan, error) {
	s, err := h.guardSetup()
	if err != nil {
		return control.GuardPlan{}, err
	}
	plan := control.GuardPlan{Deny: s.Deny, Digest: s.Digest()}
	for _, f := range s.Files {
		plan.Files = append(plan.Files, control.GuardFile{Path: f.Path, Action: string(f.Action), Content: f.Content})
	}
	return plan, nil
}

// setUpGuard writes the guard hook's setup the person read, named by digest, and sets
// segwi.canary.guardDeny to its deny file in the settings file (the watcher reloads it).
func (h *Hub) setUpGuard(digest string) error {
	s, err := h.guardSetup()
	if err != nil {
		return err
	}
	if s.Digest() != digest {
		return fmt.Errorf("setting up the guard hook: the files %w: look at what will be written again", canary.ErrGuardChanged)
	}
	if err := s.Apply(); err != nil {
		return fmt.Errorf("setting up the guard hook: %w: look at what will be written again", err)
	}
	return h.core.SaveGuardDeny(h.core.Report().File, s.Deny)
}

// raiseBudget raises r's budget by by for client p. The run window raises a going run's
// budget at any time; the approval page, on another device, only that of a run waiting at
// its budget, once, as it answers an approval, and the record names its device and login.
func raiseBudget(p *control.Peer, r *runs.Run, by runs.Budget) error {
	if p.Role() == control.RoleRemote {
		return r.RaiseWaitingBudget(by, "you from "+p.Who())
	}
	return r.RaiseBudget(by, "you, in the run window")
}
