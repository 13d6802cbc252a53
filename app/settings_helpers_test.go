package app

import (
	"context"
	"net/url"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/settings/token"
)

// settingsTestApp is a test app that records notifications and opened URLs; with openErr
// set, opening fails with it, as on a machine without xdg-open.
type settingsTestApp struct {
	fyne.App
	mu      sync.Mutex
	notes   []fyne.Notification
	opened  []string
	openErr error
}

func newSettingsTestApp(t *testing.T) *settingsTestApp {
	t.Helper()
	return &settingsTestApp{App: test.NewTempApp(t)}
}

func (a *settingsTestApp) SendNotification(n *fyne.Notification) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.notes = append(a.notes, *n)
}

func (a *settingsTestApp) OpenURL(u *url.URL) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.openErr != nil {
		return a.openErr
	}
	a.opened = append(a.opened, u.String())
	return nil
}

func (a *settingsTestApp) notifications() []fyne.Notification {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]fyne.Notification(nil), a.notes...)
}

func (a *settingsTestApp) openedURLs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.opened...)
}

// fakeTokenStore is an in-memory tokenStore; err, when set, makes every call fail with it.
type fakeTokenStore struct {
	mu    sync.Mutex
	token string
	host  string // the API host the token was set for
	err   error
	sets  []string
	// checked is what Check answers for a token set: checkErr when set, else a check by
	// octocat with checkScopes at the token's host.
	checkErr    error
	checkScopes []string
	checks      int
}

func (f *fakeTokenStore) Check(context.Context) (control.TokenCheck, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks++
	if f.token == "" {
		return control.TokenCheck{}, token.ErrNotFound
	}
	if f.checkErr != nil {
		return control.TokenCheck{}, f.checkErr
	}
	return control.TokenCheck{APIURL: token.APIURL(f.host), Login: "octocat", Scopes: f.checkScopes}, nil
}

func (f *fakeTokenStore) Status(context.Context) (token.State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.token == "" {
		return token.State{}, f.err
	}
	return token.State{Set: true, APIHost: f.host}, f.err
}

func (f *fakeTokenStore) Set(_ context.Context, tok, apiURL string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	host, err := token.APIHost(apiURL)
	if err != nil {
		return err
	}
	f.sets = append(f.sets, tok)
	f.token, f.host = tok, host
	return nil
}

func (f *fakeTokenStore) Delete(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.token = ""
	return nil
}

func (f *fakeTokenStore) stored() (string, []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.token, append([]string(nil), f.sets...)
}

// settingsLabels returns the text of every visible label in o, depth first.
func settingsLabels(o fyne.CanvasObject) []string {
	if o == nil || !o.Visible() {
		return nil
	}
	var out []string
	switch x := o.(type) {
	case *widget.Label:
		return []string{x.Text}
	case *fyne.Container:
		for _, c := range x.Objects {
			out = append(out, settingsLabels(c)...)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			out = append(out, settingsLabels(c)...)
		}
	}
	return out
}

// settingsFindButton returns the visible button labelled text in o, or nil.
func settingsFindButton(o fyne.CanvasObject, text string) *widget.Button {
	if o == nil || !o.Visible() {
		return nil
	}
	switch x := o.(type) {
	case *widget.Button:
		if x.Text == text {
			return x
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			if b := settingsFindButton(c, text); b != nil {
				return b
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if b := settingsFindButton(c, text); b != nil {
				return b
			}
		}
	}
	return nil
}

// settingsButton is settingsFindButton that fails the test when there is no such button.
func settingsButton(t *testing.T, w fyne.Window, text string) *widget.Button {
	t.Helper()
	b := settingsFindButton(w.Content(), text)
	if b == nil {
		t.Fatalf("no %q button in window %q", text, w.Title())
	}
	return b
}
