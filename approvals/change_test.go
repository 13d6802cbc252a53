package approvals

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFileChangeReadsTheFileToolsInputs(t *testing.T) {
	tests := []struct {
		name   string
		tool   string
		input  string
		want   FileChange
		ok     bool
		hasErr bool
	}{
		{"an Edit gives its file, old and new text", "Edit",
			`{"file_path":"/src/web/notes.txt","old_string":"one\ntwo","new_string":"one\n2","replace_all":false}`,
			FileChange{Tool: "Edit", Path: "/src/web/notes.txt", Old: "one\ntwo", New: "one\n2"}, true, false},
		{"an Edit may replace every occurrence", "Edit",
			`{"file_path":"/a","old_string":"x","new_string":"y","replace_all":true}`,
			FileChange{Tool: "Edit", Path: "/a", Old: "x", New: "y", ReplaceAll: true}, true, false},
		{"a Write gives its file and content", "Write", `{"file_path":"/src/web/x.txt","content":"hello\n"}`,
			FileChange{Tool: "Write", Path: "/src/web/x.txt", New: "hello\n"}, true, false},
		{"a NotebookEdit gives its cell, replacing by default", "NotebookEdit", `{"notebook_path":"/n.ipynb","cell_id":"c1","new_source":"print(1)","cell_type":"code"}`,
			FileChange{Tool: "NotebookEdit", Path: "/n.ipynb", New: "print(1)", CellID: "c1", CellType: "code", EditMode: "replace"}, true, false},
		{"another tool has no file change", "Bash", `{"command":"ls"}`, FileChange{}, false, false},
		{"a key the tool does not take shows the input as it came", "Edit", `{"file_path":"/a","old_string":"x","new_string":"y","path":"/b"}`, FileChange{}, false, true},
		{"a key given twice shows the input as it came", "Write", `{"file_path":"/a","content":"x","file_path":"/etc/passwd"}`, FileChange{}, false, true},
		{"a value of the wrong kind shows the input as it came", "Edit", `{"file_path":"/a","old_string":1,"new_string":"y"}`, FileChange{}, false, true},
		{"a replace_all that is not a boolean shows the input as it came", "Edit", `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":"yes"}`, FileChange{}, false, true},
		{"no file shows the input as it came", "Write", `{"content":"x"}`, FileChange{}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok, err := Request{ToolName: tt.tool, Input: json.RawMessage(tt.input)}.FileChange()
			if ok != tt.ok || (err != nil) != tt.hasErr {
				t.Fatalf("ok %v, err %v; want ok %v, an error %v", ok, err, tt.ok, tt.hasErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("change (-want +got):\n%s", diff)
			}
		})
	}
}
