package redact

import (
	"bytes"
	"slices"
	"testing"

	"github.com/segwi/segwi/internal/lib/visible"
)

// A view reads escapes and terminal sequences as what they stand for, and maps every one
// of its bytes back to the input.
func TestViewDecodesAndMapsBack(t *testing.T) {
	tests := []struct {
		name, in, text string
	}{
		{"plain text is read as it is", "abc", "abc"},
		{"escaped slashes", `https:\/\/u:p@h\/x`, "https://u:p@h/x"},
		{"escaped slashes of JSON in JSON", `https:\\\/\\\/h`, "https://h"},
		{"a \\u escape and a surrogate pair", `a\u0067b\ud83d\ude00c`, "agb😀c"},
		{"quotes, tabs and newlines", `\"k\":\t\"v\"\n`, "\"k\":\t\"v\"\n"},
		{"a backslash that escapes nothing stays", `C:\users\x`, `C:\users\x`},
		{"colours are dropped", "a\x1b[01;31m\x1b[Kb\x1b[m\x1b[Kc", "abc"},
		{"escaped colours are dropped", `a\u001b[01;31mb\u001b[mc`, "abc"},
		{"an OSC string ended by an escaped BEL is dropped", `a\u001b]0;title\u0007b`, "ab"},
		{"a hyperlink ended by ST keeps its text", "a\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\b", "alinkb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v view
			v.decode([]byte(tt.in))
			if string(v.text) != tt.text {
				t.Fatalf("decode(%q) = %q, want %q", tt.in, v.text, tt.text)
			}
			// Each byte of the view maps back to input that stands for it.
			for p := 0; p < len(v.text); p++ {
				from, to := v.srcStart(p), v.srcEnd(p+1)
				if from < 0 || to > len(tt.in) || from >= to {
					t.Fatalf("byte %d (%q) maps to input [%d:%d]", p, v.text[p], from, to)
				}
				var back view
				back.decode([]byte(tt.in[from:to]))
				if !bytes.Contains(back.text, v.text[p:p+1]) && v.text[p] < 0x80 {
					t.Errorf("byte %d (%q) maps to %q", p, v.text[p], tt.in[from:to])
				}
			}
		})
	}
}

// The terminal sequences a view drops are those visible.StripTerminal drops: one grammar,
// read here through escapes.
func TestViewDropsWhatStripTerminalDrops(t *testing.T) {
	for _, in := range []string{
		"\x1b[?25h", "\x1b[?25lworking\x1b[?25h", "\x1b[1;31mFAIL\x1b[0m web/login",
		"\x1b[2K\x1b[1Gdone", "\x1b]0;claude: web\x07text", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\",
		"\x1b(B\x1b=\x1b>\x1b7x\x1b8", "text\x1b[1;3", "text\x1b", "a\x1b]0;t\nb",
	} {
		var v view
		v.decode([]byte(in))
		if want := visible.StripTerminal([]byte(in)); string(v.text) != string(want) {
			t.Errorf("view of %q = %q, visible.StripTerminal gives %q", in, v.text, want)
		}
	}
}

// decodeScan finds in one pass what scanning the decoded view finds.
func TestDecodeScanFindsWhatScanningTheViewFinds(t *testing.T) {
	k := shared().words
	for _, in := range []string{
		`{"a":"https:\/\/u:p@h","b":"\u0067hp_x\u001b[31mAB\u001b[0m"}`,
		"gl\x1b[1mpat-\x1b[0m x s.\\u0041 \\\\\\/\\\\\\/ sk_live_ \\ud83d\\ude00ey",
		`\`, "\x1b", `\u00`, "plain text with no escape",
	} {
		var a, b view
		got := a.decodeScan([]byte(in), k, nil)
		b.decode([]byte(in))
		want := k.scan(b.text, nil)
		if string(a.text) != string(b.text) || !slices.Equal(got, want) {
			t.Errorf("decodeScan(%q): text %q, hits %v; decode then scan: %q, %v", in, a.text, got, b.text, want)
		}
	}
}
