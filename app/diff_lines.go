package app

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/lib/unidiff"
	"github.com/segwi/segwi/internal/lib/visible"
	"github.com/segwi/segwi/runs/record"
)

// diffKind is what a line of the diff view is.
type diffKind int

const (
	diffContext diffKind = iota // a line kept
	diffFile                    // a file's header: its status, name and counts (for git's diff --git, index, ---, +++)
	diffHunk                    // a hunk's @@ line, the separator between hunks
	diffAdded
	diffDeleted
	diffNote // words about the file or the diff: binary, mode changed, no newline, cut
)

// diffLine is one line the diff view shows (before it is broken to the view's width).
type diffLine struct {
	kind diffKind
	// old and new are the line's numbers in the file before and after; 0 where none.
	old, new int
	// text is what the line shows: escaped (internal/lib/visible), tabs expanded to stops of
	// four columns; without git's +, - or space mark, which the view draws apart.
	text string
	// file is the index, in the change set's Files, of the file the line is of; -1 for one
	// the set does not list (past MaxChangedFiles) or for the lines about the whole diff.
	file int
}

// diffContent is a change set's diff made ready to show: its lines and, for each file the
// set lists, whether its diff is among them.
type diffContent struct {
	lines []diffLine
	shown []bool // by index in the set's Files: the file has a header among lines
}

// binaryNote says what the view shows of a file git shows no lines of: runs/changes counts
// a file past record.MaxTextBytes as binary too.
var binaryNote = fmt.Sprintf("Binary, or larger than %d MiB: its content is not shown.", record.MaxTextBytes>>20)

// cutFileNote is said of a file whose diff lies past where the whole diff was cut.
const cutFileNote = "Not shown: the diff of all the files was cut before this one. Select it in the list to read its diff alone."

// noNewlineNote follows a line that ends its file without a newline, as git's "\ No newline
// at end of file" does.
const noNewlineNote = `\ No newline at end of file`

// diffContentOf reads set's diff into the lines the view shows: for each file a header
// line (from the set's entry for it, which says A, M, D or R and counts its lines), what
// git says of it in words (binary, mode changed, renamed as it was), and its hunks, each
// led by its @@ line, with the lines' numbers. A diff cut short ends with the note that says
// so and a header for each listed file it left out. Off Fyne's goroutine: it reads every
// line once.
func diffContentOf(set control.ChangeSet) diffContent {
	c := diffContent{shown: make([]bool, len(set.Files))}
	index := make(map[string]int, len(set.Files))
	for i, f := range set.Files {
		index[f.Path] = i
	}
	files := unidiff.Parse(set.Diff.Text)
	for _, pf := range files {
		i, ok := index[pf.Path()]
		if !ok {
			i, ok = index[pf.OldPath] // a rename listed by its old name would still be found
		}
		if !ok {
			i = -1
		}
		entry := fileOfDiff(pf)
		if i >= 0 {
			entry = set.Files[i]
			c.shown[i] = true
		}
		c.lines = append(c.lines, diffLine{kind: diffFile, text: diffText(fileLine(set, entry)), file: i})
		c.lines = appendFileBody(c.lines, pf, i)
	}
	if set.Diff.Cut && set.Path != "" {
		c.lines = append(c.lines, diffLine{kind: diffNote, file: -1, text: fmt.Sprintf(
			"[segwi: the diff is cut here: the diff of %s alone is longer than %d KiB, the most the window reads; read the rest in the file itself]", diffText(set.Path), set.Diff.Limit>>10)})
	} else if note := set.Diff.CutNote(); note != "" {
		c.lines = append(c.lines, diffLine{kind: diffNote, text: note, file: -1})
		for i, f := range set.Files {
			if !c.shown[i] {
				c.lines = append(c.lines, diffLine{kind: diffFile, text: diffText(fileLine(set, f)), file: i},
					diffLine{kind: diffNote, text: cutFileNote, file: i})
			}
		}
	}
	if set.MoreFiles > 0 {
		c.lines = append(c.lines, diffLine{kind: diffNote, file: -1,
			text: fmt.Sprintf("… and %s more, not listed: a run's changes list at most %d files.", countOf(set.MoreFiles, "file"), control.MaxChangedFiles)})
	}
	if len(c.lines) == 0 {
		c.lines = append(c.lines, diffLine{kind: diffNote, text: "No changes.", file: -1})
	}
	return c
}

