package runs

// input is where a run's conversation with its agent stands: what the person may send, and
// when the agent's input closes, which is how a run ends normally (its last result,
// CloseInput, the idle timeout after a turn nobody followed up). Its moves are next's; the
// run carries out what a move does.
//
//	unsent --prompt--> busy --result, more out--> busy
//	                    |  \--last result, kept open--> idle --send--> busy
//	                    |  \--last result, not kept open------------------------+
//	                    +--close--> closed <--close, idle timeout-- idle         |
//	                                  ^------------------------------------------+
//
// A CloseInput before the agent started does not close anything yet: the prompt still
// goes, and the input closes once its turn is over, as for a run not kept open.
//
// A run with a budget (budget.go) holds the person's follow-ups while a turn is going
// and writes the oldest once the turn has ended under the budget; a turn that ends at or
// over it leaves the input over budget, where nothing goes in until the budget is raised:
//
//	busy --result, under budget, one held--> busy (the held follow-up goes in)
//	busy --result, at or over budget--> over --raise--> busy (one held) or idle
//	over --send--> over (held) ; over --close, idle timeout--> closed (held ones dropped)
type input struct {
	state inputState
	// last says the input closes once every message sent has its result: a run not kept
	// open (Spec.KeepOpen), or one whose CloseInput came before its agent started.
	last    bool
	out     int // messages written whose result has not come yet
	results int // results read, in all
	// hold keeps the person's follow-ups out of the agent's input while a turn is going:
	// a run with a budget, which is checked where each turn ends.
	hold bool
	held int // follow-ups held, not written yet (the run keeps their texts, oldest first)
}

// newInput returns the input of a run that has not started, kept open for the person's
// follow-ups or not. A run with a budget sets hold.
func newInput(keepOpen bool) input { return input{last: !keepOpen} }

// inputState is what the agent's input is doing.
type inputState uint8

// The input states.
const (
	inputUnsent inputState = iota // the agent has not started: its prompt waits
	inputBusy                     // messages are out without their results: the agent works on them
	inputIdle                     // every message has its result; the input stays open for the person's reply
	inputClosed                   // nothing more goes in: the agent ends once it has finished
	inputOver                     // a turn ended at or over the run's budget: nothing goes in until it is raised
)

func (s inputState) String() string {
	switch s {
	case inputUnsent:
		return "unsent"
	case inputBusy:
		return "busy"
	case inputIdle:
		return "idle"
	case inputClosed:
		return "closed"
	case inputOver:
		return "over budget"
	}
	return "inputState(?)"
}

// inputEvent is what happens to a run's input.
type inputEvent uint8

// The input events.
const (
	sendPrompt    inputEvent = iota // the agent started: its prompt goes in
	sendFollowUp                    // the person sends a message (Send)
	gotResult                       // a turn's result came out
	closeAsked                      // CloseInput
	idleOver                        // the idle timeout passed since the last result, and nobody followed up
	gotResultOver                   // a turn's result came out, and the run is at or over its budget
	budgetRaised                    // the person raised the run's budget above what it used
)

func (e inputEvent) String() string {
	switch e {
	case sendPrompt:
		return "prompt"
	case sendFollowUp:
		return "send"
	case gotResult:
		return "result"
	case closeAsked:
		return "close"
	case idleOver:
		return "idle"
	case gotResultOver:
		return "result over budget"
	case budgetRaised:
		return "raise"
	}
	return "inputEvent(?)"
}

// inputAction is what a move of the input does besides changing it.
type inputAction uint8

// The input actions.
const (
	inputKeep            inputAction = iota // nothing
	inputWrite                              // write the message to the agent's input
	inputShut                               // close the agent's input: it finishes its turn and exits
	inputRefuseClosed                       // refuse the message: ErrInputClosed
	inputRefuseUnstarted                    // refuse the message: the agent has not started (ErrNotRunning)
	inputHold                               // hold the message back: it goes once the turn has ended under the budget
	inputWriteHeld                          // write the oldest message held back
)

func (a inputAction) String() string {
	switch a {
	case inputKeep:
		return "nothing"
	case inputWrite:
		return "write"
	case inputShut:
		return "close"
	case inputRefuseClosed:
		return "refuse (closed)"
	case inputRefuseUnstarted:
		return "refuse (not started)"
	case inputHold:
		return "hold"
	case inputWriteHeld:
		return "write held"
	}
	return "inputAction(?)"
}

// next returns the input after e, and what the move does. It is the whole of the input's
// logic; the run carries out the action.
func (in input) next(e inputEvent) (input, inputAction) {
	switch e {
	case sendPrompt:
		if in.state != inputUnsent {
			return in, inputKeep
		}
		in.state, in.out = inputBusy, 1
		return in, inputWrite
	case sendFollowUp:
		switch {
		case in.state == inputUnsent:
			return in, inputRefuseUnstarted
		case in.state == inputClosed:
			return in, inputRefuseClosed
		case in.state == inputOver, in.state == inputBusy && in.hold:
			in.held++
			return in, inputHold
		}
		in.state = inputBusy
		in.out++
		return in, inputWrite
	case gotResult, gotResultOver:
		in.results++
		in.out = max(in.out-1, 0)
		if in.state != inputBusy || in.out > 0 {
			return in, inputKeep
		}
		if e == gotResultOver && (in.held > 0 || !in.last) {
			in.state = inputOver
			return in, inputKeep
		}
		return in.turnOver()
	case closeAsked:
		switch in.state {
		case inputUnsent:
			in.last = true
			return in, inputKeep
		case inputClosed:
			return in, inputKeep
		}
		in.state, in.held = inputClosed, 0
		return in, inputShut
	case idleOver:
		if in.state != inputIdle && in.state != inputOver {
			return in, inputKeep // the idle timeout of a busy or closed run is a limit's, not the input's
		}
		in.state, in.held = inputClosed, 0
		return in, inputShut
	case budgetRaised:
		if in.state != inputOver {
			return in, inputKeep
		}
		return in.turnOver()
	}
	return in, inputKeep
}

// turnOver is where the input goes once a turn is over and nothing holds the run: the
// oldest follow-up held goes in, else the input closes (the run's last message had its
// result) or waits for the person's reply.
func (in input) turnOver() (input, inputAction) {
	switch {
	case in.held > 0:
		in.state, in.out = inputBusy, 1
		in.held--
		return in, inputWriteHeld
	case in.last:
		in.state = inputClosed
		return in, inputShut
	}
	in.state = inputIdle
	return in, inputKeep
}

// finished says whether every message sent has its result.
func (in input) finished() bool { return in.out == 0 }
