package gitcmd

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
)

// IndexEntry is an entry of a git index, as far as segwi reads one.
type IndexEntry struct {
	Path            string // relative to the work tree's top, with forward slashes
	Mode            uint32 // 0100644, 0100755, 0120000 (a link), 0160000 (a gitlink)
	Stage           int    // 0; 1 to 3 for a conflict's sides
	AssumeUnchanged bool   // git update-index --assume-unchanged
	SkipWorktree    bool   // git update-index --skip-worktree, a sparse checkout
}

// ModeGitlink is the mode of an index entry that names a nested repository's or a
// submodule's commit.
const ModeGitlink = 0o160000

// ErrIndexUnread is wrapped by ParseIndex's error for an index it does not read: one that
// is damaged, of a version it does not know, or that needs a file besides itself (a split
// index) or holds folders (a sparse index). git may still read such an index: ask it.
var ErrIndexUnread = errors.New("an index segwi does not read itself")

// ParseIndex reads the entries of a git index (gitformat-index: versions 2 to 4) in the
// object format format ("sha1" or "sha256"), as git would read them, or fails, wrapping
// ErrIndexUnread: the file must be whole (its trailing checksum right, unless git left it
// zero, index.skipHash), every entry and extension within it, and no extension one that
// git must understand (a lower-case signature: "link", "sdir"). Any doubt is a failure,
// after which the caller asks git (git ls-files): what ParseIndex returns is what git
// reads.
func ParseIndex(b []byte, format string) ([]IndexEntry, error) {
	hashLen := map[string]int{"sha1": sha1.Size, "sha256": sha256.Size}[format]
	unread := func(why string, args ...any) ([]IndexEntry, error) {
		return nil, fmt.Errorf("%w: %s", ErrIndexUnread, fmt.Sprintf(why, args...))
	}
	if hashLen == 0 {
		return unread("object format %q", format)
	}
	const header = 12
	if len(b) < header+hashLen || string(b[:4]) != "DIRC" {
		return unread("not an index")
	}
	body, sum := b[:len(b)-hashLen], b[len(b)-hashLen:]
	if !allZero(sum) {
		var got []byte
		if hashLen == sha1.Size {
			h := sha1.Sum(body)
			got = h[:]
		} else {
			h := sha256.Sum256(body)
			got = h[:]
		}
		if !bytes.Equal(got, sum) {
			return unread("its checksum does not match")
		}
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return unread("version %d", version)
	}
	count := binary.BigEndian.Uint32(b[8:12])
	// An entry takes at least its fixed part: a count beyond that is a damaged index.
	fixed := 40 + hashLen + 2 // stat data and mode, object name, flags
	if uint64(count) > uint64(len(body)-header)/uint64(fixed) {
		return unread("%d entries in %d bytes", count, len(body))
	}
	entries := make([]IndexEntry, 0, count)
	at := header
	var prev []byte // version 4: the previous entry's path, which the next one starts from
	for range count {
		if at+fixed > len(body) {
			return unread("entry %d is cut", len(entries))
		}
		start := at
		mode := binary.BigEndian.Uint32(b[at+24 : at+28])
		at += 40 + hashLen
		flags := binary.BigEndian.Uint16(b[at : at+2])
		at += 2
		e := IndexEntry{Mode: mode, Stage: int(flags>>12) & 3, AssumeUnchanged: flags&0x8000 != 0}
		if flags&0x4000 != 0 { // extended flags follow
			if version < 3 || at+2 > len(body) {
				return unread("entry %d has extended flags in version %d", len(entries), version)
			}
			ext := binary.BigEndian.Uint16(b[at : at+2])
			at += 2
			if ext&^0x6000 != 0 { // skip-worktree and intent-to-add: no other is defined
				return unread("entry %d has extended flags %#x", len(entries), ext)
			}
			e.SkipWorktree = ext&0x4000 != 0
		}
		var path []byte
		if version == 4 {
			strip, n := indexVarint(body[at:])
			if n == 0 || strip > uint64(len(prev)) {
				return unread("entry %d's path is damaged", len(entries))
			}
			at += n
			end := bytes.IndexByte(body[at:], 0)
			if end < 0 {
				return unread("entry %d's path is cut", len(entries))
			}
			path = append(prev[:len(prev)-int(strip):len(prev)-int(strip)], body[at:at+end]...)
			at += end + 1
			prev = path
		} else {
			end := bytes.IndexByte(body[at:], 0)
			if end < 0 {
				return unread("entry %d's path is cut", len(entries))
			}
			path = body[at : at+end]
			// The entry is padded with 1 to 8 NULs to a multiple of 8 bytes.
			at = start + (at-start+end+8)&^7
			if at > len(body) {
				return unread("entry %d is cut", len(entries))
			}
		}
		if n := int(flags & 0xfff); n < 0xfff && n != len(path) || len(path) == 0 {
			return unread("entry %d's path length does not match", len(entries))
		}
		e.Path = string(path)
		entries = append(entries, e)
	}
	for at < len(body) {
		if at+8 > len(body) {
			return unread("an extension is cut")
		}
		sig := body[at : at+4]
		size := binary.BigEndian.Uint32(body[at+4 : at+8])
		if sig[0] < 'A' || sig[0] > 'Z' {
			return unread("it has the extension %q, which git must understand", sig)
		}
		if uint64(size) > uint64(len(body)-at-8) {
			return unread("the extension %q is cut", sig)
		}
		at += 8 + int(size)
	}
	return entries, nil
}

// indexVarint decodes the offset varint of index version 4 (git's varint.c) at the start
// of b: its value and its length, 0 when b holds none.
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 0x7f)
	n := 1
	for c&0x80 != 0 {
		if n == len(b) || val+1 > 1<<50 {
			return 0, 0
		}
		c = b[n]
		n++
		val = (val+1)<<7 | uint64(c&0x7f)
	}
	return val, n
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
