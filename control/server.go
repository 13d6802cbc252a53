package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// A Handler carries out the commands of a Server's clients: the tray's core.
type Handler interface {
	// Connected is called once a client has passed the handshake, before it is sent any
	// published message: what Connected sends p (its snapshots) reaches p first, and what
	// is published meanwhile follows.
	Connected(p *Peer)
	// Handle carries out cmd, a command p's role may send, and returns its reply: Reply{}
	// (or with Run set, for Start) when done, Failed(err) when not. It is called on a
	// goroutine of its own for each command, so a slow one (a push) holds back no other;
	// ctx is done when the connection ends or Serve's ctx is done.
	Handle(ctx context.Context, p *Peer, cmd Body) Reply
	// Disconnected is called once after a Connected peer's connection has ended and its
	// commands have returned, with why (io.EOF when the client closed it).
	Disconnected(p *Peer, err error)
}

// Grant is what the server lets one connection do, decided by the server.
type Grant struct {
	Role Role
	// Who names the person behind the connection in records: ByThisDesktop for the
	// window process; a device and login for the remote page.
	Who string
}

// maxInFlight is how many commands of one client may be carried out at once; the next
// waits, and the client's later messages with it.
const maxInFlight = 16

// Server serves the tray's clients, each on its own connection, and publishes the tray's
// events to them. It is safe for concurrent use.
type Server struct {
	program   string
	handler   Handler
	ioTimeout time.Duration // IOTimeout; tests shorten it
	maxQueued int64         // maxQueuedBytes; tests lower it

	mu    sync.Mutex
	peers map[*Peer]struct{}
}

// NewServer returns a server that introduces itself as program ("segwi 0.4.0 tray") and
// hands its clients' commands to h.
func NewServer(program string, h Handler) *Server {
	return &Server{program: program, handler: h, ioTimeout: IOTimeout, maxQueued: maxQueuedBytes, peers: make(map[*Peer]struct{})}
}

