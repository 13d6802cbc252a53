package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for a Broker and the MCP server in front of it.
const (
	DefaultTimeout    = 10 * time.Minute // approvals.timeout when it is not set
	DefaultMaxPending = 16               // requests of one run that may wait for a person

	// ToolCallWait bounds how long a request waits for its tool call to appear on the
	// run's output. Claude Code 2.1.328 prints the call 50 to 150 ms before it asks.
	ToolCallWait = 5 * time.Second
)

// The causes a Decider finds with context.Cause once its request's context is done.
var (
	// ErrTimedOut: nobody answered within approvals.timeout.
	ErrTimedOut = errors.New("approvals: no answer within the approval timeout")
	// ErrRunEnded: the run ended (or segwi shut down) while the request waited.
	ErrRunEnded = errors.New("approvals: the run ended")
	// ErrRunOutOfTime: the request's deadline was its run's end (Request.RunEnds), its
	// runs.maxDuration, and it came; the run is stopped then. It wraps ErrRunEnded.
	ErrRunOutOfTime = fmt.Errorf("%w at its maximum duration (runs.maxDuration)", ErrRunEnded)
	// ErrWithdrawn: the run's agent hung up before an answer while its run went on: it
	// stopped waiting (Claude Code's own tool-call timeout had run out).
	ErrWithdrawn = errors.New("approvals: the run's agent stopped waiting for the answer")
)

// A Call is one call of the approval tool, as Claude Code sends it.
type Call struct {
	ToolName  string
	Input     json.RawMessage
	ToolUseID string
	// Invalid says why the call's arguments could not be read one way only (a key twice,
	// or in two cases); the broker then denies it at once. Claude Code never sends such a
	// call.
	Invalid string
}

// A Broker holds the requests of every registered run while they wait for a trusted rule,
// a person or the timeout. Runs are independent: each has its own pending requests and
// its own limit. A Broker is safe for concurrent use.
type Broker struct {
	decider      Decider
	maxPending   int
	toolCallWait time.Duration
	now          func() time.Time
	nextID       atomic.Uint64

	mu      sync.Mutex
	timeout time.Duration
	trusted Trusted
	runs    map[string]*brokerRun
}

type brokerRun struct {
	info    RunInfo
	run     Run
	maxWait time.Duration   // the approval timeout when it was added: its Claude Code waits that long and a little more
	gone    context.Context // done once the run is removed
	end     context.CancelFunc

	mu      sync.Mutex
	ended   bool
	pending map[string]context.CancelCauseFunc // by request id
	active  sync.WaitGroup                     // calls of Ask under way
}

// NewBroker returns a Broker that puts requests in front of decider, with at most
// maxPending requests of one run waiting at once (DefaultMaxPending when maxPending is
// zero or less). Until SetPolicy is called it trusts nothing and times out after
// DefaultTimeout.
func NewBroker(decider Decider, maxPending int) *Broker {
	if maxPending <= 0 {
		maxPending = DefaultMaxPending
	}
	return &Broker{
		decider:      decider,
		maxPending:   maxPending,
		toolCallWait: ToolCallWait,
		now:          time.Now,
		timeout:      DefaultTimeout,
		runs:         make(map[string]*brokerRun),
	}
}

// SetPolicy sets the approval timeout (DefaultTimeout when zero or less) and the trusted
// commands. Requests that already wait keep the deadline they were given, and the runs
// already added keep their bound (see AddRun).
func (b *Broker) SetPolicy(timeout time.Duration, trusted Trusted) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.timeout = timeout
	b.trusted = trusted
}

