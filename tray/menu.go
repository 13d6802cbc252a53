package tray

import (
	"fmt"
	"time"

	"github.com/segwi/segwi/assets"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/record"
	"github.com/segwi/segwi/settings"
)

// Snapshot is what the tray shows, taken at one moment: a plain value, so that the menu,
// the icon and the tooltip are pure functions of it.
type Snapshot struct {
	Runs    []Run // the runs that have not ended, oldest first
	Pending int   // approval requests waiting for a person
	Now     time.Time
	Canary  bool // the canary can be run
	// Problem is what keeps segwi from working as it should ("No window can open: ..."),
	// shown first in the menu, marked; empty when there is none.
	Problem string
	Page    Page // the approval page on the tailnet; zero while segwi.remote.enabled is off
	// Today is what the runs created today (local time) used: the day's row of `segwi
	// usage --by day`, a live run counted by its own figures; zero when none was.
	Today runs.UsageRow
}

// Page is the approval page on the tailnet as the tray shows it: where the owner's other
// devices open it, or why it is not served and what to do.
type Page struct {
	URL     string // while it is served
	Problem string // while it is not: what is wrong (tailscaled missing, not logged in, ...) and what to do
}

// Run is one run as the tray shows it.
type Run struct {
	ID    string
	Name  string // the repository's name in the settings, else the checkout's folder name
	Kind  runs.Kind
	State runs.State
	// Waiting says what a waiting run waits for: an approval, or the person's reply.
	Waiting runs.WaitReason
	Since   time.Time // when its process started, or when it was queued
}

// RunOf turns a run's summary into its tray entry, named after its repository in repos: for
// a run in a worktree, the repository the worktree was made from.
func RunOf(info runs.Info, repos []settings.Repository) Run {
	since := info.Start
	if since.IsZero() {
		since = info.Created
	}
	return Run{ID: info.ID, Name: settings.CheckoutName(info.Repository(), repos), Kind: info.Kind, State: info.State, Waiting: info.Waiting, Since: since}
}

// Verb is what a menu item does.
type Verb int

// The verbs of the menu's items.
const (
	NoVerb         Verb = iota // a separator or an item that only informs
	NewRun                     // open the new-run dialog for Action.Kind
	OpenRun                    // open the run window of Action.Run
	RaiseApprovals             // raise every waiting approval
	History                    // open the run history
	Settings                   // open the settings
	Canary                     // run the canary
	Quit                       // quit segwi
	ApprovalPage               // open the settings at the approval page: where it is served, or why not
	Usage                      // open the Usage window
)

// Action is what clicking an item does: a plain value, so menus compare with ==.
type Action struct {
	Verb Verb
	Kind runs.Kind // NewRun
	Run  string    // OpenRun
}

// Item is one entry of the tray menu.
type Item struct {
	Label     string
	Disabled  bool
	Separator bool
	Action    Action
}

// Actions are the callbacks of the menu's items.
type Actions struct {
	NewRun         func(runs.Kind)
	OpenRun        func(id string)
	RaiseApprovals func()
	History        func()
	Usage          func()
	Settings       func()
	Canary         func()
	Quit           func()
	ApprovalPage   func()
}

// Do calls the callback of act; a nil callback does nothing.
func (a Actions) Do(act Action) {
	call := func(f func()) {
		if f != nil {
			f()
		}
	}
	switch act.Verb {
	case NewRun:
		if a.NewRun != nil {
			a.NewRun(act.Kind)
		}
	case OpenRun:
		if a.OpenRun != nil {
			a.OpenRun(act.Run)
		}
	case RaiseApprovals:
		call(a.RaiseApprovals)
	case History:
		call(a.History)
	case Usage:
		call(a.Usage)
	case Settings:
		call(a.Settings)
	case Canary:
		call(a.Canary)
	case Quit:
		call(a.Quit)
	case ApprovalPage:
		call(a.ApprovalPage)
	}
}

// Labels of the tray menu's fixed items.
const (
	LabelNewBuild  = "New build run…"
	LabelNewReady  = "New ready run…"
	LabelAsk       = "Ask…"
	LabelHistory   = "Run history…"
	LabelUsage     = "Usage…"
	LabelSettings  = "Settings…"
	LabelCanary    = "Run canary"
	LabelQuit      = "Quit"
	LabelNoRuns    = "No runs going"
	WaitingForYou  = "⚠ waiting for you"        // a run waits for an approval
	WaitingReply   = "⚠ waiting for your reply" // a run's turn is over: it waits for your next message
	WaitingBudget  = "⚠ budget reached"         // a run's turn ended at its budget: it waits for a raise
	ProblemMark    = "⚠ "                       // before Snapshot.Problem
	LabelApprovals = "Waiting approvals (%d)"
	LabelPageOn    = "Approval page on the tailnet…" // opens the settings, which say where it is
	LabelPageOff   = "⚠ Approval page not served…"   // opens the settings, which say why
)

// A tray host draws a menu as wide as its longest line, and cuts nothing short: a line of
// a sentence's length took the whole width of the screen, cut off, and a menu line cannot
// be selected or copied. So the menu's lines are short: a name or a problem longer than
// these is cut, ending in "…", and the lines whose details run long (the approval page's)
// open the window that says them in full.
const (
	maxNameRunes    = 28 // a run's repository name
	maxProblemRunes = 64 // Snapshot.Problem
)

