package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/tailnet"
	"github.com/segwi/segwi/runs"
)

// lateAnswer is when the late-answer tests answer: past the 60 s that Claude Code 2.1.328
// gives an MCP tool call unless told otherwise, well within approvals.timeout. These tests
// spend that much wall time and almost no CPU, so they run side by side (t.Parallel),
// beside the package's other tests, which run two at a time (twoAtATime).
const lateAnswer = 90 * time.Second

// lateMaxDuration is runs.maxDuration in the late-answer tests: past approvals.timeout's 10
// minutes, so that the run's end does not come first and each request has the whole 10
// minutes to count down (a run's end bounds its requests' deadlines).
const lateMaxDuration = "15m"

// lateScenario is a run whose one command, touch late.txt, the person's ask rule escalates
// to segwi, with approvals.timeout at its default of 10 minutes.
func lateScenario(t *testing.T) (*scenario, fakeapi.Block) {
	t.Helper()
	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch late.txt", "description": "Create late.txt"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(touch), fakeapi.Say(fakeapi.Text("Made late.txt."))))
	s.env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash(touch:*)"}}})
	return s, touch
}

// waitUntilLate waits until lateAnswer has passed since shown, failing at once when
// withdrawn says that the request no longer waits (Claude Code stopped waiting for it).
func waitUntilLate(t *testing.T, p *proc, shown time.Time, withdrawn func() (string, bool)) {
	t.Helper()
	p.waitWhileRunning(t, lateAnswer+time.Minute, fmt.Sprintf("the request to have waited %s", lateAnswer), func() bool {
		if why, gone := withdrawn(); gone {
			t.Fatalf("the request stopped waiting %s after it was shown, before the person's answer: %s",
				time.Since(shown).Round(time.Second), why)
		}
		return time.Since(shown) >= lateAnswer
	})
}

// checkHeard checks that the late answer was heard: the command ran, and the run's record
// names who answered, after how long.
func checkHeard(t *testing.T, s *scenario, id string, touch fakeapi.Block, who string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(s.checkout, "late.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v; the model got %+v", err, s.toolResult(touch))
	}
	ans, ok := s.loadRecord(id).has(runs.EventApprovalAnswer, touch.ID)
	if !ok || ans.Approval == nil {
		t.Fatal("no answer recorded")
	}
	a := ans.Approval
	if !a.Allow || a.By != string(approvals.ByPerson) || a.Who != who || time.Duration(a.WaitedMS)*time.Millisecond < lateAnswer {
		t.Errorf("answer recorded as allow %v by %q (who %q) after %dms; want an allow by the person (who %q) after at least %s",
			a.Allow, a.By, a.Who, a.WaitedMS, who, lateAnswer)
	}
}

// TestApprovalAnsweredLateAtTheTerminalIsHeard answers a request at the terminal of segwi
// run 90 s after it was shown: Claude Code is still waiting, and the command runs. Before
// segwi told Claude Code how long to wait, it gave up after 60 s ("The operation timed
// out") while the terminal still said there were minutes left.
func TestApprovalAnsweredLateAtTheTerminalIsHeard(t *testing.T) {
	t.Parallel()
	s, touch := lateScenario(t)
	s.writeConfig(config{approvalTimeout: "10m", maxDuration: lateMaxDuration})

	p := s.startOnTerminal("run", "Make late.txt")
	id := p.runID()
	p.term.waitCount(t, p, allowPrompt, 1, claudeActs)
	shown := time.Now()
	if !strings.Contains(p.term.String(), "Answer within 10m0s") {
		t.Errorf("the terminal does not give the request its 10 minutes:\n%s", p.term.String())
	}
	waitUntilLate(t, p, shown, func() (string, bool) {
		out := p.term.String()
		i := strings.Index(out, "is no longer waiting")
		return out[max(i, 0):], i >= 0
	})
	p.term.typeLine(t, "y")
	wantExit(t, p, 0)

	checkHeard(t, s, id, touch, "")
	if out := p.stdout.String(); !strings.Contains(out, "touch late.txt (by you, after 1m3") {
		t.Errorf("segwi run did not say the person allowed it after a minute and a half:\n%s", out)
	}
}

// TestApprovalAnsweredLateFromThePhoneIsHeard answers a request on the approval page over
// a real tailnet, 90 s after the page showed it: the phone is where people answer late.
func TestApprovalAnsweredLateFromThePhoneIsHeard(t *testing.T) {
	tailnet.Need(t)
	t.Parallel()
	tn := tailnet.New(t)
	port := tailnet.FreePort(t)
	s, touch := lateScenario(t)
	s.writeConfig(config{approvalTimeout: "10m", maxDuration: lateMaxDuration, remote: &remoteConfig{port: port, socket: tn.Machine.Socket}})

	p := s.start("run", "Make late.txt") // no terminal: the page is the only way to answer
	base := p.pageAddress(t)
	id := p.runID()
	phone := tailnet.Visit(t, tn.Phone.HTTPClient(), base)
	events := phone.Events(t)
	data := events.AwaitApproval(t, 90*time.Second, "touch late.txt")
	shown := time.Now()
	var a struct {
		Request         string
		Asked, Deadline time.Time
	}
	if err := json.Unmarshal([]byte(data), &a); err != nil || a.Request == "" {
		t.Fatalf("the approval event %s names no request: %v", data, err)
	}
	if got := a.Deadline.Sub(a.Asked); got != 10*time.Minute {
		t.Errorf("the page counts down %s from the request, want its 10 minutes", got)
	}
	waitUntilLate(t, p, shown, func() (string, bool) {
		return events.Seen("gone", `"request":"`+a.Request+`"`)
	})
	if res := phone.Answer(t, a.Request, "allow", "", nil); res.StatusCode != 200 {
		t.Fatalf("the phone's allow: %s: %s", res.Status, bodyOf(res))
	}
	who := "phone (" + tn.Phone.Login + ")"
	events.Await(t, 30*time.Second, "gone", "Allowed by "+who)
	wantExit(t, p, 0)

	checkHeard(t, s, id, touch, who)
	await.For(t, time.Second, "segwi run to say who answered", func() bool {
		return strings.Contains(p.stdout.String(), "by you from "+who)
	})
}