// Serve serves one client on nc, with what g grants, and returns when the connection has
// ended (nil when the client closed it; a client killed mid-way may show as a connection
// reset) or ctx is done. It closes nc. Whatever the client
// sends, it ends no more than this connection: a malformed message gets an error reply, a
// refused command an error reply naming the role, an oversized or stalled message ends
// the connection.
func (s *Server) Serve(ctx context.Context, nc net.Conn, g Grant) error {
	conn := NewConn(nc)
	conn.timeout = s.ioTimeout
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	theirs, err := conn.handshake(Hello{Version: Version, Program: s.program, Role: g.Role})
	if !stop() {
		err = ctx.Err()
	}
	if err != nil {
		conn.Close()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &Peer{endpoint: newEndpoint(conn), grant: g, program: theirs.Program, holding: true}
	p.maxQueued = s.maxQueued
	go func() {
		select {
		case <-ctx.Done():
			p.close(ErrClosed)
		case <-p.closed:
			cancel()
		}
	}()

	s.mu.Lock()
	s.peers[p] = struct{}{}
	s.mu.Unlock()
	s.handler.Connected(p)
	p.release()

	var commands sync.WaitGroup
	err = s.read(ctx, p, &commands)
	p.close(err)
	commands.Wait() // their ctx is done now
	s.mu.Lock()
	delete(s.peers, p)
	s.mu.Unlock()
	s.handler.Disconnected(p, p.err)
	if errors.Is(p.err, io.EOF) || errors.Is(p.err, ErrClosed) {
		return nil
	}
	return p.err
}

// read reads p's messages until the connection ends, and returns why. It carries out
// each command on a goroutine of its own, counted in commands.
func (s *Server) read(ctx context.Context, p *Peer, commands *sync.WaitGroup) error {
	slots := make(chan struct{}, maxInFlight)
	for {
		m, err := p.conn.Read()
		var bad *MalformedError
		if errors.As(err, &bad) {
			p.send(Message{ID: bad.ID, Body: Failed(bad)})
			continue
		}
		if err != nil {
			return err
		}
		t := m.Body.MessageType()
		switch {
		case t == TypeReply:
			p.deliver(m.ID, m.Body.(Reply))
		case t.IsCommand() && p.grant.Role.MaySend(t):
			select {
			case slots <- struct{}{}:
			case <-p.closed:
				return p.err
			}
			commands.Go(func() {
				defer func() { <-slots }()
				p.send(Message{ID: m.ID, Body: s.handler.Handle(ctx, p, p.stamp(m.Body))})
			})
		case t.IsCommand():
			p.send(Message{ID: m.ID, Body: Reply{Error: fmt.Sprintf("refused: a %s client may not send %s", p.grant.Role, t)}})
		default:
			p.send(Message{ID: m.ID, Body: Reply{Error: fmt.Sprintf("refused: %s is not a command", t)}})
		}
	}
}

// Publish sends b to every client whose role receives its type, without waiting for any
// of them. A client that cannot keep up is cut off (ErrSlowPeer); the others go on.
func (s *Server) Publish(b Body) error {
	t := b.MessageType()
	if t.IsRequest() || t == TypeReply || t == TypeHello {
		return fmt.Errorf("control: publish: %s is not an event", t)
	}
	f, err := makeFrame(Message{Body: b})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.peers {
		if p.grant.Role.Receives(t) {
			p.enqueueEvent(f)
		}
	}
	return nil
}

// Peers returns the connected clients of role r.
func (s *Server) Peers(r Role) []*Peer {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Peer
	for p := range s.peers {
		if p.grant.Role == r {
			out = append(out, p)
		}
	}
	return out
}

// Peer is one client of a Server.
type Peer struct {
	*endpoint
	grant   Grant
	program string

	mu      sync.Mutex
	holding bool    // until Connected returns, published events wait in held
	held    []frame // published while holding
}

// Role is what the server lets this client do.
func (p *Peer) Role() Role { return p.grant.Role }

// Who names the person behind the client (Grant.Who).
func (p *Peer) Who() string { return p.grant.Who }

// Program is how the client introduced itself in its Hello.
func (p *Peer) Program() string { return p.program }

// Send sends b to this client without waiting: a snapshot, or a run's events for a
// subscriber (paced by AwaitRoom). It refuses a type the client's role does not receive.
// What waits to be sent beyond the connection's bound cuts the client off (ErrSlowPeer).
func (p *Peer) Send(b Body) error {
	t := b.MessageType()
	if !p.grant.Role.Receives(t) || t.IsRequest() {
		return fmt.Errorf("control: a %s client is not sent %s", p.grant.Role, t)
	}
	return p.send(Message{Body: b})
}

// AwaitRoom returns once little enough waits to be sent to this client that one more
// message of a stream may follow: the sender of a stream that can be thinned out (a run's
// events) waits here, and thins out what piles up meanwhile, so that a client that reads
// slowly is never cut off for it (what Send queues beyond the connection's bound is). It
// returns nil then, ctx's error when ctx is done, or why the connection ended.
func (p *Peer) AwaitRoom(ctx context.Context) error { return p.awaitRoom(ctx) }

// Request sends a request (Show) to this client and returns its reply. It returns when
// the reply arrives, ctx is done or the connection ends.
func (p *Peer) Request(ctx context.Context, b Body) (Reply, error) {
	if !p.grant.Role.Receives(b.MessageType()) {
		return Reply{}, fmt.Errorf("control: a %s client is not sent %s", p.grant.Role, b.MessageType())
	}
	return p.request(ctx, b)
}

// stamp fills in who answered: only the window process, which the tray started, says it
// itself; for any other client it is what the server knows of the connection.
func (p *Peer) stamp(cmd Body) Body {
	if a, ok := cmd.(Answer); ok && (p.grant.Role != RoleWindow || a.By == "") {
		a.By = p.grant.Who
		return a
	}
	return cmd
}

// enqueueEvent queues a published frame, or holds it while Connected runs.
func (p *Peer) enqueueEvent(f frame) {
	p.mu.Lock()
	if p.holding {
		p.held = append(p.held, f)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.enqueue(f)
}

// release sends what was published while Connected ran, and stops holding.
func (p *Peer) release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, f := range p.held {
		if p.enqueue(f) != nil {
			break
		}
	}
	p.holding, p.held = false, nil
}
