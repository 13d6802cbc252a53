package approvals

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileChangeReadsTheFileToolsInputs(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		input string
		want  FileChange
		ok    bool
		why   string // what the person is told when the input shows as JSON
	}{
		{"an Edit gives its file, old and new text", "Edit",
			`{"file_path":"/src/web/notes.txt","old_string":"one\ntwo","new_string":"one\n2","replace_all":false}`,
			FileChange{Tool: "Edit", Path: "/src/web/notes.txt", Edits: []TextEdit{{Old: "one\ntwo", New: "one\n2"}}}, true, ""},
		{"an Edit of every occurrence says so", "Edit", `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":true}`,
			FileChange{Tool: "Edit", Path: "/a", Edits: []TextEdit{{Old: "x", New: "y", ReplaceAll: true}}}, true, ""},
		{"a MultiEdit gives each of its edits in order", "MultiEdit",
			`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"q","replace_all":true}]}`,
			FileChange{Tool: "MultiEdit", Path: "/a", Edits: []TextEdit{{Old: "x", New: "y"}, {Old: "p", New: "q", ReplaceAll: true}}}, true, ""},
		{"a Write gives its file and content", "Write", `{"file_path":"/src/web/x.txt","content":"hello\n"}`,
			FileChange{Tool: "Write", Path: "/src/web/x.txt", Content: "hello\n"}, true, ""},
		{"a NotebookEdit gives its cell, and replace when it names no mode", "NotebookEdit", `{"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"print(1)","cell_type":"code"}`,
			FileChange{Tool: "NotebookEdit", Path: "/n.ipynb", Content: "print(1)", CellID: "c1", CellType: "code", EditMode: "replace"}, true, ""},
		{"another tool has no file change", "Bash", `{"command":"ls"}`, FileChange{}, false, ""},
		{"a key the tool does not take shows the input as it came", "Edit", `{"file_path":"/a","old_string":"x","new_string":"y","path":"/b"}`,
			FileChange{}, false, `it has the key "path", which Claude Code's Edit tool does not take`},
		{"a key given twice shows the input as it came", "Write", `{"file_path":"/a","content":"x","file_path":"/etc/passwd"}`,
			FileChange{}, false, `the key "file_path" appears twice`},
		{"keys in two cases show the input as it came", "Write", `{"file_path":"/a","content":"x","File_Path":"/etc/passwd"}`,
			FileChange{}, false, `the keys "file_path" and "File_Path" differ only in case`},
		{"a value of the wrong kind shows the input as it came", "Edit", `{"file_path":"/a","old_string":1,"new_string":"y"}`,
			FileChange{}, false, `"old_string" is not a string`},
		{"a replace_all that is not a boolean shows the input as it came", "Edit", `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":"yes"}`,
			FileChange{}, false, `"replace_all" is not a boolean`},
		{"an Edit without its new text shows the input as it came", "Edit", `{"file_path":"/a","old_string":"x"}`,
			FileChange{}, false, `it has no "new_string"`},
		{"no file shows the input as it came", "Write", `{"content":"x"}`, FileChange{}, false, `it has no "file_path"`},
		{"an empty file path shows the input as it came", "Write", `{"file_path":"","content":"x"}`, FileChange{}, false, "it names no file"},
		{"an edit mode the tool does not take shows the input as it came", "NotebookEdit", `{"notebook_path":"/n","new_source":"x","edit_mode":"append"}`,
			FileChange{}, false, `"edit_mode" is "append", which Claude Code's NotebookEdit tool does not take`},
		{"a MultiEdit with no edit shows the input as it came", "MultiEdit", `{"file_path":"/a","edits":[]}`,
			FileChange{}, false, `"edits": it holds no edit`},
		{"a MultiEdit edit with a key twice shows the input as it came", "MultiEdit", `{"file_path":"/a","edits":[{"old_string":"x","new_string":"y","new_string":"z"}]}`,
			FileChange{}, false, `"edits": edit 1: the key "new_string" appears twice`},
		{"a MultiEdit edit with a key it does not take shows the input as it came", "MultiEdit", `{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"x","new_string":"y","file_path":"/b"}]}`,
			FileChange{}, false, `"edits": edit 2: it has the key "file_path", which an edit of a MultiEdit does not take`},
		{"MultiEdit edits that are not an array show the input as it came", "MultiEdit", `{"file_path":"/a","edits":{"old_string":"x","new_string":"y"}}`,
			FileChange{}, false, `"edits": it is not a JSON array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := Request{ToolName: tt.tool, Input: json.RawMessage(tt.input)}.FileChange()
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (err %v)", ok, tt.ok, err)
			}
			why := ""
			if err != nil {
				why = err.Error()
			}
			if why != tt.why {
				t.Errorf("err = %q, want %q", why, tt.why)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("change (-want +got):\n%s", diff)
			}
		})
	}
}
