package approvals

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff"

	"github.com/segwi/segwi/internal/lib/redact"
	"github.com/segwi/segwi/internal/lib/visible"
)

// View is a request as a person sees it. It is worked out once, here, and every surface
// that asks a person renders it and nothing else: the desktop popup and the run window
// (app), the approval page (remote) and the terminal prompt (TerminalDecider).
//
// Every text in it is the request's own, exact, with its control and invisible characters
// escaped (visible.Escape): nothing in it is redacted, since what a person approves must be
// what runs. When the input looks as though it holds a secret, Secret says so instead.
type View struct {
	// Heading names the run and the tool: "The build run in web wants to use Bash".
	Heading string
	// Tool is the tool Claude Code wants to use, or "a tool".
	Tool string
	// Shape says what shows the input: its command, its change, or its JSON.
	Shape Shape
	// Caption says what the main text is: "Command", "Edit docs/notes.txt", "Input".
	Caption string

	// Command is a Bash call's command (ShapeCommand).
	Command string
	// Description is a Bash call's description: Claude Code's word on the command, not
	// what runs; cut to maxDescription characters. Empty when it gave none.
	Description string
	// Runs says how a Bash call asks to run when it asks more than its command: "in the
	// background", "outside Claude Code's sandbox", a timeout. Empty for most.
	Runs string

	// File is the file a file tool changes (ShapeChange): relative to the checkout, or
	// the whole path followed by "(outside the checkout)".
	File string
	// Change is a file tool's change as lines kept, removed and added (ShapeChange).
	Change []ChangeLine

	// JSON is the input as indented JSON (as it came, when it is not JSON), for every
	// shape: the main text of ShapeJSON, and behind a toggle for the others.
	JSON string
	// Unread says why the input of a Bash or file tool call shows as JSON: it is not
	// exactly what the tool takes, so segwi does not read it as the tool would. Empty for
	// most.
	Unread string
	// Note is what segwi noticed about the request (Request.Note). Empty for most.
	Note string
	// Secret says, when the input holds something that looks like a secret (a token, a
	// key, a password), that it does and that it is shown whole. Empty for most.
	Secret string
	// SHA256 is the SHA-256 of the input's exact bytes, in hex, as the run's record keeps
	// it beside the redacted input.
	SHA256 string

	// Cut says what the main text leaves out past MaxShown bytes (or maxChangeLines
	// lines), and JSONCut what JSON leaves out; empty when it shows everything.
	Cut, JSONCut string
}

// Shape is what shows a request's input.
type Shape string

// The shapes of a View.
const (
	ShapeCommand Shape = "command" // a Bash call: its command
	ShapeChange  Shape = "change"  // an Edit, MultiEdit, Write or NotebookEdit call: its file and change
	ShapeJSON    Shape = "json"    // anything else: the input as JSON
)

// ChangeLine is one line of a file tool's change.
type ChangeLine struct {
	// Op is " " for a line kept, "-" for a line removed, "+" for a line added, and "@" for a
	// heading that says which of a MultiEdit's edits follows.
	Op   string `json:"op"`
	Text string `json:"text"`
}

// The ops of a ChangeLine.
const (
	OpKept    = " "
	OpRemoved = "-"
	OpAdded   = "+"
	OpHeading = "@"
)

// Bounds of a View. Past them it says how much it left out (Cut, JSONCut), so that the
// person can deny what they cannot see.
const (
	// MaxShown caps each of a view's main text and its JSON, in bytes: a Write of a large
	// file would otherwise freeze a window while it lays out megabytes of text.
	MaxShown = 64 << 10
	// maxChangeLines caps the lines of a change.
	maxChangeLines = 4000
	// maxDiffLines is the most lines of old and new text compared line by line; past it,
	// a change shows all old lines removed, then all new lines added.
	maxDiffLines = 20000
	// maxDescription caps a Bash call's description, in characters: it is Claude Code's
	// word on the command, not what runs.
	maxDescription = 400
)

// secretShapes finds what looks like a secret in an input, by the shapes the run's record
// masks (the exact secrets segwi holds, such as the keyring's token, are known only to
// the process that holds them; every surface tells by the same shapes).
var secretShapes = redact.New()

// secretSentence is View.Secret.
const secretSentence = "This input looks as though it holds a secret (a token, a key or a password). " +
	"It is shown whole: what you approve is never masked. The run's record keeps it masked."

