package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// The kind of run is one Tab stop, whose choice the arrow keys move (Fyne's radio group
// made each kind a Tab stop of its own); a click on a kind chooses it.
func TestNewRunDialogKindIsOneTabStopWithArrowKeys(t *testing.T) {
	a := test.NewTempApp(t)
	s := settings.Settings{Repositories: []settings.Repository{{Name: "web", Path: gitCheckout(t)}}}
	d := newNewRunDialog(a, &fakeStarter{t: t}, s, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })
	d.Show()
	c := d.win.Canvas()
	c.Focus(d.kind)
	c.FocusNext()
	if c.Focused() != d.repo {
		t.Errorf("Tab from the kind went to %T, want the checkout", c.Focused())
	}
	c.FocusPrevious()
	if c.Focused() != d.kind {
		t.Fatalf("Shift+Tab from the checkout went to %T, want the kind", c.Focused())
	}
	for _, step := range []struct {
		key    fyne.KeyName
		kind   runs.Kind
		prompt string
	}{
		{fyne.KeyDown, runs.KindReady, "Notes for the run (optional)"},
		{fyne.KeyDown, runs.KindAsk, "Question"},
		{fyne.KeyDown, runs.KindAsk, "Question"}, // the last stays chosen
		{fyne.KeyUp, runs.KindReady, "Notes for the run (optional)"},
		{fyne.KeyLeft, runs.KindBuild, "Task"},
		{fyne.KeyRight, runs.KindReady, "Notes for the run (optional)"},
	} {
		d.kind.TypedKey(&fyne.KeyEvent{Name: step.key})
		if d.selectedKind() != step.kind || d.promptL.Text != step.prompt {
			t.Errorf("after %s: kind %s, prompt labelled %q; want %s, %q", step.key, d.selectedKind(), d.promptL.Text, step.kind, step.prompt)
		}
	}
	c.Focus(d.prompt)
	test.Tap(d.kind.rows[2])
	if d.selectedKind() != runs.KindAsk || c.Focused() != d.kind {
		t.Errorf("a click on Ask: kind %s, focus on %T; want ask, the kind focused", d.selectedKind(), c.Focused())
	}
}

// Esc with a task typed asks before it closes the window and loses the task; Esc again (or
// Keep editing) goes back to it.
func TestNewRunDialogEscAsksBeforeLosingTheTask(t *testing.T) {
	a := test.NewTempApp(t)
	s := settings.Settings{Repositories: []settings.Repository{{Name: "web", Path: gitCheckout(t)}}}
	d := newNewRunDialog(a, &fakeStarter{t: t}, s, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })
	d.Show()
	test.Type(d.prompt, "Fix the login form")
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	d.prompt.TypedKey(esc)
	if d.closed || d.discard == nil {
		t.Fatalf("Esc with a task typed: closed %v, asking %v; want it to ask first", d.closed, d.discard != nil)
	}
	d.prompt.TypedKey(esc) // Esc again: keep editing
	if d.closed || d.discard != nil || d.prompt.Text != "Fix the login form" {
		t.Fatalf("Esc while asking: closed %v, asking %v, task %q; want the task back", d.closed, d.discard != nil, d.prompt.Text)
	}
	if d.win.Canvas().Focused() != d.prompt {
		t.Errorf("after keep editing the focus is on %T, want the task box", d.win.Canvas().Focused())
	}
	d.prompt.TypedKey(esc)
	test.Tap(dialogButton(t, d.win, "Keep editing"))
	if d.closed {
		t.Fatal("Keep editing closed the window")
	}
	d.prompt.TypedKey(esc)
	test.Tap(dialogButton(t, d.win, "Discard and close"))
	if !d.closed {
		t.Error("Discard and close left the window open")
	}
}

