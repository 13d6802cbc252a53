package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/segwi/segwi/canary"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
)

const passedReport = `segwi canary PASSED: 9 of 9 checks passed
run 20260103-120000-ab12cd, succeeded, in /home/ada/src/web (a temporary clone of /home/ada/src/web, removed)
guard command "echo segwi-canary-guard", the first in /home/ada/.claude/guard.deny
  ok   guard refusal  event 7 refused: Bash (a hook): PreToolUse:Bash hook error: [~/.claude/hooks/guard.sh]: guard: refused: echo segwi-canary-guard`

// openCanary opens the canary window over run and waits for its first canary to end.
func openCanary(t *testing.T, run func(context.Context) (string, error), openSettings func()) *canaryWindow {
	t.Helper()
	a := test.NewTempApp(t)
	c := newCanaryWindow(a, run, openSettings)
	var ended atomic.Int64
	c.finished = func() { ended.Add(1) }
	c.Show()
	t.Cleanup(func() {
		for _, w := range a.Driver().AllWindows() {
			if w == c.win { // the test driver panics on closing a window twice
				c.win.Close()
			}
		}
	})
	await.For(t, 10*time.Second, "the canary to end", func() bool { return ended.Load() == 1 })
	return c
}

func TestCanaryWindowShowsTheOutcome(t *testing.T) {
	failed := fmt.Errorf("%w: 1 of 9 checks did not pass", canary.ErrFailed)
	noGuard := fmt.Errorf("canary: %w", canary.ErrNoGuardDeny)
	tests := []struct {
		name       string
		report     string
		err        error
		importance widget.Importance
		verdict    string
		help       bool
		golden     string
	}{
		{"a pass is green", passedReport, nil, widget.SuccessImportance, "The canary passed", false, "canary_passed.xml"},
		{"a failed check is red", strings.Replace(passedReport, "PASSED: 9", "FAILED: 8", 1), failed, widget.DangerImportance,
			"The canary failed: the canary failed: 1 of 9 checks did not pass", false, ""},
		{"no guard deny file explains the guard hook", "", noGuard, widget.DangerImportance,
			"The canary could not run: canary: segwi.canary.guardDeny is not set", true, "canary_no_guard.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := openCanary(t, func(context.Context) (string, error) { return tt.report, tt.err }, func() {})
			if !strings.HasPrefix(c.verdict.Text, tt.verdict) || c.verdict.Importance != tt.importance {
				t.Errorf("verdict %q in importance %v, want %q in %v", c.verdict.Text, c.verdict.Importance, tt.verdict, tt.importance)
			}
			if c.report.Wrapping != fyne.TextWrapWord {
				t.Error("the report is not wrapped at words")
			}
			if c.help.Visible() != tt.help || c.copyHelp.Visible() != tt.help {
				t.Errorf("the guard hook help shown: %v, its copy button: %v, want %v", c.help.Visible(), c.copyHelp.Visible(), tt.help)
			}
			if c.progress.Visible() {
				t.Error("the progress bar still moves once the canary has ended")
			}
			if tt.golden != "" {
				relayout(c.win.Content())
				assertMarkup(t, tt.golden, c.win.Canvas())
			}
		})
	}
}

func TestCanaryWindowButtons(t *testing.T) {
	var runs, settingsOpened atomic.Int64
	c := openCanary(t, func(context.Context) (string, error) {
		runs.Add(1)
		return "", errors.New("no repository to clone")
	}, func() { settingsOpened.Add(1) })

	test.Tap(settingsButton(t, c.win, "Open settings"))
	if settingsOpened.Load() != 1 {
		t.Error("Open settings did not open the settings")
	}
	var again atomic.Int64
	c.finished = func() { again.Add(1) }
	test.Tap(settingsButton(t, c.win, "Run again"))
	await.For(t, 10*time.Second, "the second canary to end", func() bool { return again.Load() == 1 })
	if runs.Load() != 2 {
		t.Errorf("the canary ran %d times, want 2", runs.Load())
	}
	closed := false
	c.onClosed = func() { closed = true }
	test.Tap(settingsButton(t, c.win, "Close"))
	if !closed {
		t.Error("Close left the window open")
	}
}

