package approvals

import (
	"strings"
	"testing"
)

// BenchmarkMatchLargestScript checks the largest plain script the trusted commands check:
// MaxScriptCommands commands in MaxScriptBytes, every one allowed, so nothing stops early.
func BenchmarkMatchLargestScript(b *testing.B) {
	trusted := mustTrusted(b, "git status", "ls", "git diff")
	script := largestScript(b, MaxScriptCommands, MaxScriptBytes)
	b.SetBytes(int64(len(script)))
	for b.Loop() {
		if _, ok := trusted.Match(script); !ok {
			b.Fatal("the largest plain script was not allowed")
		}
	}
}

// BenchmarkMatchDeepestScript checks the script within the bounds that the shell parser
// reads deepest: MaxScriptBrackets subshells, then nested if up to MaxScriptBytes.
func BenchmarkMatchDeepestScript(b *testing.B) {
	trusted := mustTrusted(b, "git status", "ls")
	script := strings.Repeat("( ", MaxScriptBrackets)
	script += strings.Repeat("if ", (MaxScriptBytes-len(script))/3)
	b.SetBytes(int64(len(script)))
	for b.Loop() {
		if _, ok := trusted.Match(script); ok {
			b.Fatal("nested subshells and if clauses were allowed")
		}
	}
}
