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
