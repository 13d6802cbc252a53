package control

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs"
)

// within bounds every wait of these tests for something that happens at once.
const within = 10 * time.Second

// received is a command as it reached the core.
type received struct {
	who string
	cmd Body
}

// core is a Handler that answers as the tray's core would and records what reaches it.
type core struct {
	connected func(p *Peer) // what it sends a new client; nil sends nothing
	cmds      chan received
}

func newCore() *core { return &core{cmds: make(chan received, 64)} }

func (c *core) Connected(p *Peer) {
	if c.connected != nil {
		c.connected(p)
	}
}

func (c *core) Handle(ctx context.Context, p *Peer, cmd Body) Reply {
	c.cmds <- received{who: p.Who(), cmd: cmd}
	switch cmd := cmd.(type) {
	case Start:
		return Reply{Run: "run-1"}
	case Stop:
		return Failed(errors.New("run " + cmd.Run + ": the run is not running"))
	}
	return Reply{}
}

func (c *core) Disconnected(p *Peer, err error) {}

// next returns the next command that reached the core.
func (c *core) next(t *testing.T) received {
	t.Helper()
	select {
	case r := <-c.cmds:
		return r
	case <-time.After(within):
		t.Fatal("no command reached the core")
		return received{}
	}
}

// serve serves one connection of a socket pair with s, granted g, and returns the
// client's end and Serve's result.
func serve(t *testing.T, s *Server, g Grant) (net.Conn, <-chan error) {
	t.Helper()
	ours, theirs := socketPair(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		done <- s.Serve(ctx, ours, g)
	}()
	t.Cleanup(func() {
		cancel()
		<-finished
	})
	return theirs, done
}

// socketPair returns both ends of a Pair as connections.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	ours, child, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := net.FileConn(child)
	child.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ours.Close(); theirs.Close() })
	return ours, theirs
}

