package runs

import (
	"strings"
	"testing"
)

func TestWorkTitleIsTheTasksFirstLineOrNamesTheRun(t *testing.T) {
	long := strings.Repeat("é", 130)
	tests := []struct {
		name string
		info Info
		want string
	}{
		{"the first line of the task, trimmed", Info{Kind: KindBuild, Prompt: "  Fix the login\nand the tests too"}, "Fix the login"},
		{"a long line is cut at 120 runes", Info{Kind: KindBuild, Prompt: long}, strings.Repeat("é", 119) + "…"},
		{"a ready run without notes", Info{Kind: KindReady, ID: "r1"}, "Get the branch ready for review"},
		{"a build run without a task names itself", Info{Kind: KindBuild, ID: "20250102-150405-e5dc0e", Prompt: " \n"}, "segwi build run 20250102-150405-e5dc0e"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := WorkTitle(tt.info); got != tt.want {
				t.Errorf("WorkTitle = %q, want %q", got, tt.want)
			}
		})
	}
}
