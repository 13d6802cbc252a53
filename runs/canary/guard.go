package canary

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
)

// ErrNoGuardDeny is returned by Run when segwi.canary.guardDeny is not set.
var ErrNoGuardDeny = errors.New("segwi.canary.guardDeny is not set: set it to the deny file " +
	"your Claude Code guard hook reads (a PreToolUse hook in ~/.claude/settings.json); " +
	"the first command in it is what the canary expects the guard to refuse")

// GuardCommand returns the first command listed in the guard deny file at path: its
// first line that is neither blank nor a # comment, trimmed. The errors name the file and
// say what to do.
func GuardCommand(path string) (string, error) {
	if path == "" {
		return "", ErrNoGuardDeny
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
