package redact

import "slices"

// Lines redacts a stream line by line, carrying the state that crosses lines and the
// pieces of a line too long to hold whole: being inside a private key block whose BEGIN
// line came earlier, or inside a long secret masked up to the end of the previous piece.
// Use one Lines per stream, from one goroutine.
type Lines struct {
	r     *Redactor
	inKey bool
	inRun bool // the previous piece ended inside a secret of credential bytes
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

// continued returns how many bytes at the front of b continue a secret that an earlier
// line or piece began, and whether that is all of b. Those bytes are dropped: the
// secret's mask was written where it began.
func (l *Lines) continued(b []byte) (n int, all bool) {
	switch {
	case l.inRun:
		n = run(b, 0, isCredentialByte)
		l.inRun = n == len(b)
		return n, l.inRun
	case l.inKey:
		spans, open := findPrivateKeys(b, true, nil)
		if open && len(spans) == 1 {
			return len(b), true // the whole line is inside the block
		}
		l.inKey = false
		return spans[0].end, false
	}
	return 0, false
}

// AppendPiece redacts the front of piece, a part of a line too long to hold whole, and
// appends it to dst. It returns the extended dst and n, how much of piece it used: the
// caller keeps piece[n:] and passes it again at the front of the next piece (or of the
// line's end, to Append), where it is redacted again with what follows. The cut keeps
// back hold bytes, moved so that it never splits a secret nor parts one from what marks
// it as one (the "Bearer " before a token, the name before an AWS secret key): back to
// the secret's mark, or on past a secret that ends in the piece. So a secret that fits
// in hold bytes with its mark is always seen whole. A secret that runs on past the end
// of piece after starting more than half of it back is masked up to the end, and the
// credential bytes the next piece starts with are dropped as the rest of it.
func (l *Lines) AppendPiece(dst, piece []byte, hold int) ([]byte, int) {
	lead, all := l.continued(piece)
	if all {
		return dst, len(piece)
	}
	b := piece[lead:]
	spans := l.r.find(b, nil)
	cut, through := cutPoint(spans, len(b), hold)
	if cut <= 0 {
		return dst, lead
	}
	kept := spans[:0]
	for _, sp := range spans {
		if sp.end > cut {
			continue // held back: seen again, whole, with the next piece
		}
		kept = append(kept, sp)
		if through && sp.end == len(b) {
			// The secret goes on past the piece: masked to the end here, its rest dropped.
			l.inKey = l.inKey || sp.mask == maskKey
			l.inRun = l.inRun || sp.mask != maskKey
		}
	}
	return apply(dst, b[:cut], kept), lead + cut
}

// cutPoint returns where to cut n bytes holding spans so that at least hold bytes stay
// and no span, from its mark to its end, is cut. When the only such place would keep
// more than half of the bytes because a secret started far back and reaches the end,
// it returns n and through: everything goes, that secret masked to the end.
func cutPoint(spans []span, n, hold int) (cut int, through bool) {
	cut = n - hold
	if cut <= 0 {
		return 0, false
	}
	slices.SortFunc(spans, func(x, y span) int { return x.ctx - y.ctx })
	// Merge the spans' [ctx, end) ranges; a cut must not fall strictly inside one.
	for i := 0; i < len(spans); {
		lo, hi := spans[i].ctx, spans[i].end
		for i++; i < len(spans) && spans[i].ctx < hi; i++ {
			hi = max(hi, spans[i].end)
		}
		if cut <= lo || cut >= hi {
			continue
		}
		switch {
		case n-lo <= n/2:
			return lo, false // keep the whole secret for the next piece
		case hi < n:
			return hi, false // the secret ended inside this piece: it goes, masked
		default:
			return n, true
		}
	}
	return cut, false
}
