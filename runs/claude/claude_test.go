package claude

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/runs"
)

func TestArgvPerKind(t *testing.T) {
	base := []string{"/bin/claude", "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose", "--permission-mode", "auto"}
	approve := []string{"--permission-prompt-tool", "mcp__segwi__approve", "--mcp-config", "/runs/x/mcp.json"}
	tests := []struct {
		name  string
		kind  runs.Kind
		model string
		mcp   string
		want  []string
	}{
		{"a build run has the base flags only", runs.KindBuild, "", "", base},
		{"a ready run has the base flags only", runs.KindReady, "", "", base},
		{"an ask run disallows the editing tools", runs.KindAsk, "", "", append(append([]string{}, base...), "--disallowedTools", "Edit,Write,NotebookEdit")},
		{"a model is passed when set", runs.KindBuild, "sonnet", "", append(append([]string{}, base...), "--model", "sonnet")},
		{"the approval tool is wired with the run's mcp.json", runs.KindBuild, "", "/runs/x/mcp.json", append(append([]string{}, base...), approve...)},
		{"an ask run with everything", runs.KindAsk, "opus", "/runs/x/mcp.json",
			append(append(append([]string{}, base...), approve...), "--model", "opus", "--disallowedTools", "Edit,Write,NotebookEdit")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := argvFor("/bin/claude", tt.kind, tt.model, tt.mcp, "")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("argv (-want +got):\n%s", diff)
			}
			joined := strings.Join(got, " ")
			for _, banned := range []string{"--settings", "--setting-sources", "--dangerously-skip-permissions", "plan"} {
				if strings.Contains(joined, banned) {
					t.Errorf("argv %q holds %q", joined, banned)
				}
			}
		})
	}
}

func TestUserMessage(t *testing.T) {
	got := string(userMessage("hi \"there\"\n"))
	want := `{"type":"user","message":{"role":"user","content":"hi \"there\"\n"}}` + "\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
