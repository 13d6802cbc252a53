// Package browser drives a real headless Chromium for segwi's page tests, through
// chromedriver and the W3C WebDriver protocol (plain JSON over HTTP on loopback): open a
// page, find and click elements, read their text, take a screenshot. Debian's chromium
// and chromium-driver packages provide both programs (scripts/setup.sh --test installs
// them); no browser is downloaded.
//
//	b := browser.Start(t, browser.Options{Proxy: "socks5://127.0.0.1:1080", Width: 390, Height: 844})
//	b.Open(t, "http://machine.example.ts.net:7717/")
//	b.Click(t, b.Await(t, 10*time.Second, "button.allow"))
package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/syncbuf"
)

// Options say how the browser starts.
type Options struct {
	Proxy         string  // e.g. socks5://127.0.0.1:1080; empty: none
	Width, Height int     // the viewport in CSS pixels, emulating a phone's screen
	PixelRatio    float64 // device pixels per CSS pixel; 2 when zero
}

// Browser is one browser session.
type Browser struct {
	url    string // the session's WebDriver URL
	client *http.Client
}

// elementKey names an element reference in WebDriver's answers.
const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// driverStart bounds how long chromedriver may take to say its port (70 ms on a quiet
// machine here), with room for a machine loaded by the whole test command; driverSlow is
// when a test's log says how long it took. driverTries bounds its starts (startDriver).
const (
	driverStart = time.Minute
	driverSlow  = 5 * time.Second
	driverTries = 5
)

// Start starts chromedriver and a headless Chromium session with opts; the test's cleanup
// ends both. Without chromium or chromedriver it skips the test, or fails it under
// SEGWI_TEST_STRICT=1.
func Start(t *testing.T, opts Options) *Browser {
	t.Helper()
	chromium, driver := claudetest.NeedTool(t, "chromium"), claudetest.NeedTool(t, "chromedriver")
	base := startDriver(t, driver)

	if opts.PixelRatio == 0 {
		opts.PixelRatio = 2
	}
	args := []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		fmt.Sprintf("--window-size=%d,%d", opts.Width, opts.Height)}
	if opts.Proxy != "" {
		args = append(args, "--proxy-server="+opts.Proxy)
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": chromium,
			"args":   args,
			"mobileEmulation": map[string]any{
				"deviceMetrics": map[string]any{"width": opts.Width, "height": opts.Height, "pixelRatio": opts.PixelRatio, "mobile": true, "touch": true},
				"userAgent":     "Mozilla/5.0 (Linux; Android 14; segwi test phone) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Mobile Safari/537.36",
			},
		},
	}}}
	b := &Browser{client: &http.Client{Timeout: time.Minute}}
	var session struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(http.MethodPost, base+"/session", caps, &session); err != nil {
		t.Fatalf("starting a Chromium session: %v", err)
	}
	b.url = base + "/session/" + session.SessionID
	t.Cleanup(func() { b.call(http.MethodDelete, b.url, nil, nil) }) //nolint:errcheck // chromedriver goes next
	return b
}

// startDriver starts chromedriver, which the test's cleanup ends, and returns its URL once
// it has said which port it listens on. Told to pick a port (--port=0), chromedriver binds
// a free port on ::1 and then the same port on 127.0.0.1, and exits when that one is taken,
// as it can be beside the test command's other servers on loopback: it is started again
// then, up to driverTries times. It fails the test, with what chromedriver printed, when it
// ends first for another reason or says nothing within driverStart.
func startDriver(t *testing.T, driver string) string {
	t.Helper()
	for try := 1; ; try++ {
		url, ended, said := driverOnce(t, driver)
		switch {
		case url != "":
			return url
		case !ended:
			t.Fatalf("chromedriver did not say which port it listens on within %v; it printed:\n%s", driverStart, said)
		case try < driverTries && strings.Contains(said, "port not available"):
			t.Logf("chromedriver's port was taken (try %d of %d): %s", try, driverTries, said)
		default:
			t.Fatalf("chromedriver ended before it said which port it listens on; it printed:\n%s", said)
		}
	}
}

// driverOnce starts chromedriver and returns its URL once it says its port, with the test's
// cleanup to end it; or, when it ends first (ended) or says nothing within driverStart,
// what it printed.
func driverOnce(t *testing.T, driver string) (url string, ended bool, said string) {
	t.Helper()
	// Its output goes to a pipe of the test's own, not through os/exec's copying: the
	// Chromium it starts later inherits the pipe, and must not hold up its Wait.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, driver, "--port=0") // it says its port on stdout, unless told to be silent
	cmd.Stdout, cmd.Stderr = w, w
	asked := time.Now()
	err = cmd.Start()
	w.Close()
	if err != nil {
		cancel()
		r.Close()
		t.Fatalf("starting chromedriver: %v", err)
	}
	var out syncbuf.Buffer // what it printed, for a failure's message
	port := make(chan string, 1)
	read := make(chan struct{}) // closed when the pipe is read to its end, or closed
	go func() {
		defer close(read)
		started := regexp.MustCompile(`started successfully on port (\d+)`)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			out.Write(append(sc.Bytes(), '\n')) //nolint:errcheck // a buffer's
			if m := started.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case port <- m[1]:
				default: // said once already
				}
			}
		}
		io.Copy(io.Discard, r) //nolint:errcheck
	}()
	exited := make(chan struct{})
	var exitedWith error
	go func() {
		exitedWith = cmd.Wait()
		close(exited)
	}()
	end := func() { cancel(); <-exited; r.Close(); <-read }
	select {
	case p := <-port:
		t.Cleanup(end)
		if took := time.Since(asked); took > driverSlow {
			t.Logf("chromedriver said its port after %v", took.Round(time.Millisecond))
		}
		return "http://127.0.0.1:" + p, false, ""
	case <-exited:
		select {
		case <-read: // all it printed
		case <-time.After(5 * time.Second):
		}
		end()
		return "", true, fmt.Sprintf("(%v) %s", exitedWith, out.String())
	case <-time.After(driverStart):
		end()
		return "", false, out.String()
	}
}

