package core

import (
	"fmt"
	"os/exec"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
	"github.com/segwi/segwi/settings"
)

// Checks returns what in s would stop a run although every value is valid: a repository
// whose path is not the top folder of a git checkout, a segwi.claude.path that finds
// no Claude Code, and a runtime whose program is not found. Each error names the key and says what to do, in the words a run's
// start refuses with (runs.CheckoutDir, claude.Find). segwi config check prints them
// as warnings, and the tray shows them at launch and after each edit, before the person
// presses Start. It looks at the disk and PATH as they are now; nil when nothing is wrong.
func Checks(s settings.Settings) []error {
	var errs []error
	if _, err := claude.Find(s.Claude.Path); err != nil {
		errs = append(errs, err)
	}
	for _, r := range s.Runtimes {
		if _, err := exec.LookPath(r.Command[0]); err != nil {
			errs = append(errs, fmt.Errorf("segwi.runtimes (runtime %q): %s not found: install it, or write the full path of its program as the command's first word", r.Name, r.Command[0]))
		}
	}
	for _, r := range s.Repositories {
		if _, err := runs.CheckoutDir(r.Path); err != nil {
			errs = append(errs, fmt.Errorf("segwi.repositories (repository %q): %w", r.Name, err))
		}
	}
	return errs
}
