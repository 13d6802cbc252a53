package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/segwi/segwi/control"
)

// A problem that appears under a field near the bottom of the form comes into view with
// its field: the API URL's was hidden under the buttons.
func TestSettingsAProblemComesIntoViewWithItsField(t *testing.T) {
	home := settingsHome(t)
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path:    filepath.Join(home, ".config", "segwi", "config.yaml"),
		Current: sampleSettings(home),
	})
	w.win.Resize(fyne.NewSize(720, 600))
	d := fyne.CurrentApp().Driver()
	inContent := func(o fyne.CanvasObject) float32 {
		return d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(w.fields.scroll.Content).Y
	}
	// The API URL field at the very bottom of the form's view, as after scrolling to it.
	fe := w.form.errs[keyAPIURL]
	w.fields.scroll.ScrollToOffset(fyne.NewPos(0, inContent(w.form.apiURL)+w.form.apiURL.Size().Height-w.fields.scroll.Size().Height))
	w.win.Canvas().Focus(w.form.apiURL)
	w.form.apiURL.SetText("")
	test.Type(w.form.apiURL, "http://github.example.com/api/v3")
	if !strings.Contains(fe.Text(), "must be an https URL") {
		t.Fatalf("no problem shown under the API URL: %q", fe.Text())
	}
	top, bottom := inContent(w.form.apiURL), inContent(fe.box)+fe.box.Size().Height
	view := w.fields.scroll.Offset.Y
	if top < view || bottom > view+w.fields.scroll.Size().Height {
		t.Errorf("the form shows %v to %v, the API URL and its problem span %v to %v: not all of them show",
			view, view+w.fields.scroll.Size().Height, top, bottom)
	}
}

// A problem of several lines, in a narrow window, keeps clear of the field below it: its
// last line (the key, in smaller type) ends at least the inner padding above that field.
func TestSettingsAProblemKeepsClearOfTheNextField(t *testing.T) {
	home := settingsHome(t)
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path:    filepath.Join(home, ".config", "segwi", "config.yaml"),
		Current: sampleSettings(home),
	})
	w.win.Resize(fyne.NewSize(560, 700))
	f := w.form
	f.maxDuration.SetText("two hours, and then some more words so that the problem wraps")
	f.apiURL.SetText("http://github.example.com/api/v3/with/a/long/path/" + strings.Repeat("x", 30))
	f.remoteOwners.SetText("alice@example.com bob carol")
	relayout(w.win.Content())
	relayout(w.win.Content())
	d := fyne.CurrentApp().Driver()
	y := func(o fyne.CanvasObject) float32 { return d.AbsolutePositionForObject(o).Y }
	for _, c := range []struct {
		key  string
		next fyne.CanvasObject
	}{
		{keyMaxDuration, f.idleTimeout},
		{keyAPIURL, w.token.entry},
		{keyRemoteOwners, f.remoteSocket},
	} {
		fe := f.errs[c.key]
		if strings.Count(fe.Text(), "\n")+1 < 1 || fe.Text() == "" {
			t.Fatalf("no problem under %s", c.key)
		}
		// The text's lines, without the padding the RichText keeps around them.
		lines := fe.text.MinSize().Height - 2*theme.InnerPadding()
		textEnd := y(fe.box) + lines
		if gap := y(c.next) - textEnd; gap < theme.InnerPadding() {
			t.Errorf("the problem of %s ends %v above the next field, want at least %v:\n%s", c.key, gap, theme.InnerPadding(), fe.Text())
		}
	}
}

// The wheel turned over the trusted commands scrolls the form: the box shows all its lines
// (it grows with them), so it has nothing of its own to scroll.
func TestSettingsTheWheelScrollsPastTheTrustedCommands(t *testing.T) {
	home := settingsHome(t)
	s := sampleSettings(home)
	for i := range 7 {
		s.Approvals.Trusted = append(s.Approvals.Trusted, fmt.Sprintf("tool%d --check", i))
	}
	_, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, ".config", "segwi", "config.yaml"), Current: s,
	})
	w.win.Resize(fyne.NewSize(720, 600))
	d := fyne.CurrentApp().Driver()
	box := w.form.trusted
	lineHeight := fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{}).Height
	if got, want := box.MinSize().Height, float32(len(s.Approvals.Trusted))*lineHeight; got < want {
		t.Errorf("the trusted commands box is %v tall for %d lines of %v: it does not show them all", got, len(s.Approvals.Trusted), lineHeight)
	}
	inContent := d.AbsolutePositionForObject(box).Y - d.AbsolutePositionForObject(w.fields.scroll.Content).Y
	w.fields.scroll.ScrollToOffset(fyne.NewPos(0, inContent-100))
	before := w.fields.scroll.Offset.Y
	over := d.AbsolutePositionForObject(box).Add(fyne.NewPos(40, 20))
	test.Scroll(w.win.Canvas(), over, 0, -120)
	if w.fields.scroll.Offset.Y <= before {
		t.Errorf("the wheel over the trusted commands left the form at %v (was %v), want it scrolled down", w.fields.scroll.Offset.Y, before)
	}

	// A line added grows the box.
	h := box.MinSize().Height
	box.SetText(box.Text + "\nmake lint")
	if box.MinSize().Height <= h {
		t.Errorf("the box stayed %v tall with a line more", box.MinSize().Height)
	}
}

// Settings… from a place that names a section (the canary's Open settings, the tray's
// approval page line) opens the window there, its first field focused.
func TestSettingsOpensAtTheSectionAsked(t *testing.T) {
	home := settingsHome(t)
	for _, c := range []struct {
		section control.Section
		first   func(w *settingsHarness) fyne.Focusable
	}{
		{control.SectionCanary, func(w *settingsHarness) fyne.Focusable { return w.form.guardDeny }},
		{control.SectionRemote, func(w *settingsHarness) fyne.Focusable { return w.form.remoteEnabled }},
	} {
		t.Run(string(c.section), func(t *testing.T) {
			_, w := openTestSettings(t, SettingsWindowConfig{
				Path: filepath.Join(home, ".config", "segwi", "config.yaml"), Current: sampleSettings(home), Section: c.section,
			})
			first := c.first(w)
			if got := w.win.Canvas().Focused(); got != first {
				t.Errorf("focused %v, want the section's first field", got)
			}
			d := fyne.CurrentApp().Driver()
			heading := w.sections[c.section].heading
			at := d.AbsolutePositionForObject(heading).Y - d.AbsolutePositionForObject(w.fields.scroll).Y
			if at < 0 || at > w.fields.scroll.Size().Height/2 {
				t.Errorf("the section's heading is %v below the top of the form's view (%v tall), want it near the top", at, w.fields.scroll.Size().Height)
			}
			w.win.Canvas().Focus(nil)
			w.fields.scroll.ScrollToTop()
			openSettings(w.app, SettingsWindowConfig{Section: c.section}) // raised, as from the tray again
			if got := w.win.Canvas().Focused(); got != first {
				t.Errorf("raised: focused %v, want the section's first field", got)
			}
		})
	}
}
