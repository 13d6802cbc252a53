// Package keyring keeps the GitHub token segwi pushes with in the OS keyring (on Linux, a
// Secret Service such as gnome-keyring), under service "segwi" and item "github-token".
// What the token is saved for, and the errors below, are package token's; this package is
// the keyring access, which only the tray process and the command line link.
//
// The item holds the token and the host of the GitHub API it was saved for (see
// token.Saved), as {"apiHost": HOST, "token": TOKEN}, and For hands the token only for
// that host. An item saved before segwi recorded hosts holds the bare token; it counts as
// saved for GitHub (api.github.com).
//
// The token is never written to the settings file or any other file and never printed.
// There is no plaintext fallback: when no keyring is reachable, every call fails with an
// error wrapping token.ErrUnavailable that says what to install or start.
//
// Keyring calls go over D-Bus and can hang (a locked keyring may wait for a password
// prompt nobody sees), so every call is bounded: it gives up when ctx is done or after
// token.Timeout, whichever comes first. A call that gave up keeps running in the
// background until the keyring answers; its result is dropped.
package keyring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/godbus/dbus/v5"
	gokeyring "github.com/zalando/go-keyring"

	"github.com/segwi/segwi/settings/token"
)

// Where the token lives in the gokeyring.
const (
	Service = "segwi"
	Item    = "github-token"
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

func (goKeyring) Set(s, u, p string) error { return gokeyring.Set(s, u, p) }
func (goKeyring) Delete(s, u string) error { return gokeyring.Delete(s, u) }

// Get reads through the lean reader where it answers (Linux, the OS keyring), else
// through go-keyring.
func (goKeyring) Get(s, u string) (string, error) {
	if !mocked.Load() {
		if secret, ok, err := lean.get(s, u); ok {
			return secret, err
		}
	}
	return gokeyring.Get(s, u)
}

var backend store = goKeyring{}

// mocked is set once go-keyring's in-memory keyring replaces the OS one.
var mocked atomic.Bool

// MockInit replaces the OS keyring with an in-memory one for the rest of the process, for
// unit tests of code that only uses the token.
func MockInit() { mocked.Store(true); gokeyring.MockInit() }

// MockInitWithError makes every keyring call fail with err, for unit tests.
func MockInitWithError(err error) { mocked.Store(true); gokeyring.MockInitWithError(err) }

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

// item is the keyring item's secret.
type item struct {
	APIHost string `json:"apiHost"`
	Token   string `json:"token"`
}

// decode reads a keyring item's secret: the JSON of item, or a bare token saved before.
func decode(secret string) token.Saved {
	var it item
	if strings.HasPrefix(secret, "{") && json.Unmarshal([]byte(secret), &it) == nil && it.Token != "" {
		if it.APIHost == "" {
			return token.Saved{Token: it.Token, APIHost: token.GitHubAPIHost, Legacy: true}
		}
		return token.Saved{Token: it.Token, APIHost: it.APIHost}
	}
	return token.Saved{Token: secret, APIHost: token.GitHubAPIHost, Legacy: true}
}

// Read returns the stored token and the host it was saved for, token.ErrNotFound when there is
// none, or an error wrapping token.ErrUnavailable. It returns when the keyring answers, ctx is
// done, or token.Timeout passes.
func Read(ctx context.Context) (token.Saved, error) {
	b := backend
	secret, err := call(ctx, "reading the GitHub token", func() (string, error) { return b.Get(Service, Item) })
	if err != nil {
		return token.Saved{}, err
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
// *token.HostError; token.ErrNotFound when none is stored. It returns when the keyring answers, ctx
// is done, or token.Timeout passes.
func For(ctx context.Context, apiURL string) (string, error) {
	want, err := token.APIHost(apiURL)
	if err != nil {
		return "", fmt.Errorf("reading the GitHub token: %w", err)
	}
	s, err := Read(ctx)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(s.APIHost, want) {
		return "", &token.HostError{SavedFor: s.APIHost, Wanted: want, Legacy: s.Legacy}
	}
	return s.Token, nil
}

// Set stores tok for the GitHub API at apiURL (see token.Saved), replacing any token stored
// before. tok must not be empty. It returns when the keyring answers, ctx is done, or
// token.Timeout passes.
func Set(ctx context.Context, tok, apiURL string) error {
	if tok == "" {
		return errors.New("storing the GitHub token: the token is empty")
	}
	host, err := token.APIHost(apiURL)
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

// Delete removes the stored token; token.ErrNotFound when there was none. It returns when the
// keyring answers, ctx is done, or token.Timeout passes.
func Delete(ctx context.Context) error {
	b := backend
	_, err := call(ctx, "deleting the GitHub token", func() (struct{}, error) { return struct{}{}, b.Delete(Service, Item) })
	return err
}

// Status reports whether a token is stored and the host it was saved for, without
// returning it. It returns when the keyring answers, ctx is done, or token.Timeout passes.
func Status(ctx context.Context) (token.State, error) {
	s, err := Read(ctx)
	switch {
	case err == nil:
		return token.State{Set: true, APIHost: s.APIHost, Legacy: s.Legacy}, nil
	case errors.Is(err, token.ErrNotFound):
		return token.State{}, nil
	default:
		return token.State{}, err
	}
}

type result[T any] struct {
	v   T
	err error
}

// call runs f on its own goroutine and waits for it, for ctx, or for token.Timeout.
func call[T any](ctx context.Context, op string, f func() (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("%s: %w", op, err)
	}
	if _, real := backend.(goKeyring); real && !mocked.Load() && !sessionBusKnown() {
		return zero, fmt.Errorf("%s: %w: %s", op, token.ErrUnavailable, noSessionBus)
	}
	ctx, cancel := context.WithTimeout(ctx, token.Timeout)
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
			return zero, fmt.Errorf("%s: %w: it did not answer in time; it may be locked and waiting for a password: unlock it and try again (%w)", op, token.ErrUnavailable, ctx.Err())
		}
		return zero, fmt.Errorf("%s: %w", op, ctx.Err())
	}
}

// classify turns go-keyring's and D-Bus's errors into token.ErrNotFound or a token.ErrUnavailable
// error that says what to do. go-keyring passes most D-Bus failures through as plain
// text, so the two texts without a type are recognised by their words.
func classify(op string, err error) error {
	var dbusErr dbus.Error
	var exitErr *exec.ExitError
	msg := err.Error()
	switch {
	case errors.Is(err, gokeyring.ErrNotFound):
		return token.ErrNotFound
	case strings.Contains(msg, "failed to unlock correct collection"):
		return fmt.Errorf("%s: %w: %s (%v)", op, token.ErrUnavailable, locked, err)
	case errors.As(err, &dbusErr) && (dbusErr.Name == "org.freedesktop.DBus.Error.ServiceUnknown" ||
		dbusErr.Name == "org.freedesktop.DBus.Error.NameHasNoOwner" || dbusErr.Name == "org.freedesktop.DBus.Error.Spawn.ChildExited"):
		return fmt.Errorf("%s: %w: %s (%v)", op, token.ErrUnavailable, noSecretService, err)
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, os.ErrNotExist),
		errors.Is(err, exec.ErrNotFound), errors.As(err, &exitErr), // dbus-launch missing or failing
		strings.Contains(msg, "couldn't determine address of session bus"),
		strings.Contains(msg, "connect: no such file or directory"),
		strings.Contains(msg, "connect: connection refused"):
		return fmt.Errorf("%s: %w: %s (%v)", op, token.ErrUnavailable, noSessionBus, err)
	default:
		return fmt.Errorf("%s: %w", op, err)
	}
}
