package desktop

import (
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
	segwitray "github.com/segwi/segwi/tray"
)

// The question the conversation's first turn ends on: longer than a line, in two
// paragraphs, the question itself last, as Claude asks.
const conversationQuestion = "I fixed the login form: the handler no longer posts twice, and its tests now cover a " +
	"double click, a slow network and an expired session. The README's section on running the tests still names " +
	"the old make target, and the changelog says nothing about the fix yet.\n\n" +
	"Should I also update the README and the changelog, or leave the docs for a follow-up run?"

// longRunReads is how many times the long run reads the notes, a turn each.
const longRunReads = 24

// TestTheRunWindowFollowsTheConversation follows a conversation with the real Claude Code
// through its run window, as a person has it: the run asks a question and waits; the
// window shows the whole question above the timeline and takes the reply from the
// keyboard alone; closing the window leaves the conversation going, and the tray menu
// opens it again; kill -9 of the window process brings the run window back from the next
// one. Then a long run (a Read a turn) shows its latest events as they come. Screenshots
// of the question waiting and of the long run go to $SEGWI_SCREENSHOTS.
func TestTheRunWindowFollowsTheConversation(t *testing.T) {
	t.Parallel() // on a desktop of its own, beside the others: see desktopMu
	conn, _ := ownDesktop(t)
	shots := screenshotDir(t)
	bin := buildSegwi(t)

	conversation := fakeapi.Turns(
		fakeapi.Say(fakeapi.Text(conversationQuestion)),
		fakeapi.Say(fakeapi.Text("Updated the README: it names the new make target. The changelog says what the fix does.")),
	)
	srv := fakeapi.New(t, func(req *fakeapi.Request) fakeapi.Reply {
		if !strings.Contains(strings.Join(req.UserText(), "\n"), "Read the notes") {
			return conversation(req)
		}
		n := req.Turn()
		switch {
		case n < longRunReads:
			return fakeapi.Say(
				fakeapi.Text(fmt.Sprintf("Pass %d of %d over the notes: I look for what the login form does on a slow network, "+
					"and how the tests name it.", n+1, longRunReads)),
				fakeapi.ToolUse("Read", fakeapi.Input{"file_path": "notes.txt"}))
		case n == longRunReads:
			return fakeapi.Say(fakeapi.Text("The notes say the form posted twice on a slow network. Anything else?"))
		}
		return fakeapi.Unexpected("the long run has %d turns, got a request for turn %d", longRunReads+1, n)
	})
	env := claudetest.Env(t, srv.URL)
	checkout := claudetest.Checkout(t)
	var notes []string
	for i := range 150 {
		notes = append(notes, fmt.Sprintf("note %d: the login form posts twice on a slow network", i+1))
	}
	writeFile(t, filepath.Join(checkout, "notes.txt"), strings.Join(notes, "\n")+"\n")
	writeConfig(t, env, checkout)
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-conversation.log"))
	tray := app.cmd.Process.Pid
	tr, _ := waitForTray(t, conn, tray, app.launched, 30*time.Second)

	const title = "^Fix the login form · build run in demo$"
	waitingReply := regexp.MustCompile(`^demo · build · ` + regexp.QuoteMeta(segwitray.WaitingReply) + ` `)
	runID := func() string {
		infos, _, _ := runs.List(stateDir)
		for _, in := range infos {
			if in.Prompt == "Fix the login form" {
				return in.ID
			}
		}
		t.Fatalf("no run of the task recorded in %s", stateDir)
		return ""
	}
	var win string
	t.Run("a run waiting for your reply shows the whole question and takes the reply from the keyboard", func(t *testing.T) {
		startRun(t, tr, "New build run…", "Fix the login form")
		win = waitForWindow(t, title, windowWait)
		waitForLabel(t, tr, waitingReply, 60*time.Second)
		xdotool(t, "windowraise", win)
		// The tray says the run waits before the window shows it: the screenshot waits
		// for the banner. No wait for a still display: the reply box has the keyboard, and
		// Fyne fades its cursor in and out for as long as it does, so the display never
		// stays still.
		waitForReplyBanner(t, win)
		screenshot(t, shots, "run-window-question")
		// The reply box has the keyboard: the person types and presses Enter, no click.
		// (With no window manager, the test gives the window the keyboard, as a window
		// manager would on a click in it.)
		if out, err := xdotool(t, "windowfocus", "--sync", win); err != nil {
			t.Fatalf("focusing the run window: %v: %s", err, out)
		}
		if out, err := xdotool(t, "type", "--delay", "10", "Yes, mention it in the README."); err != nil {
			t.Fatalf("typing the reply: %v: %s", err, out)
		}
		if out, err := xdotool(t, "key", "Return"); err != nil {
			t.Fatalf("pressing Enter: %v: %s", err, out)
		}
		await.For(t, 60*time.Second, "the reply and Claude's answer to it on the run's record", func() error {
			var said []string
			runs.ReadEvents(stateDir, runID(), func(e runs.Event) error {
				if e.Type == runs.EventPrompt || e.Type == runs.EventText {
					said = append(said, e.Text)
				}
				return nil
			})
			if len(said) < 4 || said[2] != "Yes, mention it in the README." || !strings.HasPrefix(said[3], "Updated the README") {
				return fmt.Errorf("the record says %q", said)
			}
			return nil
		})
		waitForLabel(t, tr, waitingReply, 30*time.Second)
	})
	if win == "" {
		t.Fatal("no run window")
	}

	t.Run("closing the window leaves the conversation going, and the tray menu opens it again", func(t *testing.T) {
		closeWindow(t, win)
		windowGone(t, title, 10*time.Second)
		info, err := runs.Load(stateDir, runID())
		if err != nil || info.State != runs.StateWaiting || info.Waiting != runs.WaitReply {
			t.Fatalf("once its window closed the run is %s (%s, %v); want it still waiting for your reply", info.State, info.Waiting, err)
		}
		waitForLabel(t, tr, waitingReply, 10*time.Second)
		tr.clickMatching(t, waitingReply)
		win = waitForWindow(t, title, windowWait)
		xdotool(t, "windowraise", win)
		// No wait for a still display: the reopened window's reply box has the keyboard when
		// the window gets the focus, and then its cursor fades in and out for ever.
		waitForReplyBanner(t, win)
		screenshot(t, shots, "run-window-reopened")
	})

	t.Run("kill -9 of the window process brings the run window back", func(t *testing.T) {
		pid := waitForWindowProcess(t, tray, 10*time.Second)
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		await.For(t, windowWait, "the run window back from a new window process", func() bool {
			for _, id := range shownWindows(t, title) {
				if owner, err := xdotool(t, "getwindowpid", id); err == nil && owner != strconv.Itoa(pid) {
					win = id
					return true
				}
			}
			return false
		})
		t.Logf("kill -9 of the window process: the run window was back in %d ms", time.Since(killed).Milliseconds())
		if now := windowProcess(tray); now == pid || now == 0 {
			t.Errorf("the run window came back from window process %d; want a new one (the killed one was %d)", now, pid)
		}
	})

	t.Run("a long run's window shows its latest events as they come", func(t *testing.T) {
		startRun(t, tr, "Ask…", "Read the notes and say what is in them")
		long := waitForWindow(t, "^Read the notes and say what is in them · ask run in demo$", windowWait)
		await.For(t, 120*time.Second, "the long run to have read the notes most of its times", func() error {
			infos, _, _ := runs.List(stateDir)
			reads := 0
			for _, in := range infos {
				if in.Kind != runs.KindAsk {
					continue
				}
				runs.ReadEvents(stateDir, in.ID, func(e runs.Event) error {
					if e.Type == runs.EventToolResult {
						reads++
					}
					return nil
				})
			}
			if reads < longRunReads*2/3 {
				return fmt.Errorf("%d reads so far", reads)
			}
			return nil
		})
		xdotool(t, "windowraise", long)
		screenshot(t, shots, "run-window-long")
	})
}

