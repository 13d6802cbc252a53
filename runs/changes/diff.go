package changes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxDiffBytes is where Snapshot.Diff cuts a diff when not told otherwise: far more
// than a diff of 5,000 lines, less than what would freeze a window.
const DefaultMaxDiffBytes = 4 << 20

// Patch is a unified diff of a run's changes.
type Patch struct {
	// Text is the diff as git prints it (a binary file is named, never dumped), whole
	// lines only. When Cut, it ends where the limit was reached.
	Text string
	// Cut says the diff was longer than the limit; CutNote says so in words.
	Cut bool
	// Limit is the limit it was cut at, in bytes.
	Limit int
}

// CutNote says, for a person, that the diff was cut and where: "" when it was not.
func (p Patch) CutNote() string {
	if !p.Cut {
		return ""
	}
	return fmt.Sprintf("[segwi: the diff is cut here: it is longer than %s; look at one file at a time]", sizeText(p.Limit))
}

// Diff returns the unified diff of the changes since the base: of the whole, or of the
// changed file path (a renamed file's old or new path). The diff is cut at maxBytes
// (DefaultMaxDiffBytes when zero or less). It returns when git has answered or ctx is done.
func (snap *Snapshot) Diff(ctx context.Context, path string, maxBytes int) (Patch, error) {
	if snap.s == nil {
		return Patch{}, errors.New("changes: Diff of a closed snapshot")
	}
	var paths []string
	if path != "" {
		f, ok := snap.File(path)
		if !ok {
			return Patch{}, fmt.Errorf("%s is not among the run's changes", path)
		}
		paths = filePaths(&f)
	}
	return snap.diff(ctx, paths, maxBytes)
}

// diff is Diff of the files paths (every file when none).
func (snap *Snapshot) diff(ctx context.Context, paths []string, maxBytes int) (Patch, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxDiffBytes
	}
	w := &capWriter{max: maxBytes}
	if err := snap.writeDiff(ctx, paths, w); err != nil && !errors.Is(err, errFull) {
		return Patch{}, err
	}
	return Patch{Text: w.text(), Cut: w.cut, Limit: maxBytes}, nil
}

// writeDiff writes the diff of the files paths (every file when none) to w as git prints
// it. An error of w's stops git at once: what is cut is not computed.
func (snap *Snapshot) writeDiff(ctx context.Context, paths []string, w io.Writer) error {
	// The work tree through the scratch index, whose stat data prepare refreshed: git reads
	// a file only where it changed.
	args := []string{"diff-index", "-M", "-p", "--no-color", "--no-ext-diff", "--no-textconv", snap.from}
	if len(paths) > 0 {
		args = append(append(args, "--"), paths...)
	}
	if err := snap.s.run(ctx, nil, w, args...); err != nil {
		return fmt.Errorf("diffing %s with the run's base: %w", snap.c.Top, err)
	}
	return nil
}

// errFull is a capWriter's answer once it holds its limit.
var errFull = errors.New("the diff reached its limit")

// capWriter keeps the first max bytes written, then refuses more.
type capWriter struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (w *capWriter) Write(p []byte) (int, error) {
	room := w.max - w.buf.Len()
	if len(p) <= room {
		return w.buf.Write(p)
	}
	w.buf.Write(p[:room])
	w.cut = true
	return room, errFull
}

// text is what was kept, whole lines only when cut.
func (w *capWriter) text() string {
	b := w.buf.Bytes()
	if w.cut {
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			b = b[:i+1]
		}
	}
	return string(b)
}

// sizeText is n bytes for a person: "512 bytes", "4 MiB", "1.5 KiB".
func sizeText(n int) string {
	switch {
	case n >= 1<<20:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<20))) + " MiB"
	case n >= 1<<10:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/(1<<10))) + " KiB"
	}
	return fmt.Sprintf("%d bytes", n)
}

func trimZero(s string) string {
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
