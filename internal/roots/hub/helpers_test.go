package hub_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/roots/hub"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/controltest"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/syncbuf"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token"
	"github.com/segwi/segwi/tray"
)

// within bounds the waits of these tests for what happens at once.
const within = 10 * time.Second

// forClaude bounds the waits for a real Claude Code to reach a point of its run (started,
// a model's turn, a tool call): seconds on an idle machine, tens of seconds on a loaded one
// (10 s was too short for its first request at a load of 17 on two cores), as the
// end-to-end tests allow.
const forClaude = time.Minute

// harness is a hub over a core, whose window processes are fakes in this test process.
type harness struct {
	hub     *hub.Hub
	core    *core.Core
	path    string // the settings file
	windows *fakeWindows
	notes   *notes
	log     *syncbuf.Buffer // what the hub logged, a line each
	token   *fakeToken
	quit    chan struct{} // closed by the hub's Quit
}

// options change what newHarness builds.
type options struct {
	watch bool
	env   []string // the runs' environment; nil: coretest's
	state string   // the state folder; empty: a temp one
	// program, when set, starts window processes as the tray does (hub.Program: looked
	// for beside the test binary, else on PATH) instead of the fakes.
	program *hub.Program
	// checks are the hub's checks of the settings; nil finds nothing wrong, so that what
	// the test machine's PATH holds does not open a warning in every test.
	checks func(settings.Settings) []error
	// github is the hub's client for the GitHub API (a test server's); nil: the default.
	github *http.Client
	// home is the person's home folder for the guard hook's setup; empty: a temp one.
	home string
}

// newHarness builds a hub and its core over the settings file text and runs the hub until
// the end of the test.
func newHarness(t *testing.T, file string, o options) *harness {
	t.Helper()
	h := &harness{windows: &fakeWindows{t: t}, notes: &notes{}, log: &syncbuf.Buffer{}, token: &fakeToken{}, quit: make(chan struct{})}
	var once sync.Once
	checks := o.checks
	if checks == nil {
		checks = func(settings.Settings) []error { return nil }
	}
	opts := hub.Options{
		Program: "segwi test tray",
		Spawn:   h.windows.spawn,
		Notify:  h.notes.add,
		Log: func(format string, args ...any) {
			t.Logf(format, args...)
			fmt.Fprintf(h.log, format+"\n", args...)
		},
		Token:  h.token,
		Quit:   func() { once.Do(func() { close(h.quit) }) },
		Checks: checks,
		GitHub: o.github,
		Home:   o.home,
	}
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	if o.program != nil {
		opts.Spawn, opts.Find = o.program.Spawn, o.program.Find
	}
	h.hub = hub.New(opts)
	h.core, h.path = coretest.New(t, file, coretest.Options{Decider: h.hub, Watch: o.watch, Env: o.env, StateDir: o.state})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.hub.Run(ctx, h.core)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(within):
			t.Error("the hub's Run did not return once its context was done")
		}
	})
	return h
}

// fakeWindows starts fake window processes: control clients in this test process, each
// on its own socket pair, as the window process is.
type fakeWindows struct {
	t       *testing.T
	mu      sync.Mutex
	started []*fakeWindow
	onShow  func(w *fakeWindow, s control.Show) error // nil: every Show succeeds
	// read, when set, is called with each message a window process reads before it takes
	// the next: a window process that reads slowly sleeps in it.
	read func(control.Body)
	// dieEarly is how many of the next window processes end before they connect, as one
	// that cannot open the display does.
	dieEarly int
}

// fakeWindow is one fake window process: what it was sent, and its channel.
type fakeWindow struct {
	n      int // 1 for the first started
	client *control.Client
	events chan control.Body
	shows  chan control.Show
	conn   net.Conn // its end
	gone   chan struct{}
	// asked counts the Shows it was sent; replies, the replies it wrote (it answers
	// nothing else the tray sends).
	asked   atomic.Int64
	replies *replyCounter
}

// replyCounter is a window process's end of its channel, counting the replies it writes.
type replyCounter struct {
	net.Conn
	n atomic.Int64
}

// Write writes one frame (control.Conn writes each in one call).
func (c *replyCounter) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if err == nil && len(b) > 4 {
		if m, err := control.Unmarshal(b[4:]); err == nil && m.Body.MessageType() == control.TypeReply {
			c.n.Add(1)
		}
	}
	return n, err
}

