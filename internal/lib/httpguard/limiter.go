package httpguard

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
)

// A Limiter is a server's listener, capped: it holds at most maxFresh connections that
// nobody has vouched for yet (see Vouch), and at most maxConns in all. When a new
// connection would pass a cap, the oldest fresh connection is closed to make room, so that
// a program that opens connections and sends nothing takes the place only of others like
// it, never that of a caller the server knows. When every connection held is vouched for,
// the newcomer is closed instead.
type Limiter struct {
	net.Listener
	maxFresh, maxConns int

	mu      sync.Mutex
	fresh   *list.List // of *limitedConn not vouched for yet, oldest first
	vouched int        // connections vouched for
}

// NewLimiter caps ln as above. The server using it must set its ConnContext to WithConn,
// so that Vouch finds a request's connection.
func NewLimiter(ln net.Listener, maxFresh, maxConns int) *Limiter {
	return &Limiter{Listener: ln, maxFresh: maxFresh, maxConns: maxConns, fresh: list.New()}
}

// Accept waits for the next connection that fits under the caps, making room as above.
// It returns when one is accepted or the listener is closed.
func (l *Limiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, l: l}
		l.mu.Lock()
		var evicted *limitedConn
		if l.fresh.Len() >= l.maxFresh || l.fresh.Len()+l.vouched >= l.maxConns {
			front := l.fresh.Front()
			if front == nil {
				l.mu.Unlock()
				c.Close()
				continue
			}
			evicted = front.Value.(*limitedConn)
			l.fresh.Remove(front)
			evicted.elem = nil
			evicted.gone = true
		}
		lc.elem = l.fresh.PushBack(lc)
		l.mu.Unlock()
		if evicted != nil {
			evicted.Conn.Close()
		}
		return lc, nil
	}
}

// A limitedConn is a connection the Limiter counts until it is closed.
type limitedConn struct {
	net.Conn
	l *Limiter

	// Guarded by l.mu.
	elem *list.Element // its place among the fresh connections; nil once vouched for
	gone bool          // no longer counted
}

// vouch moves c from the fresh connections to the vouched ones, which are never closed to
// make room.
func (c *limitedConn) vouch() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.elem == nil {
		return // vouched for already, or gone
	}
	c.l.fresh.Remove(c.elem)
	c.elem = nil
	c.l.vouched++
}

// Close closes the connection and stops counting it.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	if !c.gone {
		c.gone = true
		if c.elem != nil {
			c.l.fresh.Remove(c.elem)
			c.elem = nil
		} else {
			c.l.vouched--
		}
	}
	c.l.mu.Unlock()
	return c.Conn.Close()
}

type connContextKey struct{}

// WithConn keeps a request's connection in its context, where Vouch finds it: set it as
// the http.Server's ConnContext.
func WithConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connContextKey{}, c)
}

// Vouch tells r's Limiter that r's connection belongs to a caller the server knows (a
// run that showed its token, a person's device), so that it is never closed to make room.
func Vouch(r *http.Request) {
	if c, ok := r.Context().Value(connContextKey{}).(*limitedConn); ok {
		c.vouch()
	}
}
