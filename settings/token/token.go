// Package token keeps the GitHub token segwi pushes with in the OS keyring (on Linux, a
// Secret Service such as gnome-keyring), under service "segwi" and item "github-token".
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
	"errors"
	"fmt"
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

// Get returns the stored token, ErrNotFound when there is none, or an error wrapping
// ErrUnavailable. It returns when the keyring answers, ctx is done, or Timeout passes.
func Get(ctx context.Context) (string, error) {
	b := backend
	tok, err := call(ctx, "reading the GitHub token", func() (string, error) { return b.Get(Service, Item) })
	if err != nil {
		return "", err
	}
	return tok, nil
}

// Set stores tok, replacing any token stored before. tok must not be empty. It returns
// when the keyring answers, ctx is done, or Timeout passes.
func Set(ctx context.Context, tok string) error {
	if tok == "" {
		return errors.New("storing the GitHub token: the token is empty")
	}
	b := backend
	_, err := call(ctx, "storing the GitHub token", func() (struct{}, error) { return struct{}{}, b.Set(Service, Item, tok) })
	return err
}

// Delete removes the stored token; ErrNotFound when there was none. It returns when the
// keyring answers, ctx is done, or Timeout passes.
func Delete(ctx context.Context) error {
	b := backend
	_, err := call(ctx, "deleting the GitHub token", func() (struct{}, error) { return struct{}{}, b.Delete(Service, Item) })
	return err
}

// Status reports whether a token is stored, without returning it. It returns when the
// keyring answers, ctx is done, or Timeout passes.
func Status(ctx context.Context) (bool, error) {
	_, err := Get(ctx)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, ErrNotFound):
		return false, nil
	default:
		return false, err
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
