package control

import (
	"errors"

	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// Start starts a run, as record.Spec says. Its reply names the run.
type Start struct {
	Kind     record.Kind `json:"kind"`
	Checkout string      `json:"checkout"`
	Prompt   string      `json:"prompt,omitempty"`
	Model    string      `json:"model,omitempty"`
	KeepOpen bool        `json:"keepOpen,omitempty"`
	// Where is where the run works (record.Spec.Where): "" as its repository says,
	// "checkout" or "worktree".
	Where record.Where `json:"where,omitempty"`
	// Runtime names the runtime of segwi.runtimes the run's agent runs on; "" for Claude
	// Code. It names one of the person's settings, never a command.
	Runtime string `json:"runtime,omitempty"`
	// Budget is the run's own budget over the settings' (record.Spec.Budget); nil keeps
	// theirs.
	Budget *record.Budget `json:"budget,omitempty"`
}

// MessageType returns TypeStart.
func (Start) MessageType() Type { return TypeStart }

func (s Start) check() error {
	if _, err := record.ParseKind(string(s.Kind)); err != nil {
		return err
	}
	if s.Checkout == "" {
		return errors.New("no checkout")
	}
	if _, err := record.ParseWhere(string(s.Where)); err != nil {
		return err
	}
	return nil
}

// Spec is the run to start.
func (s Start) Spec() record.Spec {
	return record.Spec{Kind: s.Kind, Checkout: s.Checkout, Prompt: s.Prompt, Model: s.Model, KeepOpen: s.KeepOpen, Where: s.Where, Runtime: s.Runtime, Budget: s.Budget}
}

// StartOf is the Start command of spec.
func StartOf(spec record.Spec) Start {
	return Start{Kind: spec.Kind, Checkout: spec.Checkout, Prompt: spec.Prompt, Model: spec.Model, KeepOpen: spec.KeepOpen, Where: spec.Where, Runtime: spec.Runtime, Budget: spec.Budget}
}

// FollowUp sends the person's message to a run that is going.
type FollowUp struct {
	Run  string `json:"run"`
	Text string `json:"text"`
}

// MessageType returns TypeFollowUp.
func (FollowUp) MessageType() Type { return TypeFollowUp }

func (f FollowUp) check() error {
	if f.Text == "" {
		return errors.New("no text")
	}
	return needRun(f.Run)
}

// Finish closes a run's input: it ends once its last message has its result.
type Finish struct {
	Run string `json:"run"`
}

// MessageType returns TypeFinish.
func (Finish) MessageType() Type { return TypeFinish }

func (f Finish) check() error { return needRun(f.Run) }

// Stop stops a run, in two steps.
type Stop struct {
	Run string `json:"run"`
}

// MessageType returns TypeStop.
func (Stop) MessageType() Type { return TypeStop }

func (s Stop) check() error { return needRun(s.Run) }

// Push pushes an ended run's branch with the keyring's token. Its reply is an error when
// the push was refused or failed; every attempt is recorded on the run.
type Push struct {
	Run string `json:"run"`
}

// MessageType returns TypePush.
func (Push) MessageType() Type { return TypePush }

func (p Push) check() error { return needRun(p.Run) }

// Subscribe asks for a run's events: its backlog, then each new event, as RunEvents.
type Subscribe struct {
	Run string `json:"run"`
}

// MessageType returns TypeSubscribe.
func (Subscribe) MessageType() Type { return TypeSubscribe }

func (s Subscribe) check() error { return needRun(s.Run) }

// Unsubscribe ends a Subscribe.
type Unsubscribe struct {
	Run string `json:"run"`
}

// MessageType returns TypeUnsubscribe.
func (Unsubscribe) MessageType() Type { return TypeUnsubscribe }

func (u Unsubscribe) check() error { return needRun(u.Run) }

// SaveSettings writes the settings the person edited to the tray's settings file (the
// tray chooses the file; a client cannot). Its reply is an error naming the key when a
// value is refused.
type SaveSettings struct {
	Settings settings.Settings `json:"settings"`
}

// MessageType returns TypeSaveSettings.
func (SaveSettings) MessageType() Type { return TypeSaveSettings }

// CreateSettings writes a starter settings file (settings.CreateStarter: every key at its
// default, commented) where the tray reads its settings, when there is no file there yet;
// it never replaces one.
type CreateSettings struct{}

// MessageType returns TypeCreateSettings.
func (CreateSettings) MessageType() Type { return TypeCreateSettings }

// RemoveRetired deletes the retired keys from the tray's settings file, keeping the rest
// of it, comments included (settings.RemoveRetired). Its reply is an error saying why
// nothing was removed.
type RemoveRetired struct{}

// MessageType returns TypeRemoveRetired.
func (RemoveRetired) MessageType() Type { return TypeRemoveRetired }

// CheckPush asks whether an ended run's branch can be pushed: push's local checks, without
// the token or the network. Its reply is an error saying why not.
type CheckPush struct {
	Run string `json:"run"`
}

// MessageType returns TypeCheckPush.
func (CheckPush) MessageType() Type { return TypeCheckPush }

func (c CheckPush) check() error { return needRun(c.Run) }

// ConfirmEdit puts the new values of an edit of guarded settings that waits in force, and
// records them as confirmed: the person confirmed it. Its reply is an error when the edit
// no longer waits.
type ConfirmEdit struct {
	Edit settings.GuardedEdit `json:"edit"`
}

// MessageType returns TypeConfirmEdit.
func (ConfirmEdit) MessageType() Type { return TypeConfirmEdit }

// KeepEdit keeps the confirmed values in force instead of an edit's new ones: the person
// said so.
type KeepEdit struct {
	Edit settings.GuardedEdit `json:"edit"`
}

// MessageType returns TypeKeepEdit.
func (KeepEdit) MessageType() Type { return TypeKeepEdit }

// TokenStatus asks whether a GitHub token is in the keyring, and for which host; the reply
// says so in Token, never with the token.
type TokenStatus struct{}

// MessageType returns TypeTokenStatus.
func (TokenStatus) MessageType() Type { return TypeTokenStatus }

// SetToken stores a GitHub token in the keyring for the GitHub API at APIURL (the tray's
// segwi.github.apiURL in force when empty), replacing any token stored before. The
// tray process is the one that reads and writes the keyring.
type SetToken struct {
	Token  string `json:"token"`
	APIURL string `json:"apiURL,omitempty"`
}

// MessageType returns TypeSetToken.
func (SetToken) MessageType() Type { return TypeSetToken }

func (s SetToken) check() error {
	if s.Token == "" {
		return errors.New("no token")
	}
	return nil
}

// CheckToken has the tray check the keyring's GitHub token with the GitHub API it was saved
// for (GET /user, see push.CheckToken); the reply's TokenCheck says whose GitHub says it is,
// and its error what GitHub or the network answered. The token never leaves the tray.
type CheckToken struct{}

// MessageType returns TypeCheckToken.
func (CheckToken) MessageType() Type { return TypeCheckToken }

// TokenCheck is what GitHub said of the keyring's token (CheckToken's reply).
type TokenCheck struct {
	APIURL string   `json:"apiURL"`           // the API it was checked with
	Login  string   `json:"login"`            // whose token GitHub says it is
	Scopes []string `json:"scopes,omitempty"` // a classic token's scopes; nil for a fine-grained token
}

// DeleteToken removes the GitHub token from the keyring.
type DeleteToken struct{}

// MessageType returns TypeDeleteToken.
func (DeleteToken) MessageType() Type { return TypeDeleteToken }

// RunCanary runs segwi's canary on the tray's runs; its reply carries the report in Text
// (and an error when a check did not pass). StopCanary ends a canary under way.
type RunCanary struct{}

// MessageType returns TypeRunCanary.
func (RunCanary) MessageType() Type { return TypeRunCanary }

// StopCanary stops the canary under way, if any: the person closed its window.
type StopCanary struct{}

// MessageType returns TypeStopCanary.
func (StopCanary) MessageType() Type { return TypeStopCanary }

// PlanGuard asks the tray what setting up segwi's example guard hook would write in the
// person's home folder (canary.PlanGuardSetup); the reply's Guard says it, for the person
// to read before SetUpGuard.
type PlanGuard struct{}

// MessageType returns TypePlanGuard.
func (PlanGuard) MessageType() Type { return TypePlanGuard }

// SetUpGuard has the tray write the guard hook's setup the person read (Digest names it:
// when the files changed meanwhile, nothing is written and the error says to look again)
// and set segwi.canary.guardDeny to its deny file.
type SetUpGuard struct {
	Digest string `json:"digest"`
}

// MessageType returns TypeSetUpGuard.
func (SetUpGuard) MessageType() Type { return TypeSetUpGuard }

// GuardPlan is what setting up the guard hook would write (PlanGuard's reply).
type GuardPlan struct {
	Deny   string      `json:"deny"`   // the deny file, for segwi.canary.guardDeny
	Files  []GuardFile `json:"files"`  // in the order they are written
	Digest string      `json:"digest"` // names the plan, for SetUpGuard
}

// GuardFile is one file of a GuardPlan.
type GuardFile struct {
	Path    string `json:"path"`
	Action  string `json:"action"`  // "create", "add to" or "keep"
	Content string `json:"content"` // what the file holds once written
}

// Quit stops every run in two steps and then ends the tray: the person confirmed it. Its
// reply comes once the runs are stopped, just before the tray ends.
type Quit struct{}

// MessageType returns TypeQuit.
func (Quit) MessageType() Type { return TypeQuit }
