// Package claude is Claude Code as a runtime of segwi's runs (runs.Runtime): its command
// line, its pty, the stream-json messages written to its input, the stream-json it prints
// parsed into segwi's events, and its approvals hook, the permission prompt tool wired to
// segwi's approvals server through the run's mcp.json. Package runs knows nothing of it;
// segwi's core (internal/roots/core) gives a Manager this runtime.
//
// What it builds on, observed on Claude Code 2.1.328, is in CLAUDE_CODE.md of the project's
// shared notes: stream-json only from a pipe, output through a pty, --permission-prompt-tool
// only in print mode, --resume with stream-json input.
package claude

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs"
)

// DefaultPath is the claude binary segwi runs when segwi.claude.path is not set.
const DefaultPath = "claude"

// MCPConfigFile is the file of a run's folder that points Claude Code at segwi's approvals
// server with the run's token (--mcp-config): 0600, gone once Claude Code has connected.
const MCPConfigFile = "mcp.json"

// Runtime runs Claude Code: the binary Path names (segwi.claude.path: a name looked up in
// PATH, or a path; DefaultPath when empty).
type Runtime struct {
	Path string
}

// Name is how a run's reasons call Claude Code: "claude exited with code 1".
func (Runtime) Name() string { return "claude" }

// BoundsTurnCost says Claude Code keeps to a cost bound itself (--max-budget-usd,
// runs.TurnCostBounder).
func (Runtime) BoundsTurnCost() bool { return true }

// Check says whether Path finds Claude Code; its error wraps ErrNotFound and says what to
// do.
func (rt Runtime) Check() error {
	_, err := Find(rt.path())
	return err
}

func (rt Runtime) path() string {
	if rt.Path == "" {
		return DefaultPath
	}
	return rt.Path
}

// Start starts Claude Code for l: in print mode, stream-json in and out, auto mode, the
// kind's flags, and, when l wires approvals, the permission prompt tool with the run's
// mcp.json. Its input is a pipe, its output a pty (see startInPTY). Its error wraps what
// l.Start returned.
func (rt Runtime) Start(l runs.Launch) (runs.Session, error) {
	claude, err := Find(rt.path())
	if err != nil {
		return nil, err
	}
	mcpConfig := ""
	if l.Approvals != nil {
		mcpConfig = filepath.Join(l.Dir, MCPConfigFile)
		if err := os.WriteFile(mcpConfig, l.Approvals.MCPConfig(), 0o600); err != nil {
			return nil, fmt.Errorf("writing %s: %w", mcpConfig, err)
		}
	}
	argv := argvFor(claude, l.Kind, l.Model, mcpConfig, l.Resume)
	if l.MaxCostUSD > 0 {
		argv = append(argv, "--max-budget-usd", strconv.FormatFloat(l.MaxCostUSD, 'f', -1, 64))
	}
	s, err := startInPTY(l, claude, argv)
	if err != nil {
		if mcpConfig != "" {
			os.Remove(mcpConfig)
		}
		return nil, err
	}
	s.mcpConfig = mcpConfig
	return s, nil
}

// ErrNotFound is wrapped by the error of Find, and so of Check and Manager.Start, when the
// configured claude binary is not there.
var ErrNotFound = errors.New("claude binary not found")

// Find returns the Claude Code binary that path (segwi.claude.path: a name looked up in
// PATH, or a path) names, or an error wrapping ErrNotFound that names the setting and says
// what to do. A run's start uses it, and so do the checks a front end makes ahead of a
// run (segwi config check, the tray at launch).
func Find(path string) (string, error) {
	claude, err := exec.LookPath(path)
	if err != nil {
		return "", notFound(path)
	}
	return claude, nil
}

// notFound is Find's error: it is ErrNotFound, in words that say what to do rather than
// repeat the sentinel's.
type notFound string

func (e notFound) Error() string {
	return fmt.Sprintf("claude not found at %q (settings key segwi.claude.path): install Claude Code and log in to it, or set segwi.claude.path to the full path of its claude binary", string(e))
}

// Is makes errors.Is(err, ErrNotFound) hold.
func (e notFound) Is(target error) bool { return target == ErrNotFound }

// argvFor returns the command line of a run: claude and its flags. mcpConfig is the path
// of the run's mcp.json, or "" when no approvals server is wired; resume is the session
// to resume, or "". The prompt is not on the command line: it goes to the run's input.
func argvFor(claude string, k runs.Kind, model, mcpConfig, resume string) []string {
	argv := []string{claude,
		"-p",
		"--input-format", "stream-json",
		"--output-format", "stream-json",
		"--verbose",
		"--permission-mode", "auto",
	}
	if mcpConfig != "" {
		argv = append(argv,
			"--permission-prompt-tool", approvals.PromptTool,
			"--mcp-config", mcpConfig)
	}
	if model != "" {
		argv = append(argv, "--model", model)
	}
	if k == runs.KindAsk {
		argv = append(argv, "--disallowedTools", "Edit,Write,NotebookEdit")
	}
	if resume != "" {
		argv = append(argv, "--resume", resume)
	}
	return argv
}

// userMessage returns text as one stream-json user message line, newline included.
func userMessage(text string) []byte {
	type message struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	b, err := json.Marshal(struct {
		Type    string  `json:"type"`
		Message message `json:"message"`
	}{"user", message{"user", text}})
	if err != nil {
		panic(err) // strings always marshal
	}
	return append(b, '\n')
}
