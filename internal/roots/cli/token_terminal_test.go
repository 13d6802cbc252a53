package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/settings/token/keyring"
)

func TestTokenSetOnATerminalDoesNotEchoTheToken(t *testing.T) {
	isolate(t)
	keyring.MockInit()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty on this machine: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })

	echoed := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(ptmx); echoed <- b }() // ends with EIO once tty is closed

	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), []string{"token", "set"}, Options{Stdin: tty, Stdout: &out, Stderr: &errOut})
	}()
	await.For(t, 10*time.Second, "echo to be turned off on the terminal", func() bool {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		return err == nil && tio.Lflag&unix.ECHO == 0
	})
	const secret = "ghp_typedAtTheTerminal"
	if _, err := ptmx.Write([]byte(secret + "\r")); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("got exit %d, stderr %q", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("token set did not return within 10s")
	}
	tty.Close()
	var shown []byte
	select {
	case shown = <-echoed:
	case <-time.After(10 * time.Second):
		t.Fatal("reading the terminal's output did not end within 10s")
	}
	if strings.Contains(string(shown)+out.String()+errOut.String(), secret) {
		t.Errorf("the token was shown: terminal %q, stdout %q, stderr %q", shown, out.String(), errOut.String())
	}
	if !strings.Contains(errOut.String(), "Paste your GitHub token for api.github.com (pushes to github.com) (it will not be shown)") {
		t.Errorf("got stderr %q, want the prompt", errOut.String())
	}
	if got, err := keyring.Get(context.Background()); got != secret || err != nil {
		t.Errorf("stored %q, %v; want %q", got, err, secret)
	}
}
