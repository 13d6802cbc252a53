package runs

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPromptFor(t *testing.T) {
	tests := []struct {
		name    string
		kind    Kind
		text    string
		want    string
		wantErr bool
	}{
		{"a build run sends the task as it is", KindBuild, "  fix the bug ", "fix the bug", false},
		{"a build run without a task is refused", KindBuild, " ", "", true},
		{"an ask run prefixes the question with the instruction to change nothing", KindAsk, "why?", AskPrefix + "why?", false},
		{"an ask run without a question is refused", KindAsk, "", "", true},
		{"a ready run without notes sends its default prompt", KindReady, "", ReadyPrompt, false},
		{"a ready run adds the person's notes", KindReady, "skip e2e", ReadyPrompt + "\n\nNotes from the person:\nskip e2e", false},
		{"an unknown kind is refused", Kind("plan"), "x", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := promptFor(tt.kind, tt.text)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want an error: %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if !strings.Contains(AskPrefix, "without changing anything") {
		t.Errorf("AskPrefix %q does not say to change nothing", AskPrefix)
	}
}

func TestEnvFor(t *testing.T) {
	base := []string{"PATH=/bin", "GH_TOKEN=a", "GITHUB_TOKEN=b", "IBNI_LAUNCH_CHECKOUT=1", "IBNI_LOCK_ROOT=2",
		"IBNI_BRANCH_PREFIXES=3", "IBNI_SKIP_SWEEP=4", "IBNI_DEFER_SETUP=5", "IBNI_OTHER=6", "SEGWI_RUN_ID=old", "HOME=/h"}
	tests := []struct {
		name      string
		passForge bool
		want      []string
	}{
		{"forge tokens and retired variables are removed", false,
			[]string{"PATH=/bin", "IBNI_OTHER=6", "HOME=/h", "SEGWI_RUN_ID=r1", "SEGWI_RUN_KIND=ask"}},
		{"forge tokens are kept when settings say so", true,
			[]string{"PATH=/bin", "GH_TOKEN=a", "GITHUB_TOKEN=b", "IBNI_OTHER=6", "HOME=/h", "SEGWI_RUN_ID=r1", "SEGWI_RUN_KIND=ask"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, envFor(base, tt.passForge, "r1", KindAsk)); diff != "" {
				t.Errorf("env (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseKind(t *testing.T) {
	for _, s := range []string{"build", "ready", "ask"} {
		if k, err := ParseKind(s); err != nil || string(k) != s {
			t.Errorf("ParseKind(%q) = %q, %v; want %q", s, k, err, s)
		}
	}
	if _, err := ParseKind("plan"); err == nil || !strings.Contains(err.Error(), "build, ready or ask") {
		t.Errorf("ParseKind(plan) error = %v, want one listing the kinds", err)
	}
}
