package app

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs/record"
)

// liveRun is what a run window needs of a run that has not ended; *runs.Run has it.
type liveRun interface {
	ID() string
	Info() record.Info
	Subscribe() (events <-chan record.Event, cancel func())
	Send(text string) error
	// CloseInput ends the run once its current turn is done: no more follow-ups.
	CloseInput()
	Stop()
	// RaiseBudget raises the run's budget by by, who asking (runs.Run.RaiseBudget).
	RaiseBudget(by record.Budget, who string) error
}

// pusher pushes an ended run's branch: the tray does (remotePusher), with the keyring's
// token.
type pusher interface {
	// Check returns nil when the run's branch can be pushed, or why not.
	Check(ctx context.Context, runID string) error
	// Push pushes the branch of the run's checkout, records the attempt on the run, and
	// says what happened, in words.
	Push(ctx context.Context, runID string) (string, error)
}

// runWindowDeps is what run windows get from the app; tests fill it with fakes.
type runWindowDeps struct {
	app         fyne.App
	stateDir    string                               // where the run records are
	now         func() time.Time                     // the clock of the elapsed time
	after       func(time.Duration) <-chan time.Time // the batching timer
	clockEvery  time.Duration                        // how often the elapsed time moves; 0: only with events
	name        func(checkout string) string         // the repository's name (settings.CheckoutName); nil: the folder's
	pusher      pusher                               // nil: no Push button
	changes     changesReader                        // nil: no Changes tab
	shipper     shipper                              // nil: no commit, pull request or Continue
	remover     worktreeRemover                      // nil: no Remove worktree…
	showRun     func(liveRun)                        // opens the window of a run started from this one
	openRun     func(id string)                      // opens the window of another run of the conversation; nil: its line opens nothing
	queuedAhead func(id string) int                  // queued runs before this one
	received    func()                               // test hook: an event was taken
	openURL     func(*url.URL) error                 // opens the checkout's folder
	onClosed    func(id string)                      // the window was closed
	approver    approver                             // nil: the window answers no approval
	answered    func(request string)                 // the window answered request: its popup closes
}

// runWindow shows one run: a header, its timeline, its raw output, and its controls. Its
// fields are touched on Fyne's goroutine only, except the atomic ones.
type runWindow struct {
	deps runWindowDeps
	run  liveRun // nil for a past run's record
	id   string

	win        fyne.Window
	info       record.Info
	tl         timeline
	changes    *changesTab // nil without deps.changes
	tabs       *container.AppTabs
	center     *fyne.Container  // the tabs, or the approval panel or the reply banner above them
	split      *container.Split // the approval panel and the tabs, while a request waits; else nil
	replySplit *container.Split // the reply banner and the tabs, while the run waits for your reply; else nil
	inReview   bool             // the Changes tab shows: the diff has the window's height and the keyboard
	approvals  *approvalPanel   // nil for a past run's record
	reply      *replyBanner     // nil for a past run's record
	budget     *budgetBar       // shown while the run waits at its budget; nil for a past run's record
	replyRow   *fyne.Container  // the reply box and Send: under the timeline, or in the reply banner
	replyHome  *fyne.Container  // where the reply box is while the banner is not shown

	approvalShown bool       // the approval panel shows
	events        *eventRows // turns events into the timeline's changes; its own lock
	raw           []string
	ahead         int

	title, task, where, status, note  *widget.Label
	convRuns                          *fyne.Container // the conversation's runs, a line each; hidden for a run alone
	list                              *followList
	rawList                           *widget.List
	copyRaw                           *widget.Button
	details                           *detailsWindow // a timeline row in full; nil until one is opened
	followUp                          *keyEntry
	send, finish, stop, openDir, push *widget.Button
	pr, cont                          *widget.Button    // Open pull request…, Continue…
	prLink                            *widget.Hyperlink // the run's pull request, once opened
	pushWhy                           *widget.Label     // why Push is off; hidden while it is on
	keeps                             *widget.Label     // closing the window leaves the run going; while it is live

	commitForm, prForm, continueForm *shipForm      // the dialogs last opened, for tests
	wt                               *worktreePanel // Remove worktree…

	stopPressed bool
	untilEnd    bool // the note says what Finish or Stop does to the run: it is stale once the run has ended
	finished    bool // Finish was pressed: no more follow-ups
	sending     bool
	ended       bool
	pushOK      bool
	pushing     bool
	shipSet     control.ChangeSet // the changes read when the push was checked; with some not committed, Push commits first
	committed   string            // what the commit before the push under way did, in words

	refreshes   atomic.Int64 // batches applied, for tests
	pushChecked atomic.Bool  // the push was checked and Push shows the outcome, for tests
	detached    atomic.Bool  // the app is quitting: touch no widget any more
	closed      atomic.Bool  // the window was closed
	settled     atomic.Int64 // follow-ups and pushes answered, for tests
	opened      atomic.Int64 // rows opened in full, for tests
	convShown   atomic.Int64 // the conversation's runs listed, for tests
	quit        chan struct{}

	cancelMu sync.Mutex
	cancel   func() // ends the subscription; nil before it and for a record
}

