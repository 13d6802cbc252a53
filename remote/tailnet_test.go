package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/browser"
	"github.com/segwi/segwi/internal/testing/tailnet"
)

// page is the approval page served for the tailnet's Machine, with a test hub behind it.
type page struct {
	net  *tailnet.Net
	hub  *hub
	srv  *Server
	port int
	logs *logLines
}

// servePage starts the page on the Machine of a real tailnet.
func servePage(t *testing.T) *page {
	t.Helper()
	p := &page{net: tailnet.New(t), hub: newHub(t), port: tailnet.FreePort(t), logs: &logLines{t: t}}
	srv, err := New(Config{Port: p.port, Socket: p.net.Machine.Socket, Hub: p.hub.srv, Logf: p.logs.add})
	if err != nil {
		t.Fatal(err)
	}
	p.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	await.For(t, 30*time.Second, "the page to be served", func() error {
		st := srv.State()
		if st.Err != nil {
			return st.Err
		}
		if len(st.Listening) == 0 {
			return errors.New("it listens nowhere")
		}
		return nil
	})
	return p
}

// url is the page's address at host (an address or a name of the Machine).
func (p *page) url(host string) string {
	return "http://" + net.JoinHostPort(host, strconv.Itoa(p.port))
}

func TestTheApprovalPageOnARealTailnet(t *testing.T) {
	p := servePage(t)
	m := p.net.Machine
	run := testRun("r1")
	p.hub.addRun(run)

	t.Run("it listens only where tailscaled hands over tailnet connections", func(t *testing.T) {
		// Userspace networking: the tailnet addresses live inside tailscaled, which dials
		// 127.0.0.1 on the page's port. Never 0.0.0.0.
		st := p.srv.State()
		want := []netip.AddrPort{netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(p.port))}
		if !slices.Equal(st.Listening, want) {
			t.Errorf("listens on %v, want %v", st.Listening, want)
		}
		if st.Node.Login != m.Login || st.Node.Name != "machine" {
			t.Errorf("learned node %+v, want machine owned by %s", st.Node, m.Login)
		}
		wantURL := p.url(m.DNSName) + "/"
		if len(st.URLs) == 0 || st.URLs[0] != wantURL {
			t.Errorf("URLs %v, want %s first", st.URLs, wantURL)
		}
	})

	t.Run("segwi config check describes the machine, and a node that is not logged in", func(t *testing.T) {
		n, err := Check(context.Background(), m.Socket, nil)
		if err != nil || n.Name != "machine" || n.DNSName != m.DNSName || n.Login != m.Login || n.TUN || !slices.Contains(n.Addrs, m.IP) {
			t.Errorf("Check: %+v, %v; want machine (%s) owned by %s at %s, in userspace networking", n, err, m.DNSName, m.Login, m.IP)
		}
		out := p.net.LoggedOut(t)
		_, err = Check(context.Background(), out.Socket, nil)
		var te *TailscaleError
		if !errors.As(err, &te) || !strings.Contains(te.What, "not logged in") || !strings.Contains(te.Fix, "tailscale up") {
			t.Errorf("Check of a logged-out node: %v, want it to say it is not logged in and to run tailscale up", err)
		}
	})

	t.Run("the owner's phone sees a waiting approval and allows it, recorded as the phone", func(t *testing.T) {
		phone := tailnet.Visit(t, p.net.Phone.HTTPClient(), p.url(m.IP.String()))
		events := phone.Events(t)
		req := p.hub.ask(run, "Bash", map[string]string{"command": "go test ./...", "description": "Run the tests"}, 10*time.Minute)
		shown := awaitApprovalEvent(t, events, "approval", req)
		for _, want := range []string{`"tool":"Bash"`, `"caption":"Command"`, `"text":"go test ./..."`, `"name":"web"`, `"prompt":"Fix the flaky login test"`} {
			if !strings.Contains(shown, want) {
				t.Errorf("the approval event lacks %s: %s", want, shown)
			}
		}
		res := phone.Answer(t, req, "allow", "", nil)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("answer: %s: %s", res.Status, body(res))
		}
		who := "phone (" + p.net.Phone.Login + ")"
		if got := p.hub.Answers(); len(got) != 1 || got[0].Decision != control.Allow || got[0].By != who {
			t.Fatalf("the hub took %+v, want one allow by %s", got, who)
		}
		gone := awaitApprovalEvent(t, events, "gone", req)
		if !strings.Contains(gone, "Allowed by "+who) {
			t.Errorf("the page was told %s, want it allowed by %s", gone, who)
		}

		t.Run("and a second answer to it is refused: the first answer wins", func(t *testing.T) {
			res := phone.Answer(t, req, "deny", "too late", nil)
			if res.StatusCode != http.StatusConflict || !strings.Contains(body(res), "already answered by "+who) {
				t.Errorf("got %s, want 409 saying it was already answered", res.Status)
			}
		})
		t.Run("a deny carries the person's reason", func(t *testing.T) {
			req := p.hub.ask(run, "Write", map[string]string{"file_path": "/src/web/x.go", "content": "package x\n"}, time.Minute)
			awaitApprovalEvent(t, events, "approval", req)
			if res := phone.Answer(t, req, "deny-and-stop", "not this file", nil); res.StatusCode != http.StatusOK {
				t.Fatalf("answer: %s: %s", res.Status, body(res))
			}
			got := p.hub.Answers()
			last := got[len(got)-1]
			if last.Request != req || last.Decision != control.DenyAndStop || last.Reason != "not this file" || last.By != who {
				t.Errorf("the hub took %+v, want a deny and stop with the reason, by %s", last, who)
			}
		})
	})

	t.Run("refused, each with its status, without answering anything", func(t *testing.T) {
		phone := tailnet.Visit(t, p.net.Phone.HTTPClient(), p.url(m.IP.String()))
		req := p.hub.ask(run, "Bash", map[string]string{"command": "rm -rf build"}, 10*time.Minute)
		before := len(p.hub.Answers())
		answerBody := fmt.Sprintf(`{"request":%q,"decision":"allow"}`, req)
		direct := &http.Client{Timeout: 10 * time.Second}
		for _, tt := range []struct {
			name     string
			client   *http.Client
			url      string // the request's URL: where the client connects
			host     string // the Host header, when it is not the URL's
			post     bool
			header   map[string]string // beside the phone session's cookie and token (for the phone)
			noToken  bool
			body     string
			want     int
			wantText string // in the refusal's body
			wantLog  string // in segwi's log
		}{
			{name: "another user's node", client: p.net.Other.HTTPClient(), url: p.url(m.IP.String()) + "/",
				want: http.StatusForbidden, wantText: "may not answer this machine's approvals",
				wantLog: "refused node other (" + p.net.Other.Login + "): not an owner"},
			{name: "another user's node posting an answer", client: p.net.Other.HTTPClient(), url: p.url(m.IP.String()) + "/answer",
				post: true, header: map[string]string{"Origin": p.url(m.IP.String())}, body: answerBody,
				want: http.StatusForbidden, wantLog: "refused node other (" + p.net.Other.Login + ")"},
			{name: "a tagged node, though its owner's login registered it", client: p.net.Tagged.HTTPClient(), url: p.url(m.IP.String()) + "/",
				want: http.StatusForbidden, wantText: "tagged node", wantLog: "refused node ci (tags tag:ci)"},
			{name: "this machine's own node: the run's own browser", client: m.HTTPClient(), url: p.url(m.IP.String()) + "/",
				want: http.StatusForbidden, wantText: "Answers come only from your other devices",
				wantLog: "machine"},
			{name: "a direct loopback connection that did not come through the tailnet", client: direct,
				url: p.url("127.0.0.1") + "/", host: net.JoinHostPort(m.IP.String(), strconv.Itoa(p.port)),
				want: http.StatusForbidden, wantText: "Answers come only from your other devices",
				wantLog: "did not come through the tailnet"},
			{name: "a direct loopback connection posting an answer", client: direct,
				url: p.url("127.0.0.1") + "/answer", host: net.JoinHostPort(m.IP.String(), strconv.Itoa(p.port)),
				post: true, header: map[string]string{"Origin": p.url(m.IP.String())}, body: answerBody,
				want: http.StatusForbidden, wantLog: "did not come through the tailnet"},
			{name: "a wrong Host (DNS rebinding)", client: phone.Client, url: p.url(m.IP.String()) + "/",
				host: "rebind.example:" + strconv.Itoa(p.port), want: http.StatusForbidden, wantText: "DNS rebinding",
				wantLog: `refused the Host "rebind.example:`},
			{name: "a cross-origin POST", client: phone.Client, url: p.url(m.IP.String()) + "/answer", post: true,
				header: map[string]string{"Origin": "http://evil.example"}, body: answerBody,
				want: http.StatusForbidden, wantText: "from another origin"},
			{name: "a POST without an Origin", client: phone.Client, url: p.url(m.IP.String()) + "/answer", post: true,
				body: answerBody, want: http.StatusForbidden, wantText: "without an Origin"},
			{name: "a POST without the anti-forgery token", client: phone.Client, url: p.url(m.IP.String()) + "/answer", post: true,
				header: map[string]string{"Origin": p.url(m.IP.String())}, noToken: true, body: answerBody,
				want: http.StatusForbidden, wantText: "anti-forgery token"},
			{name: "an oversized body", client: phone.Client, url: p.url(m.IP.String()) + "/answer", post: true,
				header: map[string]string{"Origin": p.url(m.IP.String())},
				body:   `{"request":"` + req + `","decision":"allow","reason":"` + strings.Repeat("x", 1<<20) + `"}`,
				want:   http.StatusRequestEntityTooLarge},
			{name: "another site's script reading the event stream", client: phone.Client, url: p.url(m.IP.String()) + "/events",
				header: map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"},
				want:   http.StatusForbidden, wantText: "another site"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				method, payload := http.MethodGet, io.Reader(nil)
				if tt.post {
					method, payload = http.MethodPost, strings.NewReader(tt.body)
				}
				r, err := http.NewRequest(method, tt.url, payload)
				if err != nil {
					t.Fatal(err)
				}
				if tt.host != "" {
					r.Host = tt.host
				}
				if tt.client == phone.Client {
					r.AddCookie(phone.Cookie)
					if !tt.noToken {
						r.Header.Set("X-Segwi-Token", phone.Token)
					}
				}
				for k, v := range tt.header {
					r.Header.Set(k, v)
				}
				res, err := tt.client.Do(r)
				if err != nil {
					t.Fatalf("%s %s: %v", method, tt.url, err)
				}
				text := body(res)
				if res.StatusCode != tt.want || !strings.Contains(text, tt.wantText) {
					t.Errorf("got %s: %q, want %d with %q", res.Status, text, tt.want, tt.wantText)
				}
				if len(res.Header.Values("Access-Control-Allow-Origin")) > 0 {
					t.Errorf("a refusal carries a CORS header: %v", res.Header)
				}
				if tt.wantLog != "" {
					p.logs.await(t, tt.wantLog)
				}
				if got := p.hub.Answers(); len(got) != before {
					t.Fatalf("the refused request answered %+v", got[before:])
				}
			})
		}
		// The same answer from the phone goes through: each refusal above was the check's.
		if res := phone.Answer(t, req, "deny", "", nil); res.StatusCode != http.StatusOK {
			t.Errorf("the phone's own answer: %s: %s", res.Status, body(res))
		}
	})

	t.Run("the page in a real browser on the phone: shows the approval, Allow answers it", func(t *testing.T) {
		req := p.hub.ask(run, "Edit", map[string]any{"file_path": "/src/web/login_test.go",
			"old_string": "time.Sleep(2 * time.Second)", "new_string": "await.For(t, 5*time.Second, \"the login\", loggedIn)"}, 10*time.Minute)
		before := len(p.hub.Answers())
		b := browser.Start(t, browser.Options{Proxy: "socks5://" + p.net.Phone.Socks, Width: 390, Height: 844})
		b.Open(t, p.url(m.DNSName)+"/")
		card := fmt.Sprintf(`li.card[data-request=%q]`, req)
		b.Await(t, 20*time.Second, card+" .time-left")
		text, err := b.Text(b.Await(t, time.Second, card))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"BUILD", "web", "Fix the flaky login test", "wants to use Edit", "Edit login_test.go:",
			"- time.Sleep(2 * time.Second)", "+ await.For(", "left", "Allow", "Deny and stop the run"} {
			if !strings.Contains(text, want) {
				t.Errorf("the card lacks %q:\n%s", want, text)
			}
		}
		b.Screenshot(t, filepath.Join(screenshotDir(t), "remote-page-phone.png"))
		b.Click(t, b.Await(t, time.Second, card+" button.allow"))
		await.For(t, 30*time.Second, "the hub to take the browser's answer", func() bool { return len(p.hub.Answers()) > before })
		got := p.hub.Answers()[before]
		if got.Request != req || got.Decision != control.Allow || got.By != "phone ("+p.net.Phone.Login+")" {
			t.Errorf("the hub took %+v, want an allow of %s by the phone", got, req)
		}
		await.For(t, 30*time.Second, "the card to say who allowed it", func() error {
			el, err := b.Find(card + " .outcome")
			if err != nil {
				return err
			}
			text, err := b.Text(el)
			if err != nil {
				return err
			}
			if !strings.Contains(text, "Allowed by phone") {
				return fmt.Errorf("it says %q", text)
			}
			return nil
		})
		b.Screenshot(t, filepath.Join(screenshotDir(t), "remote-page-phone-allowed.png"))
	})
}
