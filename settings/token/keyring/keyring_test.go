package keyring

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	gokeyring "github.com/zalando/go-keyring"
	ss "github.com/zalando/go-keyring/secret_service"

	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/internal/testing/sockdir"
	"github.com/segwi/segwi/settings/token"
)

// useStore swaps the keyring backend for the rest of the test.
func useStore(t *testing.T, s store) {
	t.Helper()
	old := backend
	backend = s
	t.Cleanup(func() { backend = old })
}

// hangingStore never answers until the test ends, like a keyring waiting on a prompt.
type hangingStore struct{ release chan struct{} }

func (h hangingStore) Get(string, string) (string, error) { <-h.release; return "", nil }
func (h hangingStore) Set(string, string, string) error   { <-h.release; return nil }
func (h hangingStore) Delete(string, string) error        { <-h.release; return nil }

// failingStore fails every call with err.
type failingStore struct{ err error }

func (f failingStore) Get(string, string) (string, error) { return "", f.err }
func (f failingStore) Set(string, string, string) error   { return f.err }
func (f failingStore) Delete(string, string) error        { return f.err }

func TestCallsGiveUpWhenTheKeyringHangs(t *testing.T) {
	h := hangingStore{release: make(chan struct{})}
	t.Cleanup(func() { close(h.release) })
	useStore(t, h)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Get(ctx)
	if !errors.Is(err, token.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want an error wrapping token.ErrUnavailable and context.DeadlineExceeded", err)
	}
	if !strings.Contains(err.Error(), "did not answer in time") {
		t.Errorf("got %q, want it to say the keyring did not answer in time", err)
	}
	if d := time.Since(start); d > token.Timeout {
		t.Errorf("gave up after %s, want before the default %s when ctx ends first", d, token.Timeout)
	}

	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if err := Set(cancelled, "tok", "https://api.github.com"); !errors.Is(err, context.Canceled) || errors.Is(err, token.ErrUnavailable) {
		t.Errorf("cancelled ctx: got %v, want context.Canceled and not token.ErrUnavailable", err)
	}
}

func TestFailuresSayWhatToDo(t *testing.T) {
	dialErr := &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: "/run/user/1000/bus", Net: "unix"},
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ENOENT}}
	tests := []struct {
		name string
		err  error
		want string // in the message; all wrap token.ErrUnavailable
	}{
		{"a bus address pointing at no socket", dialErr, "no D-Bus session bus"},
		{"the observed dial text", errors.New("dial unix /tmp/nope: connect: no such file or directory"), "no D-Bus session bus"},
		{"no DBUS_SESSION_BUS_ADDRESS", errors.New("dbus: couldn't determine address of session bus"), "DBUS_SESSION_BUS_ADDRESS"},
		{"dbus-launch not installed", &exec.Error{Name: "dbus-launch", Err: exec.ErrNotFound}, "start gnome-keyring-daemon --components=secrets"},
		{"a bus without a Secret Service", dbus.Error{Name: "org.freedesktop.DBus.Error.ServiceUnknown", Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"}},
			"no Secret Service on the session bus: install gnome-keyring (or KeePassXC with Secret Service) and log in to a desktop session, or start gnome-keyring-daemon --components=secrets"},
		{"a locked keyring", errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"), "the login keyring is locked and could not be unlocked: unlock it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			useStore(t, failingStore{tt.err})
			for name, err := range map[string]error{
				"get":    func() error { _, err := Get(context.Background()); return err }(),
				"set":    Set(context.Background(), "tok", "https://api.github.com"),
				"delete": Delete(context.Background()),
				"status": func() error { _, err := Status(context.Background()); return err }(),
			} {
				if !errors.Is(err, token.ErrUnavailable) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: got %v, want a token.ErrUnavailable error containing %q", name, err, tt.want)
				}
			}
		})
	}
	t.Run("other errors pass through without token.ErrUnavailable", func(t *testing.T) {
		useStore(t, failingStore{gokeyring.ErrSetDataTooBig})
		err := Set(context.Background(), "tok", "https://api.github.com")
		if !errors.Is(err, gokeyring.ErrSetDataTooBig) || errors.Is(err, token.ErrUnavailable) {
			t.Errorf("got %v, want gokeyring.ErrSetDataTooBig wrapped, not token.ErrUnavailable", err)
		}
	})
}

func TestWithTheMockKeyring(t *testing.T) {
	MockInit()
	runLifecycle(t)
	t.Run("a mocked error reaches the caller", func(t *testing.T) {
		MockInitWithError(fmt.Errorf("boom"))
		t.Cleanup(MockInit)
		if _, err := Get(context.Background()); err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("got %v, want the mocked error", err)
		}
	})
}