// newRunWindow builds the window of run, or of the record info when run is nil, and starts
// following it. On Fyne's goroutine; Show shows it.
func newRunWindow(deps runWindowDeps, run liveRun, info record.Info) *runWindow {
	if run != nil {
		info = run.Info()
	}
	w := &runWindow{
		deps: deps, run: run, id: info.ID, info: info,
		events: &eventRows{}, quit: make(chan struct{}),
	}
	w.build()
	w.showHeader()
	go w.follow()
	go w.loadConversation()
	if deps.clockEvery > 0 && run != nil {
		go w.tickClock()
	}
	return w
}

// build makes the widgets.
func (w *runWindow) build() {
	w.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	w.task = widget.NewLabel("")
	w.task.Truncation = fyne.TextTruncateEllipsis
	w.where = widget.NewLabel("")
	w.where.Truncation = fyne.TextTruncateEllipsis
	w.status = widget.NewLabel("")
	w.note = widget.NewLabel("")
	w.note.Wrapping = fyne.TextWrapWord

	w.list = newFollowList(func() int { return w.tl.len() }, func() fyne.CanvasObject { return newRowView() },
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*rowView).set(w.tl.row(i, w.id)) })
	w.list.relayout = w.relayoutTimeline
	// A click on a row opens its event in full, to read and copy.
	w.list.OnSelected = func(i widget.ListItemID) {
		w.list.UnselectAll()
		w.showRow(i)
	}
	w.rawList = widget.NewList(func() int { return len(w.raw) }, func() fyne.CanvasObject {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}, func(i widget.ListItemID, o fyne.CanvasObject) {
		if i < len(w.raw) {
			o.(*widget.Label).SetText(cutRunes(w.raw[i], maxRawLineShown))
		}
	})
	// A click on a line opens it whole, to read and copy; Copy all copies what the tab keeps.
	w.rawList.OnSelected = func(i widget.ListItemID) {
		w.rawList.UnselectAll()
		w.showRawLine(i)
	}
	w.copyRaw = widget.NewButton("Copy all", w.copyAllRaw)
	rawHint := widget.NewLabel("A click on a line opens it whole, to read and copy.")
	rawHint.Importance = widget.LowImportance
	tabs := container.NewAppTabs(
		container.NewTabItem("Timeline", w.list),
		container.NewTabItem("Raw output", container.NewBorder(container.NewHBox(rawHint, layout.NewSpacer(), w.copyRaw), nil, nil, nil, w.rawList)),
	)
	if w.deps.changes != nil {
		w.changes = newChangesTab(w.deps.changes, w.id)
		changesItem := container.NewTabItem("Changes", w.changes.content)
		tabs.Append(changesItem)
		tabs.OnSelected = func(t *container.TabItem) {
			w.reviewing(t == changesItem)
			if t == changesItem && !w.changes.loaded {
				w.changes.load()
			}
		}
	}

	w.tabs = tabs

	w.followUp = newKeyEntry(w.typedShortcut)
	w.followUp.SetPlaceHolder(followUpPlaceholder)
	w.followUp.OnSubmitted = func(string) { w.sendFollowUp() }
	w.send = widget.NewButton("Send", w.sendFollowUp)
	w.finish = widget.NewButton("Finish", w.pressFinish)
	w.stop = widget.NewButton("Stop", w.pressStop)
	w.stop.Importance = widget.DangerImportance
	w.openDir = widget.NewButton("Open folder", w.openFolder)
	w.push = widget.NewButton("Push", w.pushBranch)
	w.push.Disable()
	w.pr = widget.NewButton("Open pull request…", w.openPullRequest)
	w.pr.Hide()
	w.cont = widget.NewButton("Continue…", w.openContinue)
	w.cont.Hide()
	w.prLink = widget.NewHyperlink("", nil)
	w.prLink.Hide()
	w.pushWhy = widget.NewLabel("")
	w.pushWhy.Wrapping = fyne.TextWrapWord
	w.pushWhy.Hide()
	if w.run == nil {
		w.followUp.Disable()
		w.send.Disable()
		w.finish.Disable()
		w.stop.Disable()
	}

	w.convRuns = newConversationBox()
	top := container.NewVBox(w.title, w.task, w.where, w.status, w.convRuns)
	right := container.NewHBox(w.openDir)
	if w.deps.pusher != nil && w.info.Kind != record.KindAsk { // an ask run changes nothing: nothing to push
		right.Add(w.push)
		w.sayPushOff(pushAfterEnd)
	}
	if w.deps.shipper != nil {
		right.Add(w.pr)
		right.Add(w.cont)
	}
	removeWhy := w.buildWorktree(right)
	// Closing the window leaves a live run going: the window says so, and where it opens
	// again, while the run is live.
	w.keeps = widget.NewLabel(keepsGoingHint)
	w.keeps.Importance = widget.LowImportance
	w.keeps.Truncation = fyne.TextTruncateEllipsis
	if w.run == nil {
		w.keeps.Hide()
	}
	buttons := container.NewBorder(nil, nil, container.NewHBox(w.finish, w.stop), right, w.keeps)
	w.replyRow = container.NewBorder(nil, nil, nil, w.send, w.followUp)
	w.replyHome = container.NewStack(w.replyRow)
	bottom := container.NewVBox(
		w.budgetHome(),
		w.replyHome,
		buttons,
		w.pushWhy,
		removeWhy,
		w.prLink,
		container.New(emptyLabelLayout{w.note}, w.note), // no blank line at the bottom while it says nothing
	)
	w.center = container.NewStack(tabs)
	if w.run != nil {
		w.approvals = newApprovalPanel(w)
		w.reply = newReplyBanner(w.info.Runtime)
	}
	w.win = w.deps.app.NewWindow(w.windowTitle())
	w.win.SetContent(container.NewBorder(top, bottom, nil, nil, w.center))
	// The chords that answer the approval shown, wherever the focus is: a focused entry
	// passes them on (keyEntry), the window takes them otherwise.
	for _, s := range []fyne.Shortcut{allowShortcut, denyShortcut, denyStopShortcut} {
		w.win.Canvas().AddShortcut(s, func(s fyne.Shortcut) { w.typedShortcut(s) })
	}
	w.win.Resize(fyne.NewSize(820, 720)) // room for an approval above the timeline
	w.win.SetOnClosed(func() {
		if w.closed.Swap(true) {
			return // closed already
		}
		// Closing the window leaves the run going, as the window says: a conversation
		// goes on in its own time, and the tray menu opens its window again. Finish ends
		// it once its turn is done, Stop at once.
		close(w.quit)
		w.unsubscribe()
		if w.details != nil {
			w.details.win.Close()
		}
		if w.deps.onClosed != nil {
			w.deps.onClosed(w.id)
		}
	})
}

