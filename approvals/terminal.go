package approvals

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/visible"
)

// TerminalDecider asks the person at the controlling terminal, for headless `segwi run`.
// It shows the run and the request's View: the tool and its exact input, never redacted
// (control and invisible characters escaped, see visible.Escape), and what segwi noticed
// about it, and asks
// "Allow? [y/N]" (or s to deny and stop the run), then asks for an optional reason to
// pass on with a deny. With no
// controlling terminal it denies (ByNoTerminal), saying no person was there to ask.
// Requests are shown one at a time, in turn; a request that times out or is withdrawn
// while waiting for its turn or on screen is taken away, and the terminal says so.
type TerminalDecider struct {
	openTTY func() (io.ReadWriteCloser, error) // the controlling terminal; a seam for tests
	now     func() time.Time
	turn    chan struct{} // holds one token while a request is on the terminal
}

// NewTerminalDecider returns a TerminalDecider that reads and writes /dev/tty. What it
// shows of a request is not redacted: a person approves what they read, and a redactor's
// mask once hid code that ran (`https://deploy:$(touch PWNED)@host` showed as
// `https://deploy:[REDACTED]@host`); the View says when an input looks as though it holds
// a secret instead.
func NewTerminalDecider() *TerminalDecider {
	return newTerminalDecider(func() (io.ReadWriteCloser, error) {
		return os.OpenFile("/dev/tty", os.O_RDWR, 0)
	})
}

func newTerminalDecider(openTTY func() (io.ReadWriteCloser, error)) *TerminalDecider {
	return &TerminalDecider{openTTY: openTTY, now: time.Now, turn: make(chan struct{}, 1)}
}

// Decide shows req on the terminal and returns the person's answer. It returns when they
// answer, when there is no terminal to ask on (a deny, ByNoTerminal), or when ctx is done
// (with context.Cause(ctx) as the error), whether the request was still waiting for its
// turn or already on screen.
func (d *TerminalDecider) Decide(ctx context.Context, req Request) (Answer, error) {
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return Answer{}, context.Cause(ctx)
	}
	defer func() { <-d.turn }()
	if ctx.Err() != nil {
		return Answer{}, context.Cause(ctx)
	}

	tty, err := d.openTTY()
	if err != nil {
		return NoTerminalAnswer(req.ToolName), nil
	}
	p := &prompt{tty: tty, r: bufio.NewReader(tty), lines: make(chan readResult, 1)}
	// Closing the terminal is what makes a pending read give up.
	defer p.close()

	p.print(d.show(req))
	for {
		// The prompts end their line: the run's events go on printing to the same terminal
		// while the person thinks, and must not land after the question.
		p.print("Allow? [y/N, s = deny and stop the run]\n")
		line, err := p.readLine(ctx)
		if err != nil {
			return d.giveUp(ctx, p, req, err)
		}
		var answer Answer
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			p.print("Allowed.\n\n")
			return Answer{Allow: true, By: ByPerson}, nil
		case "", "n", "no":
			answer = Answer{By: ByPerson}
		case "s", "stop":
			answer = Answer{By: ByPerson, Interrupt: true}
		default:
			p.print("Please answer y (allow), n (deny) or s (deny and stop the run).\n")
			continue
		}
		p.print("Reason, passed on to Claude (Enter to skip):\n")
		reason, err := p.readLine(ctx)
		if err != nil && ctx.Err() != nil {
			return d.giveUp(ctx, p, req, err)
		}
		answer.Message = strings.TrimSpace(reason)
		if answer.Interrupt {
			p.print("Denied; the run will be stopped.\n\n")
		} else {
			p.print("Denied.\n\n")
		}
		return answer, nil
	}
}

// giveUp ends a prompt that got no answer: the request was withdrawn, or the terminal went
// away.
func (d *TerminalDecider) giveUp(ctx context.Context, p *prompt, req Request, err error) (Answer, error) {
	if ctx.Err() == nil {
		// The terminal closed under us: nobody is there any more.
		return NoTerminalAnswer(req.ToolName), nil
	}
	cause := context.Cause(ctx)
	why := "it was withdrawn"
	switch {
	case errors.Is(cause, ErrTimedOut):
		why = "nobody answered in time; segwi denied it, saying it timed out"
	case errors.Is(cause, ErrRunOutOfTime):
		why = "the run reached its maximum duration (runs.maxDuration); segwi denied it and stops the run"
	case errors.Is(cause, ErrRunEnded):
		why = "the run ended"
	case errors.Is(cause, ErrWithdrawn):
		waited := d.now().Sub(req.Asked).Round(time.Second)
		why = fmt.Sprintf("Claude Code stopped waiting for it after %s: its own tool-call timeout, not a refusal", waited)
		if req.Run.Agent != "" { // an ACP agent, which segwi gives no tool-call timeout
			why = fmt.Sprintf("%s stopped waiting for it after %s, not a refusal", req.Run.Agent, waited)
		}
	case errors.Is(cause, ErrAnsweredElsewhere):
		why = "you answered it on the approval page"
	}
	p.print(fmt.Sprintf("\nsegwi: request %s is no longer waiting (%s); no answer needed.\n\n", req.ID, why))
	return Answer{}, cause
}

