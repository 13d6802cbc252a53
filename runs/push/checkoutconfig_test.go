package push

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The agent can write the checkout's .git/config before the push. A proxy named there
// (remote.origin.proxy, http.proxy, with http.sslCAInfo for HTTPS) would get the token's
// Basic header, so segwi refuses before git runs.
func TestAProxyInTheCheckoutsConfigIsRefused(t *testing.T) {
	f := newFixture(t)
	var mu sync.Mutex
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Authorization"))
		mu.Unlock()
		out, _ := http.NewRequest(r.Method, r.URL.String(), r.Body)
		out.Header = r.Header.Clone()
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
	}))
	t.Cleanup(proxy.Close)
	f.run(f.checkout, "config", "remote.origin.proxy", proxy.URL)

	var records []Attempt
	var calls int
	a, err := Push(context.Background(), f.request(giveToken(testToken, &calls), &records))
	f.captureAttempt(a, err)
	var refused *RefusedError
	if !errors.As(err, &refused) || refused.Reason != ReasonRemoteSetup || !strings.Contains(refused.Msg, "remote.origin.proxy") {
		t.Errorf("push: %v; want a remote-setup refusal naming remote.origin.proxy", err)
	}
	if calls != 0 {
		t.Errorf("the token was read %d times; want none for a refused push", calls)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 0 {
		t.Errorf("the proxy saw %d requests; want none", len(seen))
	}
}
