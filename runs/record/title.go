package record

import (
	"fmt"
	"strings"
)

// WorkTitle is what a commit or pull request of the run's work is called by default: the
// first line of its task (cut at 120 runes), or what kind of run it was. The core commits
// and opens pull requests with it when given no message or title, and the run window
// prefills its message and title boxes with it.
func WorkTitle(info Info) string {
	title, _, _ := strings.Cut(strings.TrimSpace(info.Prompt), "\n")
	title = strings.TrimSpace(title)
	if title == "" {
		if info.Kind == KindReady {
			return "Get the branch ready for review"
		}
		return fmt.Sprintf("segwi %s run %s", info.Kind, info.ID)
	}
	if r := []rune(title); len(r) > 120 {
		title = string(r[:119]) + "…"
	}
	return title
}
