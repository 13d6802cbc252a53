package tailnet

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/runs/ports"
)

// Visitor is one device's approval page (package remote): its session cookie and
// anti-forgery token, as a browser on that device keeps them.
type Visitor struct {
	Client *http.Client // how the device connects (Node.HTTPClient)
	Base   string       // the page's origin, http://host:port
	Cookie *http.Cookie
	Token  string
}

var tokenMeta = regexp.MustCompile(`<meta name="segwi-token" content="([0-9a-f]+)">`)

// Visit loads the page at base as client does, checks what every page must carry (its
// token, a strict session cookie, a content security policy) and keeps its session.
func Visit(t *testing.T, client *http.Client, base string) *Visitor {
	t.Helper()
	res, err := client.Get(base + "/")
	if err != nil {
		t.Fatalf("loading the page: %v", err)
	}
	text := readBody(res)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("loading the page: %s: %s", res.Status, text)
	}
	m := tokenMeta.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the page carries no anti-forgery token:\n%s", text)
	}
	v := &Visitor{Client: client, Base: base, Token: m[1]}
	for _, c := range res.Cookies() {
		if c.Name == "segwi-session" {
			v.Cookie = c
		}
	}
	if v.Cookie == nil || !v.Cookie.HttpOnly || v.Cookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("the page's session cookie: %+v, want an HttpOnly, SameSite=Strict segwi-session", v.Cookie)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q, want default-src 'none'", csp)
	}
	return v
}

// Answer posts an answer as the page's script does (its Origin, session cookie and
// anti-forgery token); edit, when set, changes the request first (an attack drops or
// swaps a part).
func (v *Visitor) Answer(t *testing.T, request, decision, reason string, edit func(*http.Request)) *http.Response {
	t.Helper()
	return v.post(t, "/answer", map[string]string{"request": request, "decision": decision, "reason": reason}, edit)
}

// Raise posts the raise of run's budget by cost (dollars), tokens and turns as the page's
// script does; edit as for Answer.
func (v *Visitor) Raise(t *testing.T, run string, cost float64, tokens int64, turns int, edit func(*http.Request)) *http.Response {
	t.Helper()
	return v.post(t, "/raise", map[string]any{"run": run, "cost": cost, "tokens": tokens, "turns": turns}, edit)
}

// post posts body as JSON to the page's path as its script does; edit as for Answer.
func (v *Visitor) post(t *testing.T, path string, body any, edit func(*http.Request)) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	r, err := http.NewRequest(http.MethodPost, v.Base+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Origin", v.Base)
	r.Header.Set("X-Segwi-Token", v.Token)
	r.AddCookie(v.Cookie)
	if edit != nil {
		edit(r)
	}
	res, err := v.Client.Do(r)
	if err != nil {
		t.Fatalf("posting to %s: %v", path, err)
	}
	return res
}

// EventStream is the page's event stream, read on a goroutine of its own until the test
// ends.
type EventStream struct {
	mu    sync.Mutex
	seen  []string // "name data"
	ended string   // why the stream ended, once it has
}

// Events opens the page's event stream.
func (v *Visitor) Events(t *testing.T) *EventStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, v.Base+"/events", nil)
	client := *v.Client
	client.Timeout = 0 // a stream
	res, err := client.Do(r)
	if err != nil {
		cancel()
		t.Fatalf("opening the event stream: %v", err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("the event stream: %s %s: %s", res.Status, res.Header.Get("Content-Type"), readBody(res))
	}
	es := &EventStream{}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				es.mu.Lock()
				es.seen = append(es.seen, name+" "+strings.TrimPrefix(line, "data: "))
				es.mu.Unlock()
			}
		}
		why := "the page closed it"
		if err := sc.Err(); err != nil {
			why = err.Error()
		}
		es.mu.Lock()
		es.ended = why
		es.mu.Unlock()
	}()
	// The page's connection to the core may still be starting when the stream opens: what
	// is asked until the core's snapshot arrives comes in that snapshot, not as an event of
	// its own. Return once the stream carries the snapshot, so that what a test asks after
	// comes as an event.
	es.Await(t, 30*time.Second, "approvals", "")
	return es
}