// window connects a client to nc and returns it with the events it receives.
func window(t *testing.T, nc net.Conn, show func(context.Context, Show) error) (*Client, <-chan Body) {
	t.Helper()
	events := make(chan Body, 256)
	c, err := NewClient(nc, ClientOptions{Program: "segwi test window", Event: func(b Body) { events <- b }, Show: show})
	if err != nil {
		t.Fatalf("connecting to the tray: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, events
}

// nextEvent returns the next event a client received.
func nextEvent(t *testing.T, events <-chan Body) Body {
	t.Helper()
	select {
	case b := <-events:
		return b
	case <-time.After(within):
		t.Fatal("no event reached the client")
		return nil
	}
}

// ended waits for Serve's result.
func ended(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatal("the server did not end the connection")
		return nil
	}
}

// raw is a client that writes frames by hand, as a broken or hostile one would.
type raw struct {
	nc   net.Conn
	conn *Conn
}

// rawClient says hello with version v on nc and reads the tray's hello.
func rawClient(t *testing.T, nc net.Conn, v int) *raw {
	t.Helper()
	r := &raw{nc: nc, conn: NewConn(nc)}
	r.frame(t, []byte(`{"type":"hello","body":{"version":`+strconv.Itoa(v)+`,"program":"raw"}}`))
	m, err := r.conn.Read()
	if err != nil {
		t.Fatalf("reading the tray's hello: %v", err)
	}
	if _, ok := m.Body.(Hello); !ok {
		t.Fatalf("the tray opened with %s, not hello", m.Body.MessageType())
	}
	return r
}

// frame writes data as one frame.
func (r *raw) frame(t *testing.T, data []byte) {
	t.Helper()
	head := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	if _, err := r.nc.Write(append(head, data...)); err != nil {
		t.Fatalf("writing a frame: %v", err)
	}
}

// reply reads the next message and wants a reply to id.
func (r *raw) reply(t *testing.T, id uint64) Reply {
	t.Helper()
	r.nc.SetReadDeadline(time.Now().Add(within))
	m, err := r.conn.Read()
	if err != nil {
		t.Fatalf("reading a reply: %v", err)
	}
	rep, ok := m.Body.(Reply)
	if !ok || m.ID != id {
		t.Fatalf("got %s with id %d, want a reply to %d", m.Body.MessageType(), m.ID, id)
	}
	return rep
}

func TestCommandsReachTheCoreAndRepliesComeBack(t *testing.T) {
	c := newCore()
	snap := Runs{Runs: []Run{{Info: runs.Info{ID: "r0", State: runs.StateRunning}, Name: "web"}}}
	c.connected = func(p *Peer) { p.Send(snap) }
	s := NewServer("segwi test tray", c)
	nc, _ := serve(t, s, Grant{Role: RoleWindow, Who: ByThisDesktop})
	w, events := window(t, nc, nil)

	if w.Role() != RoleWindow {
		t.Errorf("granted role %q, want %q", w.Role(), RoleWindow)
	}
	if diff := cmp.Diff(Body(snap), nextEvent(t, events)); diff != "" {
		t.Errorf("first message (-want +got):\n%s", diff)
	}
	ctx := context.Background()
	for _, cmd := range examples() {
		if !cmd.MessageType().IsCommand() {
			continue
		}
		rep, err := w.Do(ctx, cmd)
		got := c.next(t)
		if diff := cmp.Diff(cmd, got.cmd); diff != "" {
			t.Errorf("%s reached the core as (-sent +received):\n%s", cmd.MessageType(), diff)
		}
		switch cmd.(type) {
		case Start:
			if err != nil || rep.Run != "run-1" {
				t.Errorf("start = %+v, %v; want the run's id", rep, err)
			}
		case Stop:
			var ce *CommandError
			if !errors.As(err, &ce) || !strings.Contains(ce.Error(), "stop: run 20250314-093000-e5dc0e: the run is not running") {
				t.Errorf("stop of a run that is not running = %v; want the core's error", err)
			}
		default:
			if err != nil {
				t.Errorf("%s: %v", cmd.MessageType(), err)
			}
		}
	}
}

func TestVersionMismatchIsAClearErrorOnBothSides(t *testing.T) {
	t.Run("the tray refuses a client of another version", func(t *testing.T) {
		s := NewServer("segwi 0.4 tray", newCore())
		nc, done := serve(t, s, Grant{Role: RoleWindow})
		r := &raw{nc: nc, conn: NewConn(nc)}
		r.frame(t, []byte(`{"type":"hello","body":{"version":99,"program":"segwi 0.5 window"}}`))
		err := ended(t, done)
		var ve *VersionError
		if !errors.As(err, &ve) || ve.Ours != Version || ve.Theirs != 99 {
			t.Fatalf("Serve = %v, want a *VersionError of %d and 99", err, Version)
		}
		for _, want := range []string{"segwi 0.4 tray", fmt.Sprintf("version %d", Version), "segwi 0.5 window", "version 99"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not name %q", err, want)
			}
		}
	})
	t.Run("a client refuses a tray of another version", func(t *testing.T) {
		ours, theirs := socketPair(t)
		go NewConn(ours).Write(Message{Body: Hello{Version: 99, Program: "segwi 0.5 tray", Role: RoleWindow}})
		_, err := NewClient(theirs, ClientOptions{Program: "segwi 0.4 window"})
		var ve *VersionError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "(segwi 0.5 tray) speaks version 99") {
			t.Fatalf("NewClient = %v, want a *VersionError naming the tray and its version", err)
		}
	})
}