// gitCheckout returns a folder with a .git folder in it.
func gitCheckout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// refusal is what runs.CheckoutDir says of dir: the words segwi run and the core refuse
// it with, which the dialog shows.
func refusal(t *testing.T, dir string) string {
	t.Helper()
	_, err := runs.CheckoutDir(dir)
	if err == nil {
		t.Fatalf("runs.CheckoutDir(%s) refuses nothing", dir)
	}
	return err.Error()
}

func TestValidateNewRun(t *testing.T) {
	checkout := gitCheckout(t)
	plain := t.TempDir()
	file := filepath.Join(plain, "notes.txt")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		kind     runs.Kind
		checkout string
		prompt   string
		want     string
	}{
		{"no checkout asks for one", runs.KindBuild, "", "x", msgNoCheckout},
		{"a missing folder is refused as the core refuses it", runs.KindBuild, filepath.Join(plain, "gone"), "x", refusal(t, filepath.Join(plain, "gone"))},
		{"a file is refused as the core refuses it", runs.KindAsk, file, "x", refusal(t, file)},
		{"a folder without .git is refused as the core refuses it", runs.KindBuild, plain, "x", refusal(t, plain)},
		{"a build needs a task", runs.KindBuild, checkout, "  \n ", msgNoTask},
		{"an ask needs a question", runs.KindAsk, checkout, "", msgNoQuestion},
		{"a ready run's notes are optional", runs.KindReady, checkout, "", ""},
		{"a build with a task in a checkout is fine", runs.KindBuild, checkout, "fix it", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := validateNewRun(tt.kind, tt.checkout, tt.prompt); got != tt.want {
				t.Errorf("validateNewRun = %q, want %q", got, tt.want)
			}
		})
	}
}

// fakeStarter is a runStarter that records the specs it gets; it fails the test when
// the test did not expect a start.
type fakeStarter struct {
	t     *testing.T
	allow bool
	run   liveRun
	err   error

	mu    sync.Mutex
	specs []runs.Spec
}

func (s *fakeStarter) Start(spec runs.Spec) (liveRun, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.allow {
		s.t.Errorf("unexpected Start(%+v)", spec)
	}
	s.specs = append(s.specs, spec)
	return s.run, s.err
}

func (s *fakeStarter) started() []runs.Spec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]runs.Spec(nil), s.specs...)
}

func TestNewRunDialogShowsWhatIsWrong(t *testing.T) {
	a := test.NewTempApp(t)
	plain := t.TempDir()
	d := newNewRunDialog(a, &fakeStarter{t: t}, settings.Settings{}, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })

	if d.repo.Selected != otherFolder || d.problem.Text != msgNoCheckout || !d.start.Disabled() {
		t.Fatalf("with no repositories: checkout %q, problem %q, start disabled %v", d.repo.Selected, d.problem.Text, d.start.Disabled())
	}
	test.Tap(d.start) // disabled: the fake fails the test if this starts a run
	test.Type(d.folder, plain)
	if want := refusal(t, plain); d.problem.Text != want {
		t.Errorf("problem = %q, want %q", d.problem.Text, want)
	}
	d.folder.SetText(gitCheckout(t))
	if d.problem.Text != msgNoTask || d.promptL.Text != "Task" {
		t.Errorf("problem %q, prompt label %q; want the task asked for", d.problem.Text, d.promptL.Text)
	}
	d.kind.SetSelected(kindAskLabel)
	if d.problem.Text != msgNoQuestion || d.promptL.Text != "Question" {
		t.Errorf("problem %q, prompt label %q; want the question asked for", d.problem.Text, d.promptL.Text)
	}
	d.kind.SetSelected(kindReadyLabel)
	if d.problem.Text != "" || d.start.Disabled() {
		t.Errorf("a ready run without notes: problem %q, start disabled %v; want it ready to start", d.problem.Text, d.start.Disabled())
	}
}