// While a canary runs the window shows a moving bar; "Run canary" with the window open on
// an old result runs the canary again (it showed the old result and did nothing); the
// guard hook's help can be copied.
func TestCanaryWindowRunsAgainWhenAskedAgainAndShowsItsProgress(t *testing.T) {
	var runs atomic.Int64
	release := make(chan struct{})
	c := openCanary(t, func(ctx context.Context) (string, error) {
		if runs.Add(1) == 2 {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return "", fmt.Errorf("canary: %w", canary.ErrNoGuardDeny)
	}, func() {})

	test.Tap(settingsButton(t, c.win, "Copy the example"))
	if got := fyne.CurrentApp().Clipboard().Content(); got != canary.GuardHelp {
		t.Errorf("the clipboard holds %q, want the guard hook's help", got)
	}

	var again atomic.Int64
	c.finished = func() { again.Add(1) }
	c.Show() // "Run canary" from the tray's menu, the window open
	await.For(t, 10*time.Second, "the second canary to start", func() bool { return runs.Load() == 2 })
	onUIWait(func() {
		if !c.progress.Visible() || !c.again.Disabled() || c.copyHelp.Visible() {
			t.Errorf("while the canary runs: progress shown %v, Run again off %v, copy button shown %v; want a bar, Run again off, no copy button",
				c.progress.Visible(), c.again.Disabled(), c.copyHelp.Visible())
		}
	})
	c.Show() // asked again while it runs: it is under way, not started twice
	close(release)
	await.For(t, 10*time.Second, "the second canary to end", func() bool { return again.Load() == 1 })
	if runs.Load() != 2 {
		t.Errorf("the canary ran %d times, want 2", runs.Load())
	}
}

// "Run canary" from the tray's menu with the canary window open on an old result runs the
// canary again: it raised the window on the old result and did nothing.
func TestRunCanaryWithTheWindowOpenRunsItAgain(t *testing.T) {
	h := newDeskHarness(t, nil)
	onUIWait(h.d.runCanary)
	command[control.RunCanary](t, h.hub)
	await.For(t, 10*time.Second, "the first canary to end", func() bool {
		ended := false
		onUIWait(func() { ended = h.d.canary != nil && h.d.canary.cancel == nil })
		return ended
	})
	onUIWait(h.d.runCanary)
	command[control.RunCanary](t, h.hub)
}

// With no guard deny file the window offers to set up the example guard hook: it shows
// what the tray would write, file by file, writes nothing on Cancel, and on Write these
// files has the tray write what the person read (the plan's digest) and runs the canary
// again, which now passes.
func TestCanaryWindowSetsUpTheGuardHookThePersonRead(t *testing.T) {
	plan := control.GuardPlan{Deny: "/home/ada/.claude/guard.deny", Digest: "d1", Files: []control.GuardFile{
		{Path: "/home/ada/.claude/guard.deny", Action: "create", Content: "echo segwi-canary-guard\n"},
		{Path: "/home/ada/.claude/hooks/guard.sh", Action: "keep", Content: "#!/bin/sh\n"},
		{Path: "/home/ada/.claude/settings.json", Action: "add to", Content: `{"model": "opus", "hooks": {}}`},
	}}
	var applied atomic.Value
	a := test.NewTempApp(t)
	c := newCanaryWindow(a, func(context.Context) (string, error) {
		if applied.Load() == nil {
			return "", fmt.Errorf("canary: %w", canary.ErrNoGuardDeny)
		}
		return passedReport, nil
	}, func() {})
	c.guard = &guardSetup{
		plan:  func(context.Context) (control.GuardPlan, error) { return plan, nil },
		apply: func(_ context.Context, digest string) error { applied.Store(digest); return nil },
	}
	var ended atomic.Int64
	c.finished = func() { ended.Add(1) }
	ui(c.Show)
	t.Cleanup(func() { ui(c.win.Close) })
	await.For(t, 10*time.Second, "the first canary to end", func() bool { return ended.Load() == 1 })

	asked := func() string {
		var texts string
		await.For(t, 10*time.Second, "the question of what will be written", func() bool {
			ui(func() {
				if top := c.win.Canvas().Overlays().Top(); top != nil {
					texts = strings.Join(settingsLabels(top), "\n")
				}
			})
			return texts != ""
		})
		return texts
	}
	ui(func() { test.Tap(settingsButton(t, c.win, "Set up this guard hook…")) })
	texts := asked()
	for _, want := range []string{"set segwi.canary.guardDeny to /home/ada/.claude/guard.deny",
		"New file /home/ada/.claude/guard.deny", "echo segwi-canary-guard",
		"Kept as it is: /home/ada/.claude/hooks/guard.sh",
		"The hook added to /home/ada/.claude/settings.json", `{"model": "opus", "hooks": {}}`} {
		if !strings.Contains(texts, want) {
			t.Errorf("the question lacks %q:\n%s", want, texts)
		}
	}
	if strings.Contains(texts, "#!/bin/sh") {
		t.Errorf("the question shows the content of a file it keeps:\n%s", texts)
	}
	ui(func() { test.Tap(dialogButton(t, c.win, "Cancel")) })
	if applied.Load() != nil || ended.Load() != 1 {
		t.Fatalf("Cancel wrote the setup (%v) or ran the canary (%d canaries)", applied.Load(), ended.Load())
	}

	ui(func() { test.Tap(settingsButton(t, c.win, "Set up this guard hook…")) })
	asked()
	ui(func() { test.Tap(dialogButton(t, c.win, "Write these files")) })
	await.For(t, 10*time.Second, "the canary to run again", func() bool { return ended.Load() == 2 })
	if got := applied.Load(); got != "d1" {
		t.Errorf("the tray was asked to write the plan %v, want d1", got)
	}
	ui(func() {
		if !strings.HasPrefix(c.verdict.Text, "The canary passed") || c.setUp.Visible() || c.help.Visible() {
			t.Errorf("after the setup: verdict %q, Set up shown %v, help shown %v", c.verdict.Text, c.setUp.Visible(), c.help.Visible())
		}
	})
}
