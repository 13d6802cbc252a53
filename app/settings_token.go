package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings/token"
)

// tokenStore is where the settings window keeps the GitHub token: the tray's keyring
// (trayToken) in the window process, a fake in tests. It never hands the token back: the
// window only needs to know whether one is set, and for which host.
type tokenStore interface {
	// Status reports whether a token is stored, and for which host.
	Status(ctx context.Context) (token.State, error)
	// Set stores tok for the GitHub API at apiURL, replacing any token stored before.
	Set(ctx context.Context, tok, apiURL string) error
	// Delete removes the stored token; token.ErrNotFound when there was none.
	Delete(ctx context.Context) error
	// Check has the token checked with the GitHub API it was saved for (the tray does, the
	// token never reaching the window) and returns what GitHub said.
	Check(ctx context.Context) (control.TokenCheck, error)
}

// Texts of the token's status line.
const (
	tokenChecking = "GitHub token: checking the keyring…"
	tokenNotSet   = "GitHub token: not set. Paste one above and press Set token; segwi pushes with it, " +
		"only to the host of the API URL above."
)

// tokenIsSet is the status line of a token saved for apiHost: the host it is sent to, and,
// when the API URL in the window (whose host is formHost) names another, that it is not
// sent there until it is set again.
func tokenIsSet(st token.State, formHost string) string {
	text := "GitHub token: set for " + st.APIHost + " (kept in the keyring)."
	if st.Legacy {
		text = "GitHub token: set (kept in the keyring), by an older segwi: it counts as set for " + st.APIHost + "."
	}
	if formHost != "" && !strings.EqualFold(formHost, st.APIHost) {
		text += " segwi does not send it to " + formHost + ", the API URL's host: set it again to push there."
	}
	return text
}

// tokenSection is the GitHub token part of the settings window: a password entry whose
// text goes only to the keyring, for the host of the API URL in the window, Set token and
// Delete token (on only while a token is set, and asking first), and a status line that
// says whether a token is set and for which host (never the token) or what is wrong with
// the keyring.
type tokenSection struct {
	store tokenStore
	// apiURL returns the API URL in the window, which Set token saves the token for.
	apiURL func() string
	state  token.State     // the keyring's last answer
	ctx    context.Context // ends when the window closes
	ui     func(func())    // runs a function on the UI goroutine and waits: fyne.DoAndWait
	entry  *widget.Entry
	set    *widget.Button
	del    *widget.Button
	status *widget.Label
	check  *widget.Label // what GitHub said of the token saved; hidden while none is
	checks int           // checks asked, to show only the last one's answer
	busy   bool
	isSet  bool // the keyring said a token is set
	// confirm asks the person before Delete token deletes; nil deletes at once.
	confirm func(title, question, confirmText, dismissText string, yes func())
	wg      sync.WaitGroup // keyring calls under way, for tests
}

// newTokenSection builds the section and starts asking the keyring for the token's
// status. apiURL returns the API URL in the window. ui runs a function on the UI goroutine
// and waits for it; nil means uiWait.
func newTokenSection(ctx context.Context, store tokenStore, apiURL func() string, ui func(func())) *tokenSection {
	if ui == nil {
		ui = uiWait
	}
	t := &tokenSection{store: store, apiURL: apiURL, ctx: ctx, ui: ui}
	t.entry = widget.NewPasswordEntry()
	t.entry.SetPlaceHolder("paste a new GitHub token")
	t.entry.OnChanged = func(string) { t.enable() }
	t.set = widget.NewButton("Set token", t.storeTyped)
	t.del = widget.NewButton("Delete token", t.askDelete)
	t.status = widget.NewLabel(tokenChecking)
	t.status.Wrapping = fyne.TextWrapWord
	t.check = widget.NewLabel("")
	t.check.Wrapping = fyne.TextWrapWord
	t.check.Hide()
	t.refresh()
	return t
}

// content lays the section out.
func (t *tokenSection) content() fyne.CanvasObject {
	return container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(t.set, t.del), t.entry),
		t.status,
		t.check,
	)
}

// enable turns the buttons on or off: nothing while a keyring call is under way, Set
// token only with something typed.
func (t *tokenSection) enable() {
	if t.busy || strings.TrimSpace(t.entry.Text) == "" {
		t.set.Disable()
	} else {
		t.set.Enable()
	}
	if t.busy || !t.isSet {
		t.del.Disable()
	} else {
		t.del.Enable()
	}
}

// askDelete asks before deleting the token: segwi cannot push without one.
func (t *tokenSection) askDelete() {
	if t.confirm == nil {
		t.delete()
		return
	}
	t.confirm("Delete the GitHub token?", "segwi pushes with it: without a token, Push and segwi push "+
		"are refused until you set a new one.", "Delete token", "Keep it", t.delete)
}

