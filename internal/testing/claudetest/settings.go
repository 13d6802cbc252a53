package claudetest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Settings is the part of a Claude Code settings.json the tests write.
type Settings struct {
	// Permissions holds permission rules such as "Bash(touch:*)".
	Permissions *Permissions `json:"permissions,omitempty"`
	// Hooks maps a hook event ("PreToolUse", ...) to its matchers.
	Hooks map[string][]HookMatcher `json:"hooks,omitempty"`
}

// Permissions is the permissions section of a settings.json.
type Permissions struct {
	Allow []string `json:"allow,omitempty"`
	Ask   []string `json:"ask,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// HookMatcher runs its hooks for the tools whose name matches Matcher ("Bash", "Edit|Write").
type HookMatcher struct {
	Matcher string `json:"matcher"`
	Hooks   []Hook `json:"hooks"`
}

// Hook is one hook command.
type Hook struct {
	// Type is "command".
	Type string `json:"type"`
	// Command is the shell command Claude Code runs, with the hook's JSON on its stdin.
	Command string `json:"command"`
	// Timeout is in seconds; 0 leaves Claude Code's default.
	Timeout int `json:"timeout,omitempty"`
}

// SettingsPath returns the path of the test HOME's ~/.claude/settings.json.
func (e *Environment) SettingsPath() string {
	return filepath.Join(e.Home, ".claude", "settings.json")
}

// WriteSettings writes s as the test HOME's ~/.claude/settings.json (the user's settings)
// and returns its path.
func (e *Environment) WriteSettings(t testing.TB, s Settings) string {
	t.Helper()
	path := e.SettingsPath()
	writeJSONFile(t, path, s)
	return path
}

// WriteClaudeJSON writes v as the test HOME's ~/.claude.json (Claude Code's own state:
// onboarding, trusted projects) and returns its path. Print mode does not need one.
func (e *Environment) WriteClaudeJSON(t testing.TB, v any) string {
	t.Helper()
	path := filepath.Join(e.Home, ".claude.json")
	writeJSONFile(t, path, v)
	return path
}

// GuardMessage starts what the guard hook writes on stderr when it refuses a command;
// Claude Code hands that text back to the model in the refused call's tool_result.
const GuardMessage = "guard: refused by the deny list"

// guardScript is a PreToolUse hook in the way a person writes one: it reads the hook's JSON
// on stdin and refuses (exit 2, reason on stderr) a Bash command that contains any line of
// the deny file. Blank lines and lines starting with # are ignored. It is a node script
// because node is there wherever the pinned Claude Code was installed, and parses JSON.
const guardScript = `#!/usr/bin/env node
// Guard hook written by segwi's claudetest: refuses Bash commands on a deny list.
const fs = require('fs');
const denyFile = process.argv[2];
let input = '';
process.stdin.on('data', (d) => { input += d; });
process.stdin.on('end', () => {
  let command = '';
  try { command = String((JSON.parse(input).tool_input || {}).command || ''); } catch (e) {
    process.stderr.write('guard: cannot parse the hook input: ' + e.message + '\n');
    process.exit(2);
  }
  let lines;
  try { lines = fs.readFileSync(denyFile, 'utf8').split('\n'); } catch (e) {
    process.stderr.write('guard: cannot read ' + denyFile + ': ' + e.message + '\n');
    process.exit(2);
  }
  for (const raw of lines) {
    const entry = raw.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    if (command.includes(entry)) {
      process.stderr.write('` + GuardMessage + ` ' + denyFile + ': ' + JSON.stringify(entry) + '\n');
      process.exit(2);
    }
  }
  process.exit(0);
});
`

// GuardHook writes a guard hook script into the test HOME and returns the PreToolUse
// matcher that runs it for Bash calls, refusing (exit 2, stderr starting with GuardMessage)
// every command that contains a line of denyFile. Put it in Settings.Hooks["PreToolUse"].
// It skips the test when node is missing.
func (e *Environment) GuardHook(t testing.TB, denyFile string) HookMatcher {
	t.Helper()
	NeedTool(t, "node")
	script := filepath.Join(e.Home, ".claude", "hooks", "guard.js")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatalf("making the hooks directory: %v", err)
	}
	if err := os.WriteFile(script, []byte(guardScript), 0o755); err != nil {
		t.Fatalf("writing the guard hook: %v", err)
	}
	return HookMatcher{Matcher: "Bash", Hooks: []Hook{{
		Type:    "command",
		Command: shellQuote(script) + " " + shellQuote(denyFile),
		Timeout: 10,
	}}}
}

// WriteDenyFile writes a guard deny file, one command a line, into dir and returns its path.
func WriteDenyFile(t testing.TB, dir string, commands ...string) string {
	t.Helper()
	path := filepath.Join(dir, "guard.deny")
	content := "# commands the guard hook refuses\n" + strings.Join(commands, "\n") + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatalf("writing the deny file: %v", err)
	}
	return path
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("encoding %s: %v", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatalf("making the directory of %s: %v", path, err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(fmt.Errorf("writing %s: %w", path, err))
	}
}
