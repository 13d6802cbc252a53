// Package unidiff reads the unified diff git prints (git diff, git diff-tree -p) into
// files, hunks and lines numbered in the old and the new file, for a person to review.
//
// It reads what it is given and never fails: a diff cut short (segwi cuts a run's diff at
// a size limit, on a line's end) ends with the file and hunk it was cut in, marked Cut; a
// line it cannot place is kept as a header line of its file rather than dropped. It reads
// only what git itself prints, with its a/ and b/ prefixes and its C-style quoting of odd
// file names; it does not read combined diffs (merges) or diffs of other programs.
package unidiff

import (
	"strconv"
	"strings"
)

// Op is what a line of a hunk is: kept, added or removed.
type Op byte

// The ops of a hunk's lines, as git marks them.
const (
	Context Op = ' '
	Added   Op = '+'
	Removed Op = '-'
)

// Line is one line of a hunk.
type Line struct {
	Op   Op
	Text string // without the mark and the newline
	// Old and New are the line's numbers in the old and the new file, from 1; 0 where it
	// has none (an added line has no old number, a removed one no new number).
	Old, New int
	// NoNewline says the file ends on this line without a newline ("\ No newline at end
	// of file" followed it).
	NoNewline bool
}

// Hunk is one "@@ -a,b +c,d @@" part of a file's diff and its lines.
type Hunk struct {
	OldStart, OldLines int
	NewStart, NewLines int
	// Section is what git prints after the closing @@: the function or heading the hunk
	// is in, often empty.
	Section string
	// Header is the hunk's @@ line as git printed it.
	Header string
	Lines  []Line
}

// File is one file's part of a diff: from its "diff --git" line to the next.
type File struct {
	// OldPath and NewPath are the file's paths before and after, without git's a/ and b/
	// prefixes; "" where there is none (a file added has no old path, one deleted no new
	// one).
	OldPath, NewPath string
	// New and Deleted say the file was added or deleted; Renamed that it moved from
	// OldPath to NewPath (with Similarity, in percent).
	New, Deleted, Renamed bool
	Similarity            int
	// OldMode and NewMode are the modes git names when they changed or the file came or
	// went ("100644", "100755", "120000").
	OldMode, NewMode string
	// Binary says git shows no lines of it ("Binary files … differ").
	Binary bool
	// Headers are the lines git printed between "diff --git" and the first hunk, the
	// "diff --git" line first.
	Headers []string
	Hunks   []Hunk
	// Cut says the text ended before the file's diff did: its last hunk lacks lines.
	Cut bool
}

// Path is the file's path as a list names it: the new path, or the old one of a file
// deleted.
func (f *File) Path() string {
	if f.NewPath != "" {
		return f.NewPath
	}
	return f.OldPath
}

// Counts returns how many lines the hunks read add and remove.
func (f *File) Counts() (added, removed int) {
	for _, h := range f.Hunks {
		for _, l := range h.Lines {
			switch l.Op {
			case Added:
				added++
			case Removed:
				removed++
			}
		}
	}
	return added, removed
}

// Parse reads text, the diff git printed, into its files in order. Text before the first
// "diff --git" line is ignored.
func Parse(text string) []File {
	p := parser{}
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		p.line(line)
	}
	p.endFile()
	return p.files
}

// parser holds the file and hunk being read.
type parser struct {
	files    []File
	file     *File // the file being read; nil before the first
	hunk     *Hunk // the hunk being read; nil between hunks
	old, new int   // the next line's numbers in the hunk
	left     [2]int
}

func (p *parser) line(s string) {
	if p.hunk != nil {
		if p.hunkLine(s) {
			return
		}
	}
	if strings.HasPrefix(s, "diff --git ") {
		p.endFile()
		p.files = append(p.files, File{Headers: []string{s}})
		p.file = &p.files[len(p.files)-1]
		p.file.OldPath, p.file.NewPath = gitHeaderNames(s[len("diff --git "):])
		return
	}
	if p.file == nil {
		return // before the first file: not git's diff, or a preamble
	}
	if strings.HasPrefix(s, "@@ ") {
		if h, ok := parseHunkHeader(s); ok {
			p.file.Hunks = append(p.file.Hunks, h)
			p.hunk = &p.file.Hunks[len(p.file.Hunks)-1]
			p.old, p.new = h.OldStart, h.NewStart
			p.left = [2]int{h.OldLines, h.NewLines}
			return
		}
	}
	p.header(s)
}