// Open loads url and returns once the page has loaded.
func (b *Browser) Open(t *testing.T, url string) {
	t.Helper()
	if err := b.call(http.MethodPost, b.url+"/url", map[string]string{"url": url}, nil); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
}

// Element is a reference to an element of the page.
type Element string

// Find returns the first element that matches the CSS selector, or an error.
func (b *Browser) Find(css string) (Element, error) {
	var found map[string]string
	if err := b.call(http.MethodPost, b.url+"/element", map[string]string{"using": "css selector", "value": css}, &found); err != nil {
		return "", err
	}
	return Element(found[elementKey]), nil
}

// Await waits until an element that matches css is shown, and returns it.
func (b *Browser) Await(t *testing.T, within time.Duration, css string) Element {
	t.Helper()
	var el Element
	await.For(t, within, "the page to show "+css, func() error {
		var err error
		if el, err = b.Find(css); err != nil {
			return err
		}
		var shown bool
		if err := b.call(http.MethodGet, b.url+"/element/"+string(el)+"/displayed", nil, &shown); err != nil {
			return err
		}
		if !shown {
			return fmt.Errorf("%s is hidden", css)
		}
		return nil
	})
	return el
}

// Click clicks el as a person would (WebDriver scrolls it into view first).
func (b *Browser) Click(t *testing.T, el Element) {
	t.Helper()
	if err := b.call(http.MethodPost, b.url+"/element/"+string(el)+"/click", map[string]any{}, nil); err != nil {
		t.Fatalf("clicking: %v", err)
	}
}

// Fill empties the input el and types text into it, as a person would.
func (b *Browser) Fill(t *testing.T, el Element, text string) {
	t.Helper()
	if err := b.call(http.MethodPost, b.url+"/element/"+string(el)+"/clear", map[string]any{}, nil); err != nil {
		t.Fatalf("emptying an input: %v", err)
	}
	if err := b.call(http.MethodPost, b.url+"/element/"+string(el)+"/value", map[string]any{"text": text}, nil); err != nil {
		t.Fatalf("typing %q: %v", text, err)
	}
}

// Value returns what the input el holds.
func (b *Browser) Value(t *testing.T, el Element) string {
	t.Helper()
	var value string
	if err := b.call(http.MethodGet, b.url+"/element/"+string(el)+"/property/value", nil, &value); err != nil {
		t.Fatalf("reading an input's value: %v", err)
	}
	return value
}

// Displayed reports whether el is shown (WebDriver's element displayedness).
func (b *Browser) Displayed(t *testing.T, el Element) bool {
	t.Helper()
	var shown bool
	if err := b.call(http.MethodGet, b.url+"/element/"+string(el)+"/displayed", nil, &shown); err != nil {
		t.Fatalf("asking whether an element is shown: %v", err)
	}
	return shown
}

// Text returns el's text as shown.
func (b *Browser) Text(el Element) (string, error) {
	var text string
	err := b.call(http.MethodGet, b.url+"/element/"+string(el)+"/text", nil, &text)
	return text, err
}

// CSS returns the computed value of el's CSS property, as the browser resolved it (colors
// as rgba(r, g, b, a)).
func (b *Browser) CSS(t *testing.T, el Element, property string) string {
	t.Helper()
	var value string
	if err := b.call(http.MethodGet, b.url+"/element/"+string(el)+"/css/"+property, nil, &value); err != nil {
		t.Fatalf("reading %s: %v", property, err)
	}
	return value
}

// PreferColorScheme has pages see the phone set to "light" or "dark" (prefers-color-scheme),
// through Chromium's DevTools protocol, as a phone's system setting would.
func (b *Browser) PreferColorScheme(t *testing.T, scheme string) {
	t.Helper()
	in := map[string]any{"cmd": "Emulation.setEmulatedMedia", "params": map[string]any{
		"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}}}
	if err := b.call(http.MethodPost, b.url+"/goog/cdp/execute", in, nil); err != nil {
		t.Fatalf("preferring the %s color scheme: %v", scheme, err)
	}
}

// Screenshot saves what the viewport shows as a PNG at path.
func (b *Browser) Screenshot(t *testing.T, path string) {
	t.Helper()
	var encoded string
	if err := b.call(http.MethodGet, b.url+"/screenshot", nil, &encoded); err != nil {
		t.Fatalf("taking a screenshot: %v", err)
	}
	png, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// call makes one WebDriver request and decodes its value into out (when not nil).
func (b *Browser) call(method, url string, in, out any) error {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := b.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	var reply struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.NewDecoder(res.Body).Decode(&reply); err != nil {
		return fmt.Errorf("webdriver %s %s: %s: %w", method, url, res.Status, err)
	}
	if res.StatusCode != http.StatusOK {
		var e struct {
			Error   string `json:"error"`
			Message string `json:"message"`
		}
		json.Unmarshal(reply.Value, &e) //nolint:errcheck // the status says enough without it
		return fmt.Errorf("webdriver %s: %s: %s", method, e.Error, e.Message)
	}
	if out == nil {
		return nil
	}
	// A new session answers {"value": {"sessionId": ...}}.
	return json.Unmarshal(reply.Value, out)
}
