package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// desk is the window process's windows over the tray: it opens what the tray asks (Show),
// puts each waiting approval in a popup and sends the tray the person's answer, and keeps
// the open windows in line with what the tray says. Its fields are touched on Fyne's
// goroutine only, except tray and the approvals (their own locks).
type desk struct {
	app    fyne.App
	tray   *trayLink
	popups *PopupDecider
	opts   WindowOptions

	asking sync.Mutex
	asked  map[string]context.CancelFunc // the popup of each request shown, by request id
	known  map[string]waitingApproval    // each request shown and its view, by request id, for the run windows

	runWins map[string]*runWindow
	history *historyWindow
	usage   *usageWindow
	quitWin fyne.Window
	canary  *canaryWindow
}

func newDesk(a fyne.App, t *trayLink, opts WindowOptions) *desk {
	return &desk{app: a, tray: t, popups: NewPopupDecider(a), opts: opts,
		asked: map[string]context.CancelFunc{}, known: map[string]waitingApproval{}, runWins: map[string]*runWindow{}}
}

// event takes in a snapshot or event from the tray. On the client's reading goroutine:
// it does not wait for Fyne.
func (d *desk) event(b control.Body) {
	if d.tray.apply(b) {
		switch b := b.(type) {
		case control.SettingsReport:
			onUI(func() { d.settingsChanged(b) })
		case control.PageStatus:
			onUI(func() { pageStatusChanged(d.app, b) })
		}
		return
	}
	switch b := b.(type) {
	case control.Approvals:
		d.approvals(b.Waiting)
	case control.Approval:
		d.ask(b)
	case control.ApprovalGone:
		d.withdraw(b.Request)
	case control.Notice:
		onUI(func() { d.message(b.Title, b.Text) })
	}
}

// show opens the window s asks for, and returns once it shows. On a goroutine of its own.
func (d *desk) show(_ context.Context, s control.Show) error {
	var err error
	// Once this process has decided to leave (on Fyne's goroutine, see exitWhenIdle), it
	// opens nothing: the tray asks the next window process.
	if !onUIWait(func() {
		if uiQuitting.Load() {
			err = control.ErrLeaving
			return
		}
		err = d.open(s)
	}) {
		return control.ErrLeaving
	}
	return err
}

// open opens the window s asks for. On Fyne's goroutine.
func (d *desk) open(s control.Show) error {
	switch s.Window {
	case control.ShowNewRun:
		d.openNewRun(s.Kind)
	case control.ShowRun:
		d.openRun(s.Run)
	case control.ShowHistory:
		d.openHistory()
	case control.ShowUsage:
		d.openUsage()
	case control.ShowSettings:
		d.openSettingsAt(s.Section)
	case control.ShowCanary:
		d.runCanary()
	case control.ShowApprovals:
		d.popups.RaiseAll()
	case control.ShowQuit:
		d.quit()
	case control.ShowSettingsProblems:
		rep := d.tray.settings()
		if err := rep.Err(); err != nil {
			ShowSettingsProblems(d.app, rep.File, err, momentOf(s.Moment), d.openSettings)
		}
	case control.ShowRetired:
		ShowRetired(d.app, d.tray.settings().File, s.Retired, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			return d.tray.client.RemoveRetired(ctx)
		})
	case control.ShowSettingsWarnings:
		ShowSettingsWarnings(d.app, d.tray.settings().File, s.Unknown, s.Checks, d.openSettings, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			return d.tray.client.CreateSettings(ctx)
		})
	case control.ShowGuardedEdit:
		d.guardedEdit()
	case control.ShowDamaged:
		var damaged []record.Damaged
		for _, r := range s.Damaged {
			damaged = append(damaged, r.Damaged())
		}
		ShowDamagedRecords(d.app, damaged)
	default:
		return fmt.Errorf("this window process cannot show a %q window", s.Window)
	}
	return nil
}

// momentOf is the window's word for when bad settings were found.
func momentOf(m control.Moment) ProblemsMoment {
	if m == control.AfterEdit {
		return AfterEdit
	}
	return AtStartup
}

// approvals takes in the tray's snapshot of the waiting requests: a popup for each one not
// shown yet, and none for those no longer waiting.
func (d *desk) approvals(waiting []control.Approval) {
	ids := map[string]bool{}
	for _, a := range waiting {
		ids[a.Request] = true
		d.ask(a)
	}
	d.asking.Lock()
	var gone []string
	for id := range d.asked {
		if !ids[id] {
			gone = append(gone, id)
		}
	}
	d.asking.Unlock()
	for _, id := range gone {
		d.withdraw(id)
	}
}

