package redact

// Lines redacts a stream line by line, carrying the one piece of state that crosses
// lines: being inside a private key block whose BEGIN line came earlier.
// Use one Lines per stream, from one goroutine.
type Lines struct {
	r     *Redactor
	inKey bool
}

// Lines returns a line redactor for one stream.
func (r *Redactor) Lines() *Lines { return &Lines{r: r} }

// Append appends line, redacted, to dst and returns the extended slice. The line may
// carry its newline; a line that lies wholly inside a private key block is dropped, the
// block having been masked where it began.
func (l *Lines) Append(dst, line []byte) []byte {
	n, all := l.continued(line)
	if all {
		return dst
	}
	line = line[n:]
	out, changed := l.r.redact(line, dst)
	if !changed {
		return append(dst, line...)
	}
	_, l.inKey = findPrivateKeys(line, false, nil)
	return out
}

// continued returns how many bytes at the front of b continue a private key block that
// an earlier line began, and whether that is all of b. Those bytes are dropped: the
// secret's mask was written where it began.
func (l *Lines) continued(b []byte) (n int, all bool) {
	if l.inKey {
		spans, open := findPrivateKeys(b, true, nil)
		if open && len(spans) == 1 {
			return len(b), true // the whole line is inside the block
		}
		l.inKey = false
		return spans[0].end, false
	}
	return 0, false
}
