package approvals

import (
	"context"
	"errors"
	"github.com/segwi/segwi/internal/testing/await"
	"io"
	"testing"
	"time"
)

// pageDecider stands in for the approval page: it answers what the test sends on answers,
// and reports why it stopped waiting when its request is taken away.
type pageDecider struct {
	answers chan Answer
	gone    chan error // the cause its context ended with
}

func newPageDecider() *pageDecider {
	return &pageDecider{answers: make(chan Answer, 1), gone: make(chan error, 1)}
}

func (p *pageDecider) Decide(ctx context.Context, _ Request) (Answer, error) {
	select {
	case a := <-p.answers:
		return a, nil
	case <-ctx.Done():
		p.gone <- context.Cause(ctx)
		return Answer{}, context.Cause(ctx)
	}
}

// ownDecider is a Decider written as a func, for the cases a pageDecider does not cover.
type ownDecider func(context.Context, Request) (Answer, error)

func (f ownDecider) Decide(ctx context.Context, req Request) (Answer, error) { return f(ctx, req) }

func TestFirstAnswerWins(t *testing.T) {
	noTerminal := newTerminalDecider(func() (io.ReadWriteCloser, error) { return nil, errors.New("no tty") })
	req := terminalRequest("Bash", `{"command":"ls"}`)

	t.Run("without a terminal, the page's answer is the answer, not the terminal's deny", func(t *testing.T) {
		page := newPageDecider()
		got := make(chan decision, 1)
		go func() {
			a, err := FirstAnswer(noTerminal, page).Decide(context.Background(), req)
			got <- decision{a, err}
		}()
		page.answers <- Answer{Allow: true, By: ByPerson, Who: "phone (ada@example.com)"}
		res := await.Recv(t, 10*time.Second, "the answer", got)
		if res.err != nil || !res.answer.Allow || res.answer.Who != "phone (ada@example.com)" {
			t.Errorf("got %+v, %v; want the phone's allow", res.answer, res.err)
		}
	})

	t.Run("the terminal's answer takes the request away from the page", func(t *testing.T) {
		page := newPageDecider()
		terminal := ownDecider(func(context.Context, Request) (Answer, error) {
			return Answer{By: ByPerson, Message: "not now"}, nil
		})
		a, err := FirstAnswer(terminal, page).Decide(context.Background(), req)
		if err != nil || a.Allow || a.Message != "not now" {
			t.Errorf("got %+v, %v; want the terminal's deny", a, err)
		}
		if cause := await.Recv(t, 10*time.Second, "the page to be withdrawn", page.gone); !errors.Is(cause, ErrAnsweredElsewhere) {
			t.Errorf("the page stopped waiting because %v, want %v", cause, ErrAnsweredElsewhere)
		}
	})

	t.Run("with nobody answering, the timeout ends every wait", func(t *testing.T) {
		page := newPageDecider()
		ctx, cancel := context.WithCancelCause(context.Background())
		got := make(chan decision, 1)
		go func() {
			a, err := FirstAnswer(noTerminal, page).Decide(ctx, req)
			got <- decision{a, err}
		}()
		cancel(ErrTimedOut)
		if res := await.Recv(t, 10*time.Second, "the answer", got); !errors.Is(res.err, ErrTimedOut) {
			t.Errorf("got %+v, %v; want %v", res.answer, res.err, ErrTimedOut)
		}
	})

	t.Run("when nobody can be asked anywhere, the deny says so", func(t *testing.T) {
		a, err := FirstAnswer(noTerminal).Decide(context.Background(), req)
		if err != nil || a.By != ByNoTerminal {
			t.Errorf("got %+v, %v; want the terminal's deny for want of a person", a, err)
		}
	})
}
