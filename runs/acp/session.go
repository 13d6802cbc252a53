package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs"
)

// initWait bounds initialize, which an agent answers at once (claude-agent-acp and
// codex-acp within a second here); handshakeWait bounds session/new (or session/load),
// for which claude-agent-acp starts Claude Code. An agent that does not answer by then
// fails its run, saying so (runs.Failing).
var (
	initWait      = 30 * time.Second
	handshakeWait = 2 * time.Minute
)

// cancelWait bounds the write of session/cancel to an agent that does not read.
const cancelWait = 2 * time.Second

// maxStderrLine is where a line the agent writes on stderr is cut into pieces.
const maxStderrLine = 64 << 10

// session is a started ACP agent: the protocol's connection over its stdin and stdout,
// its stderr, and the lines of the session's output (see line). It implements
// runs.Session, runs.Lingering, runs.Canceler and runs.Failing.
type session struct {
	name     string // the runtime's name
	command  string // its program, as the settings name it
	kind     runs.Kind
	checkout string
	resume   string                  // the agent's session to load, "" for a new one
	model    string                  // the model the run asked for, which ACP has no stable way to set
	reg      *approvals.Registration // nil when no approvals server is wired

	stdin *os.File // the write end of the agent's stdin
	conn  *acpsdk.ClientSideConnection
	out   *lineWriter
	outR  *io.PipeReader

	ctx      context.Context // ends with Close
	cancel   context.CancelFunc
	ready    chan struct{} // closed once the handshake is over, whether it failed or not
	failed   chan struct{} // closed once the handshake has failed (Failed)
	closed   chan struct{} // closed once the session is closed and the agent's stdin with it
	canClose bool          // the agent offers session/close

	mu          sync.Mutex
	sessionID   acpsdk.SessionId // set once the handshake is over
	handshake   error            // why it failed; nil when it did not (set before failed closes)
	queue       []string         // messages waiting for their turn
	more        chan struct{}    // the queue or inputClosed changed
	inputClosed bool
	busy        bool // a session/prompt is out
	stopped     bool // a stop was asked (Cancel): what the agent asks now is cancelled
	// replaying is set while session/load is out: the agent replays the earlier
	// conversation as updates, which the earlier runs recorded already.
	replaying bool
	turns     int
	costUSD   float64 // the session's cost so far, from usage_update, in USD
	calls     map[acpsdk.ToolCallId]*toolCall
	noted     chan struct{} // closed, and made again, whenever a call is noted

	closeOnce sync.Once
}

// toolCall is what the agent said of one of its tool calls so far.
type toolCall struct {
	kind     acpsdk.ToolKind
	title    string
	rawInput any
	content  []acpsdk.ToolCallContent
	shown    bool // a tool-call line announced it
}

