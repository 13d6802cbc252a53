package runs

import "testing"

// TestInputMoves lists what every event does to the input in every state, and what the
// move does: the whole of a run's conversation with its agent. A pair missing from the
// table fails the test, so a new state or event cannot go unlisted.
func TestInputMoves(t *testing.T) {
	type move struct {
		from  inputState
		event inputEvent
	}
	tests := []struct {
		name string
		move
		in   input // the input before, its state set from move
		want input
		does inputAction
	}{
		{"the prompt goes in once the agent starts", move{inputUnsent, sendPrompt}, input{},
			input{state: inputBusy, out: 1}, inputWrite},
		{"a follow-up before the agent started is refused", move{inputUnsent, sendFollowUp}, input{},
			input{}, inputRefuseUnstarted},
		{"a result before the start is counted and changes nothing", move{inputUnsent, gotResult}, input{},
			input{results: 1}, inputKeep},
		{"a close before the start lets the prompt's turn finish first", move{inputUnsent, closeAsked}, input{},
			input{last: true}, inputKeep},
		{"the idle timeout before the start is not the input's", move{inputUnsent, idleOver}, input{},
			input{}, inputKeep},

		{"a second prompt is not written", move{inputBusy, sendPrompt}, input{out: 1},
			input{state: inputBusy, out: 1}, inputKeep},
		{"a follow-up during a turn goes in and waits its turn", move{inputBusy, sendFollowUp}, input{out: 1},
			input{state: inputBusy, out: 2}, inputWrite},
		{"the last result of a kept-open run leaves it idle for a reply", move{inputBusy, gotResult}, input{out: 1},
			input{state: inputIdle, results: 1}, inputKeep},
		{"the last result of a run not kept open closes its input", move{inputBusy, gotResult}, input{last: true, out: 1},
			input{state: inputClosed, last: true, results: 1}, inputShut},
		{"a result with more messages out keeps the run busy", move{inputBusy, gotResult}, input{last: true, out: 2},
			input{state: inputBusy, last: true, out: 1, results: 1}, inputKeep},
		{"a close during a turn closes the input: the turn finishes, then the agent exits", move{inputBusy, closeAsked}, input{out: 1},
			input{state: inputClosed, out: 1}, inputShut},
		{"the idle timeout in a turn is a limit's, not the input's", move{inputBusy, idleOver}, input{out: 1},
			input{state: inputBusy, out: 1}, inputKeep},

		{"a prompt to an idle run is not written", move{inputIdle, sendPrompt}, input{results: 1},
			input{state: inputIdle, results: 1}, inputKeep},
		{"a reply puts the run back to work", move{inputIdle, sendFollowUp}, input{results: 1},
			input{state: inputBusy, out: 1, results: 1}, inputWrite},
		{"a stray result keeps it idle", move{inputIdle, gotResult}, input{results: 1},
			input{state: inputIdle, results: 2}, inputKeep},
		{"a close ends an idle run", move{inputIdle, closeAsked}, input{results: 1},
			input{state: inputClosed, results: 1}, inputShut},
		{"the idle timeout with nobody following up closes the input", move{inputIdle, idleOver}, input{results: 1},
			input{state: inputClosed, results: 1}, inputShut},

		{"no prompt goes into a closed input", move{inputClosed, sendPrompt}, input{results: 1},
			input{state: inputClosed, results: 1}, inputKeep},
		{"a follow-up to a closed input is refused", move{inputClosed, sendFollowUp}, input{results: 1},
			input{state: inputClosed, results: 1}, inputRefuseClosed},
		{"the result of the turn a close let finish is counted", move{inputClosed, gotResult}, input{out: 1},
			input{state: inputClosed, results: 1}, inputKeep},
		{"a second close does nothing", move{inputClosed, closeAsked}, input{results: 1},
			input{state: inputClosed, results: 1}, inputKeep},
		{"the idle timeout of a closed input is a limit's", move{inputClosed, idleOver}, input{results: 1},
			input{state: inputClosed, results: 1}, inputKeep},
	}
	listed := map[move]bool{}
	for _, tt := range tests {
		listed[tt.move] = true
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in
			in.state = tt.from
			got, does := in.next(tt.event)
			if got != tt.want || does != tt.does {
				t.Errorf("%+v on %s: got %+v doing %s, want %+v doing %s", in, tt.event, got, does, tt.want, tt.does)
			}
		})
	}
	for s := inputUnsent; s <= inputClosed; s++ {
		for e := sendPrompt; e <= idleOver; e++ {
			if !listed[move{s, e}] {
				t.Errorf("the table does not say what %s does to an input %s", e, s)
			}
		}
	}
}

// inputAfter returns the input of a run kept open or not after events, in order, from the
// start.
func inputAfter(keepOpen bool, events ...inputEvent) input {
	in := newInput(keepOpen)
	for _, e := range events {
		in, _ = in.next(e)
	}
	return in
}

// The conversations a run has, from its start to its end, as the person sees them.
func TestInputConversations(t *testing.T) {
	tests := []struct {
		name     string
		keepOpen bool
		events   []inputEvent
		want     inputState
		finished bool // every message sent has its result
	}{
		{"a run not kept open closes with its result", false, []inputEvent{sendPrompt, gotResult}, inputClosed, true},
		{"a kept-open run waits for a reply after its result", true, []inputEvent{sendPrompt, gotResult}, inputIdle, true},
		{"a follow-up sent during the first turn keeps a run busy after the first result", false,
			[]inputEvent{sendPrompt, sendFollowUp, gotResult}, inputBusy, false},
		{"and its result closes the input", false, []inputEvent{sendPrompt, sendFollowUp, gotResult, gotResult}, inputClosed, true},
		{"a kept-open run closed before it started closes after its first turn", true,
			[]inputEvent{closeAsked, sendPrompt, gotResult}, inputClosed, true},
		{"a kept-open run nobody follows up closes at the idle timeout", true,
			[]inputEvent{sendPrompt, gotResult, sendFollowUp, gotResult, idleOver}, inputClosed, true},
		{"a run closed in its turn has a result still to come", true, []inputEvent{sendPrompt, closeAsked}, inputClosed, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := inputAfter(tt.keepOpen, tt.events...)
			if in.state != tt.want || in.finished() != tt.finished {
				t.Errorf("after %v: %s (finished %v), want %s (finished %v)", tt.events, in.state, in.finished(), tt.want, tt.finished)
			}
		})
	}
}