// relayoutTimeline breaks the timeline's rows for a list width wide and returns where the
// entry at row top begins now. On Fyne's goroutine.
func (w *runWindow) relayoutTimeline(width float32, top int) (int, bool) {
	th := w.list.Theme()
	entry := w.tl.entryIndex(top)
	if !w.tl.layout(timelineRoom(th, width), th.Size(theme.SizeNameText)) {
		return top, false
	}
	w.list.Refresh()
	if entry < 0 {
		return top, true
	}
	return w.tl.firstRow(entry), true
}

// emptyLabelLayout lays out its label alone, and takes no room while the label is empty.
type emptyLabelLayout struct{ label *widget.Label }

// Layout gives the label the whole room.
func (l emptyLabelLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(size)
}

// MinSize is the label's, or nothing while it is empty.
func (l emptyLabelLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	if l.label.Text == "" {
		return fyne.Size{}
	}
	return l.label.MinSize()
}

// Show shows and focuses the window.
func (w *runWindow) Show() {
	go w.loadConversation() // a run of it may have been continued, or ended, since it was read
	w.win.Show()
	w.win.RequestFocus()
}

// windowTitle says the run's task, then what run it is: "Fix the login form · build run
// in web", so that the windows of two runs, and of a run and its continuation, are told
// apart in a task bar.
func (w *runWindow) windowTitle() string { return runTitle(w.info, w.repoName()) }

