package runs_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
)

// The tests of package runs that drive fakeclaude, Claude Code's stand-in, run it through
// Claude Code's runtime: see runs.ClaudeRuntime.
func init() {
	runs.ClaudeRuntime = func(path string) runs.Runtime { return claude.Runtime{Path: path} }
	runs.ClaudeParser = claude.NewParser
}

// Package runs builds without Claude Code: nothing it imports, however deep, is Claude
// Code's runtime or the pty it starts Claude Code in. TestARunDrivesAnyRuntime runs a run
// without it.
func TestRunsBuildsWithoutClaudeCodesRuntime(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/segwi/segwi/runs").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range []string{"github.com/segwi/segwi/runs/claude", "github.com/creack/pty"} {
		if slices.Contains(deps, pkg) {
			t.Errorf("package runs depends on %s", pkg)
		}
	}
}
