package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestREADMEListsThePackagesSetupInstalls keeps the README's lists of Debian packages the
// ones scripts/setup.sh installs (pkgs=(...) for building and running, pkgs+=(...) for the
// tests): a person who installs them by hand, from the README, gets what the scripts would.
func TestREADMEListsThePackagesSetupInstalls(t *testing.T) {
	setup, err := os.ReadFile("scripts/setup.sh")
	if err != nil {
		t.Fatal(err)
	}
	lists := regexp.MustCompile(`(?s)\bpkgs\+?=\(([^)]*)\)`).FindAllSubmatch(setup, -1)
	if len(lists) != 2 {
		t.Fatalf("scripts/setup.sh has %d package lists, want 2: pkgs=(...) and the tests' pkgs+=(...)", len(lists))
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Compared with white space collapsed: the README may wrap a list.
	text := strings.Join(strings.Fields(string(readme)), " ")
	for _, m := range lists {
		want := strings.Join(strings.Fields(string(m[1])), " ")
		if !strings.Contains(text, "`"+want+"`") {
			t.Errorf("README.md does not list the packages scripts/setup.sh installs; want this span in it:\n`%s`", want)
		}
	}
}
