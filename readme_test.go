package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEListsThePackagesSetupInstalls keeps the README's list of Debian packages the one
// scripts/setup.sh installs: a person who installs them by hand, from the README, gets what
// the scripts would.
func TestREADMEListsThePackagesSetupInstalls(t *testing.T) {
	setup, err := os.ReadFile("scripts/setup.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)\npkgs=\(([^)]*)\)`).FindSubmatch(setup)
	if m == nil {
		t.Fatal("scripts/setup.sh has no pkgs=(...) list")
	}
	want := strings.Join(strings.Fields(string(m[1])), " ")
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Compared with white space collapsed: the README may wrap the list.
	if strings.Contains(strings.Join(strings.Fields(string(readme)), " "), "`"+want+"`") {
		return
	}
	t.Errorf("README.md does not list the packages scripts/setup.sh installs; want this span in it:\n`%s`", want)
}