// clip cuts s to at most n runes, the last of them "…" when it was cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Menu is the tray menu for s.
func Menu(s Snapshot) []Item {
	sep := Item{Separator: true}
	var items []Item
	if s.Problem != "" {
		items = append(items, Item{Label: ProblemMark + clip(s.Problem, maxProblemRunes), Disabled: true}, sep)
	}
	items = append(items, []Item{
		{Label: LabelNewBuild, Action: Action{Verb: NewRun, Kind: runs.KindBuild}},
		{Label: LabelNewReady, Action: Action{Verb: NewRun, Kind: runs.KindReady}},
		{Label: LabelAsk, Action: Action{Verb: NewRun, Kind: runs.KindAsk}},
		sep,
	}...)
	if len(s.Runs) == 0 {
		items = append(items, Item{Label: LabelNoRuns, Disabled: true})
	}
	for _, r := range s.Runs {
		items = append(items, Item{Label: runLabel(r, s.Now), Action: Action{Verb: OpenRun, Run: r.ID}})
	}
	items = append(items,
		sep,
		Item{Label: fmt.Sprintf(LabelApprovals, s.Pending), Disabled: s.Pending == 0, Action: Action{Verb: RaiseApprovals}},
	)
	switch {
	case s.Page.Problem != "":
		items = append(items, Item{Label: LabelPageOff, Action: Action{Verb: ApprovalPage}})
	case s.Page.URL != "":
		items = append(items, Item{Label: LabelPageOn, Action: Action{Verb: ApprovalPage}})
	}
	return append(items,
		Item{Label: LabelHistory, Action: Action{Verb: History}},
		Item{Label: LabelUsage, Action: Action{Verb: Usage}},
		Item{Label: LabelSettings, Action: Action{Verb: Settings}},
		Item{Label: LabelCanary, Disabled: !s.Canary, Action: Action{Verb: Canary}},
		sep,
		Item{Label: LabelQuit, Action: Action{Verb: Quit}},
	)
}

// runLabel is a run's menu item: "web · build · running 4m", or with the waiting mark
// that says what it waits for.
func runLabel(r Run, now time.Time) string {
	head := clip(r.Name, maxNameRunes) + " · " + string(r.Kind) + " · "
	switch r.State {
	case runs.StateWaiting:
		mark := WaitingForYou
		switch r.Waiting {
		case runs.WaitReply:
			mark = WaitingReply
		case runs.WaitBudget:
			mark = WaitingBudget
		}
		return head + mark + " " + shortElapsed(now.Sub(r.Since))
	case runs.StateRunning:
		return head + "running " + shortElapsed(now.Sub(r.Since))
	}
	return head + string(r.State)
}

// showsElapsed reports whether s's menu shows a time that moves: a running or waiting run.
func showsElapsed(s Snapshot) bool {
	for _, r := range s.Runs {
		if r.State == runs.StateRunning || r.State == runs.StateWaiting {
			return true
		}
	}
	return false
}

// shortElapsed renders d in whole minutes, as the menu refreshes about twice a minute.
func shortElapsed(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "<1m"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	}
	return fmt.Sprintf("%dh %02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
}

// Look is the tray icon's state at a glance.
type Look int

// The looks of the tray icon.
const (
	LookIdle    Look = iota // no run
	LookBusy                // runs are going or queued
	LookWaiting             // a run waits for a person
)

// LookOf chooses the icon for s: waiting wins over busy, busy over idle.
func LookOf(s Snapshot) Look {
	look := LookIdle
	if s.Pending > 0 {
		return LookWaiting
	}
	for _, r := range s.Runs {
		if r.State == runs.StateWaiting {
			return LookWaiting
		}
		if !r.State.Final() {
			look = LookBusy
		}
	}
	return look
}

// Icon returns the PNG of the tray icon of l.
func (l Look) Icon() []byte {
	switch l {
	case LookWaiting:
		return assets.TrayWaiting
	case LookBusy:
		return assets.TrayBusy
	}
	return assets.TrayIdle
}

// Title is the tray item's title, as a tray host lists it.
const Title = "segwi"

// Tooltip says what s holds in a line: "segwi: 2 runs going, 1 waiting for you", "1
// waiting for your reply" for the runs whose turn is over, "budget reached for 1" for those
// that wait at their budget; and, when runs were created today, a line of what they used:
// "today: $1.23 over 4 runs".
func Tooltip(s Snapshot) string {
	going, waiting, replies, budgets := 0, 0, 0, 0
	for _, r := range s.Runs {
		if !r.State.Final() {
			going++
		}
		switch {
		case r.State != runs.StateWaiting:
		case r.Waiting == runs.WaitReply:
			replies++
		case r.Waiting == runs.WaitBudget:
			budgets++
		default:
			waiting++
		}
	}
	tip := Title + ": no runs going"
	if going > 0 {
		tip = fmt.Sprintf("%s: %s going", Title, record.Plural(going, "run"))
	}
	if waiting > 0 {
		tip += fmt.Sprintf(", %d waiting for you", waiting)
	}
	if replies > 0 {
		tip += fmt.Sprintf(", %d waiting for your reply", replies)
	}
	if budgets > 0 {
		tip += fmt.Sprintf(", budget reached for %d", budgets)
	}
	if s.Pending > 0 {
		tip += fmt.Sprintf(" (%s)", record.Plural(s.Pending, "approval"))
	}
	if s.Today.Runs > 0 {
		tip += fmt.Sprintf("\ntoday: %s over %s", runs.CostText(s.Today.CostUSD), record.Plural(s.Today.Runs, "run"))
	}
	if s.Page.Problem != "" {
		tip += "\nThe approval page on the tailnet is not served: " + s.Page.Problem
	}
	return tip
}