func TestAMalformedMessageGetsAnErrorReplyAndTheConnectionGoesOn(t *testing.T) {
	c := newCore()
	s := NewServer("tray", c)
	nc, _ := serve(t, s, Grant{Role: RoleWindow, Who: ByThisDesktop})
	r := rawClient(t, nc, Version)

	r.frame(t, []byte(`{"type":"stop","id":1,"body":{"run":`)) // cut short
	if rep := r.reply(t, 0); !strings.Contains(rep.Error, "malformed message") {
		t.Errorf("reply to broken JSON = %q, want it called malformed", rep.Error)
	}
	r.frame(t, []byte(`{"type":"rm-rf","id":2,"body":{}}`))
	if rep := r.reply(t, 2); !strings.Contains(rep.Error, `unknown message type "rm-rf"`) {
		t.Errorf("reply to an unknown type = %q", rep.Error)
	}
	r.frame(t, []byte(`{"type":"runs","id":3,"body":{"runs":[]}}`))
	if rep := r.reply(t, 3); rep.Error != "refused: runs is not a command" {
		t.Errorf("reply to a client sending a snapshot = %q", rep.Error)
	}
	r.frame(t, []byte(`{"type":"finish","id":4,"body":{"run":"r1"}}`))
	if rep := r.reply(t, 4); rep.Error != "" {
		t.Errorf("a good command after the bad ones failed: %q", rep.Error)
	}
	if got := c.next(t).cmd; got != (Finish{Run: "r1"}) {
		t.Errorf("the core got %v, want the finish", got)
	}
}

func TestAnOversizedOrStalledMessageEndsOnlyItsConnection(t *testing.T) {
	c := newCore()
	s := NewServer("tray", c)
	s.ioTimeout = 300 * time.Millisecond
	good, _ := serve(t, s, Grant{Role: RoleWindow, Who: ByThisDesktop})
	w, _ := window(t, good, nil)

	t.Run("a message over the limit", func(t *testing.T) {
		nc, done := serve(t, s, Grant{Role: RoleWindow})
		r := rawClient(t, nc, Version)
		head := binary.BigEndian.AppendUint32(nil, MaxMessageBytes+1)
		r.nc.Write(append(head, `{"type":"stop"`...))
		if err := ended(t, done); !errors.Is(err, ErrTooLarge) {
			t.Errorf("Serve = %v, want ErrTooLarge", err)
		}
	})
	t.Run("a message that stops half way", func(t *testing.T) {
		nc, done := serve(t, s, Grant{Role: RoleWindow})
		r := rawClient(t, nc, Version)
		head := binary.BigEndian.AppendUint32(nil, 100)
		r.nc.Write(append(head, `{"type":"stop"`...))
		if err := ended(t, done); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Serve = %v, want the I/O deadline", err)
		}
	})
	t.Run("a client that never says hello", func(t *testing.T) {
		_, done := serve(t, s, Grant{Role: RoleWindow})
		if err := ended(t, done); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("Serve = %v, want the I/O deadline", err)
		}
	})
	// The tray goes on: the first client still works, and a new one is served.
	if _, err := w.Do(context.Background(), Finish{Run: "r1"}); err != nil {
		t.Errorf("the other client's command after the bad ones: %v", err)
	}
	nc, _ := serve(t, s, Grant{Role: RoleWindow, Who: ByThisDesktop})
	w2, _ := window(t, nc, nil)
	if _, err := w2.Do(context.Background(), Finish{Run: "r2"}); err != nil {
		t.Errorf("a new client's command: %v", err)
	}
}

func TestTheRemotePageMayOnlyAnswer(t *testing.T) {
	c := newCore()
	s := NewServer("tray", c)
	nc, _ := serve(t, s, Grant{Role: RoleRemote, Who: "ada@example.com on ada-phone"})
	page, events := window(t, nc, nil)
	ctx := context.Background()

	for _, cmd := range []Body{Start{Kind: runs.KindBuild, Checkout: "/x"}, Push{Run: "r"}, SaveSettings{}, Stop{Run: "r"}, Subscribe{Run: "r"}} {
		_, err := page.Do(ctx, cmd)
		want := "refused: a remote client may not send " + string(cmd.MessageType())
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s from the remote page = %v, want %q", cmd.MessageType(), err, want)
		}
	}
	// Who answered is what the server knows of the connection, whatever the page says.
	if _, err := page.Do(ctx, Answer{Request: "7", Decision: Allow, By: ByThisDesktop}); err != nil {
		t.Fatal(err)
	}
	got := c.next(t)
	if a := got.cmd.(Answer); a.By != "ada@example.com on ada-phone" {
		t.Errorf("the answer reached the core as by %q, want the device and login", a.By)
	}
	select {
	case r := <-c.cmds:
		t.Errorf("a refused command reached the core: %v", r.cmd)
	default:
	}
	// It is sent the runs and approvals, not the settings or notices.
	s.Publish(SettingsReport{File: "/home/ada/.config/segwi/config.yaml"})
	s.Publish(Notice{Level: Info, Title: "hello"})
	s.Publish(Approvals{})
	if b := nextEvent(t, events); b.MessageType() != TypeApprovals {
		t.Errorf("the remote page got %s first; want only the approvals", b.MessageType())
	}
}

