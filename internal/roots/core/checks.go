package core

import (
	"fmt"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/claude"
	"github.com/segwi/segwi/settings"
)

// Checks returns what in s would stop a run although every value is valid: a repository
// whose path is not the top folder of a git checkout, and a segwi.claude.path that finds
// no Claude Code. Each error names the key and says what to do, in the words a run's
// start refuses with (runs.CheckoutDir, claude.Find). segwi config check prints them
// as warnings, and the tray shows them at launch and after each edit, before the person
// presses Start. It looks at the disk and PATH as they are now; nil when nothing is wrong.
func Checks(s settings.Settings) []error {
	var errs []error
	if _, err := claude.Find(s.Claude.Path); err != nil {
		errs = append(errs, err)
	}
	for _, r := range s.Repositories {
		if _, err := runs.CheckoutDir(r.Path); err != nil {
			errs = append(errs, fmt.Errorf("segwi.repositories (repository %q): %w", r.Name, err))
		}
	}
	return errs
}
