package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/settings"
)

// SettingsWindowConfig is what OpenSettings needs.
type SettingsWindowConfig struct {
	// Path is the settings file that Save writes (settings.Path() in the app).
	Path string
	// Current are the settings in force; the fields start with these values.
	Current settings.Settings
	// LoadErr, when not nil, is what is wrong with the file now (core.SettingsReport.Err); the
	// window says so above the fields, which then show the settings in force.
	LoadErr error
	// Token keeps the GitHub token: the tray's keyring, through the channel (trayToken).
	// Required: the window process never reads the keyring itself.
	Token tokenStore
	// Save writes the settings to the file: the tray does (its core's SaveSettings, which
	// also puts the trusted commands saved in force at once). Required.
	Save func(path string, s settings.Settings) error
	// OnSaved, when not nil, is called on the UI goroutine with the settings just written.
	OnSaved func(settings.Settings)
	// Section is the section the window opens at (scrolled to it, its first field focused);
	// "" opens it at the top.
	Section control.Section
	// Page is the approval page on the tailnet as the tray last said it; pageStatusChanged
	// brings the open window in line with the tray's next word.
	Page control.PageStatus

	// uiDo runs a function on the UI goroutine and waits for it; nil means uiWait.
	// Tests run the keyring's answers on the test goroutine with it.
	uiDo func(func())
}

// settingsWindow is the window OpenSettings opens.
type settingsWindow struct {
	app    fyne.App
	win    fyne.Window
	cfg    SettingsWindowConfig
	yaml   bool // the file is YAML, which Save can write
	cancel context.CancelFunc

	form         *settingsForm
	token        *tokenSection
	save         *widget.Button
	note         *widget.Label // why Save is off, or what the last Save did
	autostart    *widget.Check
	autostartErr *widget.Label
	settingAuto  bool // autostart is being reverted: do not act on the change
	fields       fieldLayout
	saved        string // the form's values as opened or last saved, to tell unsaved edits
	sections     map[control.Section]sectionPlace
	page         control.PageStatus // the approval page, as the tray last said it
	pageText     *widget.Label      // says it in the Remote approvals section
	pageCopy     *widget.Button     // copies the page's address while it is served
	savedRemote  bool               // the last Save turned the approval page on: its note says when it cannot be served

	ui     func(func())   // runs a function on the UI goroutine and waits: cfg.uiDo, else uiWait
	saving bool           // a Save is under way: Save is off until its answer
	saves  sync.WaitGroup // the Save under way, until its answer is shown
}

// settingsWindows holds the open settings window of each app, so that Settings… raises
// the window already open instead of opening a second one.
var settingsWindows = struct {
	sync.Mutex
	m map[fyne.App]*settingsWindow
}{m: map[fyne.App]*settingsWindow{}}

// OpenSettings opens the settings window, or raises the one already open, and returns it.
// The window shows every setting of the file with its current value and checks each
// field as it is typed with the rules segwi applies when it loads the file: a problem is
// shown under its field, naming the key, and Save is off until there is none. Save
// writes only the keys segwi manages, keeping everything else in the file (unknown and
// retired keys, comments); it writes YAML files only, and says so for a TOML or JSON
// file. The GitHub token goes only to the keyring. Call it on the UI goroutine.
func OpenSettings(a fyne.App, cfg SettingsWindowConfig) fyne.Window {
	return openSettings(a, cfg).win
}

func openSettings(a fyne.App, cfg SettingsWindowConfig) *settingsWindow {
	settingsWindows.Lock()
	defer settingsWindows.Unlock()
	if w := settingsWindows.m[a]; w != nil {
		w.win.Show()
		w.win.RequestFocus()
		w.showSection(cfg.Section)
		return w
	}
	ext := strings.ToLower(filepath.Ext(cfg.Path))
	ctx, cancel := context.WithCancel(context.Background())
	w := &settingsWindow{
		app: a, cfg: cfg, cancel: cancel,
		yaml: ext == ".yaml" || ext == ".yml",
		win:  a.NewWindow("segwi settings"),
	}
	w.ui = cfg.uiDo
	if w.ui == nil {
		w.ui = uiWait
	}
	w.form = newSettingsForm(cfg.Path, cfg.Current)
	w.form.onChange = func() {
		w.updateSave()
		w.token.apiURLChanged()
		w.revealProblem()
		if w.pageText != nil {
			w.showPage(w.page) // the switch may have moved
		}
	}
	w.token = newTokenSection(ctx, cfg.Token, w.form.apiURLValue, cfg.uiDo)
	w.token.confirm = w.confirm
	w.build()
	w.form.validate()
	w.updateSave()
	w.saved = w.form.values()
	w.win.SetCloseIntercept(w.close)
	w.win.SetOnClosed(func() {
		cancel()
		settingsWindows.Lock()
		delete(settingsWindows.m, a)
		settingsWindows.Unlock()
	})
	settingsWindows.m[a] = w
	w.win.Resize(fyne.NewSize(720, 780))
	w.showPage(cfg.Page)
	w.win.Show()
	w.showSection(cfg.Section)
	return w
}