// NoTerminalAnswer is a TerminalDecider's answer when there is no terminal to ask on: a
// deny (ByNoTerminal) that tells Claude Code why and what the person can do.
func NoTerminalAnswer(toolName string) Answer {
	return Answer{By: ByNoTerminal, Message: fmt.Sprintf("denied: no person was at the terminal to approve this %s call "+
		"(segwi run has no controlling terminal to ask on). Do without it; the person can "+
		"allow such commands ahead of time in approvals.trusted.", toolName)}
}

// show renders req for the person: the run, then the request's View, whole.
func (d *TerminalDecider) show(req Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nsegwi: run %s (%s in %s) asks to use %s  [request %s]\n",
		req.Run.ID, req.Run.Kind, req.Run.Checkout, req.ToolName, req.ID)
	b.WriteString(viewText(req.View()))
	if !req.Deadline.IsZero() {
		left := req.Deadline.Sub(d.now()).Round(time.Second)
		if req.RunEnds {
			fmt.Fprintf(&b, "  Answer within %s: the run reaches its maximum duration (runs.maxDuration) then, and segwi denies it and stops the run.\n", left)
		} else {
			fmt.Fprintf(&b, "  Answer within %s, or segwi denies it (saying nobody answered).\n", left)
		}
	}
	return visible.Escape(b.String())
}

// viewText is v as a terminal shows it: its main text indented under its caption, then
// what segwi says of it, one line each.
func viewText(v View) string {
	var b strings.Builder
	main := v.JSON
	switch v.Shape {
	case ShapeCommand:
		main = v.Command
	case ShapeChange:
		var lines []string
		for _, l := range v.Change {
			lines = append(lines, changeLineText(l))
		}
		main = strings.Join(lines, "\n")
		if len(v.Change) == 0 {
			main = "(no text)"
		}
	}
	b.WriteString("  " + v.Caption + ":\n")
	for line := range strings.SplitSeq(main, "\n") {
		b.WriteString("    " + line + "\n")
	}
	for _, said := range []struct{ label, text string }{
		{"", v.Cut},
		{"description (Claude Code's words, not what runs): ", v.Description},
		{"runs ", v.Runs},
		{"⚠ ", v.Secret},
		{"", v.Unread},
		{"", v.Note},
		{"input SHA-256: ", v.SHA256},
	} {
		if said.text != "" {
			b.WriteString("  " + said.label + said.text + "\n")
		}
	}
	return b.String()
}

// changeLineText is one line of a change as text: its op as a mark, then the line.
func changeLineText(l ChangeLine) string {
	if l.Op == OpHeading {
		return "@@ " + l.Text + " @@"
	}
	return l.Op + " " + l.Text
}

// prompt is one request's conversation with the terminal.
type prompt struct {
	tty   io.ReadWriteCloser
	r     *bufio.Reader
	lines chan readResult // at most one read is under way
	done  bool
}

type readResult struct {
	line string
	err  error
}

func (p *prompt) print(s string) { io.WriteString(p.tty, s) } //nolint:errcheck // nothing to do if the terminal is gone

// readLine reads the next line the person types. It returns when they press Enter, when
// the terminal fails, or when ctx is done (then it closes the terminal, which ends the
// read under way).
func (p *prompt) readLine(ctx context.Context) (string, error) {
	go func() {
		line, err := p.r.ReadString('\n')
		if err != nil && line != "" && errors.Is(err, io.EOF) {
			err = nil // a last line without a newline still counts
		}
		p.lines <- readResult{line, err}
	}()
	select {
	case res := <-p.lines:
		return res.line, res.err
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

func (p *prompt) close() {
	if !p.done {
		p.done = true
		p.tty.Close()
	}
}
