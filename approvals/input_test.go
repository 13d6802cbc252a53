package approvals

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBashInputsNotExactlyTheToolsGoToAPerson holds Bash inputs that Claude Code's Bash
// tool would read otherwise than a Go decoder, or not take at all. Claude Code runs what
// its JavaScript reads: the first key exactly "command". Go's encoding/json matched keys
// case-insensitively, so {"command":"rm -rf x","COMMAND":"git status"} was allowed by a
// trusted "git status".
func TestBashInputsNotExactlyTheToolsGoToAPerson(t *testing.T) {
	trusted := mustTrusted(t, "git status")
	tests := []struct {
		name  string
		input string
		why   string // what the person is told
	}{
		{"a key differing only in case goes to a person", `{"command":"rm -rf x","COMMAND":"git status"}`,
			`the keys "command" and "COMMAND" differ only in case`},
		{"a key given twice goes to a person", `{"command":"rm -rf x","command":"git status"}`,
			`the key "command" appears twice`},
		{"a key given twice through an escape goes to a person", `{"command":"rm -rf x","comm\u0061nd":"git status"}`,
			`the key "command" appears twice`},
		{"keys that differ only by a Kelvin sign go to a person", `{"command":"git status","\u212a":1,"k":2}`,
			"the keys \"\u212a\" and \"k\" differ only in case"},
		{"a key the tool does not take goes to a person", `{"command":"git status","shell":"/bin/zsh"}`,
			`it has the key "shell", which Claude Code's Bash tool does not take`},
		{"a command that is not a string goes to a person", `{"command":["git","status"]}`,
			`"command" is not a string`},
		{"a description that is null goes to a person", `{"command":"git status","description":null}`,
			`"description" is not a string`},
		{"a timeout that is a string goes to a person", `{"command":"git status","timeout":"60000"}`,
			`"timeout" is not a number`},
		{"run_in_background that is not a boolean goes to a person", `{"command":"git status","run_in_background":1}`,
			`"run_in_background" is not a boolean`},
		{"a call outside the sandbox goes to a person", `{"command":"git status","dangerouslyDisableSandbox":true}`,
			`it asks to run outside Claude Code's sandbox`},
		{"a call without a command goes to a person", `{"description":"git status"}`,
			`it has no "command"`},
		{"input that is not an object goes to a person", `["git status"]`,
			`it is not a JSON object`},
		{"input with more after the object goes to a person", `{"command":"git status"} {"command":"rm -rf x"}`,
			`it has more after the JSON object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := trusted.Check("Bash", json.RawMessage(tt.input))
			if v.Allowed {
				t.Fatalf("Check(Bash, %s): allowed by %q, want it kept for a person", tt.input, v.Rule)
			}
			if !strings.Contains(v.Unchecked, tt.why) {
				t.Errorf("Check(Bash, %s): the person is told %q, want it to say %q", tt.input, v.Unchecked, tt.why)
			}
		})
	}
}

func TestBashInputsOfTheToolsShapeAreChecked(t *testing.T) {
	trusted := mustTrusted(t, "git status")
	for _, input := range []string{
		`{"command":"git status"}`,
		`{"command":"git status","description":"Show the working tree status","timeout":60000,"run_in_background":false,"dangerouslyDisableSandbox":false}`,
		`{"command":"git status","run_in_background":true,"timeout":1.5e3}`,
		` { "command" : "git status" } `,
	} {
		if v := trusted.Check("Bash", json.RawMessage(input)); !v.Allowed || v.Unchecked != "" {
			t.Errorf("Check(Bash, %s): got %+v, want allowed by git status", input, v)
		}
	}
}
