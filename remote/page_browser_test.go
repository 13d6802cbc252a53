package remote

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/browser"
	"github.com/segwi/segwi/internal/testing/coretest"
)

// The page in a real browser (headless Chromium), served with the fake tailscaled, which
// names the browser's loopback connections as alice's phone: it shows the real Claude
// Code's Edit and Write requests as the one view (the file relative to the checkout, the
// change as a diff, the input's SHA-256), and marks an answer the moment segwi takes it,
// everywhere it shows the request (its card, the count of what waits, the run's row), even
// when segwi's word that the request is gone comes late; then the word of an answer given
// elsewhere (a popup) does the same.
func TestThePageInABrowserShowsTheOneViewAndMarksAnAnswerAtOnce(t *testing.T) {
	run := coretest.FileToolRequests(t)
	b := browser.Start(t, browser.Options{Width: 390, Height: 844})
	s := serveFake(t, defaultLimits)
	s.f.device("127.0.0.1", "phone", 1) // where the browser's connections come from
	s.hub.holdGone = true
	r := testRun("r1")
	r.Checkout = run.Checkout
	s.hub.addRun(r)
	ref := control.RunRef{ID: r.ID, Kind: r.Kind, Checkout: run.Checkout, Name: r.Name, Prompt: run.Task}
	edit := s.hub.put(control.Approval{Run: ref, Tool: "Edit", Input: run.Edit.Input, Asked: time.Now(), Deadline: time.Now().Add(10 * time.Minute)})
	write := s.hub.put(control.Approval{Run: ref, Tool: "Write", Input: run.Write.Input, Asked: time.Now(), Deadline: time.Now().Add(10 * time.Minute)})

	b.Open(t, s.url(deskIP)+"/")
	card := func(req string) string { return fmt.Sprintf(`li.card[data-request=%q]`, req) }
	for _, c := range []struct {
		req  string
		want []string
	}{
		{edit, []string{"wants to use Edit", "Edit hello.txt:", "- hello from the test checkout", "+ hello, world", "+ and a second line",
			"Input SHA-256: " + run.Edit.InputSHA256(), "Allow", "Deny and stop the run"}},
		{write, []string{"wants to use Write", "Write notes/plan.md: a new file:", "+ # Plan", "+ 2. Ship it.", "Show the input as JSON"}},
	} {
		text := awaitText(t, b, card(c.req), "Allow")
		for _, want := range c.want {
			if !strings.Contains(text, want) {
				t.Errorf("the card of %s lacks %q:\n%s", c.req, want, text)
			}
		}
		if strings.Contains(text, run.Checkout) {
			t.Errorf("the card of %s shows the checkout's path, not the file relative to it:\n%s", c.req, text)
		}
	}
	awaitText(t, b, "#waiting-count", "(2)")
	awaitText(t, b, `li[data-run="r1"]`, "⚠ 2 approvals wait for you")
	b.Screenshot(t, filepath.Join(screenshotDir(t), "remote-page-file-changes.png"))

	b.Click(t, b.Await(t, time.Second, card(edit)+" button.allow"))
	awaitText(t, b, card(edit)+" .outcome", "Allowed by you, here")
	awaitText(t, b, "#waiting-count", "(1)")
	awaitText(t, b, `li[data-run="r1"]`, "⚠ 1 approval waits for you")
	if got := s.hub.Answers(); len(got) != 1 || got[0].Request != edit || got[0].Decision != control.Allow {
		t.Errorf("the hub took %+v, want one allow of %s", got, edit)
	}

	// Answered in a popup: segwi tells the page, which marks it answered as at once.
	s.hub.publish(control.ApprovalGone{Request: write, Run: r.ID, Why: control.WhyAnswered, By: control.ByThisDesktop})
	awaitText(t, b, card(write)+" .outcome", "Denied by "+control.ByThisDesktop)
	await.For(t, 10*time.Second, "the count and the run's mark to go", func() error {
		for _, css := range []string{"#waiting-count", `li[data-run="r1"]`} {
			el, err := b.Find(css)
			if err != nil {
				return err
			}
			text, err := b.Text(el)
			if err != nil {
				return err
			}
			if strings.Contains(text, "(") || strings.Contains(text, "approval") {
				return fmt.Errorf("%s still says %q", css, text)
			}
		}
		return nil
	})
}

// awaitText waits until the element css shows a text holding want, and returns the text.
func awaitText(t *testing.T, b *browser.Browser, css, want string) string {
	t.Helper()
	var text string
	await.For(t, 20*time.Second, fmt.Sprintf("%s to say %q", css, want), func() error {
		el, err := b.Find(css)
		if err != nil {
			return err
		}
		if text, err = b.Text(el); err != nil {
			return err
		}
		if !strings.Contains(text, want) {
			return fmt.Errorf("it says %q", text)
		}
		return nil
	})
	return text
}

