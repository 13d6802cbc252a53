// Package token keeps the GitHub token segwi pushes with in the OS keyring (on Linux, a
// Secret Service such as gnome-keyring), under service "segwi" and item "github-token".
//
// The token is bound to the host of the GitHub API it was saved for (see Saved): the item
// holds both, as {"apiHost": HOST, "token": TOKEN}, and For hands the token only for that
// host. So an edit of segwi.github.apiURL, or of a checkout's remote, cannot send it to
// another server: the person saves it again for the new host. An item saved before segwi
// recorded hosts holds the bare token; it counts as saved for GitHub (api.github.com).
//
// The token is never written to the settings file or any other file and never printed.
// There is no plaintext fallback: when no keyring is reachable, every call fails with an
// error wrapping ErrUnavailable that says what to install or start.
//
// Keyring calls go over D-Bus and can hang (a locked keyring may wait for a password
// prompt nobody sees), so every call is bounded: it gives up when ctx is done or after
// Timeout, whichever comes first. A call that gave up keeps running in the background
// until the keyring answers; its result is dropped.
package token

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// Where the token lives in the keyring.
const (
	Service = "segwi"
	Item    = "github-token"
)

// Timeout bounds every keyring call whose context has no earlier deadline.
const Timeout = 5 * time.Second

var (
	// ErrNotFound means the keyring holds no GitHub token for segwi.
	ErrNotFound = errors.New("no GitHub token in the keyring: set one with segwi token set")
	// ErrUnavailable means no keyring could be reached or used; the wrapping error says why
	// and what to do.
	ErrUnavailable = errors.New("the keyring is not available")
)

// Messages for the failures a person can meet, saying what to do.
const (
	noSecretService = "no Secret Service on the session bus: install gnome-keyring (or KeePassXC with Secret Service) " +
		"and log in to a desktop session, or start gnome-keyring-daemon --components=secrets"
	noSessionBus = "no Secret Service reachable, because there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS " +
		"is unset or points at nothing): log in to a desktop session with gnome-keyring (or KeePassXC with Secret " +
		"Service), or run segwi inside dbus-run-session and start gnome-keyring-daemon --components=secrets"
	locked = "the login keyring is locked and could not be unlocked: unlock it (log in to the desktop session, " +
		"or open your keyring manager, e.g. Passwords and Keys) and try again"
)

// store is the keyring seam; go-keyring in production, a fake in tests.
type store interface {
	Get(service, user string) (string, error)
	Set(service, user, password string) error
	Delete(service, user string) error
}

type goKeyring struct{}

func (goKeyring) Get(s, u string) (string, error) { return keyring.Get(s, u) }
func (goKeyring) Set(s, u, p string) error        { return keyring.Set(s, u, p) }
func (goKeyring) Delete(s, u string) error        { return keyring.Delete(s, u) }

var backend store = goKeyring{}

// mocked is set once go-keyring's in-memory keyring replaces the OS one.
var mocked atomic.Bool

// MockInit replaces the OS keyring with an in-memory one for the rest of the process, for
// unit tests of code that only uses the token.
func MockInit() { mocked.Store(true); keyring.MockInit() }

// MockInitWithError makes every keyring call fail with err, for unit tests.
func MockInitWithError(err error) { mocked.Store(true); keyring.MockInitWithError(err) }

// sessionBusKnown reports whether there is a session bus to ask: DBUS_SESSION_BUS_ADDRESS,
// or the user bus socket at $XDG_RUNTIME_DIR/bus. Without one, godbus would launch a
// private dbus-daemon (dbus-launch) that holds no keyring and outlives segwi.
func sessionBusKnown() bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return true // their keyrings are not on D-Bus
	}
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, "bus"))
	return err == nil && fi.Mode()&os.ModeSocket != 0
}

// GitHubAPIHost is the host of GitHub's own API, whose git host is github.com.
const GitHubAPIHost = "api.github.com"

// Saved is the GitHub token as the keyring holds it.
type Saved struct {
	Token string
	// APIHost is the host of the GitHub API the token was saved for, with its port when
	// that is not the scheme's default: api.github.com, or a GitHub Enterprise host.
	APIHost string
	// Legacy is set for a token saved before segwi recorded the host; it counts as saved
	// for GitHub (GitHubAPIHost).
	Legacy bool
}

