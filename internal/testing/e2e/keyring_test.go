package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/sessionbus"
	"github.com/segwi/segwi/internal/testing/sockdir"
)

// privateKeyring starts a session bus and a gnome-keyring Secret Service of the test's own
// (its files in a temp folder, unlocked with a throwaway password) and returns the bus's
// address. A token stored there is seen by no other test: the test command's shared keyring
// is used by the keyring package's own tests at the same time. Both daemons are killed by
// pid when the test ends.
func privateKeyring(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"gnome-keyring-daemon", "gdbus"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SEGWI_TEST_STRICT") == "1" {
				t.Fatalf("%s is not installed: run the tests with scripts/test.sh, whose setup installs it", tool)
			}
			t.Skipf("%s is not installed; a private Secret Service needs it", tool)
		}
	}
	addr := sessionbus.Private(t)
	dir := sockdir.New(t) // the keyring's control socket goes in its runtime folder

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