// View works out what a person is shown of req. It reads the file system only to tell
// whether a Write makes a new file.
func (req Request) View() View {
	v := View{
		Heading: visible.Escape(fmt.Sprintf("The %s wants to use %s", req.Run.Describe(), req.Tool())),
		Tool:    visible.Escape(req.Tool()),
		Shape:   ShapeJSON,
		Caption: "Input",
		Note:    visible.Escape(req.Note),
		SHA256:  req.InputSHA256(),
	}
	v.JSON, v.JSONCut = shownText(visible.Escape(inputJSON(req.Input)), "of the input")
	if secretShapes.Holds(req.Input) {
		v.Secret = secretSentence
	}

	switch {
	case req.ToolName == "Bash":
		call, err := readBash(req.Input)
		if err != nil {
			v.Unread = unreadSentence(err)
			return v
		}
		v.Shape, v.Caption = ShapeCommand, "Command"
		v.Command, v.Cut = shownText(visible.Escape(call.Command), "of the command")
		v.Description = visible.Escape(cutRunes(strings.TrimSpace(call.Description), maxDescription))
		v.Runs = visible.Escape(call.manner())
	case IsFileTool(req.ToolName):
		c, ok, err := req.FileChange()
		if !ok {
			v.Unread = unreadSentence(err)
			return v
		}
		v.Shape = ShapeChange
		v.File = visible.Escape(pathInCheckout(c.Path, req.Run.Checkout))
		v.Caption = visible.Escape(c.summary(pathInCheckout(c.Path, req.Run.Checkout), req.Run.Checkout))
		v.Change, v.Cut = shownLines(c.lines())
	}
	return v
}

// InputSHA256 is the SHA-256 of the request's input, its exact bytes as Claude Code sent
// them, in hex: the run's record keeps it beside the redacted input, so that an audit can
// tell what was approved, and every surface shows it.
func (req Request) InputSHA256() string {
	sum := sha256.Sum256(req.Input)
	return hex.EncodeToString(sum[:])
}

// unreadSentence says why a Bash or file tool call's input shows as JSON.
func unreadSentence(err error) string {
	return visible.Escape("Shown as JSON, whole: its input is not exactly what the tool takes (" + err.Error() + "), " +
		"so segwi does not read it as the tool would.")
}

// manner says how a Bash call asks to run beyond its command; empty when it asks nothing more.
func (c bashFields) manner() string {
	var parts []string
	if c.DisableSandbox {
		parts = append(parts, "outside Claude Code's sandbox (dangerouslyDisableSandbox)")
	}
	if c.Background {
		parts = append(parts, "in the background")
	}
	if c.Timeout != "" {
		parts = append(parts, "with a timeout of "+c.Timeout+" ms")
	}
	return strings.Join(parts, ", ")
}

// summary says what c does to which file: "Edit docs/notes.txt, every occurrence". file is
// the path as the person reads it (pathInCheckout).
func (c FileChange) summary(file, checkout string) string {
	switch c.Tool {
	case "Edit":
		if c.Edits[0].ReplaceAll {
			return "Edit " + file + ", every occurrence"
		}
		return "Edit " + file
	case "MultiEdit":
		return fmt.Sprintf("MultiEdit %s, %d edits in turn", file, len(c.Edits))
	case "Write":
		return "Write " + file + writeWhat(c.Path, checkout)
	}
	cell := "cell " + orNone(c.CellID, "(no id)")
	kind := ""
	if c.CellType != "" {
		kind = " (" + c.CellType + ")"
	}
	switch c.EditMode {
	case "insert":
		return fmt.Sprintf("NotebookEdit %s: insert a new cell%s after %s", file, kind, cell)
	case "delete":
		return fmt.Sprintf("NotebookEdit %s: delete %s", file, cell)
	}
	return fmt.Sprintf("NotebookEdit %s: replace %s%s", file, cell, kind)
}

// lines is c as lines kept, removed and added, not yet escaped.
func (c FileChange) lines() []ChangeLine {
	switch c.Tool {
	case "Edit":
		return lineChange(c.Edits[0].Old, c.Edits[0].New)
	case "MultiEdit":
		var out []ChangeLine
		for i, e := range c.Edits {
			head := fmt.Sprintf("edit %d of %d", i+1, len(c.Edits))
			if e.ReplaceAll {
				head += ", every occurrence"
			}
			out = append(out, ChangeLine{OpHeading, head})
			out = append(out, lineChange(e.Old, e.New)...)
		}
		return out
	case "NotebookEdit":
		if c.EditMode == "delete" {
			return nil
		}
	}
	return lineChange("", c.Content)
}