// GitHost returns the host git pushes to with the token (see GitHost).
func (s Saved) GitHost() string { return GitHost(s.APIHost) }

// item is the keyring item's secret.
type item struct {
	APIHost string `json:"apiHost"`
	Token   string `json:"token"`
}

// decode reads a keyring item's secret: the JSON of item, or a bare token saved before.
func decode(secret string) Saved {
	var it item
	if strings.HasPrefix(secret, "{") && json.Unmarshal([]byte(secret), &it) == nil && it.Token != "" {
		if it.APIHost == "" {
			return Saved{Token: it.Token, APIHost: GitHubAPIHost, Legacy: true}
		}
		return Saved{Token: it.Token, APIHost: it.APIHost}
	}
	return Saved{Token: secret, APIHost: GitHubAPIHost, Legacy: true}
}

// APIHost returns the host of the GitHub API at apiURL, as a token is saved for it:
// lowercased, with its port unless the scheme's default.
func APIHost(apiURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(apiURL))
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", fmt.Errorf("%q is not a GitHub API URL: write https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise", apiURL)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" || port == "443" && u.Scheme == "https" || port == "80" && u.Scheme == "http" {
		if strings.Contains(host, ":") {
			return "[" + host + "]", nil
		}
		return host, nil
	}
	return strings.ToLower(u.Host), nil
}

// APIURL returns the URL of the GitHub API at apiHost: https://api.github.com for GitHub's
// own, https://HOST/api/v3 for GitHub Enterprise.
func APIURL(apiHost string) string {
	if strings.EqualFold(apiHost, GitHubAPIHost) {
		return "https://" + GitHubAPIHost
	}
	return "https://" + apiHost + "/api/v3"
}

// GitHost returns the host git pushes to for the GitHub API host apiHost: github.com for
// GitHub's own API, the same host for GitHub Enterprise (https://HOST/api/v3).
func GitHost(apiHost string) string {
	if strings.EqualFold(apiHost, GitHubAPIHost) {
		return "github.com"
	}
	return apiHost
}

// HostError is For's refusal of a token saved for another host.
type HostError struct {
	SavedFor string // the API host the token was saved for
	Wanted   string // the API host it was asked for
	Legacy   bool   // saved before segwi recorded hosts
}

// Error says which host the token was saved for, and how to save it for the other.
func (e *HostError) Error() string {
	saved := "was saved for " + describeHost(e.SavedFor)
	if e.Legacy {
		saved = "was saved before segwi recorded hosts, so it counts as saved for " + describeHost(e.SavedFor)
	}
	return fmt.Sprintf("the GitHub token %s, not for %s (segwi.github.apiURL), and segwi sends it only to the host it was "+
		"saved for; if %s is yours, save the token again for it: segwi token set, or Set token in segwi's settings window",
		saved, describeHost(e.Wanted), e.Wanted)
}

// describeHost names an API host and the git host that goes with it.
func describeHost(apiHost string) string {
	if git := GitHost(apiHost); git != apiHost {
		return fmt.Sprintf("%s (git: %s)", apiHost, git)
	}
	return apiHost
}

// Read returns the stored token and the host it was saved for, ErrNotFound when there is
// none, or an error wrapping ErrUnavailable. It returns when the keyring answers, ctx is
// done, or Timeout passes.
func Read(ctx context.Context) (Saved, error) {
	b := backend
	secret, err := call(ctx, "reading the GitHub token", func() (string, error) { return b.Get(Service, Item) })
	if err != nil {
		return Saved{}, err
	}
	return decode(secret), nil
}

// Get returns the stored token, whatever host it was saved for: for what only hides it
// (redaction), never for sending it (see For). Its errors are Read's.
func Get(ctx context.Context) (string, error) {
	s, err := Read(ctx)
	return s.Token, err
}

// For returns the stored token when it was saved for the GitHub API at apiURL, else a
// *HostError; ErrNotFound when none is stored. It returns when the keyring answers, ctx
// is done, or Timeout passes.
func For(ctx context.Context, apiURL string) (string, error) {
	want, err := APIHost(apiURL)
	if err != nil {
		return "", fmt.Errorf("reading the GitHub token: %w", err)
	}
	s, err := Read(ctx)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(s.APIHost, want) {
		return "", &HostError{SavedFor: s.APIHost, Wanted: want, Legacy: s.Legacy}
	}
	return s.Token, nil
}