// runName names the run as the tray and the history do: "build run in web", by the
// repository's name.
func (w *runWindow) runName() string { return runKindIn(w.info, w.repoName()) }

// repoName is the name of the run's repository in the settings, else its folder's: the
// repository a worktree was made from, not the worktree's folder.
func (w *runWindow) repoName() string {
	if w.deps.name != nil {
		return w.deps.name(w.info.Repository())
	}
	return filepath.Base(w.info.Repository())
}

// follow reads the run's record, then its live events, and applies them in batches. On
// its own goroutine.
func (w *runWindow) follow() {
	tail := &rawTail{path: filepath.Join(w.info.Dir, "output.log")}
	var past timeline
	past.apply(w.recordChanges()...)
	_ = tail.read()
	raw := tail.lines()
	if !onUIWait(func() {
		if w.closed.Load() {
			return // closed before it showed anything: nothing to draw
		}
		w.tl = past
		w.layoutTimeline()
		w.raw = raw
		// A window opens at the latest event, however long the run.
		w.apply(true, w.infoNow(), false)
	}) {
		return
	}
	if w.run == nil {
		return // a record: apply saw it has ended, and checks the push
	}
	events, cancel := w.run.Subscribe()
	w.cancelMu.Lock()
	w.cancel = cancel
	w.cancelMu.Unlock()
	if w.closed.Load() || w.detached.Load() {
		cancel()
	}
	after := w.deps.after
	if after == nil {
		after = time.After
	}
	feed(events, flushEvery, after, w.deps.received, func(batch []record.Event, ended bool) {
		var cs []change
		turnEnded := ended
		for _, e := range batch {
			cs = append(cs, w.events.changes(e)...) // none for those read from the record
			turnEnded = turnEnded || e.Type == record.EventResult
		}
		_ = tail.read()
		raw := tail.lines()
		info := w.run.Info()
		ahead := 0
		if info.State == record.StateQueued && w.deps.queuedAhead != nil {
			ahead = w.deps.queuedAhead(w.id)
		}
		if w.detached.Load() {
			return
		}
		onUIWait(func() {
			if w.closed.Load() {
				return
			}
			follow := w.list.atEnd() // before the rows change: scrolled up, the view stays
			w.tl.apply(cs...)
			w.raw = raw
			w.ahead = ahead
			w.apply(follow && len(cs) > 0, info, ended)
			if turnEnded && w.changes != nil && w.changes.loaded {
				w.changes.load() // what the turn changed
			}
		})
	})
}

