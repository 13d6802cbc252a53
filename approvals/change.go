package approvals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// FileChange is what an Edit, MultiEdit, Write or NotebookEdit call asks to do to a file,
// read from its input, for a person to see as a change rather than as JSON.
type FileChange struct {
	Tool string // Edit, MultiEdit, Write or NotebookEdit
	Path string // file_path, or a notebook's notebook_path, as Claude Code sent it
	// Edits are what an Edit (one) or a MultiEdit (each, in order) replaces in the file;
	// none for the other tools.
	Edits []TextEdit
	// Content is a Write's content, or a NotebookEdit's new_source.
	Content string
	// CellID, CellType and EditMode are a NotebookEdit's cell_id, cell_type and edit_mode
	// (replace, insert or delete; Claude Code takes replace when none is given).
	CellID, CellType, EditMode string
}

// TextEdit is one replacement an Edit or a MultiEdit asks for.
type TextEdit struct {
	Old string // old_string
	New string // new_string
	// ReplaceAll is replace_all: every occurrence of Old is replaced, not only the one.
	ReplaceAll bool
}

// fileKey is a key a file tool takes: the kind of its value, and whether the tool needs it.
type fileKey struct {
	kind     string // "string", "boolean", "edits", or the string values it may take, "|"-joined
	required bool
}

// fileChangeKeys are the keys each file tool takes, as its input schema has them: Claude
// Code 2.1.328's for Edit, Write and NotebookEdit; MultiEdit's as earlier Claude Code
// versions had it (2.1.328 has no MultiEdit tool, and answers a call of it "No such tool
// available" without asking).
var fileChangeKeys = map[string]map[string]fileKey{
	"Edit": {"file_path": {"string", true}, "old_string": {"string", true}, "new_string": {"string", true},
		"replace_all": {"boolean", false}},
	"MultiEdit": {"file_path": {"string", true}, "edits": {"edits", true}},
	"Write":     {"file_path": {"string", true}, "content": {"string", true}},
	"NotebookEdit": {"notebook_path": {"string", true}, "new_source": {"string", true}, "cell_id": {"string", false},
		"cell_type": {"code|markdown", false}, "edit_mode": {"replace|insert|delete", false}},
}

// editKeys are the keys of each of a MultiEdit's edits.
var editKeys = map[string]fileKey{"old_string": {"string", true}, "new_string": {"string", true}, "replace_all": {"boolean", false}}

// IsFileTool reports whether tool is one of the tools whose calls show as a file change.
func IsFileTool(tool string) bool { return fileChangeKeys[tool] != nil }

// FileChange returns the change an Edit, MultiEdit, Write or NotebookEdit request asks for.
// ok is false for any other tool, and for an input that is not exactly what the tool takes
// (a key it does not take, one given twice or in two cases, a value of the wrong kind, a
// key it needs missing): such an input is shown as it came, whole, so that the person reads
// all of it. err says why, for those.
func (req Request) FileChange() (c FileChange, ok bool, err error) {
	keys := fileChangeKeys[req.ToolName]
	if keys == nil {
		return FileChange{}, false, nil
	}
	c.Tool = req.ToolName
	var edit TextEdit
	err = readObject(req.Input, keys, "Claude Code's "+req.ToolName+" tool", func(key string, v any) error {
		switch key {
		case "file_path", "notebook_path":
			c.Path = v.(string)
		case "old_string":
			edit.Old = v.(string)
		case "new_string":
			edit.New = v.(string)
		case "replace_all":
			edit.ReplaceAll = v.(bool)
		case "content", "new_source":
			c.Content = v.(string)
		case "cell_id":
			c.CellID = v.(string)
		case "cell_type":
			c.CellType = v.(string)
		case "edit_mode":
			c.EditMode = v.(string)
		case "edits":
			c.Edits = v.([]TextEdit)
		}
		return nil
	})
	if err != nil {
		return FileChange{}, false, err
	}
	if c.Path == "" {
		return FileChange{}, false, errors.New("it names no file")
	}
	switch c.Tool {
	case "Edit":
		c.Edits = []TextEdit{edit}
	case "NotebookEdit":
		if c.EditMode == "" {
			c.EditMode = "replace"
		}
	}
	return c, true, nil
}

// readObject reads raw as exactly one JSON object of the keys given (see jsonObject), and
// hands each key and its value (a string, a bool or []TextEdit, as keys says) to take. It
// says why not when raw is anything else, naming what takes it (whose) in its words.
func readObject(raw json.RawMessage, keys map[string]fileKey, whose string, take func(key string, v any) error) error {
	members, err := jsonObject(raw)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range members {
		k, known := keys[m.key]
		if !known {
			return fmt.Errorf("it has the key %q, which %s does not take", m.key, whose)
		}
		seen[m.key] = true
		var v any
		switch k.kind {
		case "boolean":
			switch string(m.value) {
			case "true", "false":
				v = string(m.value) == "true"
			default:
				return fmt.Errorf("%q is not a boolean", m.key)
			}
		case "edits":
			edits, err := readEdits(m.value)
			if err != nil {
				return fmt.Errorf("%q: %w", m.key, err)
			}
			v = edits
		default:
			var s string
			if m.value[0] != '"' || json.Unmarshal(m.value, &s) != nil {
				return fmt.Errorf("%q is not a string", m.key)
			}
			if k.kind != "string" && !slices.Contains(strings.Split(k.kind, "|"), s) {
				return fmt.Errorf("%q is %q, which %s does not take", m.key, s, whose)
			}
			v = s
		}
		if err := take(m.key, v); err != nil {
			return err
		}
	}
	for _, key := range sortedKeys(keys) {
		if keys[key].required && !seen[key] {
			return fmt.Errorf("it has no %q", key)
		}
	}
	return nil
}

// readEdits reads a MultiEdit's edits: a JSON array of at least one edit, each exactly an
// object of old_string, new_string and, optionally, replace_all.
func readEdits(raw json.RawMessage) ([]TextEdit, error) {
	elems, err := jsonArray(raw)
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, errors.New("it holds no edit")
	}
	edits := make([]TextEdit, 0, len(elems))
	for i, el := range elems {
		var e TextEdit
		err := readObject(el, editKeys, "an edit of a MultiEdit", func(key string, v any) error {
			switch key {
			case "old_string":
				e.Old = v.(string)
			case "new_string":
				e.New = v.(string)
			case "replace_all":
				e.ReplaceAll = v.(bool)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("edit %d: %w", i+1, err)
		}
		edits = append(edits, e)
	}
	return edits, nil
}

// jsonArray reads raw as exactly one JSON array and returns its elements, raw.
func jsonArray(raw []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, errors.New("it is not a JSON array")
	}
	var elems []json.RawMessage
	for dec.More() {
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			return nil, fmt.Errorf("it is not valid JSON: %w", err)
		}
		elems = append(elems, el)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("it is not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("it has more after the JSON array")
	}
	return elems, nil
}

// sortedKeys returns the keys of m in order, so that a missing key is named the same way
// each time.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