// Set stores tok for the GitHub API at apiURL (see Saved), replacing any token stored
// before. tok must not be empty. It returns when the keyring answers, ctx is done, or
// Timeout passes.
func Set(ctx context.Context, tok, apiURL string) error {
	if tok == "" {
		return errors.New("storing the GitHub token: the token is empty")
	}
	host, err := APIHost(apiURL)
	if err != nil {
		return fmt.Errorf("storing the GitHub token: %w", err)
	}
	secret, err := json.Marshal(item{APIHost: host, Token: tok})
	if err != nil {
		return fmt.Errorf("storing the GitHub token: %w", err)
	}
	b := backend
	_, err = call(ctx, "storing the GitHub token", func() (struct{}, error) { return struct{}{}, b.Set(Service, Item, string(secret)) })
	return err
}

// Delete removes the stored token; ErrNotFound when there was none. It returns when the
// keyring answers, ctx is done, or Timeout passes.
func Delete(ctx context.Context) error {
	b := backend
	_, err := call(ctx, "deleting the GitHub token", func() (struct{}, error) { return struct{}{}, b.Delete(Service, Item) })
	return err
}

// State is whether a token is stored, and for which host, without the token.
type State struct {
	Set     bool   `json:"set"`
	APIHost string `json:"apiHost,omitempty"` // see Saved
	Legacy  bool   `json:"legacy,omitempty"`  // see Saved
}

// Status reports whether a token is stored and the host it was saved for, without
// returning it. It returns when the keyring answers, ctx is done, or Timeout passes.
func Status(ctx context.Context) (State, error) {
	s, err := Read(ctx)
	switch {
	case err == nil:
		return State{Set: true, APIHost: s.APIHost, Legacy: s.Legacy}, nil
	case errors.Is(err, ErrNotFound):
		return State{}, nil
	default:
		return State{}, err
	}
}

type result[T any] struct {
	v   T
	err error
}

// call runs f on its own goroutine and waits for it, for ctx, or for Timeout.
func call[T any](ctx context.Context, op string, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("%s: %w", op, err)
	}
	if _, real := backend.(goKeyring); real && !mocked.Load() && !sessionBusKnown() {
		return zero, fmt.Errorf("%s: %w: %s", op, ErrUnavailable, noSessionBus)
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	done := make(chan result[T], 1) // buffered: a call we gave up on must not block forever
	go func() {
		v, err := f()
		done <- result[T]{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return zero, classify(op, r.err)
		}
		return r.v, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return zero, fmt.Errorf("%s: %w: it did not answer in time; it may be locked and waiting for a password: unlock it and try again (%w)", op, ErrUnavailable, ctx.Err())
		}
		return zero, fmt.Errorf("%s: %w", op, ctx.Err())
	}
}

// classify turns go-keyring's and D-Bus's errors into ErrNotFound or an ErrUnavailable
// error that says what to do. go-keyring passes most D-Bus failures through as plain
// text, so the two texts without a type are recognised by their words.
func classify(op string, err error) error {
	var dbusErr dbus.Error
	var exitErr *exec.ExitError
	msg := err.Error()
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return ErrNotFound
	case strings.Contains(msg, "failed to unlock correct collection"):
		return fmt.Errorf("%s: %w: %s (%v)", op, ErrUnavailable, locked, err)
	case errors.As(err, &dbusErr) && (dbusErr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" ||
		dbusErr.Name == "org.freedesktop.DBus.Error.NameHasNoOwner" || dbusErr.Name == "org.freedesktop.DBus.Error.Spawn.ChildExited"):
		return fmt.Errorf("%s: %w: %s (%v)", op, ErrUnavailable, noSecretService, err)
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, os.ErrNotExist),
		errors.Is(err, exec.ErrNotFound), errors.As(err, &exitErr), // dbus-launch missing or failing
		strings.Contains(msg, "couldn't determine address of session bus"),
		strings.Contains(msg, "connect: no such file or directory"),
		strings.Contains(msg, "connect: connection refused"):
		return fmt.Errorf("%s: %w: %s (%v)", op, ErrUnavailable, noSessionBus, err)
	default:
		return fmt.Errorf("%s: %w", op, err)
	}
}
