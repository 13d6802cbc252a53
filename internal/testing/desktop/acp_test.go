package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/runs"
)

// TestACPRequestsAnsweredInThePopup starts two runs of an ACP agent (the fake one of
// runs/acp, a runtime of the settings) from the tray, each asking permission for a
// command: the person allows the build run's in its popup, and its command runs; denies
// the ask run's, and it does not. The agent says what it got back, and that is on each
// run's record.
func TestACPRequestsAnsweredInThePopup(t *testing.T) {
	t.Parallel() // one at a time on the test desktop: see desktopMu
	conn := needDesktop(t)
	needClaudeCode(t) // before the build
	shots := screenshotDir(t)
	bin := buildSegwi(t)
	agent := filepath.Join(t.TempDir(), "fakeacp")
	if out, err := exec.Command("go", "build", "-o", agent, "../../../runs/acp/testdata/fakeacp").CombinedOutput(); err != nil {
		t.Fatalf("building the fake ACP agent: %v\n%s", err, out)
	}

	srv := fakeapi.New(t, fakeapi.Turns()) // Claude Code is not asked: the runs are the agent's
	env := claudetest.Env(t, srv.URL)
	checkout := claudetest.Checkout(t)
	writeFile(t, filepath.Join(env.Get("XDG_CONFIG_HOME"), "segwi", "config.yaml"), fmt.Sprintf(`segwi:
  claude:
    path: %q
  repositories:
    - name: demo
      path: %q
  runtimes:
    - name: fake
      command: [%q]
  runs:
    stopGrace: 2s
  approvals:
    timeout: 5m
`, claudetest.Binary(t), checkout, agent))
	stateDir := filepath.Join(env.Get("XDG_STATE_HOME"), "segwi")

	app := launchTray(t, bin, env.Vars(), filepath.Join(shots, "segwi-acp.log"))
	tr, _ := waitForTray(t, conn, app.cmd.Process.Pid, app.launched, 30*time.Second)

	// said waits for the run of task (kind) to have the agent say something starting with
	// prefix, and returns the run.
	said := func(kind runs.Kind, prefix string) runs.Info {
		t.Helper()
		var got runs.Info
		await.For(t, 60*time.Second, fmt.Sprintf("the agent of the %s run to say %q", kind, prefix), func() error {
			infos, _, _ := runs.List(stateDir)
			var texts []string
			for _, info := range infos {
				if info.Kind != kind {
					continue
				}
				runs.ReadEvents(stateDir, info.ID, func(e runs.Event) error {
					if e.Type == runs.EventText {
						texts = append(texts, e.Text)
						if strings.HasPrefix(e.Text, prefix) {
							got = info
						}
					}
					return nil
				})
			}
			if got.ID == "" {
				return fmt.Errorf("it said %q", texts)
			}
			return nil
		})
		return got
	}

	seen := map[string]bool{}
	t.Run("allowed in the popup, the agent's command runs", func(t *testing.T) {
		startACPRun(t, tr, "New build run…", "run touch acp-allowed.txt")
		popup := waitForNewWindow(t, `^Approve Bash\? · build run in demo`, seen, 60*time.Second)
		seen[popup] = true
		screenshot(t, shots, "acp-popup")
		xdotool(t, "windowraise", popup)
		clickAllow(t, popup)
		info := said(runs.KindBuild, "allowed")
		answeredInPopup(t, stateDir, info.ID, true)
		if info.Runtime != "fake" {
			t.Errorf("the run's runtime is %q, want fake", info.Runtime)
		}
		if _, err := os.Stat(filepath.Join(checkout, "acp-allowed.txt")); err != nil {
			t.Errorf("the allowed command did not run: %v", err)
		}
	})

	t.Run("denied in the popup, it does not", func(t *testing.T) {
		startACPRun(t, tr, "Ask…", "run touch acp-denied.txt")
		popup := waitForNewWindow(t, `^Approve Bash\? · ask run in demo`, seen, 60*time.Second)
		seen[popup] = true
		xdotool(t, "windowraise", popup)
		clickDeny(t, popup)
		answeredInPopup(t, stateDir, said(runs.KindAsk, "denied").ID, false)
		if _, err := os.Stat(filepath.Join(checkout, "acp-denied.txt")); !os.IsNotExist(err) {
			t.Errorf("the denied command ran (%v)", err)
		}
	})
	app.terminate(t)
}

// startACPRun starts a run of task from the tray's item on the settings' first ACP
// runtime: the dialog's Runtime choice, five Tabs after the task box (model, the three of
// the budget, runtime), moved one step right from Claude Code.
func startACPRun(t *testing.T, tr *tray, item, task string) {
	t.Helper()
	startRun(t, tr, item, task, "Tab", "Tab", "Tab", "Tab", "Tab", "Right")
}

// clickDeny clicks a popup's Deny: left of Allow in the answers' row (app/popup_window.go).
func clickDeny(t *testing.T, popup string) {
	t.Helper()
	pw, ph := windowSize(t, popup)
	clickAt(t, popup, pw-100, ph-66)
}

// answeredInPopup fails the test unless run id's one request was answered by the person
// with allow, by a button (not by closing the popup).
func answeredInPopup(t *testing.T, stateDir, id string, allow bool) {
	t.Helper()
	var answers []runs.ApprovalInfo
	runs.ReadEvents(stateDir, id, func(e runs.Event) error {
		if e.Type == runs.EventApprovalAnswer {
			answers = append(answers, *e.Approval)
		}
		return nil
	})
	if len(answers) != 1 || answers[0].By != "person" || answers[0].Allow != allow || strings.Contains(answers[0].Message, "closed") {
		t.Errorf("run %s's answers are %+v; want one, the person's, allow %v, by a button", id, answers, allow)
	}
}