// AddRun makes run known to the broker and returns its bound: the longest any of its
// requests waits. It fails if a run with the same id is known.
//
// The bound is the approval timeout in force now, and holds for as long as the run lives:
// its Claude Code is to be told to wait that long (plus ToolTimeoutSlack) for an answer,
// and cannot be told otherwise once it runs. A later SetPolicy with a shorter timeout
// applies to its requests; one with a longer timeout does not.
func (b *Broker) AddRun(info RunInfo, run Run) (time.Duration, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.runs[info.ID]; ok {
		return 0, fmt.Errorf("approvals: run %s is already registered", info.ID)
	}
	gone, end := context.WithCancel(context.Background())
	b.runs[info.ID] = &brokerRun{info: info, run: run, maxWait: b.timeout, gone: gone, end: end,
		pending: make(map[string]context.CancelCauseFunc)}
	return b.timeout, nil
}

// RemoveRun ends a run's requests: each pending one is denied (ByRunEnded) and withdrawn
// from the Decider by cancelling its context. It returns once every request of the run
// under way has its answer recorded and SetPending has reported zero; after that the
// broker never calls the run again, except for a Stop already decided (see Ask). The
// caller must not hold a lock that the run's RecordApproval or SetPending needs.
func (b *Broker) RemoveRun(runID string) {
	b.mu.Lock()
	br := b.runs[runID]
	delete(b.runs, runID)
	b.mu.Unlock()
	if br == nil {
		return
	}
	br.mu.Lock()
	br.ended = true
	br.end()
	for _, cancel := range br.pending {
		cancel(ErrRunEnded)
	}
	br.mu.Unlock()
	br.active.Wait()
}

// Ask answers one call of run runID. A call whose arguments could be read two ways is
// denied at once (ByInvalid), and so is a call whose tool use the run's Claude Code is not
// making (see Run.ToolCallRunning, waited for at most ToolCallWait). A trusted Bash command
// is allowed at once; anything else waits for the Decider until it answers, the deadline
// passes (the approval timeout, or the run's shorter bound: see AddRun; or the run's end,
// Run.Ends, when that comes first: Request.RunEnds), the run is removed, or ctx is done
// (its cause ErrWithdrawn or ErrRunEnded), whichever comes first. Every request and its
// answer are recorded on the run. Ask always returns an answer: a deny is a result, not an error.
// When the person chose to deny and stop the run, Ask calls the run's Stop on its own
// goroutine after recording the answer, so that the answer still reaches Claude Code.
func (b *Broker) Ask(ctx context.Context, runID string, call Call) Answer {
	asked := b.now()
	b.mu.Lock()
	br := b.runs[runID]
	timeout, trusted := b.timeout, b.trusted
	b.mu.Unlock()
	if br == nil {
		return runEndedAnswer()
	}
	timeout = min(timeout, br.maxWait)
	br.mu.Lock()
	if br.ended {
		br.mu.Unlock()
		return runEndedAnswer()
	}
	br.active.Add(1)
	br.mu.Unlock()
	defer br.active.Done()

	req := Request{
		ID:        "req-" + strconv.FormatUint(b.nextID.Add(1), 10),
		Run:       br.info,
		ToolName:  call.ToolName,
		Input:     call.Input,
		ToolUseID: call.ToolUseID,
		Asked:     asked,
	}
	req.Deadline, req.RunEnds = deadline(asked, timeout, br.run.Ends())
	var verdict Verdict
	if call.Invalid != "" {
		req.Note = "Refused unread: its arguments could be read two ways (" + call.Invalid + "); the input shown is the whole arguments."
	} else if verdict = trusted.Check(call.ToolName, call.Input); verdict.Unchecked != "" {
		req.Note = "Not checked against your trusted commands: " + verdict.Unchecked + "."
	}
	br.run.RecordApproval(Record{Request: req})

	var answer Answer
	switch {
	case call.Invalid != "":
		answer = Answer{By: ByInvalid, Message: "denied: segwi could not read this approval request one way only: " +
			call.Invalid + ". " + br.info.agentWords() + " does not send such requests."}
	case !b.callIsRunning(ctx, br, req.ToolUseID):
		answer = notRunningAnswer(ctx, br)
	default:
		// A run knows its end once its agent's process has started (runs.Run.Ends), so
		// the request had it when recorded above; a Run that learns it later has it once
		// the call shows on the run's output.
		if !req.RunEnds {
			req.Deadline, req.RunEnds = deadline(asked, timeout, br.run.Ends())
		}
		answer = b.answer(ctx, br, req, verdict, timeout)
	}
	if answer.By == ByCancelled {
		answer.Message = cancelledMessage(br, b.now().Sub(asked))
	}
	answer.Waited = b.now().Sub(asked)
	br.run.RecordApproval(Record{Request: req, Answer: &answer})
	if answer.Interrupt {
		go br.run.Stop()
	}
	return answer
}

