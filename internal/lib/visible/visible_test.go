package visible

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// The quick look at ASCII agrees with Unicode's tables on every ASCII character.
func TestHiddenASCIIIsWhatUnicodeSays(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		want := unicode.IsControl(r) && r != '\n' && r != '\t' || invisible(r)
		if got := hidden(r); got != want {
			t.Errorf("hidden(%q) = %v, want %v", r, got, want)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text is kept", "git status --short", "git status --short"},
		{"newlines and tabs are kept", "a\n\tb", "a\n\tb"},
		{"other text in any script is kept", "ls café 東京 שלום", "ls café 東京 שלום"},
		{"an escape sequence is shown", "\x1b[2J", `\x1b[2J`},
		{"a carriage return is shown", "ok\rrm -rf ~", `ok\x0drm -rf ~`},
		{"NUL, DEL and a C1 control are shown", "a\x00b\x7fc\u0085d", `a\x00b\x7fc\x85d`},
		{"a right-to-left override is shown", "ls \u202e# ~ fr- mr", `ls \u202e# ~ fr- mr`},
		{"every bidirectional formatting character is shown",
			"\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c",
			`\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c`},
		// Each of these once read as nothing at all, or as a line break to the eye and none to
		// bash: "rm -rf /\u200b" reads as "rm -rf /", and tag characters can spell a
		// whole hidden sentence after a command.
		{"zero-width spaces, joiners and marks are shown", "rm\u200b -rf\u200c\u200d /\u200e\u200f", `rm\u200b -rf\u200c\u200d /\u200e\u200f`},
		{"line and paragraph separators are shown", "echo ok\u2028rm -rf ~\u2029", `echo ok\u2028rm -rf ~\u2029`},
		{"a byte order mark is shown", "\ufeffls", `\ufeffls`},
		{"tag characters are shown, the whole block", "ls\U000e0001\U000e0072\U000e006d\U000e007f\U000e0000", `ls\U000e0001\U000e0072\U000e006d\U000e007f\U000e0000`},
		{"the rest of the format category is shown", "soft\u00adhyphen \u2060\u2061\u2064 \u180e \ufff9 \U0001d173", `soft\u00adhyphen \u2060\u2061\u2064 \u180e \ufff9 \U0001d173`},
		{"bytes that are not UTF-8 are shown", "a\xffb\xc3", `a\xffb\xc3`},
		{"a replacement character that was in the text is kept", "a\ufffdb", "a\ufffdb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"ls", "\x1b[0m", "\u202e", "a\xff", "\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q, not UTF-8", s, got)
		}
		for _, r := range got {
			if r != utf8.RuneError && hidden(r) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
				t.Fatalf("Escape(%q) = %q still holds %U", s, got, r)
			}
		}
	})
}

func TestFirstLineCutsToALineOfAtMostLimitRunes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{strings.Repeat("a", 130), strings.Repeat("a", 120) + "…"},
		{"  make test\nmake lint", "make test…"},
		{strings.Repeat("é", 120), strings.Repeat("é", 120)},
		{"", ""},
	} {
		if got := FirstLine(tt.in, 120); got != tt.want {
			t.Errorf("FirstLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
