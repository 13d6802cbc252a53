package approvals

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/syncbuf"
)

// fakeTTY is a terminal whose keyboard is the test: what the test types arrives through a
// pipe, and what the decider prints is kept.
type fakeTTY struct {
	keys   *io.PipeReader
	typing *io.PipeWriter
	out    syncbuf.Buffer

	mu     sync.Mutex
	closed bool
}

func newFakeTTY() *fakeTTY {
	r, w := io.Pipe()
	return &fakeTTY{keys: r, typing: w}
}

func (f *fakeTTY) Read(p []byte) (int, error) { return f.keys.Read(p) }

func (f *fakeTTY) Write(p []byte) (int, error) { return f.out.Write(p) }

func (f *fakeTTY) Close() error {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	return f.keys.Close()
}

func (f *fakeTTY) Output() string { return f.out.String() }

func (f *fakeTTY) Closed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// typeLine types line and Enter; it returns once the decider has read it.
func (f *fakeTTY) typeLine(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(f.typing, line+"\n"); err != nil {
		t.Fatalf("typing %q: %v", line, err)
	}
}

// ttys hands out the fake terminals, one per opening, and counts the openings.
type ttys struct {
	mu     sync.Mutex
	opened []*fakeTTY
	err    error
}

func (s *ttys) open() (io.ReadWriteCloser, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	tty := newFakeTTY()
	s.opened = append(s.opened, tty)
	return tty, nil
}

func (s *ttys) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.opened)
}

func (s *ttys) nth(t *testing.T, i int) *fakeTTY {
	t.Helper()
	await.For(t, 10*time.Second, "the terminal to open", func() bool { return s.count() > i })
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opened[i]
}

func terminalRequest(toolName, input string) Request {
	now := time.Now()
	return Request{
		ID:        "req-7",
		Run:       RunInfo{ID: "run-42", Kind: "build", Checkout: "/home/me/src/web"},
		ToolName:  toolName,
		Input:     json.RawMessage(input),
		ToolUseID: "toolu_1",
		Asked:     now,
		Deadline:  now.Add(10 * time.Minute),
	}
}

type decision struct {
	answer Answer
	err    error
}

func decide(d *TerminalDecider, ctx context.Context, req Request) <-chan decision {
	ch := make(chan decision, 1)
	go func() {
		a, err := d.Decide(ctx, req)
		ch <- decision{a, err}
	}()
	return ch
}

func TestTerminalDeciderAsksThePerson(t *testing.T) {
	tests := []struct {
		name  string
		typed []string
		want  Answer
	}{
		{"y allows", []string{"y"}, Answer{Allow: true, By: ByPerson}},
		{"yes in capitals allows", []string{"YES"}, Answer{Allow: true, By: ByPerson}},
		{"Enter denies, and Enter again gives no reason", []string{"", ""}, Answer{By: ByPerson}},
		{"n denies with the reason typed", []string{"n", "  use make clean  "}, Answer{By: ByPerson, Message: "use make clean"}},
		{"s denies and stops the run", []string{"s", "wrong branch"}, Answer{By: ByPerson, Interrupt: true, Message: "wrong branch"}},
		{"an answer it does not know asks again", []string{"maybe", "y"}, Answer{Allow: true, By: ByPerson}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			terms := &ttys{}
			d := newTerminalDecider(terms.open)
			got := decide(d, context.Background(), terminalRequest("Bash", `{"command":"rm -rf build"}`))
			tty := terms.nth(t, 0)
			for _, line := range tt.typed {
				tty.typeLine(t, line)
			}
			res := await.Recv(t, 10*time.Second, "the answer", got)
			if res.err != nil {
				t.Fatalf("Decide: %v", res.err)
			}
			if diff := cmp.Diff(tt.want, res.answer); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
			if !tty.Closed() {
				t.Error("the terminal was left open")
			}
			if n := strings.Count(tty.Output(), "Allow? [y/N"); n != len(tt.typed) && tt.want.Allow {
				t.Errorf("prompts shown: got %d, want %d", n, len(tt.typed))
			}
			if reason := "\nReason, passed on to Claude (Enter to skip):\n"; !tt.want.Allow && !strings.Contains(tty.Output(), reason) {
				t.Errorf("the terminal shows no %q on a line of its own:\n%s", reason, tty.Output())
			}
		})
	}
}

