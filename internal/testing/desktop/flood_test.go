package desktop

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
)

// floodBytes is what the flood run prints: 1 GiB of stream-json, about 260,000 messages of
// 4 KB, as fast as the pty takes it.
const floodBytes = 1 << 30

// TestA1GiBRunLeavesEveryWindowOpen follows a run that prints 1 GiB in its run window, in
// the real tray and window process, while another run's approval waits in its popup: the
// window process is never cut off (before, the tray cut it off within the first 200 MB and
// every window vanished, the popup's too), it opens a window asked of it mid-flood, and the
// popup, still there once the flood is over, takes the person's Allow.
func TestA1GiBRunLeavesEveryWindowOpen(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	shots := screenshotDir(t)
	fig := newFigures(t, shots, "flood.txt")
	bin := buildSegwi(t)
	claude := claudetest.BuildFakeClaude(t, t.TempDir())
	env := claudetest.Env(t, "http://127.0.0.1:9") // the fake claude asks no model
	checkout := claudetest.Checkout(t)
	writeFile(t, filepath.Join(env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml"), fmt.Sprintf(`segwi:
  claude:
    path: %q
  repositories:
    - name: demo
      path: %q
  runs:
    stopGrace: 2s
  approvals:
    timeout: 30m
`, claude, checkout))
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")
	logPath := filepath.Join(shots, "segwi-flood.log")
	app := launchTray(t, bin, env.Vars(), logPath)
	tray := app.cmd.Process.Pid
	tr, _ := waitForTray(t, conn, tray, app.launched, 30*time.Second)

	// runOf returns the id of the run whose task holds task, once it is recorded.
	runOf := func(task string) string {
		t.Helper()
		var id string
		await.For(t, 30*time.Second, "the run of "+task, func() bool {
			infos, _, _ := runs.List(stateDir)
			for _, info := range infos {
				if strings.Contains(info.Prompt, task) {
					id = info.ID
				}
			}
			return id != ""
		})
		return id
	}

	startRun(t, tr, "New build run…", "fake:ask")
	asking := runOf("fake:ask")
	askWin := waitForWindow(t, "^fake:ask · build run in demo$", windowWait) // titled by its task
	popup := waitForWindow(t, "Approve Bash", windowWait)
	windows := waitForWindowProcess(t, tray, 10*time.Second)

	// The flood is an ask run: the asking build run holds the checkout, which an ask run,
	// changing nothing, shares.
	began := time.Now()
	startAskRun(t, tr, shots, "fake:flood="+strconv.Itoa(floodBytes))
	flood := runOf("fake:flood")
	if info, _ := runs.Load(stateDir, flood); info.Kind != runs.KindAsk {
		t.Fatalf("the flood run is a %s run, want an ask run (see new-run-ask.png: was Ask clicked?)", info.Kind)
	}
	await.For(t, 30*time.Second, "the flood run to start", func() bool {
		info, _ := runs.Load(stateDir, flood)
		return info.State != runs.StateQueued
	})
	floodWin := waitForWindow(t, "^fake:flood=[0-9]+ · ask run in demo$", windowWait)
	trayCPU0, windowCPU0 := cpuOf(t, tray), cpuOf(t, windows)

	t.Run("mid-flood, the window process opens a window asked of it", func(t *testing.T) {
		// Mid-flood: once output.log has reached its 64 MiB cap.
		await.For(t, 5*time.Minute, "the flood run's output.log at its cap", func() bool {
			st, err := os.Stat(filepath.Join(runs.RunsDir(stateDir), flood, "output.log"))
			return err == nil && st.Size() >= runs.MaxOutputBytes
		})
		info, _ := runs.Load(stateDir, flood)
		if info.State.Final() {
			t.Fatalf("the flood run ended (%s) before the check: it printed too quickly to measure anything mid-flood", info.State)
		}
		asked := time.Now()
		tr.click(t, "Run history…")
		history := waitForWindow(t, "segwi: run history", windowWait)
		fig.add("mid-flood, Run history… to its window shown: %d ms", ms(time.Since(asked)))
		screenshot(t, shots, "flood-mid")
		closeWindow(t, history)
	})

	// The run's turn is over once it prints its result; kept open, it then waits for the
	// person's reply (or has ended, had it failed).
	var took time.Duration
	await.For(t, 15*time.Minute, "the flood run's turn to end", func() bool {
		info, err := runs.Load(stateDir, flood)
		took = time.Since(began)
		return err == nil && (info.State.Final() || info.State == runs.StateWaiting && info.Waiting == runs.WaitReply)
	})
	if info, _ := runs.Load(stateDir, flood); info.State != runs.StateWaiting {
		t.Errorf("the flood run ended %s (%s), want its turn done and the run waiting for a reply", info.State, info.Reason)
	}
	if now := windowProcess(tray); now != windows {
		t.Fatalf("the window process %d is gone (now: %d): the tray cut it off or it died, every window with it; the tray's log:\n%s", windows, now, app.output())
	}
	fig.add("1 GiB run: %.1f s, %.0f MB/s through the pty; CPU meanwhile: the tray %.1f s, the window process %.1f s; the window process after: %s",
		took.Seconds(), float64(floodBytes)/1e6/took.Seconds(), (cpuOf(t, tray) - trayCPU0).Seconds(),
		(cpuOf(t, windows) - windowCPU0).Seconds(), readMemory(t, windows))
	screenshot(t, shots, "flood-end")

	t.Run("every window is still open, in the same window process", func(t *testing.T) {
		if now := windowProcess(tray); now != windows {
			t.Errorf("the window process is %d, want %d, never cut off", now, windows)
		}
		for name, win := range map[string]string{"the popup": popup, "the asking run's window": askWin, "the flood run's window": floodWin} {
			if out, err := xdotool(t, "getwindowname", win); err != nil {
				t.Errorf("%s (%s) is gone: %v: %s", name, win, err, out)
			}
		}
		if log := app.output(); strings.Contains(log, "connection cut") || strings.Contains(log, "does not read its messages") {
			t.Errorf("the tray cut a connection off:\n%s", log)
		}
	})

	t.Run("the popup that waited through the flood takes the person's Allow", func(t *testing.T) {
		xdotool(t, "windowraise", popup)
		clickAllow(t, popup)
		windowGone(t, "Approve Bash", windowWait)
		var answer *runs.ApprovalInfo
		await.For(t, 30*time.Second, "the answer on the asking run's record", func() bool {
			runs.ReadEvents(stateDir, asking, func(e runs.Event) error {
				if e.Type == runs.EventApprovalAnswer {
					answer = e.Approval
				}
				return nil
			})
			return answer != nil
		})
		if !answer.Allow || answer.By != "person" {
			t.Errorf("the request was answered %+v, want allowed by the person", *answer)
		}
	})
}

// startAskRun starts an ask run as a person does: the tray's "New build run…" opens the
// new-run dialog, a click on its kind Ask (the third of the kinds, at the top left), the
// question typed in the task box, a click on Start. The dialog is shot before Start, as
// new-run-ask.png in shots.
func startAskRun(t *testing.T, tr *tray, shots, question string) {
	t.Helper()
	tr.click(t, "New build run…")
	dialog := waitForWindow(t, "segwi: new run", windowWait)
	w, h := windowSize(t, dialog)
	clickAt(t, dialog, 40, 138) // Ask: under the label Kind, below Build and Ready
	clickAt(t, dialog, w/2, h*62/100)
	if out, err := xdotool(t, "type", "--delay", "10", question); err != nil {
		t.Fatalf("typing the question: %v: %s", err, out)
	}
	screenshot(t, shots, "new-run-ask")
	clickAt(t, dialog, 95, h-22)
	windowGone(t, "segwi: new run", windowWait)
}

// cpuOf returns the CPU time the live process pid has used (user and system, all its
// threads).
func cpuOf(t *testing.T, pid int) time.Duration {
	t.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("reading the CPU time of %d: %v", pid, err)
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
}