// lineChange compares old and new line by line with a maintained diff library,
// go-udiff (the Go team's diff of gopls and go/analysis, Myers' algorithm with a bound on
// its effort: a valid diff in time linear in the lines however the texts differ). Every
// line of old shows, kept or removed, and every line of new, kept or added. Past
// maxDiffLines lines (or should the library refuse its own edits), all old lines show
// removed, then all new ones added.
func lineChange(old, new string) []ChangeLine {
	oldLines, newLines := splitLines(old), splitLines(new)
	if old == new {
		out := make([]ChangeLine, 0, len(oldLines))
		for _, l := range oldLines {
			out = append(out, ChangeLine{OpKept, l})
		}
		return out
	}
	if len(oldLines)+len(newLines) <= maxDiffLines {
		// Every line of old as context: a snippet (an Edit's old_string) reads whole.
		if u, err := udiff.ToUnifiedDiff("", "", old, udiff.Lines(old, new), len(oldLines)+1); err == nil {
			var out []ChangeLine
			for _, h := range u.Hunks {
				for _, l := range h.Lines {
					op := OpKept
					switch l.Kind {
					case udiff.Delete:
						op = OpRemoved
					case udiff.Insert:
						op = OpAdded
					}
					out = append(out, ChangeLine{op, strings.TrimSuffix(l.Content, "\n")})
				}
			}
			return markLastNewline(out, old, new)
		}
	}
	out := make([]ChangeLine, 0, len(oldLines)+len(newLines))
	for _, l := range oldLines {
		out = append(out, ChangeLine{OpRemoved, l})
	}
	for _, l := range newLines {
		out = append(out, ChangeLine{OpAdded, l})
	}
	return markLastNewline(out, old, new)
}

// noNewline marks the last line of a text that ends without a newline where the other
// text ends with one: otherwise the two would show alike.
const noNewline = "  (no newline at the end)"

// markLastNewline marks, when exactly one of old and new ends with a newline, the last
// line of the other (removed or added) as having none.
func markLastNewline(lines []ChangeLine, old, new string) []ChangeLine {
	oldEnds, newEnds := strings.HasSuffix(old, "\n"), strings.HasSuffix(new, "\n")
	if oldEnds == newEnds || old == "" || new == "" {
		return lines
	}
	op := OpAdded // new ends without a newline
	if !oldEnds {
		op = OpRemoved
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Op == op || lines[i].Op == OpKept {
			lines[i].Text += noNewline
			return lines
		}
	}
	return lines
}

// splitLines splits s into lines, without the newline that ends the last one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// shownLines escapes lines and cuts them to maxChangeLines lines and MaxShown bytes,
// saying how many it left out.
func shownLines(lines []ChangeLine) ([]ChangeLine, string) {
	size := 0
	for i := range lines {
		lines[i].Text = visible.Escape(lines[i].Text)
		size += len(lines[i].Text) + 3
		if i == maxChangeLines || size > MaxShown {
			return lines[:i], fmt.Sprintf("%d more lines of the change are not shown: deny it if you cannot judge it", len(lines)-i)
		}
	}
	return lines, ""
}

// shownText cuts s to MaxShown bytes, on a character boundary, and says how much of what
// (what: "of the command") it left out.
func shownText(s, what string) (string, string) {
	if len(s) <= MaxShown {
		return s, ""
	}
	cut := MaxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], fmt.Sprintf("%d more bytes %s are not shown: deny it if you cannot judge it", len(s)-cut, what)
}

// cutRunes cuts s to at most n runes, with an ellipsis when anything was left out.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// inputJSON is input as indented JSON, or as it came when it is not JSON.
func inputJSON(input json.RawMessage) string {
	if len(bytes.TrimSpace(input)) == 0 {
		return "(no input)"
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, input, "", "  "); err != nil {
		return string(input)
	}
	return buf.String()
}

// pathInCheckout is path relative to the checkout when it lies inside it, else the whole
// path and a word that it lies outside.
func pathInCheckout(path, checkout string) string {
	if checkout == "" {
		return path
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(checkout, abs) // as Claude Code, working in the checkout, reads it
	}
	rel, err := filepath.Rel(filepath.Clean(checkout), filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path + " (outside the checkout)"
	}
	return rel
}

// writeWhat says whether a Write makes a new file or replaces one, as far as this process
// can see.
func writeWhat(path, checkout string) string {
	if !filepath.IsAbs(path) && checkout != "" {
		path = filepath.Join(checkout, path)
	}
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return ": replaces the whole file with"
	case errors.Is(err, fs.ErrNotExist):
		return ": a new file"
	}
	return ""
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
