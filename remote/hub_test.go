package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/runs"
)

// hub is the core as the page sees it, for tests: a real control server whose handler
// holds a list of runs and waiting approvals, takes answers (the first wins) and fails
// the test on any other command, or on an answer from a client that is not the page's.
type hub struct {
	t   *testing.T
	srv *control.Server

	mu       sync.Mutex
	runs     []control.Run
	waiting  []control.Approval
	answers  []control.Answer // as the server handed them over, with By filled in
	raises   []raise          // the budget raises the page sent, with who sent them
	answered map[string]string
	clients  int
	// holdGone keeps the hub from telling the page that an answered request is gone, as
	// when that word is slow to come: the page must mark its own answer at once.
	holdGone bool
}

func newHub(t *testing.T) *hub {
	h := &hub{t: t, answered: map[string]string{}}
	h.srv = control.NewServer("segwi test hub", h)
	return h
}

// Connected sends the page what waits and what runs.
func (h *hub) Connected(p *control.Peer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.clients++
	if err := p.Send(control.Runs{Runs: append([]control.Run(nil), h.runs...)}); err != nil {
		h.t.Errorf("hub: sending the runs: %v", err)
	}
	if err := p.Send(control.Approvals{Waiting: append([]control.Approval(nil), h.waiting...)}); err != nil {
		h.t.Errorf("hub: sending the approvals: %v", err)
	}
}

// raise is a raise of a run's budget the hub took, and who the server says sent it.
type raise struct {
	control.RaiseBudget
	Who string
}

// Handle takes an answer, or the raise of the budget of a run that waits at it, from the
// page, and nothing else.
func (h *hub) Handle(_ context.Context, p *control.Peer, cmd control.Body) control.Reply {
	if rb, ok := cmd.(control.RaiseBudget); ok && p.Role() == control.RoleRemote {
		return h.raise(rb, p.Who())
	}
	a, ok := cmd.(control.Answer)
	if !ok || p.Role() != control.RoleRemote {
		h.t.Errorf("hub: unexpected command %T from a %s client (%s)", cmd, p.Role(), p.Who())
		return control.Failed(fmt.Errorf("the test hub takes only answers from the page, not %s", cmd.MessageType()))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if by, done := h.answered[a.Request]; done {
		return control.Failed(fmt.Errorf("request %s was already answered by %s", a.Request, by))
	}
	i := h.indexLocked(a.Request)
	if i < 0 {
		return control.Failed(fmt.Errorf("no request %s waits", a.Request))
	}
	req := h.waiting[i]
	h.waiting = append(h.waiting[:i], h.waiting[i+1:]...)
	h.answers = append(h.answers, a)
	h.answered[a.Request] = a.By
	if h.holdGone {
		return control.Reply{}
	}
	h.publish(control.ApprovalGone{Request: a.Request, Run: req.Run.ID, Why: control.WhyAnswered, Allow: a.Decision == control.Allow, By: a.By})
	return control.Reply{}
}

// raise takes the raise of run rb.Run's budget when it waits at it, as the tray does
// (runs.Run.RaiseWaitingBudget), and then the run goes on; it refuses any other.
func (h *hub) raise(rb control.RaiseBudget, who string) control.Reply {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, r := range h.runs {
		if r.ID != rb.Run {
			continue
		}
		if !r.WaitsAtBudget() {
			return control.Failed(fmt.Errorf("raising the budget of run %s: it does not wait at its budget (%s)", r.ID, r.StateText()))
		}
		h.raises = append(h.raises, raise{rb, who})
		r.State, r.Waiting, r.Reason = runs.StateRunning, "", ""
		h.runs[i] = r
		h.publish(r)
		return control.Reply{}
	}
	return control.Failed(fmt.Errorf("no run %s", rb.Run))
}

// wentOn makes run id go on without telling the page, as a raise at the desk does just
// before the page's own.
func (h *hub) wentOn(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, r := range h.runs {
		if r.ID == id {
			h.runs[i].State, h.runs[i].Waiting, h.runs[i].Reason = runs.StateRunning, "", ""
		}
	}
}

// Raises returns the raises taken so far.
func (h *hub) Raises() []raise {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]raise(nil), h.raises...)
}

func (h *hub) Disconnected(*control.Peer, error) {
	h.mu.Lock()
	h.clients--
	h.mu.Unlock()
}

func (h *hub) indexLocked(request string) int {
	for i, w := range h.waiting {
		if w.Request == request {
			return i
		}
	}
	return -1
}

func (h *hub) publish(b control.Body) {
	if err := h.srv.Publish(b); err != nil {
		h.t.Errorf("hub: publishing %s: %v", b.MessageType(), err)
	}
}

// addRun adds a run and tells the page.
func (h *hub) addRun(r control.Run) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.runs = append(h.runs, r)
	h.publish(r)
}

// ask puts a request of run r in front of the page, and returns its id.
func (h *hub) ask(r control.Run, tool string, input any, within time.Duration) string {
	raw, err := json.Marshal(input)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.put(control.Approval{
		Run:  control.RunRef{ID: r.ID, Kind: r.Kind, Checkout: r.Checkout, Name: r.Name, Prompt: r.Prompt},
		Tool: tool, Input: raw, ToolUseID: "toolu_" + r.ID,
		Asked: time.Now(), Deadline: time.Now().Add(within),
	})
}

// put puts a in front of the page, under a request id of the hub's, and returns the id.
func (h *hub) put(a control.Approval) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	a.Request = fmt.Sprintf("req-%d", len(h.waiting)+len(h.answers)+1)
	h.waiting = append(h.waiting, a)
	h.publish(a)
	return a.Request
}

// Answers returns the answers taken so far.
func (h *hub) Answers() []control.Answer {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]control.Answer(nil), h.answers...)
}

// Clients returns how many clients are connected.
func (h *hub) Clients() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clients
}

// testRun is a run the tests show.
func testRun(id string) control.Run {
	return control.Run{Name: "web", Info: runs.Info{ID: id, Kind: runs.KindBuild, Checkout: "/src/web",
		Prompt: "Fix the flaky login test", State: runs.StateWaiting, Created: time.Now()}}
}
