package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// pageAt is the line of segwi run that says where the approval page is served.
var pageAt = regexp.MustCompile(`approvals can be answered from your other devices at (http://\S+?)/?\n`)

// pageAddress waits, while segwi runs, for it to say where its approval page is, and
// returns the address.
func (p *proc) pageAddress(t *testing.T) string {
	t.Helper()
	var base string
	p.waitWhileRunning(t, 60*time.Second, "segwi to say where the approval page is", func() bool {
		m := pageAt.FindStringSubmatch(p.stderr.String())
		if m != nil {
			base = m[1]
		}
		return m != nil
	})
	return base
}

// TestApprovalsAnsweredFromThePhone runs the real Claude Code under a headless segwi run
// with no terminal and the approval page on: on a real tailnet, the owner's phone allows
// one Bash call and denies another with a reason; the run's record names the phone and
// its login as who answered, as a popup's answer is named. The allowed call is the run's
// own program reaching for the page (curl on this machine): it is refused, and so are
// this machine's own node and a direct loopback connection, each saying that answers come
// only from the person's other devices.
func TestApprovalsAnsweredFromThePhone(t *testing.T) {
	twoAtATime(t)
	tn := tailnet.New(t)
	port := tailnet.FreePort(t)
	host := fmt.Sprintf("%s:%d", tn.Machine.DNSName, port)
	// The run's program: what a browser the run opened would send, straight to the port on
	// loopback (with userspace networking, the tailnet is not this machine's network).
	fetch := fakeapi.ToolUse("Bash", fakeapi.Input{
		"command": fmt.Sprintf("curl -sS -m 10 -H 'Host: %s' http://127.0.0.1:%d/ > page.txt; echo done", host, port),
	})
	wipe := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "rm -rf .git"})
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(fetch), fakeapi.Say(wipe), fakeapi.Say(fakeapi.Text("Done."))))
	s.env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash"}}})
	s.writeConfig(config{approvalTimeout: "3m", remote: &remoteConfig{port: port, socket: tn.Machine.Socket}})

	p := s.start("run", "Fetch the page, then clean up") // no terminal: the page is the only way to answer
	base := p.pageAddress(t)
	if base != "http://"+host {
		t.Errorf("segwi serves the page at %s, want http://%s", base, host)
	}
	id := p.runID()
	phone := tailnet.Visit(t, tn.Phone.HTTPClient(), base)
	events := phone.Events(t)
	who := "phone (" + tn.Phone.Login + ")"

	request := func(command string) string {
		t.Helper()
		data := events.AwaitApproval(t, 90*time.Second, command)
		var a struct{ Request string }
		if err := json.Unmarshal([]byte(data), &a); err != nil || a.Request == "" {
			t.Fatalf("the approval event %s names no request: %v", data, err)
		}
		return a.Request
	}
	fetchReq := request("curl -sS")

	t.Run("this machine's own node is refused, even with the phone's session", func(t *testing.T) {
		res, err := tn.Machine.HTTPClient().Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		if text := bodyOf(res); res.StatusCode != http.StatusForbidden || !strings.Contains(text, "Answers come only from your other devices") {
			t.Errorf("GET from the machine's node: %s %q, want 403 saying answers come only from the other devices", res.Status, text)
		}
		stolen := *phone
		stolen.Client = tn.Machine.HTTPClient()
		if res := stolen.Answer(t, fetchReq, "allow", "", nil); res.StatusCode != http.StatusForbidden {
			t.Errorf("an answer from the machine's node: %s, want 403", res.Status)
		}
		await.For(t, 30*time.Second, "segwi to log the refusal naming the machine's node", func() bool {
			return strings.Contains(p.stderr.String(), "refused node machine ("+tn.Machine.Login+")")
		})
	})
	t.Run("a direct connection on this machine is refused", func(t *testing.T) {
		r, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/", port), nil)
		r.Host = host
		res, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		if text := bodyOf(res); res.StatusCode != http.StatusForbidden || !strings.Contains(text, "Answers come only from your other devices") {
			t.Errorf("a direct GET: %s %q, want 403", res.Status, text)
		}
	})

	if res := phone.Answer(t, fetchReq, "allow", "", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the phone's allow: %s: %s", res.Status, bodyOf(res))
	}
	events.Await(t, 30*time.Second, "gone", "Allowed by "+who)
	wipeReq := request("rm -rf .git")
	if res := phone.Answer(t, wipeReq, "deny", "keep the history", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the phone's deny: %s: %s", res.Status, bodyOf(res))
	}
	wantExit(t, p, 0)

	t.Run("the run's own program was refused", func(t *testing.T) {
		page, err := os.ReadFile(filepath.Join(s.checkout, "page.txt"))
		if err != nil || !strings.Contains(string(page), "Answers come only from your other devices") {
			t.Errorf("the run's curl got %q (%v), want the refusal", page, err)
		}
	})
	t.Run("the deny's reason reached Claude Code, and nothing was wiped", func(t *testing.T) {
		if got := s.toolResult(wipe); !got.IsError || !strings.Contains(got.Text, "keep the history") {
			t.Errorf("the model got %q (error %v), want the deny with the reason", got.Text, got.IsError)
		}
		if _, err := os.Stat(filepath.Join(s.checkout, ".git")); err != nil {
			t.Errorf("the checkout's .git: %v", err)
		}
	})
	t.Run("the record names the phone and its login as who answered", func(t *testing.T) {
		rec := s.loadRecord(id)
		for call, allow := range map[string]bool{fetch.ID: true, wipe.ID: false} {
			ans, ok := rec.has(runs.EventApprovalAnswer, call)
			if !ok || ans.Approval.Allow != allow || ans.Approval.By != string(approvals.ByPerson) || ans.Approval.Who != who {
				t.Errorf("%s: answer recorded %v: %+v; want allow=%v by a person, who %s", call, ok, ans.Approval, allow, who)
			}
		}
		if out := p.stdout.String(); !strings.Contains(out, "by you from "+who) {
			t.Errorf("segwi run printed no answer by you from %s:\n%s", who, out)
		}
	})
}

