package visible

import (
	"bytes"
	"strings"
	"testing"
)

// The sequences are those a terminal program writes: Claude Code's ESC[?25h on exit, the
// colours, cursor moves and titles of test runners and shells.
func TestStripTerminal(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text is kept", "ok  web/login 0.3s", "ok  web/login 0.3s"},
		{"tabs, newlines and text in any script are kept", "a\tb\ncafé 東京", "a\tb\ncafé 東京"},
		{"Claude Code's show-cursor on exit goes", "\x1b[?25h", ""},
		{"hide and show cursor around text go", "\x1b[?25lworking\x1b[?25h", "working"},
		{"colours go, the text stays", "\x1b[1;31mFAIL\x1b[0m web/login", "FAIL web/login"},
		{"erase line and cursor column go", "\x1b[2K\x1b[1Gdone", "done"},
		{"bracketed paste mode goes", "\x1b[?2004hprompt\x1b[?2004l", "prompt"},
		{"a window title ended by BEL goes", "\x1b]0;claude: web\x07text", "text"},
		{"a hyperlink ended by ST keeps its text", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"a charset and keypad mode go", "\x1b(B\x1b=\x1b>\x1b7x\x1b8", "x"},
		{"carriage returns, backspace and BEL go", "50%\r100%\x08!\x07\r", "50%100%!"},
		{"a sequence cut short at the end goes", "text\x1b[1;3", "text"},
		{"a lone ESC at the end goes", "text\x1b", "text"},
		{"bytes that are not UTF-8 are kept", "a\xffb", "a\xffb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(StripTerminal([]byte(tt.in))); got != tt.want {
				t.Errorf("StripTerminal(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripTerminalReturnsCleanTextItselfAndNeverChangesItsInput(t *testing.T) {
	clean := []byte(`{"type":"result","result":"done"}`)
	if got := StripTerminal(clean); &got[0] != &clean[0] {
		t.Error("clean text was copied, want it returned as is")
	}
	in := []byte("\x1b[?25h{}")
	before := bytes.Clone(in)
	if got := StripTerminal(in); string(got) != "{}" || !bytes.Equal(in, before) {
		t.Errorf("StripTerminal = %q and the input became %q; want \"{}\" and the input unchanged", got, in)
	}
}

func FuzzStripTerminal(f *testing.F) {
	for _, s := range []string{"\x1b[?25h", "\x1b]0;t\x07x", "a\rb", "\x1b", "\x1b[", "plain"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := StripTerminal(b)
		for _, c := range got {
			if isControl(c) {
				t.Fatalf("StripTerminal(%q) = %q still holds %#x", b, got, c)
			}
		}
		if len(got) > len(b) {
			t.Fatalf("StripTerminal(%q) = %q, longer than its input", b, got)
		}
	})
}

// The eight-bytes-at-a-time look finds the first control byte wherever it is, whatever
// the byte, as a look at each byte does: at every place in a word and past it, among
// bytes on both sides of the bounds (0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff), tab and newline.
func TestFirstControlIsWhatALookAtEachByteFinds(t *testing.T) {
	fill := []byte{'a', 0x20, 0x7e, 0x80, 0xff, '\t', '\n', 0xa0}
	for n := range 20 {
		for at := range n + 1 {
			for c := range 256 {
				b := make([]byte, n)
				for i := range b {
					b[i] = fill[(i+c)%len(fill)]
				}
				if at < n {
					b[at] = byte(c)
				}
				want := len(b)
				for i, x := range b {
					if isControl(x) {
						want = i
						break
					}
				}
				if got := firstControl(b); got != want {
					t.Fatalf("firstControl(%q) = %d, want %d", b, got, want)
				}
			}
		}
	}
}

// BenchmarkStripTerminalCleanLine measures the common case: a 4 KB line of stream-json,
// with nothing to strip.
func BenchmarkStripTerminalCleanLine(b *testing.B) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum dolor sit amet, ", 146) + `"}]}}`)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if len(StripTerminal(line)) != len(line) {
			b.Fatal("stripped a clean line")
		}
	}
}
