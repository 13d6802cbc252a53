package record

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The events a runtime makes of what it cannot read as one of its agent's events
// (Session.Parse), and the cut of every event's long fields.

// OutputEvent is a line of the agent's output that is not one of its events: something a
// tool or the agent wrote to the terminal, kept as text (invalid UTF-8 replaced).
func OutputEvent(line []byte) Event {
	return Event{Type: EventOutput, Text: strings.ToValidUTF8(string(line), "\uFFFD")}
}

// RawEvent is a JSON line of the agent's of a kind segwi has no type for, kept whole (as
// text when too long to keep as JSON).
func RawEvent(js []byte) Event {
	if len(js) > MaxFieldBytes {
		return Event{Type: EventRaw, Text: string(js)} // cut later; too long to keep as JSON
	}
	return Event{Type: EventRaw, Raw: json.RawMessage(bytes.Clone(js))}
}

// RawEventOf is RawEvent of v's JSON, as the record writes JSON (no HTML escaping): a
// part of one of the agent's events of a kind segwi has no type for.
func RawEventOf(v any) Event {
	js, _ := appendPlainJSON(nil, v, "")
	return RawEvent(js)
}

// CutFields cuts e's long text fields at MaxFieldBytes, on a rune boundary.
func CutFields(e *Event) {
	cut := func(s string) string {
		if len(s) <= MaxFieldBytes {
			return s
		}
		e.Truncated = true
		n := MaxFieldBytes
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		return s[:n]
	}
	e.Text = cut(e.Text)
	if len(e.Input) > MaxFieldBytes {
		e.Truncated = true
		e.Input, _ = appendPlainJSON(nil, cut(string(e.Input)), "")
	}
}
