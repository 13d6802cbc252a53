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
type input struct {
	state inputState
	// last says the input closes once every message sent has its result: a run not kept
	// open (Spec.KeepOpen), or one whose CloseInput came before its agent started.
	last    bool
	out     int // messages written whose result has not come yet
	results int // results read, in all
}

// newInput returns the input of a run that has not started, kept open for the person's
// follow-ups or not.
func newInput(keepOpen bool) input { return input{last: !keepOpen} }

// inputState is what the agent's input is doing.
type inputState uint8

// The input states.
const (
	inputUnsent inputState = iota // the agent has not started: its prompt waits
	inputBusy                     // messages are out without their results: the agent works on them
	inputIdle                     // every message has its result; the input stays open for the person's reply
	inputClosed                   // nothing more goes in: the agent ends once it has finished
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
	}
	return "inputState(?)"
}

// inputEvent is what happens to a run's input.
type inputEvent uint8

// The input events.
const (
	sendPrompt   inputEvent = iota // the agent started: its prompt goes in
	sendFollowUp                   // the person sends a message (Send)
	gotResult                      // a turn's result came out
	closeAsked                     // CloseInput
	idleOver                       // the idle timeout passed since the last result, and nobody followed up
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
		switch in.state {
		case inputUnsent:
			return in, inputRefuseUnstarted
		case inputClosed:
			return in, inputRefuseClosed
		}
		in.state = inputBusy
		in.out++
		return in, inputWrite
	case gotResult:
		in.results++
		in.out = max(in.out-1, 0)
		if in.state != inputBusy || in.out > 0 {
			return in, inputKeep
		}
		if in.last {
			in.state = inputClosed
			return in, inputShut
		}
		in.state = inputIdle
		return in, inputKeep
	case closeAsked:
		switch in.state {
		case inputUnsent:
			in.last = true
			return in, inputKeep
		case inputClosed:
			return in, inputKeep
		}
		in.state = inputClosed
		return in, inputShut
	case idleOver:
		if in.state != inputIdle {
			return in, inputKeep // the idle timeout of a busy or closed run is a limit's, not the input's
		}
		in.state = inputClosed
		return in, inputShut
	}
	return in, inputKeep
}

// finished says whether every message sent has its result.
func (in input) finished() bool { return in.out == 0 }
