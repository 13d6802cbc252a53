package approvals

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"sync"
)

// A connLimiter is the server's listener, capped: it holds at most maxFresh connections
// that have not yet carried a request with a run's token, and at most maxConns in all.
// When a new connection would pass a cap, the oldest fresh connection is closed to make
// room, so that a local program that opens connections and sends nothing takes the place
// only of others like it, never that of a run's Claude Code once it has shown its token.
// When every connection held belongs to a run, the newcomer is closed instead.
type connLimiter struct {
	net.Listener
	maxFresh, maxConns int

	mu    sync.Mutex
	fresh *list.List // of *limitedConn without a token yet, oldest first
	runs  int        // connections that have shown a run's token
}

func newConnLimiter(ln net.Listener, maxFresh, maxConns int) *connLimiter {
	return &connLimiter{Listener: ln, maxFresh: maxFresh, maxConns: maxConns, fresh: list.New()}
}

// Accept waits for the next connection that fits under the caps, making room as above.
// It returns when one is accepted or the listener is closed.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		lc := &limitedConn{Conn: c, l: l}
		l.mu.Lock()
		var evicted *limitedConn
		if l.fresh.Len() >= l.maxFresh || l.fresh.Len()+l.runs >= l.maxConns {
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

// A limitedConn is a connection the connLimiter counts until it is closed.
type limitedConn struct {
	net.Conn
	l *connLimiter

	// Guarded by l.mu.
	elem *list.Element // its place among the fresh connections; nil once it showed a token
	gone bool          // no longer counted
}

// showedToken moves c from the fresh connections to those of runs, which are never closed
// to make room.
func (c *limitedConn) showedToken() {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	if c.elem == nil {
		return // a run's already, or gone
	}
	c.l.fresh.Remove(c.elem)
	c.elem = nil
	c.l.runs++
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
			c.l.runs--
		}
	}
	c.l.mu.Unlock()
	return c.Conn.Close()
}

type connContextKey struct{}

// withConn keeps a request's connection in its context, where the guard finds it.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connContextKey{}, c)
}

// showedToken tells the listener that r's connection belongs to a run.
func showedToken(r *http.Request) {
	if c, ok := r.Context().Value(connContextKey{}).(*limitedConn); ok {
		c.showedToken()
	}
}