// TestAnACPRequestAnsweredFromThePhone runs an ACP agent (the fake one of runs/acp, a
// runtime of the settings) under a headless segwi run with the approval page on: its
// permission request for a command reaches the owner's phone on a real tailnet, the
// phone allows it, and the agent runs the command and says so; the record names the
// phone as who answered.
func TestAnACPRequestAnsweredFromThePhone(t *testing.T) {
	twoAtATime(t)
	agent := filepath.Join(t.TempDir(), "fakeacp")
	if out, err := exec.Command("go", "build", "-o", agent, "../../../runs/acp/testdata/fakeacp").CombinedOutput(); err != nil {
		t.Fatalf("building the fake ACP agent: %v\n%s", err, out)
	}
	tn := tailnet.New(t)
	port := tailnet.FreePort(t)
	s := newScenario(t, fakeapi.Turns()) // Claude Code is not asked: the run is the agent's
	s.writeConfig(config{approvalTimeout: "3m", remote: &remoteConfig{port: port, socket: tn.Machine.Socket},
		runtimes: map[string]string{"fake": agent}})

	p := s.start("run", "--runtime", "fake", "run touch phone-allowed.txt") // no terminal: the page is the only way to answer
	base := p.pageAddress(t)
	id := p.runID()
	phone := tailnet.Visit(t, tn.Phone.HTTPClient(), base)
	events := phone.Events(t)
	who := "phone (" + tn.Phone.Login + ")"
	data := events.AwaitApproval(t, 90*time.Second, "touch phone-allowed.txt")
	var a struct{ Request, Tool string }
	if err := json.Unmarshal([]byte(data), &a); err != nil || a.Request == "" || a.Tool != "Bash" {
		t.Fatalf("the approval event %s names no request of Bash: %v", data, err)
	}
	if res := phone.Answer(t, a.Request, "allow", "", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the phone's allow: %s: %s", res.Status, bodyOf(res))
	}
	events.Await(t, 30*time.Second, "gone", "Allowed by "+who)
	wantExit(t, p, 0)

	if _, err := os.Stat(filepath.Join(s.checkout, "phone-allowed.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
	rec := s.loadRecord(id)
	ans, ok := rec.has(runs.EventApprovalAnswer, "call-run-1")
	if !ok || !ans.Approval.Allow || ans.Approval.By != string(approvals.ByPerson) || ans.Approval.Who != who {
		t.Errorf("answer recorded %v: %+v; want an allow by a person, who %s", ok, ans.Approval, who)
	}
	said := false
	for _, e := range rec.events {
		said = said || e.Type == runs.EventText && strings.HasPrefix(e.Text, "allowed")
	}
	if rec.info.Runtime != "fake" || !said {
		t.Errorf("the run on runtime %q; the agent said it was allowed: %v", rec.info.Runtime, said)
	}
}

func bodyOf(res *http.Response) string {
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return string(data)
}
