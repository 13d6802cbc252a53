package gitserver

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// Proxy is the HTTP proxy an agent names in git's configuration to capture a push: it
// forwards plain HTTP requests where they were going, tunnels CONNECT for HTTPS, and keeps
// how many requests it saw and every credential they carried. A push test points git at
// it and checks it saw nothing, or no credential.
type Proxy struct {
	URL string // http://127.0.0.1:PORT

	mu          sync.Mutex
	requests    int      // requests seen, CONNECT tunnels included
	credentials []string // the Authorization and Proxy-Authorization headers seen
}

// NewProxy starts a proxy on loopback; it stops at the end of the test.
func NewProxy(t testing.TB) *Proxy {
	t.Helper()
	p := &Proxy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.requests++
		for _, h := range []string{"Authorization", "Proxy-Authorization"} {
			if v := r.Header.Get(h); v != "" {
				p.credentials = append(p.credentials, v)
			}
		}
		p.mu.Unlock()
		if r.Method == http.MethodConnect {
			tunnel(w, r)
			return
		}
		forward(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Seen returns how many requests the proxy saw and the credentials they carried.
func (p *Proxy) Seen() (requests int, credentials []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests, slices.Clone(p.credentials)
}

// forward sends r on to where it was going and copies the response back.
func forward(w http.ResponseWriter, r *http.Request) {
	out, err := http.NewRequest(r.Method, r.URL.String(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out.Header = r.Header.Clone()
	out.ContentLength = r.ContentLength
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// tunnel joins the client of a CONNECT to the host it names, until either side closes.
func tunnel(w http.ResponseWriter, r *http.Request) {
	upstream, err := net.Dial("tcp", r.Host)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
	go func() { io.Copy(upstream, conn); upstream.Close() }()
	io.Copy(conn, upstream)
	conn.Close()
}
