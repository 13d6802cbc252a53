package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"time"

	"tailscale.com/tailcfg"

	"github.com/segwi/segwi/control"
)

// Hub is the core that the page is a client of: the tray's control server, which serves
// each client connection with what its grant allows until it ends. *control.Server is one.
// The page connects once per device that uses it, with control.RoleRemote (it may only
// answer approvals, and is sent only the runs and the approvals) and, as Who, the device's
// node name and login, which the hub records as who answered.
type Hub interface {
	Serve(ctx context.Context, nc net.Conn, g control.Grant) error
}

// Bounds on what devices hold.
const (
	maxDevices     = 16              // connections to the hub at once; the longest unused goes first
	deviceIdle     = time.Minute     // a connection with no stream for this long is closed
	streamBacklog  = 256             // events waiting for one stream; past that it is ended, and reconnects
	handshakeLimit = 5 * time.Second // for the hub to accept a device's connection
)

// devices holds the page's connections to the hub, one per device, each with what the
// hub last said of the runs and approvals, and the event streams of that device's pages.
type devices struct {
	hub Hub
	ctx context.Context // ends every connection

	mu   sync.Mutex
	byID map[tailcfg.StableNodeID]*deviceConn
}

func newDevices(ctx context.Context, hub Hub) *devices {
	return &devices{hub: hub, ctx: ctx, byID: make(map[tailcfg.StableNodeID]*deviceConn)}
}

// deviceConn is one device's connection to the hub.
type deviceConn struct {
	dev    device
	client *control.Client
	cancel context.CancelFunc

	mu       sync.Mutex
	runs     map[string]pageRun
	runOrder []string // as the hub listed them, newest runs appended
	waiting  map[string]pageApproval
	synced   bool // the hub's snapshots arrived
	streams  map[*stream]struct{}
	lastUsed time.Time
	idle     *time.Timer // closes the connection once no stream has used it for deviceIdle
}

// stream is one page's event stream: what its device's connection hears, ready to send.
type stream struct {
	events chan event
	ended  chan struct{} // closed when the stream must end (its backlog overflowed, the hub went)
	once   sync.Once
}

func (s *stream) end() { s.once.Do(func() { close(s.ended) }) }

// event is one server-sent event: its name and its JSON data.
type event struct {
	name string
	data []byte
}

