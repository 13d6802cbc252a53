package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/segwi/segwi/internal/lib/httpguard"
	"github.com/segwi/segwi/internal/lib/logger"
	"github.com/segwi/segwi/settings"
)

// Config configures a Server: segwi.remote's settings, and the core it answers for.
type Config struct {
	Port   int      // segwi.remote.port; settings.DefaultRemotePort when zero
	Owners []string // segwi.remote.owners; empty: the login that owns this machine's node
	Socket string   // segwi.remote.socket; empty: the platform's tailscaled socket
	Hub    Hub      // the core; required
	// Logf writes a line to segwi's log: each refused request, naming its node and login,
	// and each change of where the page is served. Nil writes nothing.
	Logf logger.Logf
	// OnState, when set, is called with the server's new State each time where the page
	// is served changes or a problem starts or ends (the tray shows it). Calls come in
	// order, on the server's goroutine: it must not block for long.
	OnState func(State)
}

// State says where the page is served, or why it is not.
type State struct {
	Node      Node             // this machine's node, once tailscaled has described it
	Listening []netip.AddrPort // the sockets the page listens on
	URLs      []string         // where the owner's devices open the page
	Err       error            // why the page is not served (a *TailscaleError, or a port in use); nil while it is
}

// state is what the guard decides by: this machine's node and its endpoints, or why the
// page is not served.
type state struct {
	node      Node
	endpoints endpoints
	err       error
}

// ErrAsking is a Server's State.Err until tailscaled has first answered: it is not
// serving yet, and nothing is wrong.
var ErrAsking = &TailscaleError{What: "segwi has not asked tailscaled yet", Fix: "wait a moment"}

// errStopped is a Server's State.Err once Run has returned.
var errStopped = errors.New("remote: the page has stopped")

// Server serves the approval page on this machine's tailnet addresses, for the owner's
// other devices only (see guard), as a client of the core's control channel (see Hub).
type Server struct {
	cfg      Config
	lim      limits
	ts       tailscaled
	socket   string // for messages
	owners   []string
	sessions *sessions
	http     *http.Server

	mu        sync.Mutex
	st        state
	listening map[netip.AddrPort]net.Listener
	devices   *devices // set by Run
}

// New returns a Server for cfg. It listens on nothing until Run.
func New(cfg Config) (*Server, error) {
	return newServer(cfg, newLocalAPI(cfg.Socket), defaultLimits)
}