// refresh asks the keyring whether a token is set and shows the answer.
func (t *tokenSection) refresh() {
	t.status.SetText(tokenChecking)
	t.call(func(ctx context.Context) func() {
		st, err := t.store.Status(ctx)
		return func() { t.showStatus(st, err) }
	})
}

// storeTyped writes the typed token to the keyring, clears the field and shows the new status.
func (t *tokenSection) storeTyped() {
	tok := strings.TrimSpace(t.entry.Text)
	if tok == "" {
		return
	}
	apiURL := t.apiURL()
	t.call(func(ctx context.Context) func() {
		err := t.store.Set(ctx, tok, apiURL)
		if err != nil {
			return func() { t.status.SetText("The token was not stored: " + err.Error()) }
		}
		st, serr := t.store.Status(ctx)
		return func() {
			t.entry.SetText("")
			t.showStatus(st, serr)
		}
	})
}

// delete removes the token from the keyring and shows the new status.
func (t *tokenSection) delete() {
	t.call(func(ctx context.Context) func() {
		err := t.store.Delete(ctx)
		if err != nil && !errors.Is(err, token.ErrNotFound) {
			return func() { t.status.SetText("The token was not deleted: " + err.Error()) }
		}
		st, serr := t.store.Status(ctx)
		return func() { t.showStatus(st, serr) }
	})
}

func (t *tokenSection) showStatus(st token.State, err error) {
	t.isSet = st.Set && err == nil
	t.state = st
	if t.isSet {
		t.checkSaved()
	} else {
		t.checks++ // an answer on its way is for a token no longer there
		t.check.Hide()
	}
	switch {
	case err != nil && errors.Is(err, token.ErrUnavailable):
		t.status.SetText(unavailableText(err))
	case err != nil:
		t.status.SetText("GitHub token: unknown. " + err.Error())
	case st.Set:
		t.status.SetText(tokenIsSet(st, t.formHost()))
	default:
		t.status.SetText(tokenNotSet)
	}
}

// checkSaved has the tray check the saved token with the GitHub API it was saved for, and
// shows what GitHub said under the status line. It leaves the buttons on: the network may
// take its time.
func (t *tokenSection) checkSaved() {
	t.checks++
	n := t.checks
	t.check.Importance = widget.MediumImportance
	t.check.SetText("Checking the token with GitHub at " + t.state.APIHost + "…")
	t.check.Show()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		c, err := t.store.Check(t.ctx)
		t.ui(func() {
			if n != t.checks {
				return // a later check, or the token went
			}
			text, imp := tokenCheckText(c, err)
			t.check.Importance = imp
			t.check.SetText(text)
		})
	}()
}

// tokenCheckText says what GitHub said of the token.
func tokenCheckText(c control.TokenCheck, err error) (string, widget.Importance) {
	switch {
	case errors.Is(err, record.ErrGitHubRefused):
		return "GitHub did not take the token: " + err.Error() + ".", widget.DangerImportance
	case err != nil:
		return "The token could not be checked: " + err.Error() + ".", widget.WarningImportance
	}
	what := fmt.Sprintf("GitHub at %s takes the token: it is %s's", c.APIURL, c.Login)
	switch {
	case c.Scopes == nil:
		what += " (a fine-grained token: GitHub lists no scopes for it)"
	case len(c.Scopes) == 0:
		what += ", with no scopes: it cannot push"
	default:
		what += ", with scopes " + strings.Join(c.Scopes, ", ")
	}
	return what + ".", widget.SuccessImportance
}

// apiURLChanged says again whether the token goes to the API URL in the window, after it
// changed.
func (t *tokenSection) apiURLChanged() {
	if t.isSet && !t.busy {
		t.status.SetText(tokenIsSet(t.state, t.formHost()))
	}
}

// formHost is the host of the API URL in the window, or "" when it is not a URL yet.
func (t *tokenSection) formHost() string {
	host, err := token.APIHost(t.apiURL())
	if err != nil {
		return ""
	}
	return host
}

// call runs work off the UI goroutine (a keyring call can take up to token.Timeout) and
// then applies the function it returns on the UI goroutine. The buttons are off meanwhile.
func (t *tokenSection) call(work func(ctx context.Context) func()) {
	t.busy = true
	t.enable()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		apply := work(t.ctx)
		t.ui(func() {
			apply()
			t.busy = false
			t.enable()
		})
	}()
}

// wait returns once no keyring call is under way and its result has been handed to ui.
func (t *tokenSection) wait() { t.wg.Wait() }

// unavailableText says in words that the keyring cannot be used, and why: the part of
// err after token.ErrUnavailable says what to install or start.
func unavailableText(err error) string {
	msg := err.Error()
	why := ""
	if i := strings.Index(msg, token.ErrUnavailable.Error()); i >= 0 {
		why = strings.TrimPrefix(msg[i+len(token.ErrUnavailable.Error()):], ": ")
	}
	if why == "" {
		return "GitHub token: unknown, because the keyring is not available (" + msg + ")."
	}
	return "GitHub token: unknown, because the keyring is not available: " + why
}