// sectionPlace is where a section of the window starts, and the field a person lands on.
type sectionPlace struct {
	heading fyne.CanvasObject
	first   fyne.Focusable
}

// showSection scrolls the form to section's heading and focuses its first field; "" does
// nothing.
func (w *settingsWindow) showSection(section control.Section) {
	place, ok := w.sections[section]
	if !ok || w.fields.scroll == nil {
		return
	}
	d := w.app.Driver()
	y := d.AbsolutePositionForObject(place.heading).Y - d.AbsolutePositionForObject(w.fields.scroll.Content).Y
	w.fields.scroll.ScrollToOffset(fyne.NewPos(0, y))
	w.win.Canvas().Focus(place.first)
}

// pageStatusChanged shows the approval page's status, as the tray says it now, in the open
// settings window of a, if any. On Fyne's goroutine.
func pageStatusChanged(a fyne.App, st control.PageStatus) {
	settingsWindows.Lock()
	w := settingsWindows.m[a]
	settingsWindows.Unlock()
	if w != nil {
		w.showPage(st)
	}
}

// showPage says where the approval page is served, or why it is not and what to do, under
// the Remote approvals fields; after a Save that turned it on, the note above the buttons
// says so too when it cannot be served.
func (w *settingsWindow) showPage(st control.PageStatus) {
	w.page = st
	w.pageCopy.Hide()
	w.pageText.Importance = widget.MediumImportance
	switch {
	case !st.On && !w.form.remoteEnabled.Checked:
		w.pageText.SetText("Off: the page is not served.")
	case !st.On:
		w.pageText.SetText("Off until you save: the page is not served yet.")
	case st.URL != "":
		w.pageText.SetText("Served at " + st.URL + ": open it on your phone or another device of yours on the tailnet.")
		w.pageText.Importance = widget.SuccessImportance
		w.pageCopy.Show()
	case st.Problem != "":
		w.pageText.SetText("Not served: " + st.Problem)
		w.pageText.Importance = widget.WarningImportance
	default:
		w.pageText.SetText("Starting: segwi is asking tailscaled for this machine's tailnet addresses…")
	}
	w.pageText.Refresh()
	if w.savedRemote && !w.saving {
		switch {
		case st.Problem != "":
			w.setNote("Saved to "+w.cfg.Path+". The approval page is not served: "+st.Problem, widget.WarningImportance)
		case st.URL != "":
			w.setNote("Saved to "+w.cfg.Path+". The approval page is served at "+st.URL+".", widget.SuccessImportance)
		}
	}
}

