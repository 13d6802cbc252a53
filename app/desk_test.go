package app

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/controltest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
)

// fakeHub stands in for the tray process's hub at the other end of a real control
// channel: it sends the window process what connected sends it, and records the commands
// that reach it.
type fakeHub struct {
	connected func(p *control.Peer)
	peers     chan *control.Peer
	cmds      chan control.Body
}

func (h *fakeHub) Connected(p *control.Peer) {
	if h.connected != nil {
		h.connected(p)
	}
	h.peers <- p
}

func (h *fakeHub) Handle(_ context.Context, _ *control.Peer, cmd control.Body) control.Reply {
	h.cmds <- cmd
	if _, ok := cmd.(control.TokenStatus); ok {
		return control.Reply{Token: &token.State{Set: true, APIHost: "api.github.com"}}
	}
	return control.Reply{}
}

func (h *fakeHub) Disconnected(*control.Peer, error) {}

// command returns the next command of type T that reached the hub, skipping others.
func command[T control.Body](t *testing.T, h *fakeHub) T {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case c := <-h.cmds:
			if v, ok := c.(T); ok {
				return v
			}
		case <-deadline:
			var zero T
			t.Fatalf("no %s reached the tray", zero.MessageType())
			return zero
		}
	}
}

// deskHarness is the window process's desk in a test app, connected to a fakeHub over a
// socket pair, as the window process is to the tray.
type deskHarness struct {
	d      *desk
	hub    *fakeHub
	server *control.Server
	peer   *control.Peer
}

func newDeskHarness(t *testing.T, connected func(p *control.Peer)) *deskHarness {
	t.Helper()
	h := &deskHarness{hub: &fakeHub{connected: connected, peers: make(chan *control.Peer, 1), cmds: make(chan control.Body, 64)}}
	link := newTrayLink()
	h.d = newDesk(test.NewTempApp(t), link, WindowOptions{})
	h.server = control.NewServer("test tray", h.hub)
	ours, theirs := controltest.Pair(t)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		h.server.Serve(ctx, ours, control.Grant{Role: control.RoleWindow, Who: control.ByThisDesktop})
	}()
	var err error
	link.client, err = control.NewClient(theirs, control.ClientOptions{Program: "test windows", Event: h.d.event, Show: h.d.show})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.d.leave()
		link.client.Close()
		cancel()
		<-served
	})
	select {
	case h.peer = <-h.hub.peers:
	case <-time.After(10 * time.Second):
		t.Fatal("the window process did not connect")
	}
	return h
}

// waiting is a request the tray says waits for the person.
func waiting(id string) control.Approval {
	return control.Approval{
		Request: id, Run: control.RunRef{ID: "run-1", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Name: "web"},
		Tool: "Bash", Input: json.RawMessage(`{"command":"touch approved.txt"}`), ToolUseID: "toolu_" + id,
		Asked: time.Now(), Deadline: time.Now().Add(time.Minute),
	}
}

// openPopup waits for the popup of request id and returns it.
func (h *deskHarness) openPopup(t *testing.T, id string) *popup {
	t.Helper()
	var p *popup
	await.For(t, 10*time.Second, "the popup of request "+id, func() bool {
		for _, q := range h.d.popups.popups() {
			if q.req.ID == id {
				p = q
				return true
			}
		}
		return false
	})
	return p
}

// The window process answers an approval only on a person's click: the popup shows the
// request from the tray's snapshot, nothing reaches the tray until Allow is clicked, and
// then the answer says it came from this desktop.
func TestTheWindowProcessAnswersAnApprovalOnlyOnAClick(t *testing.T) {
	h := newDeskHarness(t, func(p *control.Peer) {
		p.Send(control.SettingsReport{StateDir: t.TempDir()})
		p.Send(control.Approvals{Waiting: []control.Approval{waiting("req-1")}})
	})
	p := h.openPopup(t, "req-1")
	if got := p.win.Title(); got != "Approve Bash? · build run in web" {
		t.Errorf("the popup is titled %q", got)
	}
	select {
	case c := <-h.hub.cmds:
		t.Fatalf("%s reached the tray before any click", c.MessageType())
	default:
	}
	test.Tap(p.allow)
	a := command[control.Answer](t, h.hub)
	if a.Request != "req-1" || a.Decision != control.Allow || a.By != control.ByThisDesktop {
		t.Errorf("the tray got %+v, want request 1 allowed at this desktop", a)
	}
}

