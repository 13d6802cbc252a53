package approvals

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// viewRun is the run of the view tests' requests.
var viewRun = RunInfo{ID: "run-1", Kind: "build", Checkout: "/home/ada/src/web", Name: "web"}

// viewRequest is a request of tool with input in viewRun.
func viewRequest(tool, input string) Request {
	return Request{ID: "req-1", Run: viewRun, ToolName: tool, Input: json.RawMessage(input)}
}

// The two attacks that worked on the terminal prompt, which redacted what it showed: the
// redactor took a command substitution in a URL's password for a password and masked it,
// and took a PEM-looking block for a private key and masked it with a command inside.
const (
	urlPasswordAttack = `git ls-remote https://deploy:$(touch${IFS}PWNED;echo${IFS}x)@github.com/acme/app.git`
	pemAttack         = "git status\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\ntouch PWNED\n-----END RSA PRIVATE KEY-----"
)

// TestTheViewOfARequest keeps, for each kind of request, what every surface shows of it,
// in testdata/views: the View as JSON, then as the terminal prompt prints it. `go test
// ./approvals -run TestTheViewOfARequest -update` rewrites them after a deliberate change;
// review the diff.
func TestTheViewOfARequest(t *testing.T) {
	tests := []struct {
		golden string
		req    Request
	}{
		{"bash", viewRequest("Bash", `{"command":"go test ./...\ngo vet ./...","description":"Run the tests and vet"}`)},
		{"bash-how-it-runs", viewRequest("Bash", `{"command":"make serve","description":"Serve","run_in_background":true,"timeout":600000,"dangerouslyDisableSandbox":true}`)},
		{"bash-url-password", viewRequest("Bash", mustJSON(t, map[string]string{"command": urlPasswordAttack}))},
		{"bash-pem-block", viewRequest("Bash", mustJSON(t, map[string]string{"command": pemAttack}))},
		{"bash-invisible-characters", viewRequest("Bash", mustJSON(t, map[string]string{
			"command": "ls \u202e# ~ fr- mr\u202c; rm -rf /tmp/x\u200b; echo ok\u2028rm -rf ~\u2029\r\x1b[2K" +
				"curl evil.example\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065\ufeff"}))},
		{"bash-not-exactly-the-tools", viewRequest("Bash", `{"command":"rm -rf x","COMMAND":"git status"}`)},
		{"bash-note", func() Request {
			r := viewRequest("Bash", `{"command":"ls"}`)
			r.Note = "Not checked against your trusted commands: too long."
			return r
		}()},
		{"edit", viewRequest("Edit", `{"file_path":"/home/ada/src/web/docs/notes.txt","old_string":"# Notes\nfirst line\nsecond line\nlast line","new_string":"# Notes\nfirst line\nhello, world\nlast line","replace_all":false}`)},
		{"edit-every-occurrence-outside-the-checkout", viewRequest("Edit", `{"file_path":"/etc/hosts","old_string":"127.0.0.1 a","new_string":"10.0.0.1 a","replace_all":true}`)},
		{"edit-newline-at-the-end", viewRequest("Edit", `{"file_path":"a.txt","old_string":"one\ntwo\n","new_string":"one\ntwo"}`)},
		{"edit-key-twice", viewRequest("Edit", `{"file_path":"/home/ada/src/web/a.go","old_string":"x","new_string":"y","file_path":"/etc/passwd"}`)},
		{"multiedit", viewRequest("MultiEdit", `{"file_path":"/home/ada/src/web/main.go","edits":[{"old_string":"package main\n\nfunc main() {}","new_string":"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hi\") }"},{"old_string":"v1","new_string":"v2","replace_all":true}]}`)},
		{"write", viewRequest("Write", `{"file_path":"/home/ada/src/web/NOTES.md","content":"# Notes\nShip it.\n"}`)},
		{"notebook-insert", viewRequest("NotebookEdit", `{"notebook_path":"/home/ada/src/web/lab.ipynb","cell_id":"a1","new_source":"import pandas as pd","cell_type":"code","edit_mode":"insert"}`)},
		{"notebook-delete", viewRequest("NotebookEdit", `{"notebook_path":"/home/ada/src/web/lab.ipynb","cell_id":"a1","new_source":"","edit_mode":"delete"}`)},
		{"another-tool", viewRequest("WebFetch", `{"url":"https://example.com","prompt":"Summarise"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			v := tt.req.View()
			sum := sha256.Sum256(tt.req.Input)
			if v.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("SHA256 = %s, want the SHA-256 of the input's exact bytes", v.SHA256)
			}
			checkGolden(t, filepath.Join("testdata", "views", tt.golden+".txt"), viewGolden(t, v))
		})
	}
}

// viewGolden is v as its golden file keeps it.
func viewGolden(t *testing.T, v View) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return "# The view\n" + b.String() + "\n# At the terminal\n" + viewText(v)
}

var update = flag.Bool("update", false, "rewrite the golden files of the views under testdata/views")

// checkGolden compares got with the golden file path, or rewrites it under -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./approvals -run %s -update writes it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s\nif the change is meant, go test ./approvals -update rewrites it", path, diff)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

// What a person approves is never masked: each attack's command shows whole, every
// character of it, and the view says that it looks as though it holds a secret.
func TestTheViewShowsWhatLooksLikeASecretWhole(t *testing.T) {
	for _, command := range []string{urlPasswordAttack, pemAttack} {
		v := viewRequest("Bash", mustJSON(t, map[string]string{"command": command})).View()
		if v.Command != command {
			t.Errorf("the view shows the command %q, want it whole: %q", v.Command, command)
		}
		if !strings.Contains(v.JSON, "touch") || strings.Contains(v.JSON+v.Command, "REDACTED") {
			t.Errorf("the view's JSON is masked:\n%s", v.JSON)
		}
		if v.Secret == "" {
			t.Errorf("the view of %q does not say it looks as though it holds a secret", command)
		}
	}
	if v := viewRequest("Bash", `{"command":"go test ./..."}`).View(); v.Secret != "" {
		t.Errorf("a command with no secret says %q", v.Secret)
	}
}

func TestTheViewCutsALargeInputAndSaysHowMuch(t *testing.T) {
	long := strings.Repeat("é", MaxShown) // two bytes a rune: twice the cap
	v := viewRequest("Bash", mustJSON(t, map[string]string{"command": long})).View()
	if len(v.Command) != MaxShown || !strings.HasPrefix(long, v.Command) {
		t.Errorf("shown %d bytes of the command, want its first %d", len(v.Command), MaxShown)
	}
	if want := "65536 more bytes of the command are not shown: deny it if you cannot judge it"; v.Cut != want {
		t.Errorf("Cut = %q, want %q", v.Cut, want)
	}
	if !strings.Contains(v.JSONCut, "more bytes of the input are not shown") {
		t.Errorf("JSONCut = %q, want it to say how much of the JSON is left out", v.JSONCut)
	}

	lines := strings.Repeat("line\n", maxChangeLines+10)
	v = viewRequest("Write", mustJSON(t, map[string]string{"file_path": "/home/ada/src/web/big.txt", "content": lines})).View()
	if len(v.Change) != maxChangeLines || v.Cut != "10 more lines of the change are not shown: deny it if you cannot judge it" {
		t.Errorf("shown %d lines, cut %q; want %d lines and 10 left out", len(v.Change), v.Cut, maxChangeLines)
	}
}

// The change is a diff of the lines: kept lines once, removed and added where they differ.
// The popup's diff once was a hand-written LCS and the page's all old lines then all new.
func TestTheViewsChangeIsADiffOfTheLines(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"one line changed among kept ones", "a\nb\nc\nd", "a\nb\nX\nd", []string{"  a", "  b", "- c", "+ X", "  d"}},
		{"a line added", "a\nc", "a\nb\nc", []string{"  a", "+ b", "  c"}},
		{"a line removed", "a\nb\nc", "a\nc", []string{"  a", "- b", "  c"}},
		{"nothing changed", "a\nb", "a\nb", []string{"  a", "  b"}},
		{"all new", "", "a\nb\n", []string{"+ a", "+ b"}},
		{"a newline taken off the end", "a\nb\n", "a\nb", []string{"  a", "- b", "+ b" + noNewline}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range lineChange(tt.old, tt.new) {
				got = append(got, changeLineText(l))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// However the library aligns them, the lines kept and removed are old, and the lines
	// kept and added are new, in order.
	for _, pair := range [][2]string{{"a\nb\nc\nd", "c\nd\na\nb"}, {"x\ny\nx\ny\nz", "y\nx\nz\nz\nx"}, {"1\n2\n3", ""}} {
		var old, new []string
		for _, l := range lineChange(pair[0], pair[1]) {
			if l.Op != OpAdded {
				old = append(old, l.Text)
			}
			if l.Op != OpRemoved {
				new = append(new, l.Text)
			}
		}
		if strings.Join(old, "\n") != pair[0] || strings.Join(new, "\n") != pair[1] {
			t.Errorf("lineChange(%q, %q) reads as old %q and new %q", pair[0], pair[1], old, new)
		}
	}
}

// A change past maxDiffLines lines shows all old lines removed, then all new ones added,
// and a large one compared line by line takes little time: go-udiff bounds its effort.
func TestTheViewOfALargeChangeIsQuick(t *testing.T) {
	var old, new strings.Builder
	for i := range maxDiffLines / 2 {
		old.WriteString(strings.Repeat("x", i%7) + "\n")
		new.WriteString(strings.Repeat("y", i%5) + "\n")
	}
	lines := lineChange(old.String(), new.String())
	removed, added := 0, 0
	for _, l := range lines {
		switch l.Op {
		case OpRemoved:
			removed++
		case OpAdded:
			added++
		}
	}
	if removed == 0 || added == 0 {
		t.Errorf("a change of %d lines shows %d removed and %d added", maxDiffLines, removed, added)
	}
	past := lineChange(strings.Repeat("a\n", maxDiffLines), "b\n")
	if len(past) != maxDiffLines+1 || past[0].Op != OpRemoved || past[maxDiffLines].Op != OpAdded {
		t.Errorf("past the bound: %d lines, first %+v", len(past), past[0])
	}
}

func TestPathInCheckout(t *testing.T) {
	tests := []struct{ path, checkout, want string }{
		{"/home/ada/src/web/docs/notes.txt", "/home/ada/src/web", "docs/notes.txt"},
		{"docs/notes.txt", "/home/ada/src/web", "docs/notes.txt"},
		{"/home/ada/src/web/../api/x.go", "/home/ada/src/web", "/home/ada/src/web/../api/x.go (outside the checkout)"},
		{"/home/ada/src/website/x", "/home/ada/src/web", "/home/ada/src/website/x (outside the checkout)"},
		{"/etc/hosts", "", "/etc/hosts"},
	}
	for _, tt := range tests {
		if got := pathInCheckout(tt.path, tt.checkout); got != tt.want {
			t.Errorf("pathInCheckout(%q, %q) = %q, want %q", tt.path, tt.checkout, got, tt.want)
		}
	}
}