// A token saved before segwi recorded hosts is a bare token in the keyring: it still
// pushes to GitHub, and nowhere else.
func TestALegacyTokenCountsAsSavedForGitHub(t *testing.T) {
	MockInit()
	ctx := context.Background()
	if err := gokeyring.Set(Service, Item, "ghp_saved_before"); err != nil {
		t.Fatal(err)
	}
	if got, err := For(ctx, "https://api.github.com"); got != "ghp_saved_before" || err != nil {
		t.Errorf("For GitHub: got %q, %v; want the token", got, err)
	}
	_, err := For(ctx, "https://ghe.example.com/api/v3")
	if err == nil || !strings.Contains(err.Error(), "was saved before segwi recorded hosts, so it counts as saved for api.github.com") {
		t.Errorf("For another host: got %v, want a refusal saying why", err)
	}
	if st, err := Status(ctx); st != (token.State{Set: true, APIHost: "api.github.com", Legacy: true}) || err != nil {
		t.Errorf("Status: got %+v, %v", st, err)
	}
}

// realChild, set in a child's environment, makes TestWithARealSecretService run its
// steps in that process: one with a Secret Service of its own (see there).
const realChild = "SEGWI_KEYRING_REAL_CHILD"

// TestWithARealSecretService runs the keyring's steps against a real Secret Service, a
// gnome-keyring of the test's own (sessionbus.Keyring), in a child process (this test
// binary again, only this test): go-keyring's mock, once another test set it, stays for
// the whole process. A keyring of its own also lets the steps lock it.
func TestWithARealSecretService(t *testing.T) {
	if os.Getenv(realChild) == "1" {
		runLifecycle(t)
		t.Run("the lean reader answers as go-keyring does, and leaves it a locked keyring", checkLeanReader)
		return
	}
	addr := sessionbus.Keyring(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestWithARealSecretService$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), realChild+"=1", "DBUS_SESSION_BUS_ADDRESS="+addr)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestWithARealSecretService") {
		t.Fatalf("the steps against a Secret Service of their own: %v\n%s", err, out)
	}
}

// checkLeanReader checks the lean reader (lean_linux.go) against go-keyring on the real
// keyring: the same token, the same not found; and that it declines a locked keyring,
// which go-keyring unlocks (prompting the person), and answers again once the keyring is
// unlocked.
func checkLeanReader(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the lean reader is Linux's")
	}
	ctx := context.Background()
	if err := Set(ctx, "ghp_lean", "https://api.github.com"); err != nil {
		t.Fatal(err)
	}
	want, err := gokeyring.Get(Service, Item)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err := lean.get(Service, Item); !ok || err != nil || got != want {
		t.Errorf("a stored token: the lean reader got %q, %v, %v; want %q as go-keyring reads it", got, ok, err, want)
	}

	svc, err := ss.NewSecretService()
	if err != nil {
		t.Fatal(err)
	}
	collection := svc.GetLoginCollection().Path()
	service := svc.Object("org.freedesktop.secrets", "/org/freedesktop/secrets")
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := service.Call("org.freedesktop.Secret.Service.Lock", 0, []dbus.ObjectPath{collection}).Store(&locked, &prompt); err != nil || len(locked) != 1 {
		t.Fatalf("locking the keyring: %v, %v", locked, err)
	}
	if got, ok, err := lean.get(Service, Item); ok {
		t.Errorf("a locked keyring: the lean reader answered %q, %v; want it to decline, for go-keyring to unlock the keyring", got, err)
	}
	session, err := svc.OpenSession()
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(session)
	// gnome-keyring's own unlocking without a prompt, for tests and tools.
	if err := service.Call("org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface.UnlockWithMasterPassword", 0,
		collection, ss.NewSecret(session.Path(), sessionbus.KeyringPassword)).Err; err != nil {
		t.Fatalf("unlocking the keyring again: %v", err)
	}
	if got, ok, err := lean.get(Service, Item); !ok || err != nil || got != want {
		t.Errorf("the keyring unlocked again: the lean reader got %q, %v, %v; want %q", got, ok, err, want)
	}

	if err := Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := lean.get(Service, Item); !ok || !errors.Is(err, gokeyring.ErrNotFound) {
		t.Errorf("no token: the lean reader got %q, %v, %v; want go-keyring's not found", got, ok, err)
	}
}