// deadline returns when a request asked at asked is denied for want of an answer: timeout
// after it was asked, or the run's end when that comes first (and then true).
func deadline(asked time.Time, timeout time.Duration, runEnds time.Time) (time.Time, bool) {
	d := asked.Add(timeout)
	if !runEnds.IsZero() && runEnds.Before(d) {
		return runEnds, true
	}
	return d, false
}

// callIsRunning asks the run whether its Claude Code is making the tool call toolUseID,
// waiting no longer than the broker's tool-call wait, the run, or the caller.
func (b *Broker) callIsRunning(ctx context.Context, br *brokerRun, toolUseID string) bool {
	if toolUseID == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, b.toolCallWait)
	defer cancel()
	stop := context.AfterFunc(br.gone, cancel)
	defer stop()
	return br.run.ToolCallRunning(ctx, toolUseID)
}

// notRunningAnswer is the answer to a request whose tool call was not found: run-ended or
// withdrawn when the wait was cut short by the run or the caller, otherwise unknown-call.
func notRunningAnswer(ctx context.Context, br *brokerRun) Answer {
	switch {
	case br.gone.Err() != nil:
		return runEndedAnswer()
	case ctx.Err() != nil:
		return withdrawnAnswer(context.Cause(ctx), 0)
	}
	return Answer{
		By: ByUnknownCall,
		Message: "denied: this request names no tool call that the run's " + br.info.agentWords() + " is making, " +
			"so segwi did not put it to a person",
	}
}

// cancelledMessage says that br's agent stopped waiting after waited, before a person
// answered. Claude Code does so when the tool-call timeout segwi gave it runs out; an ACP
// agent has no such timeout (segwi gives it none), so it hung up for a reason of its own.
func cancelledMessage(br *brokerRun, waited time.Duration) string {
	if br.info.Agent != "" {
		return fmt.Sprintf("%s stopped waiting for an answer after %s, before a person answered. Nobody declined it.",
			br.info.Agent, waited.Round(time.Second))
	}
	return fmt.Sprintf("Claude Code stopped waiting for an answer after %s, before a person answered: "+
		"its own tool-call timeout ran out (segwi had told it to wait %s). Nobody declined it.",
		waited.Round(time.Second), br.maxWait+ToolTimeoutSlack)
}