func TestPublishedEventsFollowTheSnapshotOfANewClient(t *testing.T) {
	c := newCore()
	s := NewServer("tray", c)
	snap := Approvals{Waiting: []Approval{}}
	c.connected = func(p *Peer) {
		// An event published while the core takes its snapshot reaches the client after it.
		s.Publish(Notice{Level: Info, Title: "published during the snapshot"})
		p.Send(snap)
	}
	nc, _ := serve(t, s, Grant{Role: RoleWindow})
	_, events := window(t, nc, nil)
	if b := nextEvent(t, events); b.MessageType() != TypeApprovals {
		t.Errorf("first message %s, want the snapshot", b.MessageType())
	}
	if b := nextEvent(t, events); b.MessageType() != TypeNotice {
		t.Errorf("second message %s, want the notice", b.MessageType())
	}
}

func TestAClientThatStopsReadingIsCutOffAndHoldsNobodyBack(t *testing.T) {
	s := NewServer("tray", newCore())
	s.maxQueued = 1 << 20
	deaf, done := serve(t, s, Grant{Role: RoleWindow})
	rawClient(t, deaf, Version) // then reads nothing
	good, _ := serve(t, s, Grant{Role: RoleWindow})
	_, events := window(t, good, nil)
	// The handshake is over before the server takes a client in for what is published:
	// what it published before, it sends in its snapshot (this core sends none).
	await.For(t, within, "the server to take both clients in", func() bool { return len(s.Peers(RoleWindow)) == 2 })

	big := Notice{Level: Info, Title: "big", Text: strings.Repeat("x", 64<<10)}
	for range 64 { // 4 MiB: more than the socket's buffer and the queue together
		if err := s.Publish(big); err != nil {
			t.Fatal(err)
		}
		nextEvent(t, events) // the client that reads gets each
	}
	// Cut off by its queue, not by the write deadline: publishing did not wait for it.
	if err := ended(t, done); !errors.Is(err, ErrSlowPeer) {
		t.Errorf("the deaf client's connection ended with %v, want ErrSlowPeer", err)
	}
}

