package record

import (
	"fmt"
	"strconv"
	"strings"
)

// Loss is what removing a worktree (and perhaps its branch) would lose.
type Loss struct {
	// Gone says the worktree's folder is gone already (removed by hand): nothing in it is
	// lost any more.
	Gone bool
	// Changed are the files whose changes are not committed (git status's short lines: " M
	// a.txt", "?? new.txt"): lost with the folder. Ignored files (a copied .env, build
	// output) go too and are not listed.
	Changed []string
	// Pushed says the branch is on the remote (it has a remote-tracking branch).
	Pushed bool
	// Unpushed is how many commits of the branch the remote does not have: lost only if
	// the branch is deleted.
	Unpushed int
	// BranchHead is the branch's commit now; "" when the branch is gone.
	BranchHead string
}

// Words says what would be lost, for a person: "2 uncommitted files ( M a.txt, ?? b.txt)".
// withBranch counts the commits only the branch holds.
func (l Loss) Words(withBranch bool) string {
	var parts []string
	if n := len(l.Changed); n > 0 {
		shown := l.Changed[:min(n, 5)]
		more := ""
		if n > len(shown) {
			more = fmt.Sprintf(" and %d more", n-len(shown))
		}
		parts = append(parts, fmt.Sprintf("%s not committed (%s%s)", plural(n, "changed file"), strings.Join(shown, ", "), more))
	}
	if withBranch && l.Unpushed > 0 {
		parts = append(parts, fmt.Sprintf("%s only its branch holds, never pushed", plural(l.Unpushed, "commit")))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Size says how large n bytes are, for a person: "120 bytes", "3.4 MiB".
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// Worktree is a run's git worktree, as its record keeps it.
type Worktree struct {
	// Path is the worktree's folder: Root/<repository>/<run id of MadeBy>.
	Path string `json:"path"`
	// Repository is the top folder of the checkout it was made from.
	Repository string `json:"repository"`
	// Branch is the branch it was made on, short name ("segwi/fix-login-ab12cd").
	Branch string `json:"branch"`
	// Commit is the commit it was made from: the checkout's HEAD then.
	Commit string `json:"commit"`
	// GitDir is its git folder in the repository: COMMON/worktrees/<run id>.
	GitDir string `json:"gitDir"`
	// Common is the repository's git folder that holds its objects and refs.
	Common string `json:"common"`
	// MadeBy is the run that made it; runs that continue that run work in it too.
	MadeBy string `json:"madeBy"`
}