// build lays out the window.
func (w *settingsWindow) build() {
	f := w.form
	top := []fyne.CanvasObject{settingsText("Settings file: " + displayPath(w.cfg.Path))}
	if w.cfg.LoadErr != nil {
		l := settingsText("The settings file has problems, so segwi runs with the settings shown below. " +
			"Saving replaces the bad values with these:\n" + w.cfg.LoadErr.Error())
		l.Importance = widget.WarningImportance
		top = append(top, l)
	}

	for _, r := range f.repos {
		f.reposBox.Add(w.repoBox(r))
	}
	addRepo := widget.NewButton("Add repository", func() {
		r := f.addRepo(settings.Repository{})
		r.quiet() // empty is not yet a mistake: its problems show once typed in
		f.reposBox.Add(w.repoBox(r))
		f.changed()
		w.win.Canvas().Focus(r.name)
		w.fields.relayout()
		w.fields.reveal(w.app.Driver(), r.box)
	})

	guardPick := widget.NewButton("Choose…", func() {
		dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil || r == nil {
				return
			}
			r.Close()
			f.guardDeny.SetText(displayPath(r.URI().Path()))
		}, w.win)
	})

	w.autostart = widget.NewCheck("Start segwi at login", nil)
	w.autostart.SetChecked(AutostartEnabled())
	w.autostart.OnChanged = w.toggleAutostart
	w.autostartErr = newSettingsErrorLabel()

	w.pageText = settingsText("")
	w.pageCopy = widget.NewButton("Copy address", func() {
		if w.page.URL != "" {
			w.app.Clipboard().SetContent(w.page.URL)
		}
	})
	canaryHeading, remoteHeading := settingsHeading("Canary"), settingsHeading("Remote approvals")
	w.sections = map[control.Section]sectionPlace{
		control.SectionCanary: {canaryHeading, f.guardDeny},
		control.SectionRemote: {remoteHeading, f.remoteEnabled},
	}

	body := container.NewVBox(append(top,
		settingsHeading("Claude Code"),
		w.fields.grid(
			w.fields.field("Binary", f.claudePath, f.errs[keyClaudePath]),
			w.fields.field("Model", f.claudeModel, f.errs[keyClaudeModel]),
		),
		settingsHeading("Repositories"),
		f.reposBox,
		container.NewHBox(addRepo),
		f.errs[keyRepositories].box,
		settingsHeading("Runs"),
		w.fields.grid(
			w.fields.field("Runs at once", f.maxConcurrent, f.errs[keyMaxConcurrent]),
			w.fields.field("Longest run", f.maxDuration, f.errs[keyMaxDuration]),
			w.fields.field("Idle timeout", f.idleTimeout, f.errs[keyIdleTimeout]),
			w.fields.field("Stop grace", f.grace, f.errs[keyStopGrace]),
			w.fields.field("Forge tokens", f.passForgeTokens, f.errs[keyPassForgeTokens]),
		),
		settingsHeading("Approvals"),
		w.fields.grid(
			w.fields.field("Timeout", f.approvalsTimeout, f.errs[keyApprovalsTimeout]),
			w.fields.field("Trusted commands", f.trusted, f.errs[keyTrusted]),
		),
		canaryHeading,
		w.fields.grid(
			w.fields.field("Guard deny file", container.NewBorder(nil, nil, nil, guardPick, w.fields.wheel(f.guardDeny)), f.errs[keyGuardDeny]),
		),
		settingsHeading("GitHub"),
		w.fields.grid(
			w.fields.field("API URL", f.apiURL, f.errs[keyAPIURL]),
			[]fyne.CanvasObject{w.fields.label("Token"), w.token.content()},
		),
		settingsHeading("Provenance"),
		w.fields.grid(
			w.fields.field("Commits", f.trailer, f.errs[keyTrailer]),
			w.fields.field("Pull requests", f.approvalsListed, f.errs[keyApprovalsListed]),
		),
		remoteHeading,
		w.fields.grid(
			w.fields.field("Approval page", f.remoteEnabled, f.errs[keyRemoteEnabled]),
			w.fields.field("Port", f.remotePort, f.errs[keyRemotePort]),
			w.fields.field("Owners", f.remoteOwners, f.errs[keyRemoteOwners]),
			w.fields.field("tailscaled socket", f.remoteSocket, f.errs[keyRemoteSocket]),
			[]fyne.CanvasObject{w.fields.label("Now"), container.NewVBox(w.pageText, container.NewHBox(w.pageCopy))},
		),
		settingsHeading("Desktop"),
		w.autostart,
		w.autostartErr,
		f.other,
	)...)

	w.note = settingsText("")
	w.save = widget.NewButton("Save", w.doSave)
	w.save.Importance = widget.HighImportance
	closeBtn := widget.NewButton("Close", w.close)
	bottom := container.NewVBox(widget.NewSeparator(), w.note,
		container.NewHBox(layout.NewSpacer(), closeBtn, w.save))
	w.fields.scroll = container.NewVScroll(container.NewPadded(body))
	w.win.SetContent(container.NewBorder(nil, bottom, nil, nil, w.fields.scroll))
}

// repoBox lays out one repository entry with its folder picker and Remove button.
func (w *settingsWindow) repoBox(r *repoRow) *fyne.Container {
	pick := widget.NewButton("Choose…", func() {
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err != nil || u == nil {
				return
			}
			r.path.SetText(displayPath(u.Path()))
		}, w.win)
	})
	remove := widget.NewButton("Remove", func() { w.form.removeRepo(r) })
	r.box = container.NewVBox(
		w.fields.grid(
			w.fields.field("Name", r.name, r.nameErr),
			w.fields.field("Path", container.NewBorder(nil, nil, nil, pick, w.fields.wheel(r.path)), r.pathErr),
			w.fields.field("Remote", r.remote, r.remoteErr),
		),
		r.rowErr.box,
		container.NewHBox(layout.NewSpacer(), remove),
		widget.NewSeparator(),
	)
	return r.box
}