// A stream paced by AwaitRoom (a run's events) waits for a client that reads slowly, far
// below the bound that cuts a client off: it gets every message, and what is published
// meanwhile reaches it behind at most the pacing mark.
func TestAPacedStreamWaitsForAClientThatReadsSlowly(t *testing.T) {
	c := newCore()
	connected := make(chan *Peer, 1)
	c.connected = func(p *Peer) { connected <- p }
	s := NewServer("tray", c)
	s.maxQueued = 4 << 20
	nc, done := serve(t, s, Grant{Role: RoleWindow})
	events := make(chan Body, 16)
	client, err := NewClient(nc, ClientOptions{Program: "slow window", Event: func(b Body) {
		time.Sleep(time.Millisecond) // reads about 64 MB/s: slower than the stream is sent
		events <- b
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	p := <-connected

	const messages = 256 // 16 MiB: four times the bound that cuts a client off
	text := strings.Repeat("x", 64<<10)
	sent := make(chan error, 1)
	var peak int64
	go func() {
		for i := range messages {
			if err := p.AwaitRoom(context.Background()); err != nil {
				sent <- err
				return
			}
			peak = max(peak, p.queued.Load())
			if err := p.Send(Notice{Level: Info, Title: strconv.Itoa(i), Text: text}); err != nil {
				sent <- err
				return
			}
			if i == messages/2 {
				s.Publish(Notice{Level: Warning, Title: "published mid-stream", Text: "x"})
			}
		}
		sent <- nil
	}()
	var got []string
	published := false
	for len(got) < messages {
		var n Notice
		select {
		case b := <-events:
			n = b.(Notice)
		case err := <-sent:
			if err != nil {
				t.Fatalf("the paced stream ended after %d messages: %v", len(got), err)
			}
			sent <- nil
			continue
		case <-time.After(within):
			t.Fatalf("the client got %d messages of the stream, then nothing", len(got))
		}
		if n.Level == Warning {
			published = true
			continue
		}
		got = append(got, n.Title)
	}
	if err := <-sent; err != nil {
		t.Fatalf("the paced stream ended with %v", err)
	}
	for i, title := range got {
		if title != strconv.Itoa(i) {
			t.Fatalf("message %d of the stream arrived as %q: out of order or lost", i, title)
		}
	}
	if !published {
		if b := nextEvent(t, events); b.(Notice).Level != Warning {
			t.Errorf("the notice published mid-stream did not arrive; got %+v", b)
		}
	}
	if peak > paceBytes+int64(len(text))+1024 {
		t.Errorf("up to %d bytes waited to be sent, want at most the pacing mark %d and one message", peak, paceBytes)
	}
	select {
	case err := <-done:
		t.Fatalf("the connection ended: %v", err)
	default:
	}
	if err := client.Err(); err != nil {
		t.Errorf("the client's connection ended: %v", err)
	}
}

// A paced sender waiting for a client that reads nothing returns once the connection
// ends, with why.
func TestAPacedSenderReturnsWhenTheConnectionEnds(t *testing.T) {
	c := newCore()
	connected := make(chan *Peer, 1)
	c.connected = func(p *Peer) { connected <- p }
	s := NewServer("tray", c)
	deaf, _ := serve(t, s, Grant{Role: RoleWindow})
	rawClient(t, deaf, Version) // then reads nothing
	p := <-connected
	text := strings.Repeat("x", 64<<10)
	waited := make(chan error, 1)
	go func() {
		for {
			if err := p.AwaitRoom(context.Background()); err != nil {
				waited <- err
				return
			}
			p.Send(Notice{Level: Info, Title: "big", Text: text})
		}
	}()
	await.For(t, within, "the paced sender to wait", func() bool { return p.queued.Load() > paceBytes })
	p.Close()
	select {
	case err := <-waited:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("AwaitRoom returned %v, want ErrClosed", err)
		}
	case <-time.After(within):
		t.Fatal("AwaitRoom did not return once the connection was closed")
	}
}

func TestTheTrayAsksTheWindowProcessToShowAWindow(t *testing.T) {
	c := newCore()
	connected := make(chan *Peer, 1)
	c.connected = func(p *Peer) { connected <- p }
	s := NewServer("tray", c)
	nc, _ := serve(t, s, Grant{Role: RoleWindow})
	shown := make(chan Show, 2)
	window(t, nc, func(ctx context.Context, sh Show) error {
		shown <- sh
		if sh.Window == ShowCanary {
			return errors.New("the canary report is not built yet")
		}
		return nil
	})
	p := <-connected
	if peers := s.Peers(RoleWindow); len(peers) != 1 || peers[0] != p {
		t.Fatalf("the server's window peers are %v, want the one connected", peers)
	}
	peers := []*Peer{p}
	ctx := context.Background()
	if rep, err := peers[0].Request(ctx, Show{Window: ShowRun, Run: "r1"}); err != nil || rep.Error != "" {
		t.Errorf("show run window = %+v, %v", rep, err)
	}
	if diff := cmp.Diff(Show{Window: ShowRun, Run: "r1"}, <-shown); diff != "" {
		t.Errorf("the window process was asked to show (-want +got):\n%s", diff)
	}
	if rep, _ := peers[0].Request(ctx, Show{Window: ShowCanary}); rep.Error != "the canary report is not built yet" {
		t.Errorf("a show that fails replies %q", rep.Error)
	}
}