// The page follows the phone's setting: dark when the phone is set to dark (its background,
// its cards, its text), light otherwise, and it changes with the setting while it is open.
func TestThePageFollowsThePhonesDarkSetting(t *testing.T) {
	b := browser.Start(t, browser.Options{Width: 390, Height: 844})
	s := serveFake(t, defaultLimits)
	s.f.device("127.0.0.1", "phone", 1)
	r := testRun("r1")
	s.hub.addRun(r)
	ref := control.RunRef{ID: r.ID, Kind: r.Kind, Checkout: r.Checkout, Name: r.Name, Prompt: r.Prompt}
	req := s.hub.put(control.Approval{Run: ref, Tool: "Bash", Input: []byte(`{"command":"rm -rf build"}`),
		Asked: time.Now(), Deadline: time.Now().Add(10 * time.Minute)})
	card := fmt.Sprintf(`li.card[data-request=%q]`, req)

	b.PreferColorScheme(t, "dark")
	b.Open(t, s.url(deskIP)+"/")
	awaitText(t, b, card, "rm -rf build")
	for _, c := range []struct {
		scheme           string
		page, card, text string // computed colors
	}{
		{"dark", "rgba(22, 22, 22, 1)", "rgba(34, 34, 34, 1)", "rgba(238, 238, 238, 1)"},
		{"light", "rgba(250, 250, 250, 1)", "rgba(255, 255, 255, 1)", "rgba(27, 27, 27, 1)"},
	} {
		b.PreferColorScheme(t, c.scheme)
		body, _ := b.Find("body")
		cardEl := b.Await(t, 10*time.Second, card)
		for _, got := range []struct{ what, value, want string }{
			{"the page's background", b.CSS(t, body, "background-color"), c.page},
			{"the card's background", b.CSS(t, cardEl, "background-color"), c.card},
			{"the text", b.CSS(t, body, "color"), c.text},
		} {
			if got.value != got.want {
				t.Errorf("set to %s, %s is %s, want %s", c.scheme, got.what, got.value, got.want)
			}
		}
		b.Screenshot(t, filepath.Join(screenshotDir(t), "remote-page-"+c.scheme+".png"))
	}
}

// An ACP run's request, denied on the page: the reason's box says the agent may not see
// the reason (it reaches the run's record; no ACP agent tried reads it), and the deny
// reaches segwi.
func TestThePageSaysWhoReadsAnACPRunsDenyReason(t *testing.T) {
	b := browser.Start(t, browser.Options{Width: 390, Height: 844})
	s := serveFake(t, defaultLimits)
	s.f.device("127.0.0.1", "phone", 1)
	s.hub.holdGone = true // the card stays to show its outcome
	r := testRun("r1")
	s.hub.addRun(r)
	ref := control.RunRef{ID: r.ID, Kind: r.Kind, Checkout: r.Checkout, Name: r.Name, Prompt: r.Prompt, Agent: "codex"}
	req := s.hub.put(control.Approval{Run: ref, Tool: "Bash", Input: []byte(`{"command":"rm -rf build"}`),
		Asked: time.Now(), Deadline: time.Now().Add(10 * time.Minute)})
	card := fmt.Sprintf(`li.card[data-request=%q]`, req)

	b.Open(t, s.url(deskIP)+"/")
	awaitText(t, b, card, "rm -rf build")
	b.Click(t, b.Await(t, time.Second, card+" button.deny"))
	label := awaitText(t, b, card+" .deny-form label", "Reason (optional)")
	if want := "kept on the run's record; codex may not see it"; !strings.Contains(label, want) || strings.Contains(label, "Claude") {
		t.Errorf("the reason's box says %q, want %q", label, want)
	}
	b.Click(t, b.Await(t, time.Second, card+" button.confirm-deny"))
	awaitText(t, b, card+" .outcome", "Denied by you, here")
	if got := s.hub.Answers(); len(got) != 1 || got[0].Decision != control.Deny {
		t.Errorf("the hub took %+v, want one deny of %s", got, req)
	}
}

// A request whose deadline is its run's end (runs.maxDuration before approvals.timeout)
// counts down to it on the page and says that the run ends then.
func TestThePageSaysARequestsRunEndsAtItsDeadline(t *testing.T) {
	b := browser.Start(t, browser.Options{Width: 390, Height: 844})
	s := serveFake(t, defaultLimits)
	s.f.device("127.0.0.1", "phone", 1)
	r := testRun("r1")
	s.hub.addRun(r)
	ref := control.RunRef{ID: r.ID, Kind: r.Kind, Checkout: r.Checkout, Name: r.Name, Prompt: r.Prompt}
	req := s.hub.put(control.Approval{Run: ref, Tool: "Bash", Input: []byte(`{"command":"make deploy"}`),
		Asked: time.Now(), Deadline: time.Now().Add(2 * time.Minute), RunEnds: true})

	b.Open(t, s.url(deskIP)+"/")
	left := awaitText(t, b, fmt.Sprintf(`li.card[data-request=%q] .time-left`, req), "then the run ends (runs.maxDuration)")
	if !strings.HasPrefix(left, "1m ") && !strings.HasPrefix(left, "2m ") {
		t.Errorf("the page counts down %q, want the two minutes to the run's end", left)
	}
}
