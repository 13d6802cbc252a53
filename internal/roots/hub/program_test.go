package hub_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/roots/hub"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/tray"
)

// With segwi-windows installed nowhere the tray looks, the tray says so at once where the
// person looks (first in the tray menu, in a desktop notification and in the log), naming
// where it looked and how to install it. A run's approval request then waits as any does,
// its notification says no window could open, and it is denied when it times out, as
// before; the run goes on. Once segwi-windows is installed, the next window asked for
// finds it, without a restart, and the notice goes.
func TestWithoutSegwiWindowsTheTraySaysSoAndRequestsTimeOut(t *testing.T) {
	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch approved.txt", "description": "Create approved.txt"})
	srv := fakeapi.New(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("I will create the file."), touch),
		fakeapi.Say(fakeapi.Text("It was denied; I did not create the file.")),
	))
	env := claudetest.Env(t, srv.URL) // the runs keep the test's PATH
	env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash(touch:*)"}}})
	checkout := claudetest.Checkout(t)

	// The tray's PATH: the test's, without any segwi-windows installed on this machine,
	// and a folder to install it into later. None is beside the test binary.
	later := t.TempDir()
	var path []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, hub.WindowsProgram)); err != nil {
			path = append(path, dir)
		}
	}
	t.Setenv("PATH", strings.Join(append(path, later), string(os.PathListSeparator)))

	h := newHarness(t, fmt.Sprintf("segwi:\n  claude:\n    path: %q\n  runs:\n    stopGrace: 2s\n  approvals:\n    timeout: 10s\n",
		claudetest.Binary(t)), options{env: env.Vars(), program: &hub.Program{Name: hub.WindowsProgram}})

	// At start, before any window is asked for.
	await.For(t, within, "a notification that segwi-windows is missing", func() bool { return len(h.notes.all()) > 0 })
	note := h.notes.all()[0]
	for _, want := range []string{"segwi-windows is not installed: no window can open", "beside segwi (in ",
		"on PATH (", later, "scripts/run.sh builds both into bin/", "make user-install"} {
		if !strings.Contains(note, want) {
			t.Errorf("the notification %q does not say %q", note, want)
		}
	}
	if !strings.Contains(h.log.String(), "segwi-windows, segwi's window program, is found neither") {
		t.Errorf("the log does not say segwi-windows is missing:\n%s", h.log)
	}
	menu := tray.Menu(h.hub.Snapshot())
	if first := menu[0]; first.Label != tray.ProblemMark+hub.NoWindowProblem || !first.Disabled {
		t.Errorf("the tray menu starts with %+v, want the disabled notice %q", first, tray.ProblemMark+hub.NoWindowProblem)
	}
	var missing *hub.MissingProgramError
	if err := h.hub.Show(context.Background(), control.Show{Window: control.ShowHistory}); !errors.As(err, &missing) {
		t.Errorf("a menu item's window = %v, want a *hub.MissingProgramError", err)
	}

	// A run's request: nobody can be asked, so it times out and is denied, as any would.
	r, err := h.core.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "Create approved.txt"})
	if err != nil {
		t.Fatal(err)
	}
	await.For(t, forClaude, "the request's notification", func() bool { return len(h.notes.all()) > 1 })
	if asked := h.notes.all()[1]; !strings.HasPrefix(asked, tray.RunTitle(filepath.Base(checkout), r.Info())+": The build run in ") ||
		!strings.Contains(asked, "No window could open to answer it (segwi-windows is not installed): unless one opens, segwi denies it when it times out.") {
		t.Errorf("the request's notification is %q; want it to say no window could open", asked)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	info, err := r.Wait(ctx)
	if err != nil || info.State != runs.StateSucceeded {
		t.Fatalf("the run ended %s (%v), want succeeded after the denial", info.State, err)
	}
	if _, err := os.Stat(filepath.Join(checkout, "approved.txt")); err == nil {
		t.Errorf("the command ran though nobody allowed it")
	}
	var answer *runs.ApprovalInfo
	runs.ReadEvents(h.core.StateDir(), r.ID(), func(e runs.Event) error {
		if e.Type == runs.EventApprovalAnswer {
			answer = e.Approval
		}
		return nil
	})
	if answer == nil || answer.Allow || answer.By != "timeout" || !strings.Contains(answer.Message, "No answer from a person within 10s") {
		t.Errorf("the run recorded the answer %+v; want a deny by the approval timeout", answer)
	}
	if log := h.log.String(); !strings.Contains(log, "no window could open to show it; unless one opens, it is denied when it times out at") {
		t.Errorf("the log does not say the request had no window:\n%s", log)
	}

	// Installed while the tray runs: the next window asked for starts it. (This stand-in
	// leaves at once, without a window: what counts here is that the tray found it.)
	if err := os.WriteFile(filepath.Join(later, hub.WindowsProgram), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := h.hub.Show(context.Background(), control.Show{Window: control.ShowHistory}); errors.As(err, &missing) {
		t.Errorf("once installed, a menu item's window = %v; want segwi-windows found", err)
	}
	if p := h.hub.Snapshot().Problem; p != "" {
		t.Errorf("the tray menu still shows %q once segwi-windows is installed", p)
	}
	if !strings.Contains(h.log.String(), "segwi-windows is found again") {
		t.Errorf("the log does not say segwi-windows was found again:\n%s", h.log)
	}
}
