package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A settings file that is not a regular file used to hang `segwi config check` for good (a
// named pipe: it waited for a writer and ignored SIGTERM) or to fill the memory (a link to
// /dev/zero). Both are refused at once, naming the file.
func TestConfigCheckRefusesASettingsFileThatIsNotARegularFile(t *testing.T) {
	twoAtATime(t)
	const (
		deadline = 10 * time.Second
		maxMiB   = 100
	)
	tests := []struct {
		name string
		make func(path string) error
		want string
	}{
		{"a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o600) },
			"is a named pipe (FIFO), not a regular file"},
		{"a link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) },
			"is a device, not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			config := filepath.Join(home, "config.yaml")
			if err := tt.make(config); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(segwiBin, "config", "check")
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "SEGWI_CONFIG=" + config,
				"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, ".state")}
			p := &proc{t: t, cmd: cmd, done: make(chan struct{}), home: home}
			cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
			p.run(t)

			start, peak := time.Now(), 0
			for ended := false; !ended; {
				select {
				case <-p.done:
					ended = true
				case <-time.After(10 * time.Millisecond):
					peak = max(peak, residentMiB(cmd.Process.Pid))
					if took := time.Since(start); peak > maxMiB || took > deadline {
						cmd.Process.Kill()
						<-p.done
						t.Fatalf("segwi config check was still going after %s, holding %d MiB (killed); stdout:\n%s",
							took.Round(time.Millisecond), peak, p.stdout.String())
					}
				}
			}
			want := "error: reading settings: " + config + ": " + tt.want
			if p.code != 1 || !strings.Contains(p.stdout.String(), want) {
				t.Errorf("segwi config check exited %d saying:\n%s\nwant exit 1 and %q", p.code, p.stdout.String(), want)
			}
		})
	}
}

// residentMiB returns how much memory process pid holds, in MiB; 0 once it is gone.
func residentMiB(pid int) int {
	statm, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		return 0
	}
	pages, _ := strconv.Atoi(fields[1])
	return pages * os.Getpagesize() >> 20
}