// newSession starts the protocol with the agent whose stdin is stdin, stdout stdout and
// stderr stderr.
func newSession(l runs.Launch, name, command string, stdin, stdout, stderr *os.File) *session {
	pr, pw := io.Pipe()
	s := &session{
		name: name, command: command, kind: l.Kind, checkout: l.Checkout, resume: l.Resume, model: l.Model, reg: l.Approvals,
		stdin: stdin, out: &lineWriter{w: pw}, outR: pr,
		ready: make(chan struct{}), failed: make(chan struct{}), closed: make(chan struct{}), more: make(chan struct{}, 1),
		calls: map[acpsdk.ToolCallId]*toolCall{}, noted: make(chan struct{}),
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.conn = acpsdk.NewClientSideConnection(client{s}, stdin, stdout)
	// The SDK logs what it cannot read (a malformed line, a line over its 10 MB limit) and
	// drops it; those go to the run's record as the session's status, cut short.
	s.conn.SetLogger(slog.New(slog.NewTextHandler(statusWriter{s}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		s.readStderr(stderr)
	}()
	go func() {
		<-s.conn.Done()
		<-stderrDone
		<-s.ready // a failed handshake is told (Failed) before the output ends
		stdout.Close()
		s.flushText()
		s.out.close()
	}()
	go s.run()
	return s
}

// run shakes hands with the agent, then sends each queued message as a turn of its own
// (session/prompt), in order, until the input is closed and the queue empty: then it
// closes the agent's stdin.
func (s *session) run() {
	if !s.shakeHands() {
		s.drop()
		return
	}
	if s.model != "" {
		s.out.status(fmt.Sprintf("the model %q was not passed on: ACP has no stable way to choose one, so %s uses its own default (set it in the agent's own settings)", s.model, s.name))
	}
	for {
		text, ok := s.next()
		if !ok {
			s.closeSession()
			s.stdin.Close()
			s.lingerForExit()
			close(s.closed)
			return
		}
		s.turn(text)
	}
}

// shakeHands sends initialize, then session/load for a continued run whose agent can
// load sessions, else session/new, in the run's checkout, and says whether the session
// can go on. When it cannot, why is recorded as the session's status and told (Failed):
// the run fails at once.
func (s *session) shakeHands() bool {
	defer close(s.ready)
	fail := func(err error) bool {
		s.out.status(err.Error())
		s.mu.Lock()
		s.handshake = err
		s.mu.Unlock()
		close(s.failed)
		return false
	}
	initCtx, cancelInit := context.WithTimeout(s.ctx, initWait)
	init, err := s.conn.Initialize(initCtx, acpsdk.InitializeRequest{
		ProtocolVersion:    acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{}, // no file system, no terminal: the agent uses its own
		ClientInfo:         &acpsdk.Implementation{Name: "segwi", Version: "1"},
	})
	cancelInit()
	if err != nil {
		return fail(s.initFailed(initCtx, err))
	}
	ctx, cancel := context.WithTimeout(s.ctx, handshakeWait)
	defer cancel()
	s.canClose = init.AgentCapabilities.SessionCapabilities.Close != nil
	var id acpsdk.SessionId
	loaded := false
	switch {
	case s.resume != "" && init.AgentCapabilities.LoadSession:
		s.setReplaying(true)
		_, err = s.conn.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: acpsdk.SessionId(s.resume), Cwd: s.checkout, McpServers: []acpsdk.McpServer{}})
		s.setReplaying(false) // the SDK hands over the updates sent before the answer first
		id, loaded = acpsdk.SessionId(s.resume), err == nil
	case s.resume != "" && init.AgentCapabilities.SessionCapabilities.Resume != nil:
		_, err = s.conn.ResumeSession(ctx, acpsdk.ResumeSessionRequest{SessionId: acpsdk.SessionId(s.resume), Cwd: s.checkout})
		id, loaded = acpsdk.SessionId(s.resume), err == nil
	case s.resume != "":
		s.out.status(fmt.Sprintf("%s can neither load nor resume a session: the conversation goes on in a new one, without what was said before", s.name))
	}
	if s.resume != "" && err != nil {
		s.out.status(fmt.Sprintf("%s could not take up session %s again (%s): the conversation goes on in a new one", s.name, s.resume, explain(ctx, err, handshakeWait)))
	}
	if !loaded {
		var resp acpsdk.NewSessionResponse
		resp, err = s.conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: s.checkout, McpServers: []acpsdk.McpServer{}})
		if err != nil {
			return fail(fmt.Errorf("%s refused session/new: %s%s", s.agentName(), explain(ctx, err, handshakeWait), authHint(init.AuthMethods)))
		}
		id = resp.SessionId
	}
	s.mu.Lock()
	s.sessionID = id
	s.mu.Unlock()
	agent := s.name
	if init.AgentInfo != nil {
		agent = strings.TrimSpace(init.AgentInfo.Name + " " + init.AgentInfo.Version)
	}
	s.out.write(line{Init: &initLine{Session: string(id), Agent: agent, CWD: s.checkout, Loaded: loaded}})
	return true
}

// agentName is the agent as a failure names it: "the ACP agent codex (codex-acp)".
func (s *session) agentName() string {
	return fmt.Sprintf("the ACP agent %s (%s)", s.name, s.command)
}

// initFailed says why initialize, sent with ctx, failed with err: the agent ended its
// output (it exited), did not answer in time, or answered with an error.
func (s *session) initFailed(ctx context.Context, err error) error {
	select {
	case <-s.conn.Done():
		return fmt.Errorf("%s exited, or closed its output, before it answered initialize: is it an ACP agent, with the arguments that make it speak ACP on stdio? What it wrote on stderr is in the run's output", s.agentName())
	default:
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s did not answer initialize within %s: is it an ACP agent, with the arguments that make it speak ACP on stdio?", s.agentName(), initWait)
	}
	return fmt.Errorf("%s answered initialize with an error: %s", s.agentName(), explain(ctx, err, initWait))
}

// drop takes the messages of a session whose handshake failed, sending none, until the
// input is closed (or the session is): the run is failing meanwhile (Failed).
func (s *session) drop() {
	for {
		if _, ok := s.next(); !ok {
			break
		}
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}
	s.stdin.Close()
	close(s.closed)
}