// hunkLine reads s as a line of the hunk being read, and reports whether it was one.
func (p *parser) hunkLine(s string) bool {
	h := p.hunk
	if strings.HasPrefix(s, `\`) { // "\ No newline at end of file", after the line it is about
		if n := len(h.Lines); n > 0 {
			h.Lines[n-1].NoNewline = true
		}
		return true
	}
	if p.left[0] <= 0 && p.left[1] <= 0 {
		p.hunk = nil // the hunk is whole: what follows is the next hunk or file
		return false
	}
	op, text := Context, s
	if s != "" { // an empty line in a hunk is an empty context line whose space was lost
		op, text = Op(s[0]), s[1:]
	}
	switch op {
	case Context:
		h.Lines = append(h.Lines, Line{Op: op, Text: text, Old: p.old, New: p.new})
		p.old, p.new = p.old+1, p.new+1
		p.left[0], p.left[1] = p.left[0]-1, p.left[1]-1
	case Removed:
		h.Lines = append(h.Lines, Line{Op: op, Text: text, Old: p.old})
		p.old++
		p.left[0]--
	case Added:
		h.Lines = append(h.Lines, Line{Op: op, Text: text, New: p.new})
		p.new++
		p.left[1]--
	default: // not a hunk's line: the hunk's counts were wrong
		p.hunk = nil
		return false
	}
	return true
}

// header reads s as one of git's extended header lines of the file being read.
func (p *parser) header(s string) {
	f := p.file
	f.Headers = append(f.Headers, s)
	switch {
	case strings.HasPrefix(s, "--- "):
		if name, ok := diffName(s[4:], "a/"); ok {
			f.OldPath = name
		}
	case strings.HasPrefix(s, "+++ "):
		if name, ok := diffName(s[4:], "b/"); ok {
			f.NewPath = name
		}
	case strings.HasPrefix(s, "new file mode "):
		f.New, f.OldPath, f.NewMode = true, "", s[len("new file mode "):]
	case strings.HasPrefix(s, "deleted file mode "):
		f.Deleted, f.NewPath, f.OldMode = true, "", s[len("deleted file mode "):]
	case strings.HasPrefix(s, "old mode "):
		f.OldMode = s[len("old mode "):]
	case strings.HasPrefix(s, "new mode "):
		f.NewMode = s[len("new mode "):]
	case strings.HasPrefix(s, "rename from "):
		f.Renamed, f.OldPath = true, unquote(s[len("rename from "):])
	case strings.HasPrefix(s, "rename to "):
		f.Renamed, f.NewPath = true, unquote(s[len("rename to "):])
	case strings.HasPrefix(s, "similarity index "):
		f.Similarity, _ = strconv.Atoi(strings.TrimSuffix(s[len("similarity index "):], "%"))
	case strings.HasPrefix(s, "Binary files ") && strings.HasSuffix(s, " differ"):
		f.Binary = true
	case s == "GIT binary patch":
		f.Binary = true
	}
}

// endFile marks the file being read as cut when its last hunk lacks lines.
func (p *parser) endFile() {
	if p.hunk != nil && (p.left[0] > 0 || p.left[1] > 0) {
		p.file.Cut = true
	}
	p.file, p.hunk = nil, nil
}

// parseHunkHeader reads "@@ -a,b +c,d @@ section"; a count left out is 1.
func parseHunkHeader(s string) (Hunk, bool) {
	rest, ok := strings.CutPrefix(s, "@@ -")
	if !ok {
		return Hunk{}, false
	}
	ranges, section, ok := strings.Cut(rest, " @@")
	if !ok {
		return Hunk{}, false
	}
	oldRange, newRange, ok := strings.Cut(ranges, " +")
	if !ok {
		return Hunk{}, false
	}
	h := Hunk{Header: s, Section: strings.TrimPrefix(section, " ")}
	if h.OldStart, h.OldLines, ok = parseRange(oldRange); !ok {
		return Hunk{}, false
	}
	if h.NewStart, h.NewLines, ok = parseRange(newRange); !ok {
		return Hunk{}, false
	}
	return h, true
}

// parseRange reads "start,count" or "start" (a count of 1).
func parseRange(s string) (start, count int, ok bool) {
	a, b, hasCount := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		if count, err = strconv.Atoi(b); err != nil || count < 0 {
			return 0, 0, false
		}
	}
	return start, count, true
}

// diffName reads the name of a "--- " or "+++ " line: "" for /dev/null, else the name
// without its prefix; ok is false when the line names no file git would print.
func diffName(s, prefix string) (string, bool) {
	// git ends the name with a tab when it holds a space, as GNU diff does.
	s = strings.TrimSuffix(s, "\t")
	if s == "/dev/null" {
		return "", true
	}
	name := unquote(s)
	if rest, ok := strings.CutPrefix(name, prefix); ok {
		return rest, true
	}
	return "", false
}

// gitHeaderNames reads the two names of a "diff --git a/X b/Y" line. An unquoted pair is
// ambiguous when the names hold " b/"; git itself reads it only when both names are the
// same, as they are unless the file was renamed (whose names its rename lines give), so
// that is what is read here too. Names it cannot read are "".
func gitHeaderNames(s string) (oldPath, newPath string) {
	if strings.HasPrefix(s, `"`) {
		end := closingQuote(s)
		if end < 0 {
			return "", ""
		}
		a := unquote(s[:end+1])
		b := unquote(strings.TrimPrefix(s[end+1:], " "))
		return strings.TrimPrefix(a, "a/"), strings.TrimPrefix(b, "b/")
	}
	if strings.HasSuffix(s, `"`) { // a/plain "b/quoted"
		i := strings.LastIndex(s, ` "`)
		if i < 0 {
			return "", ""
		}
		return strings.TrimPrefix(s[:i], "a/"), strings.TrimPrefix(unquote(s[i+1:]), "b/")
	}
	// "a/NAME b/NAME": both halves alike, split in the middle.
	if len(s)%2 == 1 {
		half := (len(s) - 1) / 2
		a, b := s[:half], s[half+1:]
		if s[half] == ' ' && strings.HasPrefix(a, "a/") && strings.HasPrefix(b, "b/") && a[2:] == b[2:] {
			return a[2:], b[2:]
		}
	}
	return "", ""
}

// closingQuote returns the index of the quote that ends the C-quoted string s starts with,
// or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// unquote reads a name git C-quoted ("a/\303\251t\303\251.txt", "a/tab\there"); a name
// not quoted is returned as it is. Go's string literals have git's escapes: \a \b \f \n
// \r \t \v \\ \" and three octal digits.
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	return s
}