func (f *fakeWindows) spawn() (*hub.Process, error) {
	ours, theirs := controltest.Pair(f.t)
	f.mu.Lock()
	w := &fakeWindow{n: len(f.started) + 1, events: make(chan control.Body, 1024), shows: make(chan control.Show, 64),
		conn: theirs, gone: make(chan struct{}), replies: &replyCounter{Conn: theirs}}
	f.started = append(f.started, w)
	die := f.dieEarly > 0
	if die {
		f.dieEarly--
	}
	f.mu.Unlock()
	if die {
		theirs.Close()
		close(w.gone)
		return &hub.Process{Conn: ours, Pid: os.Getpid(), Wait: func() error { return errors.New("exit status 1") }, Kill: w.kill}, nil
	}
	go func() {
		defer close(w.gone)
		c, err := control.NewClient(w.replies, control.ClientOptions{
			Program: fmt.Sprintf("fake window %d", w.n),
			Event: func(b control.Body) {
				f.mu.Lock()
				read := f.read
				f.mu.Unlock()
				if read != nil {
					read(b)
				}
				w.events <- b
			},
			Show: func(_ context.Context, s control.Show) error {
				w.asked.Add(1)
				w.shows <- s
				f.mu.Lock()
				on := f.onShow
				f.mu.Unlock()
				if on != nil {
					return on(w, s)
				}
				return nil
			},
		})
		if err != nil {
			theirs.Close()
			return
		}
		f.mu.Lock()
		w.client = c
		f.mu.Unlock()
		<-c.Done()
		theirs.Close()
	}()
	return &hub.Process{Conn: ours, Pid: os.Getpid(), Wait: func() error { <-w.gone; return nil }, Kill: w.kill}, nil
}

// kill ends the fake window process at once, as SIGKILL would: its end of the channel
// closes with nothing said.
func (w *fakeWindow) kill() { w.conn.Close() }

// answered waits until the window process has written its answer to every Show it was
// sent. A real one answers as soon as its window is up, long before a person could close
// that window; a fake killed before its answer left would have the tray rightly ask the
// next window process to show the window again.
func (w *fakeWindow) answered(t *testing.T) {
	t.Helper()
	await.For(t, within, fmt.Sprintf("window process %d to answer the windows it was asked to show", w.n), func() bool {
		return w.replies.n.Load() >= w.asked.Load()
	})
}

// window waits for the nth window process (1 is the first) to have connected.
func (f *fakeWindows) window(t *testing.T, n int) *fakeWindow {
	t.Helper()
	var w *fakeWindow
	await.For(t, within, fmt.Sprintf("window process %d to connect", n), func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.started) >= n && f.started[n-1].client != nil {
			w = f.started[n-1]
			return true
		}
		return false
	})
	return w
}

// count is how many window processes were started.
func (f *fakeWindows) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.started)
}

// next returns the next message of type T the window process was sent, skipping others.
func next[T control.Body](t *testing.T, w *fakeWindow) T {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case b := <-w.events:
			if v, ok := b.(T); ok {
				return v
			}
		case <-deadline:
			var zero T
			t.Fatalf("window process %d was sent no %s", w.n, zero.MessageType())
			return zero
		}
	}
}

// nextShow returns the next window the window process was asked to show.
func (w *fakeWindow) nextShow(t *testing.T) control.Show {
	t.Helper()
	select {
	case s := <-w.shows:
		return s
	case <-time.After(within):
		t.Fatalf("window process %d was asked to show nothing", w.n)
		return control.Show{}
	}
}

// notes records desktop notifications, and which of them were withdrawn.
type notes struct {
	mu        sync.Mutex
	got       []string // "title: body"
	withdrawn []bool
}

func (n *notes) add(note tray.Note) (withdraw func()) {
	n.mu.Lock()
	defer n.mu.Unlock()
	i := len(n.got)
	n.got = append(n.got, note.Title+": "+note.Body)
	n.withdrawn = append(n.withdrawn, false)
	return func() {
		n.mu.Lock()
		defer n.mu.Unlock()
		n.withdrawn[i] = true
	}
}

// all returns every notification shown, withdrawn or not.
func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

// shown returns the notifications shown and not withdrawn.
func (n *notes) shown() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for i, s := range n.got {
		if !n.withdrawn[i] {
			out = append(out, s)
		}
	}
	return out
}

// fakeToken is an in-memory keyring.
type fakeToken struct {
	mu     sync.Mutex
	tok    string
	apiURL string // what tok was set for
}

func (f *fakeToken) Status(context.Context) (token.State, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tok == "" {
		return token.State{}, nil
	}
	host, err := token.APIHost(f.apiURL)
	return token.State{Set: true, APIHost: host}, err
}

func (f *fakeToken) Set(_ context.Context, tok, apiURL string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tok, f.apiURL = tok, apiURL
	return nil
}

func (f *fakeToken) For(_ context.Context, apiURL string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tok == "" {
		return "", token.ErrNotFound
	}
	want, err := token.APIHost(apiURL)
	if err != nil {
		return "", err
	}
	if saved, _ := token.APIHost(f.apiURL); saved != want {
		return "", &token.HostError{SavedFor: saved, Wanted: want}
	}
	return f.tok, nil
}

func (f *fakeToken) Delete(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.tok == "" {
		return token.ErrNotFound
	}
	f.tok = ""
	return nil
}

// claudeScript writes an executable shell script standing in for Claude Code and returns
// its path, quoted for a YAML settings file.
func claudeScript(t *testing.T, body string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "claude")
	coretest.WriteFile(t, bin, "#!/bin/sh\n"+body)
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%q", bin)
}
