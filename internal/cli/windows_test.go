package cli

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/segwi/segwi/control"
)

// The window process takes commands from nobody but the tray that started it: run by hand,
// or handed a descriptor that is not the tray's socket, it refuses before it shows
// anything, saying to run segwi.
func TestTheWindowProcessRefusesToRunWithoutTheTraysChannel(t *testing.T) {
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
				os.Unsetenv(control.EnvFD)
			} else {
				t.Setenv(control.EnvFD, tt.fd)
			}
			ran := false
			res := segwiWith(t, Options{Windows: func(context.Context, net.Conn, *Env) error { ran = true; return nil }}, "", WindowsCommand)
			if ran || res.code != ExitError {
				t.Errorf("exit %d, windows ran %v; want exit %d and no windows", res.code, ran, ExitError)
			}
			if !strings.Contains(res.stderr, "is started by segwi's tray") || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("stderr %q; want it to say the tray starts it, and %q", res.stderr, tt.want)
			}
		})
	}
}

func TestTheWindowProcessIsNotListed(t *testing.T) {
	if r := segwi(t, "", "--help"); strings.Contains(r.stdout, WindowsCommand) {
		t.Errorf("segwi --help lists %s:\n%s", WindowsCommand, r.stdout)
	}
}

// Given the tray's end of a socket pair, the window process gets the channel.
func TestTheWindowProcessRunsOverTheInheritedChannel(t *testing.T) {
	ours, child, err := control.Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	t.Setenv(control.EnvFD, strconv.Itoa(int(child.Fd())))
	var got net.Conn
	res := segwiWith(t, Options{Windows: func(_ context.Context, conn net.Conn, _ *Env) error { got = conn; return nil }}, "", WindowsCommand)
	if res.code != ExitOK || got == nil {
		t.Fatalf("exit %d, stderr %q, channel %v; want the windows to run over it", res.code, res.stderr, got)
	}
	got.Close()
}