func TestNewRunDialogStartsTheRun(t *testing.T) {
	a := test.NewTempApp(t)
	web := gitCheckout(t)
	s := settings.Settings{
		Claude:       settings.Claude{Model: "sonnet"},
		Repositories: []settings.Repository{{Name: "web", Path: web}},
	}
	run := newFakeRun(t, runs.Info{ID: "r1"}, 1)
	starter := &fakeStarter{t: t, allow: true, run: run}
	var mu sync.Mutex
	var opened []liveRun
	d := newNewRunDialog(a, starter, s, runs.KindAsk, func(r liveRun) { mu.Lock(); opened = append(opened, r); mu.Unlock() })
	t.Cleanup(func() { closeDialog(d) })

	if d.repo.Selected != "web" || d.folder.Disabled() == false || d.model.Text != "sonnet" {
		t.Fatalf("defaults: checkout %q, folder enabled %v, model %q", d.repo.Selected, !d.folder.Disabled(), d.model.Text)
	}
	test.Type(d.prompt, "where is the login handled?")
	test.Tap(d.start)
	await.For(t, 10*time.Second, "the run window to be asked for", func() bool { return d.answered.Load() == 1 })
	if n := openedCount(&mu, &opened); n != 1 {
		t.Fatalf("%d run windows asked for, want 1", n)
	}
	want := []runs.Spec{{Kind: runs.KindAsk, Checkout: web, Prompt: "where is the login handled?", Model: "sonnet", KeepOpen: true}}
	if diff := cmp.Diff(want, starter.started()); diff != "" {
		t.Errorf("Start specs (-want +got):\n%s", diff)
	}
	if opened[0] != run {
		t.Errorf("opened %v, want the started run", opened[0])
	}
}

func TestNewRunDialogSaysWhyARunDidNotStart(t *testing.T) {
	a := test.NewTempApp(t)
	starter := &fakeStarter{t: t, allow: true, err: errors.New("claude not found: claude binary not found")}
	d := newNewRunDialog(a, starter, settings.Settings{}, runs.KindReady, func(liveRun) { t.Error("a window opened for a run that did not start") })
	t.Cleanup(func() { closeDialog(d) })
	d.folder.SetText(gitCheckout(t))
	test.Tap(d.start)
	await.For(t, 10*time.Second, "the failure to show", func() bool { return d.answered.Load() == 1 })
	if want := "The run did not start: claude not found: claude binary not found"; d.problem.Text != want {
		t.Errorf("problem = %q, want %q", d.problem.Text, want)
	}
}

func openedCount(mu *sync.Mutex, opened *[]liveRun) int {
	mu.Lock()
	defer mu.Unlock()
	return len(*opened)
}

// closeDialog closes d's window unless it closed itself.
func closeDialog(d *newRunDialog) {
	if !d.closed {
		d.win.Close()
	}
}

func TestNewRunDialogLooks(t *testing.T) {
	a := test.NewTempApp(t)
	s := settings.Settings{Repositories: []settings.Repository{{Name: "web", Path: gitCheckout(t)}}}
	d := newNewRunDialog(a, &fakeStarter{t: t}, s, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })
	d.Show()
	assertMarkup(t, "newrun_dialog_open.xml", d.win.Canvas()) // the cursor in the task box, no error
	test.Type(d.prompt, "Fix the login form")
	assertMarkup(t, "newrun_dialog.xml", d.win.Canvas())
}