// Failed is closed once the handshake has failed: the session cannot go on.
func (s *session) Failed() <-chan struct{} { return s.failed }

// Failure is why the handshake failed; nil when it has not.
func (s *session) Failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.handshake
}

func (s *session) setReplaying(on bool) {
	s.mu.Lock()
	s.replaying = on
	s.mu.Unlock()
}

// exitWait is how long an agent whose input closed is given to exit on its own before the
// run ends it.
const exitWait = 2 * time.Second

// lingerForExit gives the agent exitWait to exit once its input is closed (its stdout then
// closes): what it still writes of its session (claude-agent-acp's Claude Code saves the
// last reply after the turn's answer) is not cut short by the run's stop.
func (s *session) lingerForExit() {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return
	}
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-s.conn.Done():
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// closeWait bounds session/close.
const closeWait = 10 * time.Second

// closeSession sends session/close where the agent offers it, and waits for its answer:
// the agent then has ended the session and kept what a continued run loads (without it,
// claude-agent-acp ended at once lost the last reply of the session it had saved).
func (s *session) closeSession() {
	s.mu.Lock()
	id, stopped := s.sessionID, s.stopped
	s.mu.Unlock()
	if !s.canClose || id == "" || stopped {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, closeWait)
	defer cancel()
	if _, err := s.conn.CloseSession(ctx, acpsdk.CloseSessionRequest{SessionId: id}); err != nil {
		s.out.status(fmt.Sprintf("%s did not close session %s: %s", s.name, id, explain(ctx, err, closeWait)))
	}
}

// explain is err in words, saying when the wait, which ctx bounded, was what ended it.
func explain(ctx context.Context, err error, wait time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("no answer within %s", wait)
	}
	var re *acpsdk.RequestError
	if errors.As(err, &re) {
		if re.Data != nil {
			if b, jerr := json.Marshal(re.Data); jerr == nil && len(b) < 2048 {
				return fmt.Sprintf("%s (%s)", re.Message, b)
			}
		}
		return re.Message
	}
	return err.Error()
}

// authHint says how the agent can be given what it needs, from initialize's authMethods:
// a session/new refused for want of credentials then names them.
func authHint(methods []acpsdk.AuthMethod) string {
	var ways []string
	for _, m := range methods {
		b, err := json.Marshal(m)
		if err != nil {
			continue
		}
		var f struct {
			ID, Name, Description string
			VarName               string `json:"varName"`
		}
		if json.Unmarshal(b, &f) != nil {
			continue
		}
		way := f.Name
		if way == "" {
			way = f.ID
		}
		if f.Description != "" {
			way += " (" + f.Description + ")"
		}
		if way != "" {
			ways = append(ways, way)
		}
	}
	if len(ways) == 0 {
		return ""
	}
	return "; the agent needs credentials, one of: " + strings.Join(ways, "; ") +
		". Log in with the agent itself, or set what it names in the runtime's env (segwi.runtimes)"
}

// next returns the next message to send, waiting for one; false once the input is
// closed and nothing waits.
func (s *session) next() (string, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			text := s.queue[0]
			s.queue = s.queue[1:]
			s.busy = true
			s.mu.Unlock()
			return text, true
		}
		closed := s.inputClosed
		s.mu.Unlock()
		if closed {
			return "", false
		}
		select {
		case <-s.more:
		case <-s.ctx.Done():
			return "", false
		}
	}
}

// turn sends text as one session/prompt and writes its result line once it is answered.
func (s *session) turn(text string) {
	defer func() {
		s.mu.Lock()
		s.busy = false
		s.mu.Unlock()
	}()
	s.mu.Lock()
	id := s.sessionID
	costBefore := s.costUSD // a continued session's cost so far counts no turn of this run
	s.mu.Unlock()
	resp, err := s.conn.Prompt(s.ctx, acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
	s.flushText()
	res := &turnResult{Turns: s.countTurn()}
	s.mu.Lock()
	res.CostUSD, res.TurnCostUSD = s.costUSD, max(s.costUSD-costBefore, 0)
	s.mu.Unlock()
	if err != nil {
		res.Error = fmt.Sprintf("%s did not finish the turn: %s", s.name, explain(s.ctx, err, 0))
	} else {
		res.StopReason = string(resp.StopReason)
		res.Usage = resp.Usage
	}
	s.out.write(line{Result: res})
}

func (s *session) countTurn() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns++
	return s.turns
}

