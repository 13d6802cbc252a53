// Package sessionbus starts a D-Bus session bus of a test's own, with the test command's
// configuration (scripts/session-bus.conf): it starts no service on demand, so that the
// bus holds only what the test starts on it (a notification daemon, a Secret Service, a
// stand-in for systemd).
package sessionbus

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/sockdir"
)

// Private starts a session bus of the test's own, stopped at the end of the test, and
// returns its address once it listens. Without dbus-daemon it skips the test, or fails it
// under SEGWI_TEST_STRICT=1.
func Private(t testing.TB) string {
	t.Helper()
	daemon := claudetest.NeedTool(t, "dbus-daemon")
	root, err := claudetest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	template, err := os.ReadFile(filepath.Join(root, "scripts", "session-bus.conf"))
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "bus.conf")
	// The bus's socket goes in a short folder: see package sockdir.
	conf := strings.ReplaceAll(string(template), "@DIR@", sockdir.New(t))
	if err := os.WriteFile(config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+config, "--nofork", "--nopidfile", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting a session bus: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	// dbus-daemon prints its address once it listens; the read ends when it does or exits.
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the session bus printed no address: %v", err)
	}
	return strings.TrimSpace(addr)
}

// KeyringPassword unlocks the keyring Keyring starts.
const KeyringPassword = "segwi-test"

// Keyring starts a session bus and a gnome-keyring Secret Service of the test's own (its
// files in a temp folder, unlocked with KeyringPassword) and returns the bus's address.
// What a test stores there, or a lock it takes, no other test meets: the test command's
// shared keyring is used by other packages' tests at the same time. Both daemons are
// killed by pid when the test ends. Without gnome-keyring-daemon or gdbus it skips the
// test, or fails it under SEGWI_TEST_STRICT=1.
func Keyring(t testing.TB) string {
	t.Helper()
	daemon := claudetest.NeedTool(t, "gnome-keyring-daemon")
	gdbus := claudetest.NeedTool(t, "gdbus")
	addr := Private(t)
	dir := sockdir.New(t) // the keyring's control socket goes in its runtime folder

	keyring := exec.Command(daemon, "--foreground", "--unlock", "--components=secrets")
	keyring.Stdin = strings.NewReader(KeyringPassword)
	keyring.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"XDG_DATA_HOME=" + filepath.Join(dir, "data"),
		"XDG_RUNTIME_DIR=" + dir,
		"DBUS_SESSION_BUS_ADDRESS=" + addr,
	}
	if err := keyring.Start(); err != nil {
		t.Fatalf("starting gnome-keyring-daemon: %v", err)
	}
	t.Cleanup(func() { keyring.Process.Kill(); keyring.Wait() })
	// gdbus returns once the Secret Service's name has an owner, or fails after 10 s.
	if out, err := exec.Command(gdbus, "wait", "--address", addr, "--timeout", "10", "org.freedesktop.secrets").CombinedOutput(); err != nil {
		t.Fatalf("the private Secret Service did not come up: %v %s", err, out)
	}
	return addr
}