// A request that stops waiting (answered elsewhere, timed out, its run ended) closes its
// popup without an answer; a snapshot that no longer holds a request does too.
func TestAPopupClosesWhenTheTraySaysItsRequestNoLongerWaits(t *testing.T) {
	h := newDeskHarness(t, func(p *control.Peer) { p.Send(control.SettingsReport{StateDir: t.TempDir()}) })
	h.server.Publish(waiting("req-1"))
	h.server.Publish(waiting("req-2"))
	first, second := h.openPopup(t, "req-1"), h.openPopup(t, "req-2")
	h.server.Publish(control.ApprovalGone{Request: "req-1", Run: "run-1", Why: control.WhyAnswered, Allow: true, By: "ada's phone"})
	h.server.Publish(control.Approvals{Waiting: []control.Approval{}})
	await.For(t, 10*time.Second, "both popups to close", func() bool {
		return !popupWindowIsOpen(first.win) && !popupWindowIsOpen(second.win) && h.d.popups.Pending() == 0
	})
	select {
	case c := <-h.hub.cmds:
		t.Errorf("%s reached the tray; a request that no longer waits gets no answer", c.MessageType())
	default:
	}
}

func popupWindowIsOpen(w fyne.Window) bool {
	open := false
	ui(func() { open = slices.Contains(fyne.CurrentApp().Driver().AllWindows(), w) })
	return open
}

// The tray's Show opens a run's window, which follows the run through the tray: its
// events as the tray sends them, its end.
func TestTheRunWindowFollowsARunThroughTheTray(t *testing.T) {
	info := runs.Info{ID: "20250314-092653-abcdef", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "fix the login",
		State: runs.StateRunning, Created: runT0, Start: runT0}
	state := t.TempDir()
	h := newDeskHarness(t, func(p *control.Peer) {
		p.Send(control.SettingsReport{StateDir: state})
		p.Send(control.Runs{Runs: []control.Run{control.RunOf(info, "web")}})
	})
	if rep, err := h.peer.Request(context.Background(), control.Show{Window: control.ShowRun, Run: info.ID}); err != nil || rep.Error != "" {
		t.Fatalf("Show = %+v, %v", rep, err)
	}
	var w *runWindow
	ui(func() { w = h.d.runWins[info.ID] })
	if w == nil || w.run == nil {
		t.Fatalf("no live run window for run %s", info.ID)
	}
	if s := command[control.Subscribe](t, h.hub); s.Run != info.ID {
		t.Errorf("the window subscribed to %s", s.Run)
	}
	ended := info
	ended.State, ended.End, ended.CostUSD = runs.StateSucceeded, runT0.Add(time.Minute), 0.25
	h.peer.Send(control.RunEvents{Run: info.ID, Events: []runs.Event{
		{RunID: info.ID, Seq: 1, Time: runT0, Type: runs.EventText, Text: "Looking at the form."},
	}})
	h.peer.Send(control.RunEvents{Run: info.ID, Now: &control.Run{Info: ended, Name: "web"}, Ended: true})
	await.For(t, 10*time.Second, "the run's text and its end in the window", func() error {
		var rows []string
		var stopOff bool
		var status string
		ui(func() { rows, stopOff, status = timelineTexts(w), w.stop.Disabled(), w.status.Text })
		if !strings.Contains(strings.Join(rows, "\n"), "Looking at the form.") || !stopOff ||
			!strings.Contains(status, "succeeded") || !strings.Contains(status, "$0.2500") {
			return fmt.Errorf("the timeline has %q, Stop disabled %v, the status is %q", rows, stopOff, status)
		}
		return nil
	})
}

// The settings window asks the tray's keyring whether a token is set, and saves through
// the tray, which chooses the file.
func TestTheSettingsWindowKeepsTheTokenAndTheFileThroughTheTray(t *testing.T) {
	s := settings.Default()
	s.Claude.Model = "opus"
	h := newDeskHarness(t, func(p *control.Peer) {
		p.Send(control.SettingsReport{File: "/home/ada/.config/segwi/config.yaml", StateDir: t.TempDir(), Settings: s, InForce: s})
	})
	if rep, err := h.peer.Request(context.Background(), control.Show{Window: control.ShowSettings}); err != nil || rep.Error != "" {
		t.Fatalf("Show = %+v, %v", rep, err)
	}
	command[control.TokenStatus](t, h.hub)
	var w *settingsWindow
	ui(func() {
		settingsWindows.Lock()
		w = settingsWindows.m[h.d.app]
		settingsWindows.Unlock()
	})
	if w == nil {
		t.Fatal("no settings window")
	}
	await.For(t, 10*time.Second, "the token's status", func() bool {
		var text string
		ui(func() { text = w.token.status.Text })
		return text == "GitHub token: set for api.github.com (kept in the keyring)."
	})
	ui(func() { test.Tap(settingsButton(t, w.win, "Save")) })
	if got := command[control.SaveSettings](t, h.hub); got.Settings.Claude.Model != "opus" {
		t.Errorf("saved %+v, want the model opus", got.Settings.Claude)
	}
	ui(w.win.Close)
}

