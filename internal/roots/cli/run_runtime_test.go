package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeACP builds the ACP agent's test double (runs/acp/testdata/fakeacp) once.
var fakeACP = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "cli-fakeacp-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "fakeacp")
	if out, err := exec.Command("go", "build", "-o", bin, "../../../runs/acp/testdata/fakeacp").CombinedOutput(); err != nil {
		return "", &buildErr{string(out), err}
	}
	return bin, nil
})

type buildErr struct {
	out string
	err error
}

func (e *buildErr) Error() string { return e.err.Error() + "\n" + e.out }

func TestRunOnAnACPRuntime(t *testing.T) {
	isolate(t)
	bin, err := fakeACP()
	if err != nil {
		t.Fatalf("building fakeacp: %v", err)
	}
	cfg := runConfig(t, "  runtimes:\n    - name: fake\n      command: ["+bin+"]\n")
	dir := newCheckout(t)
	r := segwi(t, "", "--config", cfg, "run", "--runtime", "fake", "--checkout", dir, "say hello there")
	if r.code != 0 || !strings.Contains(r.stdout, "hello there") {
		t.Fatalf("exit %d; want 0 and the agent's words\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	id := runIDLine(r.stderr)
	show := segwi(t, "", "--config", cfg, "runs", "show", id)
	if !strings.Contains(show.stdout, "runtime") || !strings.Contains(show.stdout, "fake") || !strings.Contains(show.stdout, bin) {
		t.Errorf("segwi runs show %s says:\n%s\nwant its runtime and command", id, show.stdout)
	}

	t.Run("and a continued run says it resumes the agent's session, not Claude Code's", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "run", "--continue", id, "say again")
		if r.code != 0 || !strings.Contains(r.stderr, "segwi: it continues run "+id+", resuming its fake session\n") {
			t.Errorf("run --continue: exit %d, stderr:\n%s", r.code, r.stderr)
		}
	})
	t.Run("and an agent that fails the handshake fails the run, saying why as it ends", func(t *testing.T) {
		cfg := runConfig(t, "  runtimes:\n    - name: broken\n      command: ["+bin+"]\n      env: {FAKEACP_INIT_ERROR: \"1\"}\n")
		r := segwi(t, "", "--config", cfg, "run", "--runtime", "broken", "--checkout", newCheckout(t), "say hi")
		want := "failed: the ACP agent broken (" + bin + ") answered initialize with an error: protocol version 1 is not supported"
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, stderr:\n%s\nwant a failure saying %q", r.code, r.stderr, want)
		}
	})
	t.Run("and refuses one nobody configured, naming those there are", func(t *testing.T) {
		r := segwi(t, "", "--config", cfg, "run", "--runtime", "codex", "--checkout", newCheckout(t), "x")
		if r.code == 0 || !strings.Contains(r.stderr, `"codex"`) || !strings.Contains(r.stderr, "claude, fake") {
			t.Errorf("exit %d, stderr:\n%s\nwant a failure naming codex and the runtimes there are", r.code, r.stderr)
		}
	})
	t.Run("and config check says when a runtime's program is missing", func(t *testing.T) {
		cfg := runConfig(t, "  runtimes:\n    - name: gone\n      command: [/nowhere/agent-acp]\n")
		r := segwi(t, "", "--config", cfg, "config", "check")
		if !strings.Contains(r.stdout+r.stderr, `runtime "gone"`) || !strings.Contains(r.stdout+r.stderr, "/nowhere/agent-acp not found") {
			t.Errorf("config check printed:\n%s%s\nwant the missing program named", r.stdout, r.stderr)
		}
	})
}