// get returns d's connection to the hub, opening one when it has none. It returns when
// the hub has accepted the connection, or fails.
func (ds *devices) get(d device) (*deviceConn, error) {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	if c := ds.byID[d.ID]; c != nil {
		select {
		case <-c.client.Done():
		default:
			return c, nil
		}
	}
	if len(ds.byID) >= maxDevices {
		ds.closeLongestUnusedLocked()
	}
	mine, theirs, err := pair()
	if err != nil {
		return nil, fmt.Errorf("remote: connecting %s to the core: %w", d.who(), err)
	}
	ctx, cancel := context.WithCancel(ds.ctx)
	go ds.hub.Serve(ctx, theirs, control.Grant{Role: control.RoleRemote, Who: d.who()}) //nolint:errcheck // the client sees the end
	c := &deviceConn{dev: d, cancel: cancel, runs: map[string]pageRun{}, waiting: map[string]pageApproval{},
		streams: map[*stream]struct{}{}, lastUsed: time.Now()}
	type result struct {
		client *control.Client
		err    error
	}
	done := make(chan result, 1)
	go func() {
		cl, err := control.NewClient(mine, control.ClientOptions{Program: "segwi remote page", Event: c.apply})
		done <- result{cl, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(handshakeLimit):
		r.err = fmt.Errorf("the core did not accept the page's connection within %s", handshakeLimit)
	}
	if r.err != nil {
		cancel()
		mine.Close()
		return nil, fmt.Errorf("remote: connecting %s to the core: %w", d.who(), r.err)
	}
	if r.client.Role() != control.RoleRemote {
		cancel()
		r.client.Close()
		return nil, fmt.Errorf("remote: the core granted %s the role %q, want %q", d.who(), r.client.Role(), control.RoleRemote)
	}
	c.client = r.client
	c.idle = time.AfterFunc(deviceIdle, c.closeIfIdle)
	ds.byID[d.ID] = c
	go func() {
		<-c.client.Done()
		cancel()
		ds.mu.Lock()
		if ds.byID[d.ID] == c {
			delete(ds.byID, d.ID)
		}
		ds.mu.Unlock()
		c.mu.Lock()
		for s := range c.streams {
			s.end()
		}
		c.idle.Stop()
		c.mu.Unlock()
	}()
	return c, nil
}

// closeLongestUnusedLocked closes the connection used longest ago, to make room.
func (ds *devices) closeLongestUnusedLocked() {
	var oldest *deviceConn
	for _, c := range ds.byID {
		c.mu.Lock()
		if oldest == nil || c.lastUsed.Before(oldest.lastUsed) {
			oldest = c
		}
		c.mu.Unlock()
	}
	if oldest != nil {
		delete(ds.byID, oldest.dev.ID)
		oldest.client.Close()
	}
}

// do sends the hub what the person chose on the page: an answer (control.Answer) or a
// budget's raise (control.RaiseBudget); the hub records the device as who chose it.
func (c *deviceConn) do(ctx context.Context, cmd control.Body) error {
	c.touch()
	_, err := c.client.Do(ctx, cmd)
	return err
}

// subscribe adds a stream, and returns it with what the hub has said so far, as events.
func (c *deviceConn) subscribe() (*stream, []event) {
	s := &stream{events: make(chan event, streamBacklog), ended: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.streams[s] = struct{}{}
	c.lastUsed = time.Now()
	c.idle.Stop()
	if !c.synced {
		return s, nil
	}
	runs := make([]pageRun, 0, len(c.runOrder))
	for _, id := range c.runOrder {
		runs = append(runs, c.runs[id])
	}
	waiting := make([]pageApproval, 0, len(c.waiting))
	for _, a := range c.waiting {
		waiting = append(waiting, a)
	}
	return s, []event{encodeEvent("runs", runs), encodeEvent("approvals", waiting)}
}

// unsubscribe removes a stream; the connection closes once no stream has used it for a while.
func (c *deviceConn) unsubscribe(s *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.streams, s)
	c.lastUsed = time.Now()
	if len(c.streams) == 0 {
		c.idle.Reset(deviceIdle)
	}
}

func (c *deviceConn) touch() {
	c.mu.Lock()
	c.lastUsed = time.Now()
	if len(c.streams) == 0 {
		c.idle.Reset(deviceIdle)
	}
	c.mu.Unlock()
}

// closeIfIdle closes the connection when no stream uses it and nothing did for deviceIdle.
func (c *deviceConn) closeIfIdle() {
	c.mu.Lock()
	idle := len(c.streams) == 0 && time.Since(c.lastUsed) >= deviceIdle
	if !idle && len(c.streams) == 0 {
		c.idle.Reset(deviceIdle - time.Since(c.lastUsed))
	}
	c.mu.Unlock()
	if idle {
		c.client.Close()
	}
}

// apply takes in one message of the hub, on the client's reading goroutine: it keeps the
// view up to date and passes the message on to every stream, without waiting for any.
func (c *deviceConn) apply(b control.Body) {
	var ev event
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := b.(type) {
	case control.Runs:
		c.runs, c.runOrder = map[string]pageRun{}, nil
		list := make([]pageRun, 0, len(m.Runs))
		for _, r := range m.Runs {
			pr := pageRunOf(r)
			c.runs[r.ID] = pr
			c.runOrder = append(c.runOrder, r.ID)
			list = append(list, pr)
		}
		ev = encodeEvent("runs", list)
	case control.Run:
		pr := pageRunOf(m)
		if _, ok := c.runs[m.ID]; !ok {
			c.runOrder = append(c.runOrder, m.ID)
		}
		c.runs[m.ID] = pr
		ev = encodeEvent("run", pr)
	case control.Approvals:
		c.waiting = map[string]pageApproval{}
		list := make([]pageApproval, 0, len(m.Waiting))
		for _, a := range m.Waiting {
			pa := pageApprovalOf(a)
			c.waiting[a.Request] = pa
			list = append(list, pa)
		}
		c.synced = true
		ev = encodeEvent("approvals", list)
	case control.Approval:
		pa := pageApprovalOf(m)
		c.waiting[m.Request] = pa
		ev = encodeEvent("approval", pa)
	case control.ApprovalGone:
		delete(c.waiting, m.Request)
		ev = encodeEvent("gone", pageGoneOf(m))
	default:
		return // the hub sends a remote client nothing else
	}
	for s := range c.streams {
		select {
		case s.events <- ev:
		default:
			s.end() // it cannot keep up: it ends, and the page reconnects to a fresh snapshot
		}
	}
}

func encodeEvent(name string, v any) event {
	data, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("remote: encoding a %s event: %v", name, err)) // plain structs of strings and times
	}
	return event{name: name, data: data}
}

// pair returns the two ends of a new connection to the hub: a socket pair, which has no
// name or address. (Not net.Pipe: both sides of the control channel send their Hello
// before reading the other's, which an unbuffered pipe never lets through.)
func pair() (mine, theirs net.Conn, err error) {
	mine, f, err := control.Pair()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	theirs, err = net.FileConn(f)
	if err != nil {
		mine.Close()
		return nil, nil, err
	}
	return mine, theirs, nil
}
