package approvals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// member is one key of a JSON object and its raw value.
type member struct {
	key   string
	value json.RawMessage
}

// jsonObject reads raw as exactly one JSON object and returns its members in order. It
// refuses what two JSON readers could read differently: a key given twice (after
// unescaping), two keys that differ only in case (Go's encoding/json matches struct
// fields case-insensitively; Claude Code's JavaScript does not), and anything after the
// object.
func jsonObject(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("it is not a JSON object")
	}
	var members []member
	byFold := make(map[string]string) // each key by its case-folded form
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("it is not valid JSON: %w", err)
		}
		key, _ := tok.(string) // an object's keys are always strings
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("it is not valid JSON: %w", err)
		}
		folded := foldCase(key)
		switch other, seen := byFold[folded]; {
		case seen && other == key:
			return nil, fmt.Errorf("the key %q appears twice", key)
		case seen:
			return nil, fmt.Errorf("the keys %q and %q differ only in case", other, key)
		}
		byFold[folded] = key
		members = append(members, member{key, value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("it is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("it has more after the JSON object")
	}
	return members, nil
}

// foldCase maps each rune of s to the smallest rune of its case-folding orbit, so that two
// strings fold alike exactly when strings.EqualFold holds for them (k, K and the Kelvin
// sign all fold alike).
func foldCase(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// bashFields is a Bash call's input as Claude Code's Bash tool takes it.
type bashFields struct {
	Command     string
	Description string
	// Timeout is the "timeout" number as it was written (milliseconds); empty when none.
	Timeout        string
	Background     bool // run_in_background
	DisableSandbox bool // dangerouslyDisableSandbox
}

// readBash reads a Bash call's input when it is exactly what Claude Code's Bash tool
// takes, as the tool's input schema in Claude Code 2.1.328 has it: "command" (a string,
// required), "description" (a string), "timeout" (a number), "run_in_background" and
// "dangerouslyDisableSandbox" (booleans), and no other key. Otherwise it says why not.
func readBash(input json.RawMessage) (bashFields, error) {
	members, err := jsonObject(input)
	if err != nil {
		return bashFields{}, err
	}
	var call bashFields
	hasCommand := false
	for _, m := range members {
		var kind string
		switch m.key {
		case "command", "description":
			var s string
			if m.value[0] != '"' || json.Unmarshal(m.value, &s) != nil {
				kind = "a string"
			} else if m.key == "command" {
				call.Command, hasCommand = s, true
			} else {
				call.Description = s
			}
		case "timeout":
			var n json.Number
			if c := m.value[0]; (c != '-' && (c < '0' || c > '9')) || json.Unmarshal(m.value, &n) != nil {
				kind = "a number"
			} else {
				call.Timeout = n.String()
			}
		case "run_in_background", "dangerouslyDisableSandbox":
			switch string(m.value) {
			case "true", "false":
				on := string(m.value) == "true"
				if m.key == "run_in_background" {
					call.Background = on
				} else {
					call.DisableSandbox = on
				}
			default:
				kind = "a boolean"
			}
		default:
			return bashFields{}, fmt.Errorf("it has the key %q, which Claude Code's Bash tool does not take", m.key)
		}
		if kind != "" {
			return bashFields{}, fmt.Errorf("%q is not %s", m.key, kind)
		}
	}
	if !hasCommand {
		return bashFields{}, errors.New(`it has no "command"`)
	}
	return call, nil
}

// bashCommand returns the command of a Bash call that a trusted command may allow: its
// input is exactly what Claude Code's Bash tool takes (readBash), and it does not ask to
// run outside Claude Code's sandbox: the person trusted a command, not a way of running
// it. Otherwise it says why not.
func bashCommand(input json.RawMessage) (string, error) {
	call, err := readBash(input)
	if err != nil {
		return "", err
	}
	if call.DisableSandbox {
		return "", errors.New("it asks to run outside Claude Code's sandbox (dangerouslyDisableSandbox)")
	}
	return call.Command, nil
}

// CallOf reads a call of the approval tool from its arguments exactly as Claude Code sent
// them; toolName and toolUseID are what a JSON reader decoded of them. (The MCP SDK hands
// a tool's handler arguments it has decoded, keeping the last of a key given twice, and
// encoded again.) Arguments that two JSON readers could read differently (a key twice, or
// in two cases) make a call the broker refuses (Call.Invalid); it then carries the whole
// arguments as its input, for the record.
func CallOf(arguments json.RawMessage, toolName, toolUseID string) Call {
	members, err := jsonObject(arguments)
	if err != nil {
		return Call{ToolName: toolName, Input: arguments, ToolUseID: toolUseID, Invalid: err.Error()}
	}
	call := Call{ToolName: toolName, ToolUseID: toolUseID, Input: json.RawMessage(`{}`)}
	for _, m := range members {
		if m.key == "input" {
			call.Input = m.value
		}
	}
	return call
}
