package runs

// WaitReason says what a waiting run (StateWaiting) waits for: a front end shows the
// two apart, and a person answers them in different places.
type WaitReason string

// The reasons a run waits.
const (
	// WaitApproval: an approval request of the run waits for a person's answer.
	WaitApproval WaitReason = "approval"
	// WaitReply: Claude Code finished its turn and the run, kept open (Spec.KeepOpen),
	// waits for the person's next message, until the idle timeout ends it.
	WaitReply WaitReason = "reply"
	// WaitBudget: a turn ended at or over the run's budget, and the run waits for the
	// person to raise it (Run.RaiseBudget) or stop it; no further turn starts meanwhile.
	WaitBudget WaitReason = "budget"
)

// The reasons a waiting run's state gives, for a person.
const (
	waitingForApproval = "an approval request waits for a person"
	waitingForReply    = "waiting for your reply"
	waitingAtBudget    = "budget reached"
)

// waitFor says what a started run that nobody stopped waits for, from what it knows: an
// approval while one is pending; the person's reply while its input is idle (kept open,
// every message sent has its result); a raise of its budget while its input is over it;
// nothing (it is running) otherwise.
func waitFor(pending int, in input) WaitReason {
	switch {
	case pending > 0:
		return WaitApproval
	case in.state == inputIdle:
		return WaitReply
	case in.state == inputOver:
		return WaitBudget
	}
	return ""
}

// settleLocked moves a started run that nobody stopped between running and waiting, as
// waitFor says. It changes nothing before the process has started, once a stop was asked,
// or once the process exited: their states say more. r.mu is held.
func (r *Run) settleLocked() {
	if r.proc == nil || r.phase != phaseRunning {
		return
	}
	switch r.info.State {
	case StateStarting, StateRunning, StateWaiting:
	default:
		return
	}
	switch w := waitFor(r.pending, r.input); w {
	case WaitApproval:
		r.changeStateLocked(StateWaiting, w, waitingForApproval)
	case WaitReply:
		r.changeStateLocked(StateWaiting, w, waitingForReply)
	case WaitBudget:
		r.changeStateLocked(StateWaiting, w, r.budget.reached(r.usageLocked(), r.input.results))
	default:
		r.changeStateLocked(StateRunning, "", "")
	}
}

// WaitsAtBudget says whether the run waits at its budget (WaitBudget), for the person to
// raise it or stop it.
func (in Info) WaitsAtBudget() bool { return in.State == StateWaiting && in.Waiting == WaitBudget }

// StateText is the run's state as a list shows it in a word or three: its state, or for a
// waiting run what it waits for ("waiting for your reply", "waiting for approval").
func (in Info) StateText() string { return stateText(in.State, in.Waiting) }

// stateText is StateText of a run in state s, waiting for w.
func stateText(s State, w WaitReason) string {
	switch {
	case s != StateWaiting:
		return string(s)
	case w == WaitReply:
		return waitingForReply
	case w == WaitBudget:
		return waitingAtBudget
	}
	return "waiting for approval"
}