func TestTerminalDeciderShowsTheRequest(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		want     []string
		dontWant []string
	}{
		{
			name: "a Bash call shows the run, the command and its description",
			req:  terminalRequest("Bash", `{"command":"git push --force\ngit status","description":"Push it"}`),
			want: []string{
				"run run-42 (build in /home/me/src/web) asks to use Bash  [request req-7]",
				"  Command:\n    git push --force\n    git status\n",
				"  description (Claude Code's words, not what runs): Push it\n",
				"Answer within 10m0s",
				"\nAllow? [y/N, s = deny and stop the run]\n", // a line of its own, apart from the run's events
			},
		},
		{
			name: "a request whose deadline is its run's end says the run ends then",
			req: func() Request {
				r := terminalRequest("Bash", `{"command":"make deploy"}`)
				r.Deadline, r.RunEnds = r.Asked.Add(2*time.Minute), true
				return r
			}(),
			want:     []string{"Answer within 2m0s: the run reaches its maximum duration (runs.maxDuration) then, and segwi denies it and stops the run.\n"},
			dontWant: []string{"saying nobody answered", "10m0s"},
		},
		{
			name: "a Write shows its file relative to the checkout and its content as lines added",
			req:  terminalRequest("Write", `{"file_path":"/home/me/src/web/hosts.txt","content":"x\ny"}`),
			want: []string{"asks to use Write", "  Write hosts.txt: a new file:\n    + x\n    + y\n"},
		},
		{
			name: "another tool shows its full input as indented JSON",
			req:  terminalRequest("WebFetch", `{"url":"https://example.com"}`),
			want: []string{"asks to use WebFetch", "  Input:\n    {\n      \"url\": \"https://example.com\"\n    }\n"},
		},
		{
			name:     "control characters are shown escaped, not sent to the terminal",
			req:      terminalRequest("Bash", `{"command":"echo \u001b[2Jgone\u0007"}`),
			want:     []string{`echo \x1b[2Jgone\x07`},
			dontWant: []string{"\x1b", "\x07"},
		},
		{
			// U+202E shows the rest of the line right to left: "rm -rf ~ #" would read
			// "# ~ fr- mr" behind an innocent start.
			name:     "bidirectional overrides, isolates and invisible characters are shown escaped",
			req:      terminalRequest("Bash", `{"command":"ls \u202e# ~ fr- mr\u202c \u2066x\u2069 \u200f\u061c \u200b\u2028\ufeff"}`),
			want:     []string{`ls \u202e# ~ fr- mr\u202c \u2066x\u2069 \u200f\u061c \u200b\u2028\ufeff`},
			dontWant: []string{"\u202e", "\u202c", "\u2066", "\u2069", "\u200f", "\u061c", "\u200b", "\u2028", "\ufeff"},
		},
		{
			name: "what segwi noticed about the request is shown",
			req: func() Request {
				r := terminalRequest("Bash", `{"command":"ls"}`)
				r.Note = "Not checked against your trusted commands: too long."
				return r
			}(),
			want: []string{"  Not checked against your trusted commands: too long.\n"},
		},
		{
			name: "an input that is not exactly the tool's shows as JSON, whole, saying why",
			req:  terminalRequest("Bash", `{"command":"rm -rf x","COMMAND":"git status"}`),
			want: []string{"  Input:\n    {\n      \"command\": \"rm -rf x\",\n      \"COMMAND\": \"git status\"\n    }\n",
				`Shown as JSON, whole: its input is not exactly what the tool takes (the keys "command" and "COMMAND" differ only in case)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := terminalShows(t, tt.req)
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("terminal output does not hold %q; got:\n%s", w, out)
				}
			}
			for _, w := range tt.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("terminal output holds %q; got:\n%s", w, out)
				}
			}
		})
	}
}

// terminalShows puts req before a terminal decider, answers y, and returns what the
// terminal showed.
func terminalShows(t *testing.T, req Request) string {
	t.Helper()
	terms := &ttys{}
	d := newTerminalDecider(terms.open)
	got := decide(d, context.Background(), req)
	tty := terms.nth(t, 0)
	tty.typeLine(t, "y")
	await.Recv(t, 10*time.Second, "the answer", got)
	return tty.Output()
}

// The terminal prompt passed what it showed through segwi's redactor. A command
// substitution in a URL's password showed as "https://deploy:[REDACTED]@github.com/...",
// and a touch inside a block that looked like a private key as "[REDACTED PRIVATE KEY]";
// answered y, each ran its touch. What a person approves is now shown whole, and the
// terminal says that it looks as though it holds a secret.
func TestTheTerminalShowsWhatLooksLikeASecretWhole(t *testing.T) {
	for _, command := range []string{urlPasswordAttack, pemAttack} {
		out := terminalShows(t, terminalRequest("Bash", mustJSON(t, map[string]string{"command": command})))
		var want strings.Builder
		for line := range strings.SplitSeq(command, "\n") {
			want.WriteString("    " + line + "\n")
		}
		if !strings.Contains(out, want.String()) || strings.Contains(out, "REDACTED") {
			t.Errorf("the terminal does not show the command whole:\n%s", out)
		}
		if !strings.Contains(out, "⚠ "+secretSentence) {
			t.Errorf("the terminal does not say the input looks as though it holds a secret:\n%s", out)
		}
	}
}

func TestTerminalDeciderWithoutTerminalDenies(t *testing.T) {
	terms := &ttys{err: errors.New("open /dev/tty: no such device or address")}
	d := newTerminalDecider(terms.open)
	got, err := d.Decide(context.Background(), terminalRequest("Bash", `{"command":"ls"}`))
	if err != nil {
		t.Fatalf("Decide: got error %v, want a deny", err)
	}
	want := NoTerminalAnswer("Bash")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
	if !strings.Contains(got.Message, "no person was at the terminal") {
		t.Errorf("message %q does not say no person was at the terminal", got.Message)
	}
}

func TestTerminalDeciderTerminalClosingDenies(t *testing.T) {
	terms := &ttys{}
	d := newTerminalDecider(terms.open)
	got := decide(d, context.Background(), terminalRequest("Bash", `{"command":"ls"}`))
	terms.nth(t, 0).typing.Close() // the terminal hangs up
	res := await.Recv(t, 10*time.Second, "the answer", got)
	if res.err != nil || res.answer.By != ByNoTerminal {
		t.Errorf("Decide: got %+v, %v; want a deny by no-terminal", res.answer, res.err)
	}
}

func TestTerminalDeciderGivesUpWhenWithdrawn(t *testing.T) {
	tests := []struct {
		name  string
		cause error
		agent string // the run's agent (RunInfo.Agent)
		says  string
	}{
		{"a timeout says nobody answered in time", ErrTimedOut, "", "nobody answered in time"},
		{"a run that ended says so", ErrRunEnded, "", "the run ended"},
		{"a run at its maximum duration says so", ErrRunOutOfTime, "", "the run reached its maximum duration (runs.maxDuration); segwi denied it and stops the run"},
		{"an answer on the approval page says so", ErrAnsweredElsewhere, "", "you answered it on the approval page"},
		{"Claude Code's own timeout says so, with the time it waited", ErrWithdrawn, "",
			"Claude Code stopped waiting for it after 1m0s: its own tool-call timeout, not a refusal"},
		{"an ACP agent that stops waiting is named, with no word of a timeout segwi never gave it", ErrWithdrawn, "codex",
			"codex stopped waiting for it after 1m0s, not a refusal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			terms := &ttys{}
			d := newTerminalDecider(terms.open)
			req := terminalRequest("Bash", `{"command":"ls"}`)
			req.Run.Agent = tt.agent
			d.now = func() time.Time { return req.Asked.Add(time.Minute) }
			ctx, cancel := context.WithCancelCause(context.Background())
			got := decide(d, ctx, req)
			tty := terms.nth(t, 0)
			await.For(t, 10*time.Second, "the prompt to be shown", func() bool { return strings.Contains(tty.Output(), "Allow?") })
			cancel(tt.cause)
			res := await.Recv(t, 10*time.Second, "the answer", got)
			if !errors.Is(res.err, tt.cause) {
				t.Errorf("Decide error: got %v, want %v", res.err, tt.cause)
			}
			if out := tty.Output(); !strings.Contains(out, "request req-7 is no longer waiting ("+tt.says) {
				t.Errorf("terminal output does not say the request is withdrawn because %s; got:\n%s", tt.says, out)
			}
			if !tty.Closed() {
				t.Error("the terminal was left open")
			}
		})
	}
}

func TestTerminalDeciderAsksOneAtATime(t *testing.T) {
	terms := &ttys{}
	d := newTerminalDecider(terms.open)
	first := decide(d, context.Background(), terminalRequest("Bash", `{"command":"one"}`))
	tty := terms.nth(t, 0)
	await.For(t, 10*time.Second, "the first prompt to be shown", func() bool { return strings.Contains(tty.Output(), "Allow?") })

	second := decide(d, context.Background(), terminalRequest("Bash", `{"command":"two"}`))
	queuedCtx, cancelQueued := context.WithCancelCause(context.Background())
	queued := decide(d, queuedCtx, terminalRequest("Bash", `{"command":"three"}`))
	cancelQueued(ErrRunEnded)
	if res := await.Recv(t, 10*time.Second, "the queued request's answer", queued); !errors.Is(res.err, ErrRunEnded) {
		t.Errorf("a request withdrawn while waiting its turn: got %+v, %v; want ErrRunEnded", res.answer, res.err)
	}
	if n := terms.count(); n != 1 {
		t.Fatalf("terminals opened while the first request is on screen: got %d, want 1", n)
	}

	tty.typeLine(t, "y")
	if res := await.Recv(t, 10*time.Second, "the first answer", first); !res.answer.Allow {
		t.Errorf("first answer: got %+v, want allow", res.answer)
	}
	next := terms.nth(t, 1)
	next.typeLine(t, "n")
	next.typeLine(t, "")
	if res := await.Recv(t, 10*time.Second, "the second answer", second); res.answer.Allow || res.answer.By != ByPerson {
		t.Errorf("second answer: got %+v, want the person's deny", res.answer)
	}
	if strings.Contains(tty.Output(), "two") || !strings.Contains(next.Output(), "two") {
		t.Error("the second request was shown before the first was answered")
	}
}

func TestTerminalDeciderOnARealTerminalDevice(t *testing.T) {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	// Held open for the whole test: the master side stops reading once no slave is open.
	defer pts.Close()
	path := pts.Name()
	// Open the device by path, as NewTerminalDecider opens /dev/tty.
	d := newTerminalDecider(func() (io.ReadWriteCloser, error) { return os.OpenFile(path, os.O_RDWR, 0) })
	var screen syncbuf.Buffer // what the decider prints
	go io.Copy(&screen, ptm)  //nolint:errcheck // ends when the test closes ptm
	prompts := func() int { return strings.Count(screen.String(), "Allow?") }

	t.Run("the person's keys are read from it", func(t *testing.T) {
		got := decide(d, context.Background(), terminalRequest("Bash", `{"command":"ls"}`))
		if _, err := io.WriteString(ptm, "y\n"); err != nil {
			t.Fatal(err)
		}
		if res := await.Recv(t, 10*time.Second, "the answer", got); res.err != nil || !res.answer.Allow {
			t.Errorf("Decide: got %+v, %v; want allow", res.answer, res.err)
		}
	})
	t.Run("a withdrawn request stops waiting on the device", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		got := decide(d, ctx, terminalRequest("Bash", `{"command":"ls"}`))
		await.For(t, 10*time.Second, "the second prompt on the terminal", func() bool { return prompts() >= 2 })
		cancel(ErrTimedOut)
		if res := await.Recv(t, 10*time.Second, "the answer", got); !errors.Is(res.err, ErrTimedOut) {
			t.Errorf("Decide: got %+v, %v; want ErrTimedOut", res.answer, res.err)
		}
		// The next request gets the terminal: the last one let go of it.
		next := decide(d, context.Background(), terminalRequest("Bash", `{"command":"ls"}`))
		if _, err := io.WriteString(ptm, "n\n\n"); err != nil {
			t.Fatal(err)
		}
		if res := await.Recv(t, 10*time.Second, "the next answer", next); res.err != nil || res.answer.Allow {
			t.Errorf("next Decide: got %+v, %v; want a deny", res.answer, res.err)
		}
	})
}
