package approvals

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// hugeScripts are Bash commands just under the approvals server's 1 MiB body limit whose
// parse tree nests once per command or bracket. The first is the one that crashed segwi:
// 340,000 commands in one pipeline, under an ask rule of Bash with ls trusted.
var hugeScripts = map[string]string{
	"a pipeline of 340,000 ls":        "ls" + strings.Repeat("|ls", 340_000-1),
	"a chain of 250,000 && ls":        "ls" + strings.Repeat("&&ls", 250_000-1),
	"1,000,000 opening parentheses":   strings.Repeat("(", 1_000_000),
	"500,000 nested braces":           strings.Repeat("{ ", 500_000),
	"ls with 300,000 arguments":       "ls" + strings.Repeat(" a", 300_000),
	"100,000 ls with quoted brackets": "ls" + strings.Repeat(`|ls "(("`, 100_000),
}

// TestHugeScriptsGoToAPersonWithoutCrashing checks each huge script in a child process:
// a Go stack overflow is a fatal error that no recover catches, and it would end the whole
// test binary (in segwi: every run and every pending approval). The child prints what the
// trusted commands answered; the test wants it alive, with the script left to a person.
func TestHugeScriptsGoToAPersonWithoutCrashing(t *testing.T) {
	if name := os.Getenv("SEGWI_HUGE_SCRIPT"); name != "" {
		trusted := mustTrusted(t, "git status", "ls")
		input, err := json.Marshal(map[string]string{"command": hugeScripts[name]})
		if err != nil {
			t.Fatal(err)
		}
		v := trusted.Check("Bash", input)
		fmt.Printf("answered: allowed=%v rule=%q unchecked=%q\n", v.Allowed, v.Rule, v.Unchecked)
		return
	}
	for name, script := range hugeScripts {
		t.Run(name, func(t *testing.T) {
			if n := len(script) + len(`{"command":""}`); n > MaxCallBytes {
				t.Fatalf("the script's input is %d bytes, over the %d the server reads: it would never reach the matcher", n, MaxCallBytes)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestHugeScriptsGoToAPersonWithoutCrashing$", "-test.count=1")
			cmd.Env = append(os.Environ(), "SEGWI_HUGE_SCRIPT="+name)
			out, err := cmd.CombinedOutput()
			got := string(out)
			if err != nil {
				t.Fatalf("the matcher's process died (%v):\n%s", err, firstLines(got, 8))
			}
			if !strings.Contains(got, "answered: allowed=false") {
				t.Errorf("got %q, want the script kept for a person", firstLines(got, 8))
			}
		})
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// largestScript returns a plain script of n commands, each `git diff --stat -- FILE`,
// joined by &&, padded with a longer last file name to exactly size bytes.
func largestScript(t testing.TB, n, size int) string {
	t.Helper()
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "git diff --stat -- internal/pkg%03d/file.go && ", i)
	}
	last := "git diff --stat -- last/"
	pad := size - b.Len() - len(last)
	if pad < 1 {
		t.Fatalf("largestScript(%d, %d): no room for the last command", n, size)
	}
	b.WriteString(last + strings.Repeat("f", pad))
	return b.String()
}

func TestTrustedScriptsAtTheBounds(t *testing.T) {
	trusted := mustTrusted(t, "git diff", "ls", "grep -n")
	tests := []struct {
		name   string
		script string
		want   bool
	}{
		{"a script of MaxScriptBytes is checked", largestScript(t, 10, MaxScriptBytes), true},
		{"one byte more goes to a person", largestScript(t, 10, MaxScriptBytes+1), false},
		{"MaxScriptCommands commands are checked", largestScript(t, MaxScriptCommands, 14000), true},
		{"one command more goes to a person", largestScript(t, MaxScriptCommands+1, 14000), false},
		{"MaxScriptBrackets quoted brackets are checked", `grep -n "` + strings.Repeat("(", MaxScriptBrackets) + `" x`, true},
		{"one bracket more goes to a person", `grep -n "` + strings.Repeat("{", MaxScriptBrackets+1) + `" x`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, got := trusted.Match(tt.script); got != tt.want {
				t.Errorf("Match(%d bytes): allowed %v, want %v", len(tt.script), got, tt.want)
			}
		})
	}
}