// ask puts a waiting request in a popup, once, and sends the tray the person's answer
// when they click one of its buttons (or close it, a deny); the window of its run, when
// open, shows it too and answers it as well (the first answer wins at the tray).
func (d *desk) ask(a control.Approval) {
	d.asking.Lock()
	if _, ok := d.asked[a.Request]; ok {
		d.asking.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	d.asked[a.Request] = cancel
	d.asking.Unlock()
	wa := waitingApproval{a, viewOf(a.Broker())} // here, not on Fyne's goroutine: a diff can take a while
	onUI(func() {
		d.asking.Lock()
		_, still := d.asked[a.Request]
		if still {
			d.known[a.Request] = wa
		}
		d.asking.Unlock()
		if w := d.runWins[a.Run.ID]; w != nil && still {
			w.approvalWaits(wa.msg, wa.view)
		}
	})
	go func() {
		answer, err := d.popups.Decide(ctx, a.Broker())
		d.asking.Lock()
		delete(d.asked, a.Request)
		d.asking.Unlock()
		cancel()
		if err != nil {
			return // it no longer waits, or segwi is quitting
		}
		actx, acancel := context.WithTimeout(context.Background(), commandTimeout)
		defer acancel()
		if err := d.tray.client.Answer(actx, control.AnswerOf(a.Request, answer, control.ByThisDesktop)); err != nil {
			d.opts.Log.Printf("the answer to approval request %s did not reach the tray: %v", a.Request, err)
			return
		}
		d.withdraw(a.Request) // answered: the run's window takes it away too

	}()
}

// withdraw closes the popup of a request that no longer waits, and takes it away from the
// window of its run.
func (d *desk) withdraw(id string) {
	d.asking.Lock()
	cancel := d.asked[id]
	d.asking.Unlock()
	if cancel != nil {
		cancel()
	}
	onUI(func() {
		d.asking.Lock()
		wa, ok := d.known[id]
		delete(d.known, id)
		d.asking.Unlock()
		if w := d.runWins[wa.msg.Run.ID]; ok && w != nil {
			w.approvalGone(id)
		}
	})
}

// showWaiting shows in w the requests of its run that wait for the person. On Fyne's
// goroutine.
func (d *desk) showWaiting(w *runWindow) {
	d.asking.Lock()
	var mine []waitingApproval
	for _, wa := range d.known {
		if wa.msg.Run.ID == w.id {
			mine = append(mine, wa)
		}
	}
	d.asking.Unlock()
	for _, wa := range mine {
		w.approvalWaits(wa.msg, wa.view)
	}
}

// leave closes every popup without an answer: the window process is quitting.
func (d *desk) leave() {
	d.asking.Lock()
	defer d.asking.Unlock()
	for _, cancel := range d.asked {
		cancel()
	}
}

// settingsChanged closes a warning that the new report settles: the settings problems
// once the file is good, the guarded-edit question once no edit waits. On Fyne's
// goroutine.
func (d *desk) settingsChanged(rep control.SettingsReport) {
	if rep.Err() == nil {
		CloseSettingsProblems(d.app)
	}
	if e := rep.Edit; e == nil || e.Declined {
		CloseGuardedEdit(d.app)
	}
}

// runDeps are the dependencies of the run windows.
func (d *desk) runDeps() runWindowDeps {
	return runWindowDeps{
		app:         d.app,
		stateDir:    d.tray.stateDir(),
		now:         time.Now,
		clockEvery:  time.Second,
		name:        func(checkout string) string { return settings.CheckoutName(checkout, d.tray.repos()) },
		pusher:      d.tray,
		changes:     d.tray,
		shipper:     d.tray,
		remover:     d.tray,
		showRun:     d.showRun,
		openRun:     d.openRun,
		queuedAhead: d.tray.queuedAhead,
		onClosed: func(id string) {
			delete(d.runWins, id)
			d.runWindowsChanged()
		},
		approver: trayApprover{d.tray},
		answered: d.withdraw,
	}
}

// trayApprover sends the run windows' answers to the tray, as the popups' are sent.
type trayApprover struct{ tray *trayLink }

// Answer sends a to the tray, which records it as the person's at this desktop.
func (a trayApprover) Answer(ctx context.Context, ans control.Answer) error {
	return a.tray.client.Answer(ctx, ans)
}

// openNewRun opens the new run dialog for kind.
func (d *desk) openNewRun(kind record.Kind) {
	newNewRunDialog(d.app, d.tray, d.tray.settings().InForce, kind, d.showRun).Show()
}

// showRun opens the window of a run that has not ended.
func (d *desk) showRun(r liveRun) {
	w := newRunWindow(d.runDeps(), r, record.Info{})
	d.runWins[r.ID()] = w
	d.runWindowsChanged()
	d.showWaiting(w)
	w.Show()
}

// runWindowsChanged tells the tray which run windows are open now, so that it opens them
// again should this process die. On Fyne's goroutine.
func (d *desk) runWindowsChanged() {
	ids := slices.Sorted(maps.Keys(d.runWins))
	d.tray.reportRunWindows(ids)
}

// openRun raises the window of the run id, opening it first when needed: live while the
// tray holds the run, else from its record.
func (d *desk) openRun(id string) {
	if w := d.runWins[id]; w != nil {
		w.Show()
		return
	}
	if d.tray.isLive(id) {
		d.showRun(d.tray.run(id))
		return
	}
	info, err := record.Load(d.tray.stateDir(), id)
	if err != nil {
		d.message("segwi: run "+id, "The run's record could not be read: "+err.Error())
		return
	}
	d.openRecord(info)
}

// openRecord opens the window of the run info records: live while it runs, else read only
// from its record.
func (d *desk) openRecord(info record.Info) {
	if w := d.runWins[info.ID]; w != nil {
		w.Show()
		return
	}
	if d.tray.isLive(info.ID) {
		d.showRun(d.tray.run(info.ID))
		return
	}
	w := newRunWindow(d.runDeps(), nil, info)
	d.runWins[info.ID] = w
	d.runWindowsChanged()
	w.Show()
}

// openHistory opens the run history, reading the records again when it is open already.
func (d *desk) openHistory() {
	if d.history == nil {
		d.history = newHistoryWindow(d.app, d.tray.stateDir(), d.tray.repos, d.openRun)
		d.history.win.SetOnClosed(func() { d.history = nil })
	} else {
		d.history.reload()
	}
	d.history.Show()
}

// openUsage opens the Usage window, reading the records again when it is open already.
func (d *desk) openUsage() {
	if d.usage == nil {
		d.usage = newUsageWindow(d.app, d.tray.stateDir(), d.tray.repos, d.openRun, time.Now)
		d.usage.win.SetOnClosed(func() { d.usage = nil })
	} else {
		d.usage.reload()
	}
	d.usage.Show()
}

// openSettings opens the settings window, or raises the one already open.
func (d *desk) openSettings() { d.openSettingsAt("") }

// openSettingsAt opens the settings window at section, or raises the one already open and
// shows section there; "" is the top.
func (d *desk) openSettingsAt(section control.Section) {
	rep := d.tray.settings()
	OpenSettings(d.app, SettingsWindowConfig{
		Path: rep.File, Current: rep.Settings, LoadErr: rep.Err(),
		Section: section, Page: d.tray.pageStatus(),
		Token: trayToken{d.tray.client},
		Save: func(_ string, s settings.Settings) error {
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			defer cancel()
			return d.tray.client.SaveSettings(ctx, s)
		},
	})
}

// guardedEdit asks the person about the edit of guarded settings that waits.
func (d *desk) guardedEdit() {
	rep := d.tray.settings()
	e := rep.Edit
	if e == nil || e.Declined {
		return
	}
	edit := *e
	ShowGuardedEdit(d.app, rep.File, edit, func() {
		d.tray.command(func(ctx context.Context) error {
			err := d.tray.client.ConfirmEdit(ctx, edit)
			if err != nil {
				onUI(func() { d.message("segwi: settings", "The new values were not applied: "+err.Error()) })
			}
			return err
		})
	}, func() {
		d.tray.command(func(ctx context.Context) error { return d.tray.client.KeepEdit(ctx, edit) })
	})
}

// detachAll stops every run window's updates: the window process is quitting.
func (d *desk) detachAll() {
	for _, w := range d.runWins {
		w.detach()
	}
}
