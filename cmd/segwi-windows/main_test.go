package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
)

// result is what one run of the command did.
type result struct {
	code           int
	stdout, stderr string
	ran            bool     // the windows ran
	conn           net.Conn // the channel they ran over
}

// runWith runs the command with args, windows standing in for Fyne's.
func runWith(t *testing.T, args ...string) result {
	t.Helper()
	var r result
	var stdout, stderr strings.Builder
	r.code = run(context.Background(), args, &stdout, &stderr, func(_ context.Context, conn net.Conn) error {
		r.ran, r.conn = true, conn
		return nil
	})
	r.stdout, r.stderr = stdout.String(), stderr.String()
	return r
}

// The window process takes commands from nobody but the tray that started it: run by hand,
// or handed a descriptor that is not the tray's socket, it refuses before it shows
// anything, saying to run segwi.
func TestItRefusesToRunWithoutTheTraysChannel(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tt := range []struct {
		name, fd, want string
	}{
		{"run by hand", "", "is not set"},
		{"given a standard stream", "1", "is not a file descriptor above 2"},
		{"given a pipe", strconv.Itoa(int(w.Fd())), "descriptor"},
		{"given nonsense", "x", "is not a file descriptor"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.fd == "" {
				t.Setenv(control.EnvFD, "")
				os.Unsetenv(control.EnvFD)
			} else {
				t.Setenv(control.EnvFD, tt.fd)
			}
			res := runWith(t)
			if res.ran || res.code != exitError {
				t.Errorf("exit %d, windows ran %v; want exit %d and no windows", res.code, res.ran, exitError)
			}
			if !strings.Contains(res.stderr, "is started by segwi's tray") || !strings.Contains(res.stderr, "run segwi instead") ||
				!strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr %q; want it to say the tray starts it, to run segwi, and %q", res.stderr, tt.want)
			}
		})
	}
}

// Given the tray's end of a socket pair, the window process gets the channel.
func TestItRunsOverTheInheritedChannel(t *testing.T) {
	ours, child, err := control.Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	t.Setenv(control.EnvFD, strconv.Itoa(int(child.Fd())))
	res := runWith(t)
	if res.code != exitOK || res.conn == nil {
		t.Fatalf("exit %d, stderr %q, channel %v; want the windows to run over it", res.code, res.stderr, res.conn)
	}
	res.conn.Close()
}

func TestItTakesNoArgumentsButVersionAndHelp(t *testing.T) {
	t.Setenv(control.EnvFD, "")
	os.Unsetenv(control.EnvFD)
	for _, tt := range []struct {
		args       []string
		code       int
		stdout     string // a part of it
		stderrPart string
	}{
		{[]string{"--version"}, exitOK, "segwi-windows dev\n", ""},
		{[]string{"--help"}, exitOK, "run segwi instead", ""},
		{[]string{"window-process"}, exitUsage, "", `unknown argument "window-process"`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			res := runWith(t, tt.args...)
			if res.code != tt.code || res.ran || !strings.Contains(res.stdout, tt.stdout) || !strings.Contains(res.stderr, tt.stderrPart) {
				t.Errorf("exit %d, windows ran %v, stdout %q, stderr %q; want exit %d, no windows, stdout with %q, stderr with %q",
					res.code, res.ran, res.stdout, res.stderr, tt.code, tt.stdout, tt.stderrPart)
			}
		})
	}
}

// The built program: the version set as scripts/run.sh sets it, and no noise from Fyne
// under a C.UTF-8 locale, which Fyne's lang package cannot parse and logged an error for
// on every start (package fynelocale keeps it quiet; its init must run before Fyne's).
func TestTheBuiltProgramPrintsItsVersionQuietlyUnderACLocale(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "segwi-windows")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v9.8.7", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building segwi-windows: %v\n%s", err, out)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("segwi-windows --version: %v\n%s", err, stderr.String())
	}
	if got, want := stdout.String(), "segwi-windows v9.8.7\n"; got != want {
		t.Errorf("segwi-windows --version printed %q, want %q", got, want)
	}
	if stderr.Len() > 0 {
		t.Errorf("segwi-windows --version wrote to stderr under LANG=C.UTF-8:\n%s", stderr.String())
	}

	byHand := exec.Command(bin)
	byHand.Env = cmd.Env
	out, err := byHand.CombinedOutput()
	if code := byHand.ProcessState.ExitCode(); err == nil || code != exitError || !strings.Contains(string(out), "run segwi instead") {
		t.Errorf("segwi-windows run by hand: exit %d (%v), output %q; want exit %d, saying to run segwi", code, err, out, exitError)
	}
}