// revealProblem brings the problem under the field being typed in into view, with the
// field: a problem of a field near the bottom of the form was hidden under the buttons.
func (w *settingsWindow) revealProblem() {
	if w.fields.scroll == nil || w.win == nil {
		return
	}
	focused := w.win.Canvas().Focused()
	if focused == nil {
		return
	}
	for _, fe := range w.form.allErrors() {
		if fe.input == focused && fe.Text() != "" && fe.cell != nil {
			w.fields.relayout()
			w.fields.reveal(w.app.Driver(), fe.cell)
			return
		}
	}
}

// updateSave turns Save on only for a valid form and a YAML file, and says why not.
func (w *settingsWindow) updateSave() {
	switch {
	case w.saving:
		w.save.Disable()
		w.setNote("Saving…", widget.MediumImportance)
	case !w.yaml:
		w.save.Disable()
		w.setNote(fmt.Sprintf("Save writes YAML settings files only, and %s is not one: edit it by hand, "+
			"segwi reloads it when it changes.", w.cfg.Path), widget.WarningImportance)
	case !w.form.valid():
		w.save.Disable()
		n := len(w.form.problems) - w.form.pending()
		if n == 0 {
			w.setNote("Fill in the new repository to save: its name and its checkout's path.", widget.MediumImportance)
			return
		}
		what := "1 problem"
		if n != 1 {
			what = fmt.Sprintf("%d problems", n)
		}
		w.setNote(fmt.Sprintf("Fix the %s shown in red to save.", what), widget.DangerImportance)
	default:
		w.save.Enable()
		w.setNote("", widget.MediumImportance)
	}
}

func (w *settingsWindow) setNote(text string, imp widget.Importance) {
	w.note.Importance = imp
	w.note.SetText(text)
	if text == "" {
		w.note.Hide()
	} else {
		w.note.Show()
	}
}

// doSave writes the checked settings to the file, keeping the keys segwi does not manage.
// The tray writes them, and may take a while (up to commandTimeout): the call is made off
// the UI goroutine, so that the windows stay live, with Save off until its answer shows.
func (w *settingsWindow) doSave() {
	if w.saving || !w.yaml || !w.form.valid() {
		return
	}
	s, values := w.form.checked, w.form.values()
	w.saving = true
	w.updateSave()
	w.saves.Add(1)
	go func() {
		defer w.saves.Done()
		err := w.cfg.Save(w.cfg.Path, s)
		w.ui(func() {
			w.saving = false
			w.updateSave()
			if err != nil {
				w.setNote("Not saved: "+err.Error(), widget.DangerImportance)
				return
			}
			w.saved = values
			w.savedRemote = s.Remote.Enabled
			w.setNote("Saved to "+w.cfg.Path+".", widget.SuccessImportance)
			if s.Remote.Enabled {
				w.showPage(w.page) // what the tray last said; its word on the saved settings follows
			}
			if w.cfg.OnSaved != nil {
				w.cfg.OnSaved(s)
			}
		})
	}()
}

// close closes the window (Close, or the window's own close button); with edits not saved
// it asks first whether to throw them away.
func (w *settingsWindow) close() {
	if w.form.values() == w.saved {
		w.win.Close()
		return
	}
	w.confirm("Discard your changes?", "Your edits to the settings are not saved. Close the window and lose them?",
		"Discard changes", "Keep editing", w.win.Close)
}

// confirm asks the person a question in the window; yes runs when they press confirmText.
func (w *settingsWindow) confirm(title, question, confirmText, dismissText string, yes func()) {
	d := dialog.NewConfirm(title, question, func(ok bool) {
		if ok {
			yes()
		}
	}, w.win)
	d.SetConfirmText(confirmText)
	d.SetDismissText(dismissText)
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}

// toggleAutostart adds or removes the login entry; on failure it says why and puts the
// check back.
func (w *settingsWindow) toggleAutostart(on bool) {
	if w.settingAuto {
		return
	}
	if err := SetAutostart(on); err != nil {
		showErrorLines(w.autostartErr, []string{err.Error()})
		w.settingAuto = true
		w.autostart.SetChecked(!on)
		w.settingAuto = false
		return
	}
	showErrorLines(w.autostartErr, nil)
}

// wrapped is a label that wraps its text at the window's width.
func settingsText(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}
