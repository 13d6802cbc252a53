package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/approvals"
)

func TestPathInCheckout(t *testing.T) {
	tests := []struct{ name, path, checkout, want string }{
		{"a file in the checkout is shown relative to it", "/src/web/docs/a.md", "/src/web", "docs/a.md"},
		{"a relative path is read from the checkout", "docs/a.md", "/src/web/", "docs/a.md"},
		{"a file outside says so", "/home/ada/.bashrc", "/src/web", "/home/ada/.bashrc (outside the checkout)"},
		{"a sibling folder that starts alike is outside", "/src/web2/a.md", "/src/web", "/src/web2/a.md (outside the checkout)"},
		{"a path that climbs out is outside", "/src/web/../api/a.md", "/src/web", "/src/web/../api/a.md (outside the checkout)"},
		{"with no checkout known the path shows whole", "/a/b", "", "/a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pathInCheckout(tt.path, tt.checkout); got != tt.want {
				t.Errorf("pathInCheckout(%q, %q) = %q, want %q", tt.path, tt.checkout, got, tt.want)
			}
		})
	}
}

func TestLineDiff(t *testing.T) {
	tests := []struct {
		name, old, new string
		want           []string
	}{
		{"a changed line between kept ones", "a\nb\nc", "a\nB\nc", []string{" a", "-b", "+B", " c"}},
		{"an added line", "a\nc\n", "a\nb\nc\n", []string{" a", "+b", " c"}},
		{"a removed line", "a\nb\nc", "a\nc", []string{" a", "-b", " c"}},
		{"lines moved around keep the longest common run", "x\na\nb\ny", "a\nb\nx\ny", []string{"-x", " a", " b", "+x", " y"}},
		{"a new file is all added", "", "one\ntwo\n", []string{"+one", "+two"}},
		{"nothing to nothing is nothing", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range lineDiff(tt.old, tt.new) {
				got = append(got, l.mark()+l.text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lineDiff (-want +got):\n%s", diff)
			}
		})
	}
}

// A Write of a large file shows its start and says how many lines it left out, and a
// diff too large to compare line by line still shows every line, removed then added.
func TestLongChangesAreCutAndSaySo(t *testing.T) {
	var lines []string
	for i := range 10000 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	content := strings.Join(lines, "\n")
	input, _ := json.Marshal(map[string]string{"file_path": "/src/web/big.txt", "content": content})
	v := changeOf(approvals.Request{ToolName: "Write", Input: input, Run: approvals.RunInfo{Checkout: "/src/web"}})
	if v == nil || len(v.lines) == 0 || len(v.lines)+v.more != 10000 || len(v.lines) > maxDiffLines {
		t.Fatalf("shown %d lines and %d more, want at most %d shown and the rest counted", len(v.lines), v.more, maxDiffLines)
	}
	if got := diffText(v).Segments; !strings.Contains(got[len(got)-1].Textual(), fmt.Sprintf("%d more lines not shown", v.more)) {
		t.Errorf("the last line %q does not say what was left out", got[len(got)-1].Textual())
	}

	old := strings.Join(lines[:3000], "\n")
	changed := strings.Join(lines[3000:6000], "\n")
	d := lineDiff(old, changed)
	if len(d) != 6000 || d[0].kind != diffDeleted || d[5999].kind != diffAdded {
		t.Errorf("a diff of 3000 × 3000 different lines: %d lines, want all 3000 removed then 3000 added", len(d))
	}
}

// What the person approves is what they read: a change's path and lines come escaped.
func TestAChangeShowsHiddenCharactersEscaped(t *testing.T) {
	input := json.RawMessage(`{"file_path":"/src/web/a\u202e.txt","old_string":"ok","new_string":"ok\rrm -rf ~"}`)
	v := changeOf(approvals.Request{ToolName: "Edit", Input: input, Run: approvals.RunInfo{Checkout: "/src/web"}})
	if v == nil {
		t.Fatal("no change view")
	}
	if v.summary != `Edit a\u202e.txt` {
		t.Errorf("summary %q, want the override escaped", v.summary)
	}
	if got := v.lines[len(v.lines)-1].text; got != `ok\x0drm -rf ~` {
		t.Errorf("added line %q, want the carriage return escaped", got)
	}
}

// Texts Claude Code chooses, a path and a command's description, cannot make a popup's
// labels long enough for Fyne's wrapping to freeze it: the path is broken, the
// description cut.
func TestLongPathsAndDescriptionsStayShortInAPopup(t *testing.T) {
	path := "/src/web/" + strings.Repeat("deep/", 400) + "a.txt"
	input, _ := json.Marshal(map[string]string{"file_path": path, "content": "x"})
	v := viewOf(approvals.Request{ToolName: "Write", Input: input, Run: approvals.RunInfo{Checkout: "/src/web"}})
	for _, l := range strings.Split(v.caption, "\n") {
		if n := len([]rune(l)); n > inputColumns+1 {
			t.Errorf("a caption line of %d runes, want at most %d", n, inputColumns+1)
		}
	}
	bash, _ := json.Marshal(map[string]string{"command": "ls", "description": strings.Repeat("why ", 2000)})
	if d := viewOf(approvals.Request{ToolName: "Bash", Input: bash}).description; len([]rune(d)) > 401 {
		t.Errorf("a description of %d runes, want it cut at 400", len([]rune(d)))
	}
}
