package record

import (
	"fmt"
	"strings"
)

// EventBase is segwi's event for a run's base, recorded before the agent gets its prompt:
// where the checkout stood (Event.Base), what the run's changes are counted from.
const EventBase EventType = "base"

// BaseText says where a run started, for a person: "main at 1a2b3c4d5e6f, clean",
// "main at 1a2b3c4d5e6f, 2 files already changed: a.txt, b.txt".
func BaseText(b *Base) string {
	switch {
	case b == nil:
		return "not recorded"
	case b.Error != "":
		return "not known: " + b.Error
	}
	var where string
	switch {
	case b.Detached:
		where = "detached HEAD at " + shortHash(b.Commit)
	case b.Unborn:
		where = b.Branch + ", no commit yet"
	default:
		where = b.Branch + " at " + shortHash(b.Commit)
	}
	if b.DirtyCount == 0 {
		return where + ", clean"
	}
	const shown = 5
	names := b.Dirty[:min(len(b.Dirty), shown)]
	more := ""
	if b.DirtyCount > len(names) {
		more = fmt.Sprintf(" and %d more", b.DirtyCount-len(names))
	}
	return fmt.Sprintf("%s, %s already changed: %s%s", where, Plural(b.DirtyCount, "file"), strings.Join(names, ", "), more)
}