// The dialog reads as a form from the keyboard: the cursor starts in the task box, Tab
// moves on (a tab is not typed into the task), Ctrl+Enter starts, Esc closes; and a form
// not yet filled in shows what to write, not an error.
func TestNewRunDialogKeys(t *testing.T) {
	a := test.NewTempApp(t)
	web := gitCheckout(t)
	s := settings.Settings{Repositories: []settings.Repository{{Name: "web", Path: web}}}
	starter := &fakeStarter{t: t, allow: true, run: newFakeRun(t, runs.Info{ID: "r1"}, 1)}
	d := newNewRunDialog(a, starter, s, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })
	d.Show()

	c := d.win.Canvas()
	if c.Focused() != d.prompt {
		t.Errorf("focused on open: %T, want the task box", c.Focused())
	}
	if d.problem.Text != msgNoTask || d.problem.Importance == widget.DangerImportance {
		t.Errorf("before typing: %q in importance %v; want %q as a hint, not an error", d.problem.Text, d.problem.Importance, msgNoTask)
	}
	if d.prompt.AcceptsTab() {
		t.Error("the task box takes Tab as text")
	}
	c.FocusNext()
	if c.Focused() != d.model {
		t.Errorf("Tab from the task box went to %T, want the model field", c.Focused())
	}
	c.Focus(d.prompt)
	d.prompt.TypedShortcut(startShortcut) // nothing to start yet: no task
	if n := len(starter.started()); n != 0 {
		t.Fatalf("Ctrl+Enter with no task started %d runs", n)
	}
	test.Type(d.prompt, "Fix the login form")
	d.prompt.TypedShortcut(startShortcut)
	await.For(t, 10*time.Second, "Ctrl+Enter to start the run", func() bool { return d.answered.Load() == 1 })
	if got := starter.started(); len(got) != 1 || got[0].Prompt != "Fix the login form" {
		t.Errorf("Ctrl+Enter started %+v, want the run with the task typed", got)
	}

	for _, tt := range []struct {
		name string
		esc  func(d *newRunDialog)
	}{
		{"Esc on the kind closes the dialog", func(d *newRunDialog) { d.kind.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) }},
		{"Esc in the task box closes the dialog", func(d *newRunDialog) { d.prompt.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) }},
		{"Esc in the model field closes the dialog", func(d *newRunDialog) { d.model.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape}) }},
		{"Esc with nothing focused closes the dialog", func(d *newRunDialog) {
			d.win.Canvas().Unfocus()
			d.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := newNewRunDialog(a, &fakeStarter{t: t}, s, runs.KindBuild, nil)
			t.Cleanup(func() { closeDialog(d) })
			d.Show()
			tt.esc(d)
			if !d.closed {
				t.Error("the dialog is still open")
			}
		})
	}
}

// The dialog offers the checkout or a new worktree, showing the repository's default
// (segwi.repositories[].worktree), and starts the run where the person chose; an ask run,
// which changes nothing, is not offered the choice.
func TestNewRunDialogChoosesTheCheckoutOrANewWorktree(t *testing.T) {
	a := test.NewTempApp(t)
	web, api := gitCheckout(t), gitCheckout(t)
	s := settings.Settings{Repositories: []settings.Repository{{Name: "web", Path: web}, {Name: "api", Path: api, Worktree: true}}}
	starter := &fakeStarter{t: t, allow: true, run: newFakeRun(t, runs.Info{ID: "r1"}, 1)}
	d := newNewRunDialog(a, starter, s, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })
	if d.where.Selected != whereCheckout || d.selectedWhere() != runs.WhereDefault || !d.where.Visible() {
		t.Errorf("for web: %q (%q), shown %v; want the checkout, as web's default", d.where.Selected, d.selectedWhere(), d.where.Visible())
	}
	d.repo.SetSelected("api")
	if d.where.Selected != whereWorktree || d.selectedWhere() != runs.WhereWorktree {
		t.Errorf("for api: %q; want a new worktree, as api's default", d.where.Selected)
	}
	d.where.SetSelected(whereCheckout)
	if d.selectedWhere() != runs.WhereCheckout {
		t.Errorf("the checkout chosen for api gives %q", d.selectedWhere())
	}
	d.kind.SetSelected(kindAskLabel)
	if d.where.Visible() || d.selectedWhere() != runs.WhereDefault {
		t.Errorf("an ask run: choice shown %v, where %q", d.where.Visible(), d.selectedWhere())
	}
	d.kind.SetSelected(kindBuildLabel)
	d.repo.SetSelected("web")
	d.where.SetSelected(whereWorktree)
	test.Type(d.prompt, "Add a footer")
	test.Tap(d.start)
	await.For(t, 10*time.Second, "the run to start", func() bool { return d.answered.Load() == 1 })
	want := []runs.Spec{{Kind: runs.KindBuild, Checkout: web, Prompt: "Add a footer", KeepOpen: true, Where: runs.WhereWorktree}}
	if diff := cmp.Diff(want, starter.started()); diff != "" {
		t.Errorf("Start specs (-want +got):\n%s", diff)
	}
}

