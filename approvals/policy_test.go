package approvals

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var testTrusted = []string{"git status", "git diff", "go test", "ls", "grep -n", "'make' check", "npm run lint"}

func mustTrusted(t testing.TB, entries ...string) Trusted {
	t.Helper()
	tr, err := ParseTrusted(entries)
	if err != nil {
		t.Fatalf("ParseTrusted(%q): %v", entries, err)
	}
	return tr
}

func TestTrustedScriptsThatMatch(t *testing.T) {
	trusted := mustTrusted(t, testTrusted...)
	tests := []struct {
		name   string
		script string
		rule   string
	}{
		{"a trusted command alone is allowed", "git status", "git status"},
		{"a trusted prefix with more words is allowed", "git status --short", "git status"},
		{"quoted words compare by their value", `"git" 'status' "--short"`, "git status"},
		{"commands joined by && are allowed", "git status && git diff HEAD~1", "git status, git diff"},
		{"commands joined by || are allowed", "go test ./... || git status", "go test, git status"},
		{"commands joined by ; are allowed", "ls; git status", "ls, git status"},
		{"a pipe of trusted commands is allowed", "git diff | grep -n TODO", "git diff, grep -n"},
		{"commands on separate lines are allowed", "git status\ngo test ./approvals\n", "git status, go test"},
		{"a line continuation inside a command is allowed", "go test \\\n  ./approvals", "go test"},
		{"a trusted entry written with quotes matches the plain word", "make check -j2", "'make' check"},
		{"a quoted argument with spaces and a hash is allowed", `grep -n "# TODO: fix" main.go`, "grep -n"},
		{"the same rule used twice is named once", "ls a && ls b", "ls"},
		{"the longest matching entry is named", "npm run lint --fix", "npm run lint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule, ok := trusted.Match(tt.script)
			if !ok {
				t.Fatalf("Match(%q): not allowed, want allowed by %q", tt.script, tt.rule)
			}
			if rule != tt.rule {
				t.Errorf("Match(%q): got rule %q, want %q", tt.script, rule, tt.rule)
			}
		})
	}
}

func TestTrustedScriptsThatDoNotMatch(t *testing.T) {
	trusted := mustTrusted(t, append(testTrusted, "echo", "cat")...)
	tests := []struct {
		name   string
		script string
	}{
		{"an untrusted command goes to a person", "rm -rf build"},
		{"an untrusted command mixed in goes to a person", "git status && rm -rf build"},
		{"an untrusted command in a pipe goes to a person", "git diff | sh"},
		{"a prefix that is not a whole word goes to a person", "git statusx"},
		{"a shorter command than the prefix goes to a person", "git"},
		{"a parameter expansion goes to a person", "echo $HOME"},
		{"a braced expansion goes to a person", "echo ${HOME}"},
		{"a dollar inside single quotes goes to a person", "echo '$HOME'"},
		{"a command substitution goes to a person", "echo $(rm -rf /)"},
		{"backquotes go to a person", "echo `rm -rf /`"},
		{"an output redirection goes to a person", "git status > out.txt"},
		{"an input redirection goes to a person", "cat < /etc/passwd"},
		{"a here-document goes to a person", "cat <<EOF\nhi\nEOF"},
		{"a redirection of stderr goes to a person", "go test 2>/dev/null"},
		{"a subshell goes to a person", "(git status)"},
		{"a block goes to a person", "{ git status; }"},
		{"a lone & goes to a person", "git status &"},
		{"a background job before another command goes to a person", "go test & git status"},
		{"a comment goes to a person", "git status # tidy"},
		{"a comment on its own line goes to a person", "# note\ngit status"},
		{"an assignment goes to a person", "FOO=1"},
		{"an assignment before a command goes to a person", "GIT_DIR=/tmp git status"},
		{"an if clause goes to a person", "if git status; then ls; fi"},
		{"a for loop goes to a person", "for f in a b; do ls; done"},
		{"a while loop goes to a person", "while git status; do ls; done"},
		{"a function goes to a person", "f() { ls; }; f"},
		{"a negation goes to a person", "! git status"},
		{"a |& pipe goes to a person", "git status |& grep -n x"},
		{"a test clause goes to a person", "[[ -f x ]] && ls"},
		{"an arithmetic command goes to a person", "((1+1)) && ls"},
		{"a declaration goes to a person", "export FOO=1 && ls"},
		{"a glob goes to a person", "ls *.go"},
		{"brace expansion goes to a person", "ls {a,b}"},
		{"a tilde at the start of a word goes to a person", "ls ~/secrets"},
		{"a backslash escape goes to a person", "ls a\\ b"},
		{"process substitution goes to a person", "cat <(ls)"},
		{"an ANSI-C quoted string goes to a person", "echo $'\\x41'"},
		{"a script that does not parse goes to a person", "git status &&"},
		{"an empty script goes to a person", "   "},
		{"a script with only separators goes to a person", ";"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if rule, ok := trusted.Match(tt.script); ok {
				t.Errorf("Match(%q): allowed by %q, want it kept for a person", tt.script, rule)
			}
		})
	}
}

