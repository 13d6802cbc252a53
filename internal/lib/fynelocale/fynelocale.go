// Package fynelocale keeps Fyne from logging "Error parsing user locale C" on every start
// of segwi-windows, the window process, when the locale is C.UTF-8 (common on servers and
// in containers). segwi itself links no Fyne.
//
// Fyne's lang package reads the locale in its init function and cannot parse "C.UTF-8".
// This package's init runs first and, for a C or POSIX locale with a codeset, sets
// LANGUAGE=en, which Fyne then reads instead; main calls Restore before anything else, so
// no run or child process sees the change.
//
// It imports only syscall on purpose: Go initialises packages in import-path order among
// those whose imports are ready, so a package that needs nothing beyond syscall is
// initialised before os, and so before Fyne's lang package, which needs os. A test of the
// built program (cmd/segwi-windows) checks that this still holds.
package fynelocale

import "syscall"

// set is whether init set LANGUAGE.
var set bool

func init() {
	if _, ok := syscall.Getenv("LANGUAGE"); ok {
		return
	}
	loc := ""
	for _, name := range [...]string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v, ok := syscall.Getenv(name); ok && v != "" {
			loc = v
			break
		}
	}
	if hasPrefix(loc, "C.") || hasPrefix(loc, "POSIX.") {
		set = syscall.Setenv("LANGUAGE", "en") == nil
	}
}

// Restore undoes what init did to the environment. Call it first thing in main.
func Restore() {
	if set {
		syscall.Unsetenv("LANGUAGE")
		set = false
	}
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