// A request of a run whose window is open shows there too, and the run window answers it
// as its popup would: the tray gets one answer, from this desktop, and the popup closes at
// once, without waiting for the tray's word. Answered in the popup, it leaves the run
// window as well.
func TestTheRunWindowAnswersAnApprovalAndItsPopupCloses(t *testing.T) {
	info := runs.Info{ID: "20250314-092653-abcdef", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "fix the login",
		State: runs.StateWaiting, Waiting: runs.WaitApproval, Created: runT0, Start: runT0}
	h := newDeskHarness(t, func(p *control.Peer) {
		p.Send(control.SettingsReport{StateDir: t.TempDir()})
		p.Send(control.Runs{Runs: []control.Run{control.RunOf(info, "web")}})
	})
	if rep, err := h.peer.Request(context.Background(), control.Show{Window: control.ShowRun, Run: info.ID}); err != nil || rep.Error != "" {
		t.Fatalf("Show = %+v, %v", rep, err)
	}
	var w *runWindow
	ui(func() { w = h.d.runWins[info.ID] })
	shown := func() string {
		var id string
		ui(func() {
			if w.approvals.shown != nil {
				id = w.approvals.shown.msg.Request
			}
		})
		return id
	}
	for _, id := range []string{"req-1", "req-2"} {
		a := waiting(id)
		a.Run.ID = info.ID
		h.server.Publish(a)
	}
	popup := h.openPopup(t, "req-1")
	h.openPopup(t, "req-2")
	await.For(t, 10*time.Second, "the run window to show req-1", func() bool { return shown() == "req-1" })

	var allow *clickButton
	ui(func() { allow = w.approvals.allow })
	test.Tap(allow)
	if a := command[control.Answer](t, h.hub); a.Request != "req-1" || a.Decision != control.Allow || a.By != control.ByThisDesktop {
		t.Errorf("the tray got %+v, want req-1 allowed at this desktop", a)
	}
	await.For(t, 10*time.Second, "req-1's popup to close and req-2 to show in the run window", func() bool {
		return !popupWindowIsOpen(popup.win) && h.d.popups.Pending() == 1 && shown() == "req-2"
	})

	second := h.openPopup(t, "req-2")
	test.Tap(second.deny)
	if a := command[control.Answer](t, h.hub); a.Request != "req-2" || a.Decision != control.Deny {
		t.Errorf("the tray got %+v, want req-2 denied", a)
	}
	await.For(t, 10*time.Second, "the run window to take req-2 away", func() bool { return shown() == "" })
	for {
		select {
		case c := <-h.hub.cmds:
			// The run window's report that it is open goes off Fyne's goroutine, whenever
			// it gets there: on a loaded machine, after both answers.
			if _, ok := c.(control.RunWindows); ok {
				continue
			}
			t.Errorf("%s reached the tray after both answers; want one answer each", c.MessageType())
		default:
			return
		}
	}
}

// The window process tells the tray which run windows it has open, as they open and close,
// so that the tray can open them again should this process die.
func TestTheTrayIsToldWhichRunWindowsAreOpen(t *testing.T) {
	live := runs.Info{ID: "20250314-092653-abcdef", Kind: runs.KindBuild, Checkout: "/home/ada/src/web", Prompt: "fix the login",
		State: runs.StateRunning, Created: runT0, Start: runT0}
	state := t.TempDir()
	past := runs.Info{ID: "20250313-080000-beef", Kind: runs.KindAsk, Checkout: "/home/ada/src/web", Prompt: "why?",
		State: runs.StateSucceeded, Created: runT0, End: runT0}
	records.WriteRun(t, state, past)
	h := newDeskHarness(t, func(p *control.Peer) {
		p.Send(control.SettingsReport{StateDir: state})
		p.Send(control.Runs{Runs: []control.Run{control.RunOf(live, "web")}})
	})
	show := func(id string) {
		t.Helper()
		if rep, err := h.peer.Request(context.Background(), control.Show{Window: control.ShowRun, Run: id}); err != nil || rep.Error != "" {
			t.Fatalf("Show = %+v, %v", rep, err)
		}
	}
	// told waits until the tray was told the windows of want are open.
	told := func(want ...string) {
		t.Helper()
		await.For(t, 10*time.Second, fmt.Sprintf("the tray to be told the windows of %q are open", want), func() error {
			got := command[control.RunWindows](t, h.hub).Runs
			if !slices.Equal(got, want) {
				return fmt.Errorf("told %q", got)
			}
			return nil
		})
	}
	show(live.ID)
	told(live.ID)
	show(past.ID) // a run from the history: its record
	told(past.ID, live.ID)
	ui(func() { h.d.runWins[live.ID].win.Close() })
	told(past.ID)
	ui(func() { h.d.runWins[past.ID].win.Close() })
	told()
}