// With segwi.runtimes listing ACP agents, the dialog offers them beside Claude Code, and
// the run starts on the one chosen (by its name only: the command stays in the settings).
func TestNewRunDialogStartsARunOnTheChosenRuntime(t *testing.T) {
	a := test.NewTempApp(t)
	web := gitCheckout(t)
	s := settings.Settings{
		Repositories: []settings.Repository{{Name: "web", Path: web}},
		Runtimes:     []settings.Runtime{{Name: "codex", Command: []string{"codex-acp"}}},
	}
	starter := &fakeStarter{t: t, allow: true, run: newFakeRun(t, runs.Info{ID: "r1"}, 1)}
	d := newNewRunDialog(a, starter, s, runs.KindBuild, func(liveRun) {})
	t.Cleanup(func() { closeDialog(d) })
	if d.runtime == nil || d.runtime.Selected != claudeRuntimeLabel || len(d.runtime.Options) != 2 {
		t.Fatalf("runtime choice %v, want Claude Code chosen, codex offered", d.runtime)
	}
	d.runtime.SetSelected("codex")
	test.Type(d.prompt, "fix the login")
	test.Tap(d.start)
	await.For(t, 10*time.Second, "the run to be started", func() bool { return d.answered.Load() == 1 })
	want := []runs.Spec{{Kind: runs.KindBuild, Checkout: web, Prompt: "fix the login", KeepOpen: true, Runtime: "codex"}}
	if diff := cmp.Diff(want, starter.started()); diff != "" {
		t.Errorf("Start specs (-want +got):\n%s", diff)
	}
	if got := control.StartOf(want[0]).Spec(); got.Runtime != "codex" {
		t.Errorf("the Start command carries runtime %q, want codex", got.Runtime)
	}
}

// The new-run dialog starts with the settings' budget, and a run whose budget the person
// changed gets it whole, a field emptied turning that bound off; a wrong one is refused.
func TestNewRunDialogSetsTheRunsBudget(t *testing.T) {
	a := test.NewTempApp(t)
	web := gitCheckout(t)
	s := settings.Settings{
		Repositories: []settings.Repository{{Name: "web", Path: web}},
		Runs:         settings.Runs{Budget: settings.Budget{Cost: 2, Turns: 10}},
	}
	run := newFakeRun(t, runs.Info{ID: "r1"}, 1)
	starter := &fakeStarter{t: t, allow: true, run: run}
	d := newNewRunDialog(a, starter, s, runs.KindBuild, nil)
	t.Cleanup(func() { closeDialog(d) })
	if d.cost.Text != "2.00" || d.tokens.Text != "" || d.turns.Text != "10" {
		t.Fatalf("the budget starts as $%q, %q tokens, %q turns; want the settings'", d.cost.Text, d.tokens.Text, d.turns.Text)
	}
	test.Type(d.prompt, "fix the login")
	d.turns.SetText("x")
	test.Tap(d.start)
	if !strings.HasPrefix(d.problem.Text, `The budget: "x" is not a whole number`) {
		t.Errorf("a budget of x turns: the dialog says %q", d.problem.Text)
	}
	d.cost.SetText("0.50")
	d.turns.SetText("")
	d.tokens.SetText("200,000")
	test.Tap(d.start)
	await.For(t, 10*time.Second, "the run to start", func() bool { return d.answered.Load() == 1 })
	got := starter.started()
	if len(got) != 1 || got[0].Budget == nil || *got[0].Budget != (runs.Budget{CostUSD: 0.5, Tokens: 200000}) {
		t.Errorf("started %+v, want the budget $0.50 and 200,000 tokens, no bound on turns", got)
	}
}
