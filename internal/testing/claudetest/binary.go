package claudetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BinaryEnv names the environment variable that points the tests at a Claude Code binary
// other than the pinned one.
const BinaryEnv = "SEGWI_TEST_CLAUDE"

// StrictEnv names the environment variable that, set to 1, turns a missing Claude Code
// binary into a test failure instead of a skip (CI sets it).
const StrictEnv = "SEGWI_TEST_STRICT"

// pinnedPath is where scripts/setup.sh --test installs the pinned Claude Code, relative to
// the module root.
const pinnedPath = "testdata/claude-code/node_modules/.bin/claude"

// Binary returns the path of the Claude Code binary the end-to-end tests run: $SEGWI_TEST_CLAUDE
// when set, else the pinned one under the module's testdata/claude-code. When there is none it
// skips the test, saying how to install it, or fails it when SEGWI_TEST_STRICT=1.
func Binary(t testing.TB) string {
	t.Helper()
	path, err := findBinary()
	if err != nil {
		msg := fmt.Sprintf("no Claude Code for the end-to-end tests: %v; run scripts/setup.sh --test (or set %s to a claude binary)", err, BinaryEnv)
		if os.Getenv(StrictEnv) == "1" {
			t.Fatalf("%s (%s=1 makes this a failure)", msg, StrictEnv)
		}
		t.Skip(msg)
	}
	return path
}

// findBinary locates the Claude Code binary without a test, for Binary.
func findBinary() (string, error) {
	path := os.Getenv(BinaryEnv)
	if path == "" {
		root, err := ModuleRoot()
		if err != nil {
			return "", err
		}
		path = filepath.Join(root, pinnedPath)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("locating %s: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%s is missing: %w", abs, err)
	}
	if info.IsDir() || info.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", abs)
	}
	return abs, nil
}

// ModuleRoot returns the directory of the go.mod that holds the current directory, walking
// up from it; tests run in their package's directory, so this is the repository's root.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("finding the module root: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("finding the module root: no go.mod above the current directory")
		}
		dir = parent
	}
}

// NeedTool skips the test (or fails it under SEGWI_TEST_STRICT=1) when a program a test
// runs is not on PATH, saying to run scripts/setup.sh --test, and returns its path.
func NeedTool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		msg := fmt.Sprintf("%s is not on PATH: %v; run scripts/setup.sh --test", name, err)
		if os.Getenv(StrictEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// BuildFakeClaude builds the Claude Code runtime's stand-in (runs/claude/testdata/fakeclaude)
// into dir and returns its path: a program that prints scripted stream-json, chosen by a
// "fake:SCENARIO" word in its first message (a flood of output of a known size, a call put
// to segwi's approval tool, ...), for tests where the real Claude Code is not the point or
// is too slow.
func BuildFakeClaude(t testing.TB, dir string) string {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fakeclaude")
	cmd := exec.Command("go", "build", "-o", path, "./runs/claude/testdata/fakeclaude")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building runs/claude/testdata/fakeclaude: %v\n%s", err, out)
	}
	return path
}