// clickMatching clicks the entry whose label matches re, as a person would in the tray
// host's menu: a run's line, whose label moves with its elapsed time.
func (tr *tray) clickMatching(t testing.TB, re *regexp.Regexp) {
	t.Helper()
	var found trayItem
	await.For(t, 10*time.Second, fmt.Sprintf("a tray menu item matching %s", re), func() error {
		items := tr.items(t)
		for _, it := range items {
			if re.MatchString(it.Label) {
				found = it
				return nil
			}
		}
		return fmt.Errorf("the menu has %v", items)
	})
	obj := tr.conn.Object(tr.dest, "/StatusNotifierMenu")
	call := obj.Call("com.canonical.dbusmenu.Event", 0, found.ID, "clicked", dbus.MakeVariant(""), uint32(time.Now().Unix()))
	if call.Err != nil {
		t.Fatalf("clicking %q in the tray menu: %v", found.Label, call.Err)
	}
}

// waitForReplyBanner waits until the run window win shows the reply banner: the reply box
// sits above the tabs (without the banner it is under them, above the buttons). It finds
// the tabs by the selected tab's underline and the reply box by its background, a row of
// the theme's input colour across at least half the window.
func waitForReplyBanner(t *testing.T, win string) {
	t.Helper()
	await.For(t, 30*time.Second, "the run window to show the reply banner", func() error {
		img, err := windowImage(t, win)
		if err != nil {
			return err
		}
		tabs := underlineAt(img, timelineTabX)
		if tabs < 0 {
			return errors.New("no selected tab's underline in the window")
		}
		if y := inputRowAbove(img, tabs); y < 0 {
			return fmt.Errorf("no reply box above the tabs (their underline is at y=%d)", tabs)
		}
		return nil
	})
}

// inputRowAbove is a row of img above row limit where the theme's input background runs
// unbroken across at least half the width (a text box), or -1.
func inputRowAbove(img image.Image, limit int) int {
	b := img.Bounds()
	for _, variant := range []fyne.ThemeVariant{theme.VariantDark, theme.VariantLight} {
		input := theme.DefaultTheme().Color(theme.ColorNameInputBackground, variant)
		for y := b.Min.Y; y < limit && y < b.Max.Y; y++ {
			run := 0
			for x := b.Min.X; x < b.Max.X; x++ {
				if !near(img.At(x, y), input, 3) {
					run = 0
					continue
				}
				if run++; run >= b.Dx()/2 {
					return y
				}
			}
		}
	}
	return -1
}
