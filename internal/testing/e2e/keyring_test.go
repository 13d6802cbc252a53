package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// privateKeyring starts a session bus and a gnome-keyring Secret Service of the test's own
// (its files in a temp folder, unlocked with a throwaway password) and returns the bus's
// address. A token stored there is seen by no other test: the test command's shared keyring
// is used by the keyring package's own tests at the same time. Both daemons are killed by
// pid when the test ends.
func privateKeyring(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon", "gdbus"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SEGWI_TEST_STRICT") == "1" {
				t.Fatalf("%s is not installed: run the tests with scripts/test.sh, whose setup installs it", tool)
			}
			t.Skipf("%s is not installed; a private Secret Service needs it", tool)
		}
	}
	// A unix socket's path must stay under 108 bytes, so not under t.TempDir().
	dir, err := os.MkdirTemp("", "e2e-kr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })

	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:path="+filepath.Join(dir, "bus"))
	out, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatalf("starting a session bus: %v", err)
	}
	t.Cleanup(func() { bus.Process.Kill(); bus.Wait() })
	// dbus-daemon prints its address once it listens; the read ends when it does or exits.
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the session bus printed no address: %v", err)
	}
	addr = strings.TrimSpace(addr)

	keyring := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	keyring.Stdin = strings.NewReader("segwi-test")
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
	if out, err := exec.Command("gdbus", "wait", "--address", addr, "--timeout", "10", "org.freedesktop.secrets").CombinedOutput(); err != nil {
		t.Fatalf("the private Secret Service did not come up: %v %s", err, out)
	}
	return addr
}
