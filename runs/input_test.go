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

		{"a result over budget before the start is counted and changes nothing", move{inputUnsent, gotResultOver}, input{hold: true},
			input{hold: true, results: 1}, inputKeep},
		{"a raise before the start changes nothing", move{inputUnsent, budgetRaised}, input{hold: true},
			input{hold: true}, inputKeep},
		{"a follow-up during a turn of a run with a budget is held", move{inputBusy, sendFollowUp}, input{hold: true, out: 1},
			input{state: inputBusy, hold: true, out: 1, held: 1}, inputHold},
		{"a result under the budget writes the oldest follow-up held", move{inputBusy, gotResult}, input{hold: true, out: 1, held: 2},
			input{state: inputBusy, hold: true, out: 1, held: 1, results: 1}, inputWriteHeld},
		{"a result over the budget holds the run", move{inputBusy, gotResultOver}, input{hold: true, out: 1},
			input{state: inputOver, hold: true, results: 1}, inputKeep},
		{"a result over the budget holds the run and its follow-ups", move{inputBusy, gotResultOver}, input{hold: true, last: true, out: 1, held: 3},
			input{state: inputOver, hold: true, last: true, held: 3, results: 1}, inputKeep},
		{"the last result of a run not kept open closes it, over the budget or not", move{inputBusy, gotResultOver}, input{hold: true, last: true, out: 1},
			input{state: inputClosed, hold: true, last: true, results: 1}, inputShut},
		{"a result over the budget with more messages out keeps the run busy", move{inputBusy, gotResultOver}, input{out: 2},
			input{state: inputBusy, out: 1, results: 1}, inputKeep},
		{"a raise during a turn changes nothing", move{inputBusy, budgetRaised}, input{hold: true, out: 1},
			input{state: inputBusy, hold: true, out: 1}, inputKeep},
		{"a close during a turn drops the follow-ups held", move{inputBusy, closeAsked}, input{hold: true, out: 1, held: 2},
			input{state: inputClosed, hold: true, out: 1}, inputShut},
		{"a stray result over the budget keeps an idle run idle", move{inputIdle, gotResultOver}, input{hold: true, results: 1},
			input{state: inputIdle, hold: true, results: 2}, inputKeep},
		{"a raise while idle changes nothing", move{inputIdle, budgetRaised}, input{hold: true, results: 1},
			input{state: inputIdle, hold: true, results: 1}, inputKeep},
		{"the result over the budget of the turn a close let finish is counted", move{inputClosed, gotResultOver}, input{hold: true, out: 1},
			input{state: inputClosed, hold: true, results: 1}, inputKeep},
		{"a raise of a closed input changes nothing", move{inputClosed, budgetRaised}, input{hold: true, results: 1},
			input{state: inputClosed, hold: true, results: 1}, inputKeep},

		{"no prompt goes in over the budget", move{inputOver, sendPrompt}, input{hold: true, results: 2},
			input{state: inputOver, hold: true, results: 2}, inputKeep},
		{"a follow-up over the budget is held", move{inputOver, sendFollowUp}, input{hold: true, results: 2},
			input{state: inputOver, hold: true, held: 1, results: 2}, inputHold},
		{"a stray result over the budget is counted", move{inputOver, gotResult}, input{hold: true, results: 2},
			input{state: inputOver, hold: true, results: 3}, inputKeep},
		{"a stray result still over the budget is counted", move{inputOver, gotResultOver}, input{hold: true, results: 2},
			input{state: inputOver, hold: true, results: 3}, inputKeep},
		{"a close over the budget closes the input, dropping what was held", move{inputOver, closeAsked}, input{hold: true, held: 2, results: 2},
			input{state: inputClosed, hold: true, results: 2}, inputShut},
		{"the idle timeout over the budget closes the input, dropping what was held", move{inputOver, idleOver}, input{hold: true, held: 1, results: 2},
			input{state: inputClosed, hold: true, results: 2}, inputShut},
		{"a raise writes the oldest follow-up held", move{inputOver, budgetRaised}, input{hold: true, held: 2, results: 2},
			input{state: inputBusy, hold: true, out: 1, held: 1, results: 2}, inputWriteHeld},
		{"a raise with nothing held waits for the person's reply", move{inputOver, budgetRaised}, input{hold: true, results: 2},
			input{state: inputIdle, hold: true, results: 2}, inputKeep},
		{"a raise of a run not kept open with nothing held closes it", move{inputOver, budgetRaised}, input{hold: true, last: true, results: 2},
			input{state: inputClosed, hold: true, last: true, results: 2}, inputShut},
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
	for s := inputUnsent; s <= inputOver; s++ {
		for e := sendPrompt; e <= budgetRaised; e++ {
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

// A run with a budget of two turns whose person sent four follow-ups during its first
// turn: the agent gets one message a turn, none after the second turn until the raise.
func TestInputBudgetConversation(t *testing.T) {
	in := newInput(true)
	in.hold = true
	var wrote []inputAction
	step := func(e inputEvent) {
		var act inputAction
		in, act = in.next(e)
		if act == inputWrite || act == inputWriteHeld {
			wrote = append(wrote, act)
		}
	}
	step(sendPrompt)
	for range 4 {
		step(sendFollowUp)
	}
	step(gotResult)     // the first turn: under the budget, the first follow-up goes
	step(gotResultOver) // the second: at the budget
	if in.state != inputOver || in.held != 3 || len(wrote) != 2 {
		t.Fatalf("at the budget: %+v after %d writes, want over budget with 3 held after 2", in, len(wrote))
	}
	step(budgetRaised)
	if in.state != inputBusy || in.held != 2 || len(wrote) != 3 {
		t.Fatalf("after the raise: %+v after %d writes, want busy with 2 held after 3", in, len(wrote))
	}
}
