package approvals

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// bashRuns runs script with the real bash, as `bash -c SCRIPT`, where every command it
// can find on PATH is one of commands, each a recorder, and returns the words of the
// commands bash ran, sorted.
func bashRuns(t *testing.T, script string, commands ...string) [][]string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("no bash to compare with: %v", err)
	}
	dir := t.TempDir()
	bin, log := filepath.Join(dir, "bin"), filepath.Join(dir, "log")
	for _, d := range []string{bin, log} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	recorder := "#!/bin/sh\nprintf '%s\\0' \"${0##*/}\" \"$@\" > \"$SEGWI_LOG/$$\"\n"
	for _, name := range commands {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(recorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bash, "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin, "SEGWI_LOG=" + log, "HOME=" + dir, "LANG=C.UTF-8"}
	out, _ := cmd.CombinedOutput() // a script that fails still shows what it ran
	t.Logf("bash -c %q said: %q", script, out)
	entries, err := os.ReadDir(log)
	if err != nil {
		t.Fatal(err)
	}
	var ran [][]string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(log, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		ran = append(ran, strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00"))
	}
	slices.SortFunc(ran, slices.Compare)
	return ran
}

// shown writes each command's words as one line, Go-quoted: `git status "\r"`.
func shown(commands [][]string) []string {
	lines := make([]string, len(commands))
	for i, words := range commands {
		quoted := make([]string, len(words))
		for j, w := range words {
			quoted[j] = strconv.Quote(w)
		}
		lines[i] = strings.Join(quoted, " ")
	}
	return lines
}

// TestScriptsBashReadsDifferently holds scripts that the shell parser segwi uses reads
// otherwise than bash: it takes a carriage return for a blank and drops a NUL; bash keeps
// both. Each was allowed by a trusted "git status" while bash, given it, runs touch (or
// a command named gi). The test shows what bash runs where it can take the script.
func TestScriptsBashReadsDifferently(t *testing.T) {
	trusted := mustTrusted(t, "git status")
	tests := []struct {
		name    string
		script  string
		bashRan []string // nil: bash cannot take the script as one argument
	}{
		{
			name:    "a backslash before CR LF ends the command for bash, which then runs touch",
			script:  "git status \\\r\ntouch pwned",
			bashRan: []string{`"git" "status" "\r"`, `"touch" "pwned"`},
		},
		{
			name:    "a carriage return alone is part of a word for bash",
			script:  "git status\r&& touch pwned",
			bashRan: []string{`"git" "status\r"`, `"touch" "pwned"`},
		},
		{
			// A NUL cannot reach bash inside one argument (the kernel ends it there, and
			// Go refuses it); read from a file or a pipe bash drops or refuses it. What runs
			// depends on the way the command reaches bash: not for segwi to guess.
			name:   "a NUL in a command word goes to a person",
			script: "gi\x00t status",
		},
		{
			name:    "an escape character goes to a person",
			script:  "git status \x1b[8m&& touch pwned",
			bashRan: []string{`"git" "status" "\x1b[8m"`, `"touch" "pwned"`},
		},
		{
			name:    "a vertical tab goes to a person",
			script:  "git status\v&& touch pwned",
			bashRan: []string{`"git" "status\v"`, `"touch" "pwned"`},
		},
		{
			name:    "a DEL goes to a person",
			script:  "git status \x7f",
			bashRan: []string{`"git" "status" "\x7f"`},
		},
		{
			name:    "a C1 control (NEL) goes to a person",
			script:  "git status \u0085",
			bashRan: []string{`"git" "status" "\u0085"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.bashRan != nil {
				if got := shown(bashRuns(t, tt.script, "git", "touch", "gi")); !slices.Equal(got, tt.bashRan) {
					t.Fatalf("bash ran %q, want %q (the test's premise)", got, tt.bashRan)
				}
			}
			if rule, ok := trusted.Match(tt.script); ok {
				t.Errorf("Match(%q): allowed by %q, want it kept for a person", tt.script, rule)
			}
		})
	}
}

// TestBashRunsOnlyTrustedCommandsOfAllowedScripts runs every script the trusted commands
// allow in the real bash, and checks that each command bash ran starts with a trusted
// entry.
func TestBashRunsOnlyTrustedCommandsOfAllowedScripts(t *testing.T) {
	trusted := mustTrusted(t, "git status", "git diff", "ls", "grep -n")
	for _, script := range []string{
		"git status", "git status --short && git diff HEAD~1", "ls; git status", "git diff | grep -n TODO",
		"git status\nls -la\n", "ls \\\n  -la", `"git" 'status' "--short"`, `grep -n "# TODO: fix" main.go`,
		"ls\tcmd", "ls\u00a0-la", "ls\u2028-la", "ls\u3000-la", "ls\ufeff-la", "ls \u202eal-",
	} {
		if _, ok := trusted.Match(script); !ok {
			continue
		}
		for _, words := range bashRuns(t, script, "git", "ls", "grep", "touch", "rm") {
			if !slices.ContainsFunc(trusted.rules, func(r trustedRule) bool { return hasWordPrefix(words, r.words) }) {
				t.Errorf("Match(%q) allowed it, and bash ran %q, which no trusted entry starts", script, shown([][]string{words}))
			}
		}
	}
}