// runLifecycle walks a keyring through not found, set, get, status, replace and delete.
func runLifecycle(t *testing.T) {
	ctx := context.Background()
	if err := Delete(ctx); err != nil && !errors.Is(err, token.ErrNotFound) {
		t.Fatalf("clearing: %v", err)
	}
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"an empty keyring has no token", func(t *testing.T) {
			if _, err := Get(ctx); !errors.Is(err, token.ErrNotFound) {
				t.Errorf("Get: got %v, want token.ErrNotFound", err)
			}
			if st, err := Status(ctx); st != (token.State{}) || err != nil {
				t.Errorf("Status: got %+v, %v; want not set, nil", st, err)
			}
			if err := Delete(ctx); !errors.Is(err, token.ErrNotFound) {
				t.Errorf("Delete: got %v, want token.ErrNotFound", err)
			}
		}},
		{"a set token can be read back, for the host it was saved for", func(t *testing.T) {
			if err := Set(ctx, "ghp_first", "https://api.github.com"); err != nil {
				t.Fatal(err)
			}
			if got, err := Get(ctx); got != "ghp_first" || err != nil {
				t.Errorf("Get: got %q, %v; want %q", got, err, "ghp_first")
			}
			if got, err := For(ctx, "https://API.github.com:443/"); got != "ghp_first" || err != nil {
				t.Errorf("For its own host: got %q, %v; want %q", got, err, "ghp_first")
			}
			if st, err := Status(ctx); st != (token.State{Set: true, APIHost: "api.github.com"}) || err != nil {
				t.Errorf("Status: got %+v, %v; want set for api.github.com", st, err)
			}
		}},
		{"another host does not get it", func(t *testing.T) {
			got, err := For(ctx, "https://127.0.0.1:8443/api/v3")
			var herr *token.HostError
			if got != "" || !errors.As(err, &herr) || herr.SavedFor != "api.github.com" || herr.Wanted != "127.0.0.1:8443" {
				t.Fatalf("For another host: got %q, %v; want a token.HostError and no token", got, err)
			}
			want := "the GitHub token was saved for api.github.com (git: github.com), not for 127.0.0.1:8443 (segwi.github.apiURL), " +
				"and segwi sends it only to the host it was saved for; if 127.0.0.1:8443 is yours, save the token again for it: " +
				"segwi token set, or Set token in segwi's settings window"
			if err.Error() != want {
				t.Errorf("got %q\nwant %q", err, want)
			}
		}},
		{"setting again replaces the token and its host", func(t *testing.T) {
			if err := Set(ctx, "ghp_second", "https://ghe.example.com/api/v3"); err != nil {
				t.Fatal(err)
			}
			if got, err := For(ctx, "https://ghe.example.com/api/v3"); got != "ghp_second" || err != nil {
				t.Errorf("For: got %q, %v; want %q", got, err, "ghp_second")
			}
			if _, err := For(ctx, "https://api.github.com"); err == nil {
				t.Error("For GitHub: got the token saved for ghe.example.com")
			}
		}},
		{"an empty token, or no API URL, is refused", func(t *testing.T) {
			if err := Set(ctx, "", "https://api.github.com"); err == nil {
				t.Error("empty token: got nil, want an error")
			}
			if err := Set(ctx, "ghp_x", "ghe.example.com"); err == nil {
				t.Error("no URL: got nil, want an error")
			}
		}},
		{"a deleted token is gone", func(t *testing.T) {
			if err := Delete(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := Get(ctx); !errors.Is(err, token.ErrNotFound) {
				t.Errorf("Get: got %v, want token.ErrNotFound", err)
			}
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			return
		}
	}
}

// TestWithNoSessionBus runs the real go-keyring in a child process (godbus caches its
// session bus connection per process) whose environment reaches no bus.
func TestWithNoSessionBus(t *testing.T) {
	if os.Getenv("SEGWI_TOKEN_CHILD") == "1" {
		_, err := Get(context.Background())
		fmt.Fprintf(os.Stdout, "unavailable=%v\n%v\n", errors.Is(err, token.ErrUnavailable), err)
		return
	}
	empty := sockdir.New(t) // a socket path in it must fit in 108 bytes
	tests := []struct {
		name string
		env  []string
	}{
		{"DBUS_SESSION_BUS_ADDRESS points at a missing socket", []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=" + empty + "/bus"}},
		{"DBUS_SESSION_BUS_ADDRESS is unset and there is no bus to find", []string{"XDG_RUNTIME_DIR=" + empty, "PATH=" + empty}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestWithNoSessionBus$", "-test.count=1")
			cmd.Env = append([]string{"SEGWI_TOKEN_CHILD=1", "HOME=" + empty}, tt.env...)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			got := string(out)
			if !strings.Contains(got, "unavailable=true") || !strings.Contains(got, "no Secret Service reachable") ||
				!strings.Contains(got, "gnome-keyring-daemon --components=secrets") {
				t.Errorf("got %q, want a token.ErrUnavailable error saying no Secret Service is reachable and what to start", got)
			}
		})
	}
}
