package runs

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
		r.changeStateLocked(StateWaiting, w, r.budget.Reached(r.usageLocked(), r.input.results))
	default:
		r.changeStateLocked(StateRunning, "", "")
	}
}