// answer decides req: by rule, by the limit, or by the Decider within the deadline.
func (b *Broker) answer(ctx context.Context, br *brokerRun, req Request, verdict Verdict, timeout time.Duration) Answer {
	if verdict.Allowed {
		return Answer{Allow: true, By: ByTrusted, Rule: verdict.Rule}
	}

	runCtx, cancelRun := context.WithCancelCause(ctx)
	defer cancelRun(nil)
	cause := ErrTimedOut
	if req.RunEnds {
		cause = ErrRunOutOfTime // the run is stopped then too (see Run.Ends)
	}
	dctx, cancelDeadline := context.WithDeadlineCause(runCtx, req.Deadline, cause)
	defer cancelDeadline()

	br.mu.Lock()
	switch {
	case br.ended:
		br.mu.Unlock()
		return runEndedAnswer()
	case len(br.pending) >= b.maxPending:
		br.mu.Unlock()
		return Answer{
			By:      ByLimit,
			Message: fmt.Sprintf("denied: this run already has %d requests waiting for a person", b.maxPending),
		}
	}
	br.pending[req.ID] = cancelRun
	br.run.SetPending(len(br.pending))
	br.mu.Unlock()
	defer func() {
		br.mu.Lock()
		delete(br.pending, req.ID)
		br.run.SetPending(len(br.pending))
		br.mu.Unlock()
	}()

	type decided struct {
		answer Answer
		err    error
	}
	// Buffered: a Decider that returns late never blocks on a request already answered.
	result := make(chan decided, 1)
	go func() {
		a, err := b.decider.Decide(dctx, req)
		result <- decided{a, err}
	}()

	select {
	case d := <-result:
		if d.err != nil && dctx.Err() != nil {
			return b.withdrawnAt(br, req, context.Cause(dctx), timeout)
		}
		return fromDecider(d.answer, d.err)
	case <-dctx.Done():
		// A person's answer that arrived together with the deadline still counts.
		select {
		case d := <-result:
			if d.err == nil {
				return fromDecider(d.answer, nil)
			}
		default:
		}
		return b.withdrawnAt(br, req, context.Cause(dctx), timeout)
	}
}

// withdrawnAt is the answer to req, whose context ended for cause before anyone answered.
// At the run's end (ErrRunOutOfTime) the run is stopped too, unless a reload has since
// lengthened runs.maxDuration: then the request ends at the deadline it was shown, as
// timed out, saying so.
func (b *Broker) withdrawnAt(br *brokerRun, req Request, cause error, timeout time.Duration) Answer {
	if errors.Is(cause, ErrRunOutOfTime) {
		if ends := br.run.Ends(); ends.After(b.now()) {
			return Answer{
				By: ByTimeout,
				Message: fmt.Sprintf("No answer from a person by the request's deadline, %s, when the run was to end "+
					"(runs.maxDuration, since made longer); denied by segwi. The person did not decline it: ask again or do without.",
					req.Deadline.Format(time.TimeOnly)),
			}
		}
	}
	return withdrawnAnswer(cause, timeout)
}

// fromDecider turns what a Decider returned, before its request's context ended, into the
// answer Claude Code gets.
func fromDecider(a Answer, err error) Answer {
	if err != nil {
		return Answer{By: ByFailure, Message: "denied: segwi could not ask a person: " + err.Error()}
	}
	switch a.By {
	case ByNoTerminal:
		if a.Message == "" {
			a.Message = "denied: no person was at the terminal to approve this call"
		}
		return Answer{By: ByNoTerminal, Message: a.Message}
	default:
		out := Answer{Allow: a.Allow && !a.Interrupt, By: ByPerson, Who: a.Who}
		if out.Allow {
			return out
		}
		reason := a.Message
		if reason == "" {
			reason = "no reason given"
		}
		if a.Interrupt {
			out.Interrupt = true
			out.Message = "Denied by the person at segwi, who also stopped the run: " + reason
		} else {
			out.Message = "Denied by the person at segwi: " + reason
		}
		return out
	}
}

// withdrawnAnswer is the answer to a request whose context ended before anyone answered.
func withdrawnAnswer(cause error, timeout time.Duration) Answer {
	switch {
	case errors.Is(cause, ErrTimedOut):
		return Answer{
			By: ByTimeout,
			Message: fmt.Sprintf("No answer from a person within %s; denied by segwi's approval timeout. "+
				"The person did not decline it: ask again or do without.", timeout),
		}
	case errors.Is(cause, ErrRunOutOfTime):
		return Answer{By: ByRunEnded, Message: "denied: the segwi run reached its maximum duration (runs.maxDuration) " +
			"before a person answered, and is stopped"}
	case errors.Is(cause, ErrRunEnded):
		return runEndedAnswer()
	default:
		return Answer{By: ByCancelled} // Ask words its message (cancelledMessage)
	}
}

func runEndedAnswer() Answer {
	return Answer{By: ByRunEnded, Message: "denied: the segwi run ended before a person answered"}
}