func TestTrustedAllowsOnlyBashCommands(t *testing.T) {
	trusted := mustTrusted(t, "git status")
	tests := []struct {
		name     string
		toolName string
		input    string
		want     bool
	}{
		{"a trusted Bash command is allowed", "Bash", `{"command":"git status","description":"Show status"}`, true},
		{"another tool with the same command is not", "Write", `{"command":"git status"}`, false},
		{"a Bash call without a command is not", "Bash", `{"description":"git status"}`, false},
		{"a Bash call whose command is not a string is not", "Bash", `{"command":["git","status"]}`, false},
		{"a Bash call with input that is not JSON is not", "Bash", `git status`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := trusted.Check(tt.toolName, json.RawMessage(tt.input)).Allowed; got != tt.want {
				t.Errorf("Check(%s, %s): allowed %v, want %v", tt.toolName, tt.input, got, tt.want)
			}
		})
	}
}

func TestNoTrustedEntriesAllowNothing(t *testing.T) {
	var none Trusted
	if rule, ok := none.Match("ls"); ok {
		t.Errorf("zero Trusted: Match(ls) allowed by %q, want nothing allowed", rule)
	}
}

func TestParseTrusted(t *testing.T) {
	t.Run("entries are kept as written, trimmed", func(t *testing.T) {
		tr := mustTrusted(t, " git status ", "go test")
		if diff := cmp.Diff([]string{"git status", "go test"}, tr.Entries()); diff != "" {
			t.Errorf("Entries() (-want +got):\n%s", diff)
		}
	})
	bad := []struct {
		name    string
		entries []string
	}{
		{"an empty entry is refused", []string{""}},
		{"an entry with an operator is refused", []string{"git status && rm"}},
		{"an entry with two lines is refused", []string{"git status\nrm"}},
		{"an entry with an expansion is refused", []string{"echo $HOME"}},
		{"an entry with a redirection is refused", []string{"git status >x"}},
		{"an entry over 1 KiB is refused", []string{"echo " + strings.Repeat("a", MaxTrustedBytes)}},
		{"more than 64 entries are refused", make([]string, MaxTrusted+1)},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseTrusted(tt.entries); err == nil {
				t.Errorf("ParseTrusted(%.60q): got no error, want one", tt.entries)
			}
		})
	}
}

func FuzzTrusted(f *testing.F) {
	for _, s := range []string{
		"git status", "git status && ls", "echo $HOME", "echo `id`", "ls | grep -n x",
		"'git' \"status\"", "(ls)", "ls &", "a=b ls", "ls # c", "ls > x", "$(ls)", "ls\ngit status",
	} {
		f.Add(s)
	}
	trusted := mustTrusted(f, "git status", "ls", "grep -n", "echo", "cat", "a")
	f.Fuzz(func(t *testing.T, script string) {
		rule, ok := trusted.Match(script)
		if ok && strings.ContainsAny(script, "$`") {
			t.Fatalf("Match(%q): allowed by %q a script with $ or a backquote", script, rule)
		}
		if ok && rule == "" {
			t.Fatalf("Match(%q): allowed with no rule named", script)
		}
		if ok && strings.ContainsFunc(script, isUnsafeControl) {
			t.Fatalf("Match(%q): allowed by %q a script with a control character", script, rule)
		}
	})
}