// appendFileBody appends what the view shows of one file's diff after its header.
func appendFileBody(lines []diffLine, f unidiff.File, file int) []diffLine {
	note := func(text string) { lines = append(lines, diffLine{kind: diffNote, text: text, file: file}) }
	if f.OldMode != "" && f.NewMode != "" && f.OldMode != f.NewMode {
		note(fmt.Sprintf("Mode changed from %s to %s.", f.OldMode, f.NewMode))
	}
	switch {
	case f.Binary:
		note(binaryNote)
	case len(f.Hunks) == 0 && f.Renamed:
		note("Renamed; its content is unchanged.")
	case len(f.Hunks) == 0 && f.New:
		note("A new, empty file.")
	case len(f.Hunks) == 0 && f.Deleted:
		note("An empty file, deleted.")
	}
	for _, h := range f.Hunks {
		lines = append(lines, diffLine{kind: diffHunk, text: diffText(h.Header), file: file})
		for _, l := range h.Lines {
			kind := diffContext
			switch l.Op {
			case unidiff.Added:
				kind = diffAdded
			case unidiff.Removed:
				kind = diffDeleted
			}
			lines = append(lines, diffLine{kind: kind, old: l.Old, new: l.New, text: diffText(l.Text), file: file})
			if l.NoNewline {
				note(noNewlineNote)
			}
		}
	}
	return lines
}

// fileOfDiff is the list entry of a file the change set does not list, from its diff.
func fileOfDiff(f unidiff.File) record.File {
	entry := record.File{Path: f.Path(), Status: record.Modified, Binary: f.Binary}
	switch {
	case f.New:
		entry.Status = record.Added
	case f.Deleted:
		entry.Status = record.Deleted
	case f.Renamed:
		entry.Status, entry.OldPath = record.Renamed, f.OldPath
	}
	entry.Added, entry.Deleted = f.Counts()
	return entry
}

// diffText is s as the diff view draws it: every invisible or controlling character
// escaped (internal/lib/visible: what a person reviews is what is there), the view's own break
// mark escaped, and tabs expanded to stops of four columns.
func diffText(s string) string {
	if !plainText(s) { // printable ASCII and tabs, most lines, have nothing to escape
		s = strings.ReplaceAll(visible.Escape(s), wrapMark, wrapMarkEscaped)
	}
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	col := 0
	for {
		i := strings.IndexByte(s, '\t')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		col += utf8.RuneCountInString(s[:i])
		n := 4 - col%4
		b.WriteString("    "[:n])
		col += n
		s = s[i+1:]
	}
}

// plainText reports whether s holds only printable ASCII and tabs.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < ' ' && s[i] != '\t') || s[i] > '~' {
			return false
		}
	}
	return true
}

// fileMark is the letter a file's status is listed with: A, M, D, R, or T for a type change.
func fileMark(s record.Status) string {
	switch s {
	case record.Added:
		return "A"
	case record.Deleted:
		return "D"
	case record.Renamed:
		return "R"
	case record.TypeChanged:
		return "T"
	}
	return "M"
}

// fileLine is a changed file of set as the list and the diff's file header show it:
// "M  web/login.go  +12 -3", marked when it was changed before the run (its first run).
func fileLine(set control.ChangeSet, f record.File) string {
	line := fmt.Sprintf("%s  %s  %s", fileMark(f.Status), f.Name(), f.Lines())
	if f.DirtyAtBase {
		line += "  (" + set.BeforeNote() + ")"
	}
	return line
}
