package settings

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRuntimesAreReadWithTheirEnvironmentAsWritten(t *testing.T) {
	res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runtimes:\n"+
		"    - name: claude-acp\n      command: [claude-agent-acp]\n      env: {IS_SANDBOX: 1, ANTHROPIC_BASE_URL: \"http://127.0.0.1:9\"}\n"+
		"    - name: codex\n      command: [codex-acp, --flag, \"two words\"]\n"))
	if len(res.Problems) != 0 || len(res.Unknown) != 0 {
		t.Fatalf("problems %v, unknown %v; want none", res.Problems, res.Unknown)
	}
	want := []Runtime{
		{Name: "claude-acp", Command: []string{"claude-agent-acp"}, Env: map[string]string{"IS_SANDBOX": "1", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}},
		{Name: "codex", Command: []string{"codex-acp", "--flag", "two words"}},
	}
	if diff := cmp.Diff(want, res.Settings.Runtimes); diff != "" {
		t.Errorf("runtimes (-want +got):\n%s", diff)
	}
	if got, want := want[1].String(), `codex: codex-acp --flag "two words"`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestBadRuntimesAreProblemsNamingTheirKey(t *testing.T) {
	tests := []struct {
		name, entries, key, says string
	}{
		{"the built-in's name", "    - name: Claude\n      command: [x]\n", "segwi.runtimes[0].name", "built-in"},
		{"a name twice", "    - name: codex\n      command: [a]\n    - name: codex\n      command: [b]\n", "segwi.runtimes[1].name", "unique"},
		{"no command", "    - name: codex\n", "segwi.runtimes[0].command", "must be a list"},
		{"a command as one string", "    - name: codex\n      command: codex-acp --x\n", "segwi.runtimes[0].command", "must be a list"},
		{"an empty program", "    - name: codex\n      command: [\"\"]\n", "segwi.runtimes[0].command[0]", "the first not empty"},
		{"a name with a space", "    - name: my codex\n      command: [a]\n", "segwi.runtimes[0].name", "letters, digits"},
		{"an environment that is a list", "    - name: codex\n      command: [a]\n      env: [A=1]\n", "segwi.runtimes[0].env", "mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := load(t, writeConfig(t, "config.yaml", "segwi:\n  runtimes:\n"+tt.entries))
			for _, p := range res.Problems {
				if p.Key == tt.key && strings.Contains(p.Message, tt.says) {
					return
				}
			}
			t.Errorf("problems %v; want one at %s saying %q", res.Problems, tt.key, tt.says)
		})
	}
}

// A run's agent can write the settings file: a runtime it adds or changes (another
// program, another environment) waits for the person, as segwi.claude.path does, and one
// it removes goes at once.
func TestARuntimeAddedOrChangedWaitsForThePerson(t *testing.T) {
	base := confirmedBase + "  runtimes:\n    - name: codex\n      command: [codex-acp]\n"
	confirmed := func(t *testing.T) string {
		p := writeConfig(t, "config.yaml", base)
		if st := Stand(load(t, p)); !st.Adopted {
			t.Fatal("the first Stand did not adopt the file")
		}
		return p
	}
	for _, tt := range []struct{ name, edit, waiting string }{
		{"a changed command", "  runtimes:\n    - name: codex\n      command: [/tmp/evil]\n", "codex: /tmp/evil"},
		{"an added runtime", "  runtimes:\n    - name: codex\n      command: [codex-acp]\n    - name: x\n      command: [sh]\n", "x: sh"},
		{"a changed environment", "  runtimes:\n    - name: codex\n      command: [codex-acp]\n      env: {OPENAI_BASE_URL: http://evil}\n", "codex: codex-acp (env OPENAI_BASE_URL=http://evil)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := confirmed(t)
			if err := writeFile(p, confirmedBase+tt.edit); err != nil {
				t.Fatal(err)
			}
			st := Stand(load(t, p))
			if st.Edit == nil {
				t.Fatal("nothing waits; want the edit to wait for the person")
			}
			ch := st.Edit.Changes()
			if len(ch) != 1 || ch[0].Key != "segwi.runtimes" || !cmp.Equal(ch[0].Added, []string{tt.waiting}) {
				t.Errorf("changes %+v, want segwi.runtimes adding %q", ch, tt.waiting)
			}
			for _, r := range st.Settings.Runtimes {
				if r.String() == tt.waiting {
					t.Errorf("runtime %q is in force before the person confirmed it", tt.waiting)
				}
			}
		})
	}
	t.Run("a removed runtime goes at once", func(t *testing.T) {
		p := confirmed(t)
		if err := writeFile(p, confirmedBase); err != nil {
			t.Fatal(err)
		}
		st := Stand(load(t, p))
		if st.Edit != nil || len(st.Settings.Runtimes) != 0 {
			t.Errorf("edit %+v, runtimes in force %v; want none waiting and none in force", st.Edit, st.Settings.Runtimes)
		}
	})
}