// AwaitApproval waits up to within for a waiting approval whose data holds match, told
// as an event of its own or in a snapshot of what waits, and returns its data: a
// request asked before the page's stream had its snapshot is in that snapshot.
func (es *EventStream) AwaitApproval(t *testing.T, within time.Duration, match string) string {
	t.Helper()
	var found string
	await.For(t, within, "an approval with "+match, func() error {
		es.mu.Lock()
		defer es.mu.Unlock()
		for _, e := range es.seen {
			name, data, _ := strings.Cut(e, " ")
			switch name {
			case "approval":
				if strings.Contains(data, match) {
					found = data
					return nil
				}
			case "approvals":
				var waiting []json.RawMessage
				if err := json.Unmarshal([]byte(data), &waiting); err != nil {
					return fmt.Errorf("a snapshot of what waits that is not a JSON list: %v: %s", err, data)
				}
				for _, a := range waiting {
					if strings.Contains(string(a), match) {
						found = string(a)
						return nil
					}
				}
			}
		}
		return es.describeLocked()
	})
	return found
}

// Await waits up to within for an event named name whose data holds match, and returns
// its data.
func (es *EventStream) Await(t *testing.T, within time.Duration, name, match string) string {
	t.Helper()
	var found string
	await.For(t, within, fmt.Sprintf("a %s event with %s", name, match), func() error {
		es.mu.Lock()
		defer es.mu.Unlock()
		for _, e := range es.seen {
			if strings.HasPrefix(e, name+" ") && strings.Contains(e, match) {
				found = strings.TrimPrefix(e, name+" ")
				return nil
			}
		}
		return es.describeLocked()
	})
	return found
}

// Seen returns the data of the first event named name whose data holds match, if the
// stream carried one so far; it does not wait.
func (es *EventStream) Seen(name, match string) (string, bool) {
	es.mu.Lock()
	defer es.mu.Unlock()
	for _, e := range es.seen {
		if strings.HasPrefix(e, name+" ") && strings.Contains(e, match) {
			return strings.TrimPrefix(e, name+" "), true
		}
	}
	return "", false
}

// describeLocked says what the stream carried, and why it ended if it has.
func (es *EventStream) describeLocked() error {
	err := fmt.Errorf("the stream had %d events: %q", len(es.seen), es.seen)
	if es.ended != "" {
		err = fmt.Errorf("%w, then it ended (%s)", err, es.ended)
	}
	return err
}

// FreePort returns a TCP port on loopback that nothing listens on now, for the page: in
// userspace networking, tailscaled hands the tailnet's connections to it there. The page
// listens on it only once segwi and its tailnet are up, seconds later, so the port is one
// the kernel never hands out on its own (pagePorts), held through a lock file in the
// temporary folder until the test ends, so that tests side by side, in this process or
// another, never pick the same one.
func FreePort(t *testing.T) int {
	t.Helper()
	from, to, ok := pagePorts()
	if !ok {
		// The kernel hands out nearly every port (net.ipv4.ip_local_port_range starts
		// low): take one it gives, and the small chance that it gives it again meanwhile.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().(*net.TCPAddr).Port
	}
	dir := filepath.Join(os.TempDir(), "segwi-test-page-ports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		p := from + rand.IntN(to-from+1)
		h, err := ports.TryRange(dir, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		if h != nil {
			t.Cleanup(h.Release)
			return p
		}
	}
	t.Fatalf("found no free port for the page between %d and %d in 100 tries", from, to)
	return 0
}

// pagePorts are the ports FreePort picks from: below the kernel's ephemeral range, which
// no outgoing connection and no program binding port 0 (chromedriver, Chromium, the tests'
// own servers) is given, and 5,000 above where runs' port ranges start (ports.FirstPort).
// ok is false when the ephemeral range starts too low to leave 1,000 of them.
func pagePorts() (from, to int, ok bool) {
	low, _ := ports.Ephemeral()
	from, to = ports.FirstPort+5000, low-1
	return from, to, to-from+1 >= 1000
}

func readBody(res *http.Response) string {
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return string(data)
}
