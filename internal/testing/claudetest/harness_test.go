package claudetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// These tests check the harness's own parts without running Claude Code.

func TestEnvHoldsOnlyTheTestsOwnPlaces(t *testing.T) {
	t.Setenv("SEGWI_LEAK_PROBE", "leaked")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "leaked")
	realHome, _ := os.UserHomeDir()

	env := Env(t, "http://127.0.0.1:1")

	vars := map[string]string{}
	for _, kv := range env.Vars() {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	for _, key := range []string{"SEGWI_LEAK_PROBE", "ANTHROPIC_AUTH_TOKEN"} {
		if _, ok := vars[key]; ok {
			t.Errorf("%s leaked from the test's environment", key)
		}
	}
	want := map[string]string{
		"HOME":               env.Home,
		"TMPDIR":             env.TempDir,
		"XDG_RUNTIME_DIR":    env.RuntimeDir,
		"ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
		"ANTHROPIC_API_KEY":  APIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"PATH": os.Getenv("PATH"),
	}
	for k, v := range want {
		if vars[k] != v {
			t.Errorf("%s=%q, want %q", k, vars[k], v)
		}
	}
	for k, v := range vars {
		if k != "PATH" && realHome != "" && (v == realHome || strings.HasPrefix(v, realHome+string(filepath.Separator))) {
			t.Errorf("%s=%q points into the real HOME %s", k, v, realHome)
		}
	}
	if strings.HasPrefix(APIKey, "sk-ant-") {
		t.Errorf("the test key %q looks like a real Anthropic key", APIKey)
	}
	for _, dir := range []string{env.Home, env.TempDir, env.RuntimeDir} {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			t.Errorf("%s is not a directory: %v", dir, err)
		}
	}
	if len(filepath.Join(env.RuntimeDir, "cc-socks", "0123456789abcdef.sock")) > 100 {
		t.Errorf("XDG_RUNTIME_DIR %s is too long for a socket path", env.RuntimeDir)
	}

	env.Set("SEGWI_RUN_ID", "r1")
	env.Set("TMPDIR", "")
	if env.Get("SEGWI_RUN_ID") != "r1" || env.Get("TMPDIR") != "" {
		t.Errorf("Set did not change the environment: %v", env.Vars())
	}
}

// fakeTB records a skip or a fatal failure instead of ending the real test; like the real
// ones, Skip and Fatalf end the calling goroutine.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skip(args ...any) {
	f.skipped = fmt.Sprint(args...)
	runtime.Goexit()
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// callBinary calls Binary with a fakeTB on its own goroutine, since a skip ends it.
func callBinary() (path string, f *fakeTB) {
	f = &fakeTB{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		path = Binary(f)
	}()
	<-done
	return path, f
}

func TestBinary(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nothing-here")

	t.Run("SEGWI_TEST_CLAUDE names the binary", func(t *testing.T) {
		t.Setenv(BinaryEnv, exe)
		if got, f := callBinary(); got != exe || f.skipped != "" || f.failed != "" {
			t.Errorf("Binary() = %q (skipped %q, failed %q), want %q", got, f.skipped, f.failed, exe)
		}
	})
	t.Run("a missing binary skips, saying how to install it", func(t *testing.T) {
		t.Setenv(BinaryEnv, missing)
		t.Setenv(StrictEnv, "")
		_, f := callBinary()
		if !strings.Contains(f.skipped, "scripts/setup.sh --test") || !strings.Contains(f.skipped, missing) {
			t.Errorf("skip message %q, want the path and scripts/setup.sh --test", f.skipped)
		}
	})
	t.Run("a missing binary fails under SEGWI_TEST_STRICT=1", func(t *testing.T) {
		t.Setenv(BinaryEnv, missing)
		t.Setenv(StrictEnv, "1")
		_, f := callBinary()
		if f.skipped != "" || !strings.Contains(f.failed, "scripts/setup.sh --test") {
			t.Errorf("skipped %q, failed %q; want a failure naming scripts/setup.sh --test", f.skipped, f.failed)
		}
	})
	t.Run("without SEGWI_TEST_CLAUDE the pinned path under the module root is used", func(t *testing.T) {
		t.Setenv(BinaryEnv, "")
		root, err := ModuleRoot()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
			t.Fatalf("ModuleRoot() = %s holds no go.mod", root)
		}
		got, err := findBinary()
		want := filepath.Join(root, "testdata", "claude-code", "node_modules", ".bin", "claude")
		if err == nil && got != want {
			t.Errorf("findBinary() = %q, want %q", got, want)
		}
		if err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("findBinary() error %q does not name %s", err, want)
		}
	})
}

func TestCheckoutIsACleanCommittedRepository(t *testing.T) {
	dir := Checkout(t)

	if st := Status(t, dir); st != "" {
		t.Errorf("a fresh checkout is not clean:\n%s", st)
	}
	if got := Git(t, dir, "ls-files"); got != "README.md\nhello.txt" {
		t.Errorf("committed files %q, want README.md and hello.txt", got)
	}
	if got := Git(t, dir, "config", "--local", "user.email"); got != "test@segwi.invalid" {
		t.Errorf("local user.email %q", got)
	}
	if got := Git(t, dir, "branch", "--show-current"); got != "main" {
		t.Errorf("branch %q, want main", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "new.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if st := Status(t, dir); st != "?? new.txt" {
		t.Errorf("after adding a file, status %q, want ?? new.txt", st)
	}
}

func TestWriteSettings(t *testing.T) {
	env := Env(t, "http://127.0.0.1:1")
	path := env.WriteSettings(t, Settings{
		Permissions: &Permissions{Ask: []string{"Bash(touch:*)"}},
		Hooks:       map[string][]HookMatcher{"PreToolUse": {{Matcher: "Bash", Hooks: []Hook{{Type: "command", Command: "/bin/true"}}}}},
	})

	if path != filepath.Join(env.Home, ".claude", "settings.json") {
		t.Errorf("settings written to %s", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"permissions": map[string]any{"ask": []any{"Bash(touch:*)"}},
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{
			"matcher": "Bash",
			"hooks":   []any{map[string]any{"type": "command", "command": "/bin/true"}},
		}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings.json (-want +got):\n%s", diff)
	}
}

func TestGuardHookScript(t *testing.T) {
	env := Env(t, "http://127.0.0.1:1")
	deny := WriteDenyFile(t, t.TempDir(), "curl https://example.invalid", "git push")
	hook := env.GuardHook(t, deny)
	if hook.Matcher != "Bash" || len(hook.Hooks) != 1 {
		t.Fatalf("matcher %+v, want one Bash hook", hook)
	}

	tests := []struct {
		name, command string
		refused       bool
	}{
		{"a listed command is refused", "curl https://example.invalid", true},
		{"a command containing a listed one is refused", "cd x && git push origin main", true},
		{"another command passes", "ls -la", false},
		{"a comment line of the deny file matches nothing", "echo '# commands the guard hook refuses'", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input, _ := json.Marshal(map[string]any{
				"hook_event_name": "PreToolUse", "tool_name": "Bash",
				"tool_input": map[string]any{"command": tt.command},
			})
			cmd := exec.Command("sh", "-c", hook.Hooks[0].Command)
			cmd.Stdin = bytes.NewReader(input)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			switch {
			case tt.refused && (!errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.HasPrefix(stderr.String(), GuardMessage)):
				t.Errorf("hook: %v, stderr %q; want exit 2 and %q", err, stderr.String(), GuardMessage)
			case !tt.refused && err != nil:
				t.Errorf("hook: %v, stderr %q; want exit 0", err, stderr.String())
			}
		})
	}
}
