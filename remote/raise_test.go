package remote

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/browser"
	"github.com/segwi/segwi/internal/testing/tailnet"
	"github.com/segwi/segwi/runs"
)

// atBudget is a run that waits at its budget of $2.00 and 5 turns.
func atBudget(id string) (r control.Run) {
	r = testRun(id)
	r.Waiting, r.Reason = runs.WaitBudget, "budget reached: $2.04 of $2.00"
	r.Budget = &runs.Budget{CostUSD: 2, Turns: 5}
	return r
}

// A raise from the page passes the same checks as an answer: a raise another site's page
// posts, one without the page's anti-forgery token, and one from the laptop with the
// phone's session are refused before the hub hears of them; the phone's own raise reaches
// the hub, named as the phone's; a raise of a run that does not wait at its budget is
// refused with the hub's words, and so is a raise by nothing.
func TestARaiseFromThePageIsTheOwnersAndOnlyOfARunAtItsBudget(t *testing.T) {
	s := serveFake(t, defaultLimits)
	s.hub.addRun(atBudget("r1"))
	s.hub.addRun(testRun("r2")) // waiting for approval, not at its budget
	phone := tailnet.Visit(t, client(phoneIP), s.url(deskIP))
	laptop := *phone
	laptop.Client = client(laptopIP)

	for _, c := range []struct {
		name string
		v    *tailnet.Visitor
		edit func(*http.Request)
	}{
		{"another site's page", phone, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }},
		{"a post without the anti-forgery token", phone, func(r *http.Request) { r.Header.Del("X-Segwi-Token") }},
		{"the phone's session from the laptop", &laptop, nil},
	} {
		if res := c.v.Raise(t, "r1", 1, 0, 0, c.edit); res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %s: %s, want 403", c.name, res.Status, body(res))
		}
	}
	if got := s.hub.Raises(); len(got) != 0 {
		t.Fatalf("the hub took %+v from raises the guard refuses", got)
	}

	if res := phone.Raise(t, "r1", 0, 0, 0, nil); res.StatusCode != http.StatusBadRequest {
		t.Errorf("a raise by nothing: %s, want 400", res.Status)
	}
	if res := phone.Raise(t, "r2", 1, 0, 0, nil); res.StatusCode != http.StatusConflict || !strings.Contains(body(res), "does not wait at its budget") {
		t.Errorf("a raise of a run not at its budget: %s, want 409 saying it does not wait at its budget", res.Status)
	}
	if res := phone.Raise(t, "r1", 1.5, 0, 2, nil); res.StatusCode != http.StatusOK {
		t.Fatalf("the phone's raise: %s: %s", res.Status, body(res))
	}
	got := s.hub.Raises()
	if len(got) != 1 || got[0].Run != "r1" || got[0].By != (runs.Budget{CostUSD: 1.5, Turns: 2}) || !strings.HasPrefix(got[0].Who, "phone (") {
		t.Errorf("the hub took %+v, want one raise of r1 by $1.50 and 2 turns, from the phone", got)
	}
	if res := phone.Raise(t, "r1", 1, 0, 0, nil); res.StatusCode != http.StatusConflict {
		t.Errorf("a second raise of a run that went on: %s, want 409", res.Status)
	}
}

// The page in a real browser (headless Chromium) offers a run waiting at its budget the
// raise the run window offers: each bound the run has, by itself again to start with, and
// Raise and go on; what the person types goes to segwi, and the run goes on. A raise segwi
// refuses (the run was raised at the desk meanwhile) says why on the page.
func TestThePageInABrowserRaisesTheBudgetOfARunWaitingAtIt(t *testing.T) {
	b := browser.Start(t, browser.Options{Width: 390, Height: 844})
	s := serveFake(t, defaultLimits)
	s.f.device("127.0.0.1", "phone", 1) // where the browser's connections come from
	s.hub.addRun(atBudget("r1"))
	row := `li[data-run="r1"]`

	b.Open(t, s.url(deskIP)+"/")
	awaitText(t, b, row, "budget reached: $2.04 of $2.00")
	awaitText(t, b, row, "Raise and go on")
	cost, turns := b.Await(t, time.Second, row+" label.cost input"), b.Await(t, time.Second, row+" label.turns input")
	if c, n := b.Value(t, cost), b.Value(t, turns); c != "2" || n != "5" {
		t.Errorf("the raise offered is $%s and %s turns, want the budget again: $2 and 5 turns", c, n)
	}
	if tokens, err := b.Find(row + " label.tokens"); err != nil || b.Displayed(t, tokens) {
		t.Errorf("the page offers to raise a token budget the run does not have (%v)", err)
	}
	b.Screenshot(t, filepath.Join(screenshotDir(t), "remote-page-budget.png"))
	b.Fill(t, cost, "1.50")
	b.Click(t, b.Await(t, time.Second, row+" button.raise"))
	await.For(t, 20*time.Second, "the hub to take the raise", func() error {
		if got := s.hub.Raises(); len(got) != 1 || got[0].Run != "r1" || got[0].By != (runs.Budget{CostUSD: 1.5, Turns: 5}) {
			return fmt.Errorf("it took %+v, want one raise of r1 by $1.50 and 5 turns", got)
		}
		return nil
	})
	awaitText(t, b, row, "running")
	if el, err := b.Find(row + " button.raise"); err == nil && b.Displayed(t, el) {
		t.Error("the run that went on still offers a raise")
	}

	// Raised at the desk while the page still showed it waiting: segwi refuses, and the
	// page says why.
	s.hub.addRun(atBudget("r2"))
	row2 := `li[data-run="r2"]`
	awaitText(t, b, row2, "Raise and go on")
	s.hub.wentOn("r2")
	b.Click(t, b.Await(t, time.Second, row2+" button.raise"))
	awaitText(t, b, row2+" .outcome", "does not wait at its budget")
}
