package control

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// Errors of a connection that ended, for callers to branch on.
var (
	// ErrClosed: the connection was closed on this side.
	ErrClosed = errors.New("control: connection closed")
	// ErrSlowPeer: the peer read too slowly and too much waited to be sent to it, so the
	// connection was cut rather than holding the tray's memory or goroutines.
	ErrSlowPeer = errors.New("control: the other side does not read its messages; connection cut")
)

// maxQueuedBytes bounds what may wait to be sent to one peer by default.
const maxQueuedBytes = 4 * MaxMessageBytes

// paceBytes is how much may wait to be sent to one peer before a paced sender waits
// (Peer.AwaitRoom): a run's events to a window process that reads slowly wait there, far
// below maxQueuedBytes, so that they never cut the connection and what else is sent (an
// approval, a run's state) waits behind at most this much.
const paceBytes = 1 << 20

// endpoint is one side of a connection after the handshake: a queue of outgoing frames
// written by one goroutine, so that a sender never waits for the peer, and the requests
// this side sent that wait for their Reply.
type endpoint struct {
	conn      *Conn
	out       chan frame
	queued    atomic.Int64 // bytes in out, and of the frame being written
	maxQueued int64
	nextID    atomic.Uint64

	roomMu sync.Mutex
	room   chan struct{} // closed once queued is down to paceBytes; nil while nobody waits

	mu      sync.Mutex
	waiting map[uint64]chan Reply // by request id

	closed chan struct{}
	once   sync.Once
	err    error // why it ended; set before closed is closed
}

func newEndpoint(conn *Conn) *endpoint {
	e := &endpoint{
		conn:      conn,
		out:       make(chan frame, 1024),
		maxQueued: maxQueuedBytes,
		waiting:   make(map[uint64]chan Reply),
		closed:    make(chan struct{}),
	}
	go e.writeLoop()
	return e
}

// writeLoop writes the queued frames until the connection ends.
func (e *endpoint) writeLoop() {
	for {
		select {
		case f := <-e.out:
			err := e.conn.writeFrame(f)
			if e.queued.Add(-int64(len(f.data))) <= paceBytes {
				e.wakePaced()
			}
			if err != nil {
				e.close(err)
				return
			}
		case <-e.closed:
			return
		}
	}
}

// send queues m without waiting. A body that cannot be marshalled or is too large is
// refused with an error and the connection goes on; a full queue ends the connection with
// ErrSlowPeer.
func (e *endpoint) send(m Message) error {
	f, err := makeFrame(m)
	if err != nil {
		return err
	}
	return e.enqueue(f)
}

func (e *endpoint) enqueue(f frame) error {
	select {
	case <-e.closed:
		return e.err
	default:
	}
	if e.queued.Add(int64(len(f.data))) > e.maxQueued {
		e.close(ErrSlowPeer)
		return ErrSlowPeer
	}
	select {
	case e.out <- f:
		return nil
	default:
		e.close(ErrSlowPeer)
		return ErrSlowPeer
	}
}

// awaitRoom returns once at most paceBytes wait to be sent, or with ctx's error, or with
// why the connection ended.
func (e *endpoint) awaitRoom(ctx context.Context) error {
	for {
		if e.queued.Load() <= paceBytes {
			return nil
		}
		e.roomMu.Lock()
		if e.room == nil {
			e.room = make(chan struct{})
		}
		room := e.room
		// Checked after room is set: writeLoop takes roomMu after it lowers queued, so a
		// fall below the mark from here on closes room.
		if e.queued.Load() <= paceBytes {
			e.roomMu.Unlock()
			return nil
		}
		e.roomMu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		case <-e.closed:
			return e.err
		}
	}
}

// wakePaced wakes the senders waiting in awaitRoom.
func (e *endpoint) wakePaced() {
	e.roomMu.Lock()
	if e.room != nil {
		close(e.room)
		e.room = nil
	}
	e.roomMu.Unlock()
}

// request sends body as a request and returns its Reply. It returns when the reply
// arrives, when ctx is done, or when the connection ends.
func (e *endpoint) request(ctx context.Context, body Body) (Reply, error) {
	t := body.MessageType()
	if !t.IsRequest() {
		return Reply{}, fmt.Errorf("control: %s is not a request", t)
	}
	id := e.nextID.Add(1)
	ch := make(chan Reply, 1)
	e.mu.Lock()
	e.waiting[id] = ch
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.waiting, id)
		e.mu.Unlock()
	}()
	if err := e.send(Message{ID: id, Body: body}); err != nil {
		return Reply{}, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-ctx.Done():
		return Reply{}, fmt.Errorf("control: waiting for the reply to %s: %w", t, ctx.Err())
	case <-e.closed:
		return Reply{}, fmt.Errorf("control: waiting for the reply to %s: %w", t, e.err)
	}
}

// deliver hands a Reply to the request waiting for it. A reply nobody waits for (its
// request gave up) is dropped.
func (e *endpoint) deliver(id uint64, r Reply) {
	e.mu.Lock()
	ch := e.waiting[id]
	e.mu.Unlock()
	if ch != nil {
		select {
		case ch <- r:
		default:
		}
	}
}

// close ends the connection once, for err.
func (e *endpoint) close(err error) {
	e.once.Do(func() {
		e.err = err
		close(e.closed)
		e.conn.Close()
	})
}

// Done is closed when the connection has ended.
func (e *endpoint) Done() <-chan struct{} { return e.closed }

// Err says why the connection ended (io.EOF: the other side closed it), or nil while it
// has not.
func (e *endpoint) Err() error {
	select {
	case <-e.closed:
		return e.err
	default:
		return nil
	}
}

// Close ends the connection.
func (e *endpoint) Close() error {
	e.close(ErrClosed)
	return nil
}
