package approvals

import (
	"encoding/json"
	"fmt"
)

// FileChange is what an Edit, Write or NotebookEdit call asks to do to a file, read from
// its input, for a person to see as a change rather than as JSON.
type FileChange struct {
	Tool string // Edit, Write or NotebookEdit
	Path string // file_path, or a notebook's notebook_path, as Claude Code sent it
	// Old is the text an Edit replaces (old_string); empty for the other tools.
	Old string
	// New is an Edit's new_string, a Write's content, or a NotebookEdit's new_source.
	New string
	// ReplaceAll is an Edit's replace_all: every occurrence of Old is replaced.
	ReplaceAll bool
	// CellID, CellType and EditMode are a NotebookEdit's cell_id, cell_type and edit_mode
	// (replace, insert or delete; Claude Code takes replace when none is given).
	CellID, CellType, EditMode string
}

// fileChangeKeys are the keys each file tool takes, as its input schema in Claude Code
// 2.1.328 has them, and whether each holds a string (else a boolean).
var fileChangeKeys = map[string]map[string]bool{
	"Edit":         {"file_path": true, "old_string": true, "new_string": true, "replace_all": false},
	"Write":        {"file_path": true, "content": true},
	"NotebookEdit": {"notebook_path": true, "new_source": true, "cell_id": true, "cell_type": true, "edit_mode": true},
}

// FileChange returns the change an Edit, Write or NotebookEdit request asks for. ok is
// false for any other tool, and for an input that is not exactly what the tool takes (a key
// it does not take, one given twice, a value of the wrong kind, no path): such an input is
// shown as it came, so that the person reads all of it. err says why, for those.
func (req Request) FileChange() (c FileChange, ok bool, err error) {
	keys := fileChangeKeys[req.ToolName]
	if keys == nil {
		return FileChange{}, false, nil
	}
	members, err := jsonObject(req.Input)
	if err != nil {
		return FileChange{}, false, err
	}
	c.Tool = req.ToolName
	for _, m := range members {
		isString, known := keys[m.key]
		if !known {
			return FileChange{}, false, fmt.Errorf("it has the key %q, which Claude Code's %s tool does not take", m.key, req.ToolName)
		}
		if !isString {
			if err := json.Unmarshal(m.value, &c.ReplaceAll); err != nil || (string(m.value) != "true" && string(m.value) != "false") {
				return FileChange{}, false, fmt.Errorf("%q is not a boolean", m.key)
			}
			continue
		}
		var s string
		if m.value[0] != '"' || json.Unmarshal(m.value, &s) != nil {
			return FileChange{}, false, fmt.Errorf("%q is not a string", m.key)
		}
		switch m.key {
		case "file_path", "notebook_path":
			c.Path = s
		case "old_string":
			c.Old = s
		case "new_string", "content", "new_source":
			c.New = s
		case "cell_id":
			c.CellID = s
		case "cell_type":
			c.CellType = s
		case "edit_mode":
			c.EditMode = s
		}
	}
	if c.Path == "" {
		return FileChange{}, false, fmt.Errorf("it names no file")
	}
	if c.Tool == "NotebookEdit" && c.EditMode == "" {
		c.EditMode = "replace"
	}
	return c, true, nil
}
