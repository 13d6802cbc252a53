package mcpserver

import (
	"bufio"
	"errors"
	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/await"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// newTestServerLimits is newTestServer with limits of its own; those left zero are the
// defaults.
func newTestServerLimits(t *testing.T, cfg Config, lim limits) *Server {
	t.Helper()
	def := defaultLimits
	for _, l := range []struct{ got, from *time.Duration }{{&lim.header, &def.header}, {&lim.body, &def.body}} {
		if *l.got == 0 {
			*l.got = *l.from
		}
	}
	if lim.fresh == 0 {
		lim.fresh = def.fresh
	}
	if lim.conns == 0 {
		lim.conns = def.conns
	}
	s, err := newServer(cfg, lim)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// stall opens n connections to s and writes head on each, then nothing more: what a
// local program that wants to tie up the endpoint sends.
func stall(t *testing.T, s *Server, n int, head string) []net.Conn {
	t.Helper()
	u, _ := url.Parse(s.URL())
	conns := make([]net.Conn, 0, n)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range n {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatalf("opening stalled connection %d of %d: %v", len(conns)+1, n, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, strings.ReplaceAll(head, "HOST", u.Host)); err != nil {
			t.Fatalf("writing on stalled connection %d: %v", len(conns), err)
		}
	}
	return conns
}

// stalledBody announces a 10-byte body and never sends it.
const stalledBody = "POST /mcp HTTP/1.1\r\nHost: HOST\r\nContent-Type: application/json\r\n" +
	"Accept: application/json, text/event-stream\r\nContent-Length: 10\r\n\r\n"

// initializeWithin times an initialize sent with the run's token on a new connection.
func initializeWithin(t *testing.T, s *Server, token string, limit time.Duration) time.Duration {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 15 * time.Second}
	start := time.Now()
	resp, err := client.Do(mcpRequest(t, s, token, strings.NewReader(initializeBody)))
	took := time.Since(start)
	if err != nil {
		t.Fatalf("the run's initialize failed after %s: %v", took.Round(time.Millisecond), err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"serverInfo":{"name":"segwi"`) {
		t.Fatalf("the run's initialize: got %d %s, want segwi's initialize result", resp.StatusCode, body)
	}
	if took > limit {
		t.Errorf("the run's initialize took %s, want at most %s", took.Round(time.Millisecond), limit)
	}
	return took
}

// closedWithin waits until the server has closed each connection, reading what it
// answered, and fails for those still open once limit has passed since start.
// It returns the status lines seen and how many connections were still open.
func closedWithin(t *testing.T, conns []net.Conn, start time.Time, limit time.Duration) (statuses map[string]int, open int) {
	t.Helper()
	statuses = map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			c.SetReadDeadline(start.Add(limit))
			r := bufio.NewReader(c)
			status, _ := r.ReadString('\n')
			_, err := io.Copy(io.Discard, r)
			mu.Lock()
			defer mu.Unlock()
			if errors.Is(err, os.ErrDeadlineExceeded) {
				open++
				return
			}
			statuses[strings.TrimSpace(status)]++
		})
	}
	wg.Wait()
	return statuses, open
}

// Found by an attack on segwi: 1,000 connections that sent POST /mcp with
// Content-Length: 10 and no body were held 45 s and more, and tied up the endpoint.
func TestServerDoesNotHoldStalledRequestsWithoutAToken(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, run := register(t, s, "r1")
	start := time.Now()
	conns := stall(t, s, 1000, stalledBody)

	took := initializeWithin(t, s, reg.Token, 2*time.Second)
	statuses, open := closedWithin(t, conns, start, 5*time.Second)
	refused, closed := statuses["HTTP/1.1 401 Unauthorized"], statuses[""]
	if open > 0 || refused+closed != len(conns) {
		t.Errorf("stalled connections without a token: %d still open after 5s, answers %v; want each refused with 401, or closed to make room, and none held", open, statuses)
	}
	t.Logf("initialize answered in %s among %d stalled connections; %d refused with 401 and %d closed to make room, all within %s",
		took.Round(time.Millisecond), len(conns), refused, closed, time.Since(start).Round(time.Millisecond))
	if recs := run.Records(); len(recs) != 0 {
		t.Errorf("records: got %+v, want none", recs)
	}
}

// A connection with the run's token whose body does not come is not held for ever
// either: the body has a deadline.
func TestServerGivesABodyADeadline(t *testing.T) {
	s := newTestServerLimits(t, Config{Decider: approvaltest.Nobody(t)}, limits{body: 300 * time.Millisecond})
	reg, _ := register(t, s, "r1")
	start := time.Now()
	conns := stall(t, s, 1, strings.Replace(stalledBody, "\r\n\r\n", "\r\nAuthorization: Bearer "+reg.Token+"\r\n\r\n", 1))

	statuses, open := closedWithin(t, conns, start, 5*time.Second)
	if open > 0 || statuses["HTTP/1.1 408 Request Timeout"] != 1 {
		t.Errorf("a request whose body stalls: %d still open after 5s, answers %v; want 408 and closed", open, statuses)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("the stalled body was refused after %s, before its deadline of 300ms", took)
	}
	initializeWithin(t, s, reg.Token, 2*time.Second)
}

// Connections that never finish their headers are capped: past the cap the oldest of
// them is closed for a newcomer, so a run's own request still gets through.
func TestServerCapsConnectionsThatSendNoRequest(t *testing.T) {
	const maxFresh = 32
	s := newTestServerLimits(t, Config{Decider: approvaltest.Nobody(t)}, limits{fresh: maxFresh})
	reg, _ := register(t, s, "r1")
	cs := connect(t, s, reg.Token, "") // a run already connected keeps its connection
	start := time.Now()
	conns := stall(t, s, 1000, "POST /mcp HTTP/1.1\r\nHost: HOST\r\n")

	took := initializeWithin(t, s, reg.Token, 2*time.Second)
	_, open := closedWithin(t, conns, start, 1*time.Second)
	if open > maxFresh {
		t.Errorf("connections without a request still open: got %d of %d, want at most %d", open, len(conns), maxFresh)
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("the connected run's tools/list after the flood: %v", err)
	}
	t.Logf("initialize answered in %s; %d of %d header-stalled connections held", took.Round(time.Millisecond), open, len(conns))
}

// The body deadline ends with the body: a call that then waits for a person longer than
// that deadline is answered, not cut off.
func TestServerBodyDeadlineDoesNotCutAWaitForAPerson(t *testing.T) {
	const bodyDeadline = 100 * time.Millisecond
	p := approvaltest.NewPerson()
	s := newTestServerLimits(t, Config{Decider: p}, limits{body: bodyDeadline})
	reg, run := register(t, s, "r1")
	cs := connect(t, s, reg.Token, "")
	text := make(chan string, 1)
	go func() { text <- approveText(cs, "Bash", bashInput, "toolu_1") }()
	p.NextAsked(t)
	// The person answers once the body deadline has passed three times over.
	<-time.After(3 * bodyDeadline)
	p.Answer("toolu_1", approvals.Answer{Allow: true, By: approvals.ByPerson})
	if got, want := await.Recv(t, 10*time.Second, "the answer", text), `{"behavior":"allow"}`; got != want {
		t.Errorf("answer text:\n got %s\nwant %s", got, want)
	}
	if a := run.Answered(); len(a) != 1 || a[0].Answer.By != approvals.ByPerson {
		t.Errorf("recorded answers: got %+v, want one by the person", a)
	}
}