// layoutTimeline breaks the timeline's rows for the list's width, once it has one. On
// Fyne's goroutine.
func (w *runWindow) layoutTimeline() {
	if w.list.width > 0 {
		th := w.list.Theme()
		w.tl.layout(timelineRoom(th, w.list.width), th.Size(theme.SizeNameText))
	}
}

// addToTimeline adds cs to the timeline, following it to its end unless the person
// scrolled up. On Fyne's goroutine.
func (w *runWindow) addToTimeline(cs []change) {
	if len(cs) == 0 || w.closed.Load() {
		return
	}
	follow := w.list.atEnd()
	w.tl.apply(cs...)
	w.list.Refresh()
	if follow {
		w.list.scrollToEnd()
	}
}

// recordChanges returns the timeline's changes of the events in the run's record not
// shown yet. An error leaves what was read (a record cut short still shows its start) and
// adds a row saying what is wrong with the file; a live run's file that is not there yet
// has no events. Off Fyne's goroutine.
func (w *runWindow) recordChanges() []change {
	if w.deps.stateDir == "" {
		return nil
	}
	var cs []change
	err := record.ReadEvents(w.deps.stateDir, w.id, func(e record.Event) error {
		cs = append(cs, w.events.changes(e)...)
		return nil
	})
	if err != nil && (w.run == nil || !errors.Is(err, fs.ErrNotExist)) {
		cs = append(cs, change{entry: entry{mark: recordErrorMark, text: err.Error(), prose: true, whole: true}})
	}
	return cs
}

// recordErrorMark marks the row that says why the run's events could not be read.
const recordErrorMark = "⚠ Record"

// detach stops the window's updates, for the app quitting: once the Fyne loop has ended
// no goroutine may touch a widget. On Fyne's goroutine, or after the loop ended.
func (w *runWindow) detach() {
	w.detached.Store(true)
	w.unsubscribe()
}

// unsubscribe ends the run's subscription, if there is one.
func (w *runWindow) unsubscribe() {
	w.cancelMu.Lock()
	defer w.cancelMu.Unlock()
	if w.cancel != nil {
		w.cancel()
	}
}

// infoNow returns the freshest summary of the run.
func (w *runWindow) infoNow() record.Info {
	if w.run != nil {
		return w.run.Info()
	}
	return w.info
}

// apply shows what changed: the timeline's rows (followed to the end when follow is set),
// the run's summary. On Fyne's goroutine.
func (w *runWindow) apply(follow bool, info record.Info, ended bool) {
	if info.State != w.info.State && !w.convRuns.Hidden {
		go w.loadConversation() // the list says this run's state
	}
	w.info = info
	justEnded := (ended || info.State.Final()) && !w.ended
	if justEnded {
		w.ended = true
		if w.untilEnd { // "No more follow-ups…", "Stopping…": done
			w.untilEnd = false
			w.note.SetText("")
		}
		w.stop.SetText("Stop")
		w.keeps.Hide()
		w.followUp.Disable()
		w.send.Disable()
		w.finish.Disable()
		w.stop.Disable()
		if w.deps.shipper != nil && info.SessionID != "" {
			w.cont.Show()
		}
	}
	if info.PullRequest != "" && w.prLink.Hidden {
		w.showPullRequest(info.PullRequest)
	}
	w.showHeader()
	w.showReply(waitsForReply(info) && !w.ended && !w.finished)
	w.showBudget(info.WaitsAtBudget() && !w.ended && !w.finished)
	w.list.Refresh()
	w.rawList.Refresh()
	if follow {
		w.list.scrollToEnd()
	}
	if justEnded {
		// Once the window shows the end: what the check changes comes after it.
		if w.deps.pusher != nil && w.info.Kind != record.KindAsk {
			w.sayPushOff(pushChecking)
		}
		go w.checkPush()
		go w.checkWorktree()
	}
	w.refreshes.Add(1) // last: a test that saw it sees the widgets updated
}
