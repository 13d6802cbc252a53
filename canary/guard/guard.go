package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrNoDeny is returned by canary.Run when segwi.canary.guardDeny is not set.
var ErrNoDeny = errors.New("segwi.canary.guardDeny is not set: set it to the deny file " +
	"your Claude Code guard hook reads (a PreToolUse hook in ~/.claude/settings.json); " +
	"the first command in it is what the canary expects the guard to refuse")

// The example guard hook that Help shows and SetUpGuard writes: the deny file, the hook
// script, and the hook's entry in Claude Code's user settings. A test runs them with the
// pinned Claude Code.
const (
	exampleDeny = `# the first command is the canary's probe: harmless if it ever runs
echo segwi-canary-guard
git push --force
`
	exampleHook = `#!/bin/sh
input=$(cat)
grep -v -e '^#' -e '^[[:space:]]*$' ~/.claude/guard.deny |
while IFS= read -r deny; do
  case "$input" in *"$deny"*) echo "guard: refused: $deny" >&2; exit 2 ;; esac
done || exit 2
`
	exampleSettings = `{"hooks": {"PreToolUse": [{"matcher": "Bash",
  "hooks": [{"type": "command", "command": "~/.claude/hooks/guard.sh"}]}]}}
`
	// Where the example's files go, under the person's home folder; the hook's command as
	// Claude Code's settings name it.
	exampleDenyFile    = ".claude/guard.deny"
	exampleHookFile    = ".claude/hooks/guard.sh"
	claudeSettingsFile = ".claude/settings.json"
	exampleHookCommand = "~/.claude/hooks/guard.sh"
)

// Help says what a guard hook is and how to set one up, with an example, for a person
// whose segwi.canary.guardDeny is not set: segwi canary and the tray's canary window show it.
var Help = `A guard hook is a Claude Code PreToolUse hook of your own that refuses
the commands you never want an agent to run, listed in a deny file. segwi does
not install one unless you ask; the canary checks that yours still refuses: it
asks Claude Code to run the first command of the deny file and passes only when
the hook refuses it. Put a harmless command first: if no hook refuses it, it runs.

An example. The deny file, ~/` + exampleDenyFile + `:

` + indent(exampleDeny) + `
The hook, ~/` + exampleHookFile + ` (chmod +x), refusing a Bash call that holds
a line of the deny file:

` + indent(exampleHook) + `
Claude Code runs it before each Bash call, from ~/` + claudeSettingsFile + `:

` + indent(exampleSettings) + `
Then set segwi.canary.guardDeny to ~/` + exampleDenyFile + ` (Settings…, Canary).`

// indent puts four spaces before each line of text.
func indent(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "")
}

// Command returns the first command listed in the guard deny file at path: its
// first line that is neither blank nor a # comment, trimmed. The errors name the file and
// say what to do.
func Command(path string) (string, error) {
	if path == "" {
		return "", ErrNoDeny
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("the guard deny file %s (segwi.canary.guardDeny) does not exist: "+
				"set segwi.canary.guardDeny to the deny file your guard hook reads: %w", path, err)
		}
		return "", fmt.Errorf("reading the guard deny file %s (segwi.canary.guardDeny): %w", path, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), len(data)+1)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		return line, nil
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("reading the guard deny file %s (segwi.canary.guardDeny): %w", path, err)
	}
	return "", fmt.Errorf("the guard deny file %s (segwi.canary.guardDeny) lists no command, only blank "+
		"and # comment lines: put the commands your guard hook refuses in it, one a line", path)
}
