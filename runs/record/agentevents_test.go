package record

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCutFields(t *testing.T) {
	e := Event{Text: strings.Repeat("é", MaxFieldBytes), Input: json.RawMessage(`"` + strings.Repeat("a", MaxFieldBytes) + `"`)}
	CutFields(&e)
	if !e.Truncated || len(e.Text) > MaxFieldBytes || !json.Valid(e.Input) || !strings.HasPrefix(e.Text, "é") {
		t.Errorf("got truncated=%v, text of %d bytes, input valid=%v; want truncated, at most %d bytes, valid JSON",
			e.Truncated, len(e.Text), json.Valid(e.Input), MaxFieldBytes)
	}
	if !strings.HasSuffix(e.Text, "é") {
		t.Errorf("text cut inside a rune: ends %q", e.Text[len(e.Text)-3:])
	}
}