// Send queues text as the person's message: it goes as a turn of its own once the
// agent has finished the turns before it.
func (s *session) Send(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inputClosed {
		return runs.ErrInputClosed
	}
	s.queue = append(s.queue, text)
	s.poke()
	return nil
}

// CloseInput says no message follows, and returns once the queued turns are over, the
// session closed (session/close, where the agent offers it) and the agent's stdin with
// it, or once the session is closed (Close). An ACP agent need not exit then (Lingers).
func (s *session) CloseInput() error {
	s.mu.Lock()
	s.inputClosed = true
	s.poke()
	s.mu.Unlock()
	select {
	case <-s.closed:
	case <-s.ctx.Done():
	}
	return nil
}

// poke wakes run. s.mu is held.
func (s *session) poke() {
	select {
	case s.more <- struct{}{}:
	default:
	}
}

// Lingers says yes: an ACP agent waits for its client to end it, whatever its input does.
func (s *session) Lingers() bool { return true }

// Cancel sends session/cancel for the turn under way, if one is, without waiting, and
// answers what the agent asks from now on with "cancelled".
func (s *session) Cancel() {
	s.mu.Lock()
	s.stopped = true
	id, busy := s.sessionID, s.busy
	s.queue = nil
	s.mu.Unlock()
	if !busy || id == "" {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(s.ctx, cancelWait)
		defer cancel()
		s.conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: id})
	}()
}

// Output is the session's lines: what the agent said, its turns' ends, its stderr.
func (s *session) Output() io.Reader { return s.outR }

// Connected does nothing: the session holds the run's token in memory only.
func (s *session) Connected() error { return nil }

// Close ends what the session does: a turn or a request under way is given up, and a
// read of Output returns.
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		s.stdin.Close()
		s.out.close()
		s.outR.Close()
	})
	return nil
}

// readStderr keeps each line the agent writes on stderr as a line of the output.
func (s *session) readStderr(stderr *os.File) {
	defer stderr.Close()
	br := bufio.NewReaderSize(stderr, maxStderrLine)
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 {
			text := strings.TrimRight(string(b), "\r\n")
			s.out.write(line{Stderr: &text})
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// flushText writes the agent's message and thought text gathered from its chunks.
func (s *session) flushText() { s.out.flushText() }

// lineWriter writes the session's lines to the pipe Output reads, whole, one at a time,
// and gathers the agent's message chunks into one text line.
type lineWriter struct {
	mu      sync.Mutex
	w       *io.PipeWriter
	text    strings.Builder // the agent's message so far
	thought strings.Builder // its thought so far
}

// maxGathered bounds the text gathered from chunks before it is written.
const maxGathered = 64 << 10

func (lw *lineWriter) write(l line) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.flushLocked()
	lw.writeLocked(l)
}

func (lw *lineWriter) writeLocked(l line) {
	b, err := json.Marshal(l)
	if err != nil {
		b, _ = json.Marshal(line{Status: "could not write a line of the session: " + err.Error()})
	}
	lw.w.Write(append(b, '\n')) // fails only once the session is closed
}

// chunk adds an agent's message (or thought) chunk to what is gathered.
func (lw *lineWriter) chunk(text string, thought bool) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	b, other := &lw.text, &lw.thought
	if thought {
		b, other = other, b
	}
	if other.Len() > 0 {
		lw.flushLocked()
	}
	b.WriteString(text)
	if b.Len() >= maxGathered {
		lw.flushLocked()
	}
}

func (lw *lineWriter) flushText() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.flushLocked()
}

func (lw *lineWriter) flushLocked() {
	if lw.text.Len() > 0 {
		t := lw.text.String()
		lw.text.Reset()
		lw.writeLocked(line{Text: &t})
	}
	if lw.thought.Len() > 0 {
		t := lw.thought.String()
		lw.thought.Reset()
		lw.writeLocked(line{Thought: &t})
	}
}

func (lw *lineWriter) status(text string) { lw.write(line{Status: text}) }

func (lw *lineWriter) close() {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.w.Close()
}

// maxStatus is where a status line from the SDK's log is cut: it may quote a whole line
// it could not read.
const maxStatus = 4 << 10

// statusWriter takes the SDK's log lines as status lines of the session.
type statusWriter struct{ s *session }

func (w statusWriter) Write(b []byte) (int, error) {
	text := strings.TrimSpace(strings.ToValidUTF8(string(b), "\uFFFD"))
	if len(text) > maxStatus {
		text = strings.ToValidUTF8(text[:maxStatus], "") + " [… cut by segwi]"
	}
	w.s.out.status("ACP: " + text)
	return len(b), nil
}