func newServer(cfg Config, ts tailscaled, lim limits) (*Server, error) {
	if cfg.Hub == nil {
		return nil, errors.New("remote: new server: no hub")
	}
	if cfg.Port == 0 {
		cfg.Port = settings.DefaultRemotePort
	}
	if cfg.Port < 1 || cfg.Port > 65535 {
		return nil, fmt.Errorf("remote: new server: port %d is not a TCP port", cfg.Port)
	}
	s := &Server{
		cfg: cfg, lim: lim, ts: ts, socket: socketPath(cfg.Socket), owners: slices.Clone(cfg.Owners),
		sessions:  newSessions(),
		st:        state{err: ErrAsking},
		listening: make(map[netip.AddrPort]net.Listener),
	}
	s.http = &http.Server{
		Handler:           s.guard(s.routes()),
		ReadHeaderTimeout: lim.header,
		ReadTimeout:       lim.request, // the event stream lifts it for itself
		WriteTimeout:      lim.request, // the event stream bounds each of its writes instead
		IdleTimeout:       time.Minute,
		MaxHeaderBytes:    16 << 10,
		ConnContext:       httpguard.WithConn,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	return s, nil
}

func (s *Server) logf(format string, args ...any) { s.cfg.Logf.Printf(format, args...) }

// Run serves the page until ctx is done, then stops listening and ends every connection
// to the hub. It follows tailscaled: it listens where this machine's node is reachable,
// moves when its addresses change, and stops serving while tailscaled is missing, refuses
// segwi, or is not logged in (State says which), trying again meanwhile.
func (s *Server) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.devices != nil {
		s.mu.Unlock()
		return errors.New("remote: run: already running")
	}
	s.devices = newDevices(ctx, s.cfg.Hub)
	s.mu.Unlock()
	defer func() {
		s.set(state{err: errStopped}, nil)
		shut, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		s.http.Shutdown(shut) //nolint:errcheck // the listeners are closed either way
		s.http.Close()
	}()
	// While tailscaled is missing or refuses segwi, ask again after a pause that doubles up
	// to maxWait; a watch that lasted starts the pauses over.
	const minWait, maxWait = time.Second, 30 * time.Second
	wait := minWait
	for {
		began := time.Now()
		err := s.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		s.set(state{err: err}, nil)
		if time.Since(began) > maxWait {
			wait = minWait
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = min(2*wait, maxWait)
	}
}

// follow watches tailscaled and applies each change of this machine's node, until the
// watch ends. It returns why, as a person would want it said (never nil).
func (s *Server) follow(ctx context.Context) error {
	w, err := s.ts.Watch(ctx)
	if err != nil {
		return s.diagnose(ctx, err)
	}
	defer w.Close()
	for {
		n, err := w.Next()
		if err != nil {
			return s.diagnose(ctx, err)
		}
		if n.State != nil || n.SelfChange != nil || n.LoginFinished != nil || n.ErrMessage != nil {
			s.refresh(ctx)
		}
	}
}

// diagnose says what is wrong with tailscaled, given the error of a watch: its status
// says it best (access denied, not logged in), else the watch's error.
func (s *Server) diagnose(ctx context.Context, watchErr error) error {
	ctx, cancel := context.WithTimeout(ctx, whoisTimeout)
	defer cancel()
	if _, err := check(ctx, s.ts, s.socket, s.owners); err != nil {
		return err
	}
	return explain(s.socket, watchErr)
}

// refresh asks tailscaled about this machine's node and listens where it is reachable.
func (s *Server) refresh(ctx context.Context) {
	asking, cancel := context.WithTimeout(ctx, whoisTimeout)
	defer cancel()
	n, err := check(asking, s.ts, s.socket, s.owners)
	if ctx.Err() != nil {
		return // Run is ending
	}
	if err != nil {
		s.set(state{node: n, err: err}, nil)
		return
	}
	e := endpointsOf(n, s.cfg.Port)
	s.set(state{node: n, endpoints: e}, e.listen)
}

// set makes st the page's state and listens on exactly want, and tells OnState.
func (s *Server) set(st state, want []netip.AddrPort) {
	s.mu.Lock()
	for ap, ln := range s.listening {
		if !slices.Contains(want, ap) {
			ln.Close()
			delete(s.listening, ap)
			s.logf("remote: the approval page no longer listens on %s", ap)
		}
	}
	for _, ap := range want {
		if s.listening[ap] != nil {
			continue
		}
		ln, err := net.Listen("tcp", ap.String())
		if err != nil {
			st.err = fmt.Errorf("remote: cannot listen on %s: %w: set segwi.remote.port to a free port", ap, err)
			continue
		}
		s.listening[ap] = ln
		go s.http.Serve(httpguard.NewLimiter(ln, s.lim.fresh, s.lim.conns)) //nolint:errcheck // ends when ln is closed
		s.logf("remote: the approval page listens on %s", ap)
	}
	changed := !sameState(s.st, st)
	s.st = st
	pub := s.publicLocked()
	s.mu.Unlock()
	if st.err != nil && st.err != errStopped && changed {
		s.logf("remote: the approval page is not served: %v", st.err)
	}
	if changed && s.cfg.OnState != nil {
		s.cfg.OnState(pub)
	}
}

func sameState(a, b state) bool {
	return slices.Equal(a.endpoints.listen, b.endpoints.listen) && slices.Equal(a.endpoints.hosts, b.endpoints.hosts) &&
		fmt.Sprint(a.err) == fmt.Sprint(b.err)
}

// current returns the state the guard decides by.
func (s *Server) current() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// State returns where the page is served, or why it is not.
func (s *Server) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.publicLocked()
}

func (s *Server) publicLocked() State {
	st := State{Node: s.st.node, Err: s.st.err}
	for ap := range s.listening {
		st.Listening = append(st.Listening, ap)
	}
	slices.SortFunc(st.Listening, netip.AddrPort.Compare)
	if st.Err == nil {
		port := strconv.Itoa(s.cfg.Port)
		if n := s.st.node; n.DNSName != "" {
			st.URLs = append(st.URLs, "http://"+net.JoinHostPort(n.DNSName, port)+"/")
		}
		for _, a := range s.st.node.Addrs {
			st.URLs = append(st.URLs, "http://"+net.JoinHostPort(a.String(), port)+"/")
		}
	}
	return st
}
