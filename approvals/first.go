package approvals

import (
	"context"
	"errors"
)

// ErrAnsweredElsewhere is the cause a Decider of FirstAnswer finds once another of them
// had the person's answer first.
var ErrAnsweredElsewhere = errors.New("approvals: the person answered it elsewhere")

// firstAnswer puts each request before several Deciders at once.
type firstAnswer []Decider

// FirstAnswer returns a Decider that puts each request before every one of ds at once (a
// headless run's terminal and its approval page on the tailnet) and returns the first
// person's answer; the others are then taken away, their context ending with
// ErrAnsweredElsewhere. An answer that nobody could be asked (ByNoTerminal) or an error is
// not the first answer while another Decider still waits: it is returned only when every
// Decider has returned without a person's answer, the last one's then. Decide returns as
// the Deciders do: on an answer, or when ctx is done.
func FirstAnswer(ds ...Decider) Decider { return firstAnswer(ds) }

// Decide returns the first person's answer to req among the Deciders. See FirstAnswer.
func (f firstAnswer) Decide(ctx context.Context, req Request) (Answer, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(ErrAnsweredElsewhere)
	type result struct {
		answer Answer
		err    error
	}
	results := make(chan result, len(f)) // buffered: the losers return after Decide did
	for _, d := range f {
		go func() {
			a, err := d.Decide(ctx, req)
			results <- result{a, err}
		}()
	}
	last := result{err: errors.New("approvals: no decider to ask")}
	for range f {
		last = <-results
		if last.err == nil && last.answer.By != ByNoTerminal {
			return last.answer, nil
		}
	}
	return last.answer, last.err
}
