package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// chromedriver told to pick a port binds a free one on ::1, then the same one on 127.0.0.1,
// and exits when that one is taken: a page test once failed so on a loaded machine.
func TestAChromedriverWhosePortWasTakenIsStartedAgain(t *testing.T) {
	dir := t.TempDir()
	driver := filepath.Join(dir, "chromedriver")
	script := `#!/bin/sh
echo x >> "` + filepath.Join(dir, "starts") + `"
echo "Starting ChromeDriver on port 0"
if [ "$(wc -l < "` + filepath.Join(dir, "starts") + `")" -lt 3 ]; then
  echo "[SEVERE]: bind() failed: Address already in use (98)" >&2
  echo "IPv4 port not available. Exiting..."
  exit 1
fi
echo "ChromeDriver was started successfully on port 4242."
exec sleep 60
`
	if err := os.WriteFile(driver, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if url := startDriver(t, driver); url != "http://127.0.0.1:4242" {
		t.Errorf("startDriver = %q, want the port the third start said", url)
	}
	starts, err := os.ReadFile(filepath.Join(dir, "starts"))
	if n := strings.Count(string(starts), "\n"); err != nil || n != 3 {
		t.Errorf("chromedriver was started %d times (%v), want 3", n, err)
	}
}
