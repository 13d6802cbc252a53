package app

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
)

// The Remote approvals section says what the tray says of the approval page: where it is
// served (with its address to copy), or why it is not and what to do; and a Save that turns
// it on says, beside the Save button, when the page cannot be served.
func TestSettingsSayWhetherTheApprovalPageIsServed(t *testing.T) {
	home := settingsHome(t)
	s := sampleSettings(home)
	s.Remote.Enabled = false
	a, w := openTestSettings(t, SettingsWindowConfig{
		Path: filepath.Join(home, ".config", "segwi", "config.yaml"), Current: s,
	})
	if got := w.pageText.Text; got != "Off: the page is not served." {
		t.Errorf("page off: the section says %q", got)
	}
	test.Tap(w.form.remoteEnabled)
	if got := w.pageText.Text; !strings.HasPrefix(got, "Off until you save") {
		t.Errorf("switched on, not saved: the section says %q", got)
	}

	test.Tap(w.save)
	w.settle()
	if !strings.HasPrefix(w.note.Text, "Saved to ") {
		t.Fatalf("after Save the note says %q", w.note.Text)
	}
	// The tray reloads the file and tries to serve the page; it cannot.
	problem := "tailscale: this machine is not logged in to a tailnet: run `tailscale up` and log in"
	pageStatusChanged(a, control.PageStatus{On: true, Problem: problem})
	if got := w.pageText.Text; got != "Not served: "+problem || w.pageText.Importance != widget.WarningImportance {
		t.Errorf("not served: the section says %q (importance %v)", got, w.pageText.Importance)
	}
	if want := "The approval page is not served: " + problem; !strings.Contains(w.note.Text, want) || w.note.Importance != widget.WarningImportance {
		t.Errorf("after a Save that turned the page on, the note says %q (importance %v), want it to hold %q", w.note.Text, w.note.Importance, want)
	}
	if !w.pageCopy.Hidden {
		t.Error("Copy address shows while the page is not served")
	}

	// Fixed (tailscale up): served.
	url := "http://machine.example.ts.net:8443/"
	pageStatusChanged(a, control.PageStatus{On: true, URL: url})
	if got := w.pageText.Text; !strings.HasPrefix(got, "Served at "+url) {
		t.Errorf("served: the section says %q", got)
	}
	if !strings.Contains(w.note.Text, "served at "+url) {
		t.Errorf("served: the note still says %q", w.note.Text)
	}
	test.Tap(w.pageCopy)
	if got := a.Clipboard().Content(); got != url {
		t.Errorf("Copy address put %q on the clipboard, want %q", got, url)
	}
}
