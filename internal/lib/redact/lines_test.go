package redact

import (
	"strings"
	"testing"
)

// readPieces redacts line as a reader of a stream does one too long to hold: it takes
// chunk bytes at a time and, whenever it holds piece bytes or more, hands them to
// AppendPiece and keeps what that leaves; the line's end goes to Append.
func readPieces(l *Lines, line string, chunk, piece, hold int) string {
	var out, buf []byte
	for off := 0; off < len(line); off += chunk {
		buf = append(buf, line[off:min(off+chunk, len(line))]...)
		if len(buf) >= piece && off+chunk < len(line) {
			var n int
			out, n = l.AppendPiece(out, buf, hold)
			buf = append(buf[:0], buf[n:]...)
		}
	}
	return string(l.Append(out, buf))
}

// TestAppendPieceCutsNoSecret slides each secret, with what marks it as one, across
// the places a long line is cut (where a piece is full, and where the bytes held back
// begin), one byte at a time: cut in pieces, the line must come out exactly as when it
// is redacted whole.
func TestAppendPieceCutsNoSecret(t *testing.T) {
	const chunk, piece, hold = 512, 4096, 512
	long := strings.Repeat("abcdefghij.klmnop/qrst+uvwx=yz01:", 200) // 6,600 bytes
	secrets := []struct{ name, text, secret string }{
		{"a bearer token with dots, slashes and colons", "Authorization: Bearer abcdefghij.klmnop/qrst+uvwx=yz0123:456789", "klmnop/qrst"},
		{"a bare bearer token", `curl -H \"x: Bearer abcdefghij.klmnop/qrst+uvwx\"`, "klmnop/qrst"},
		{"a URL password", "https://deploy:" + urlPass + "@git.example.com/x.git", urlPass},
		{"a JWT", "session=" + jwt, jwt[40:60]},
		{"an AWS secret key", "aws_secret_access_key = " + awsSecret, awsSecret[8:]},
		{"an AWS secret key in escaped JSON", `{\"SecretAccessKey\": \"` + awsSecret + `\"}`, awsSecret[8:]},
		{"a Slack token", slackBot, slackBot[10:]},
		{"a GitHub token", ghp, ghp[4:]},
		{"a private key in a JSON string", mustJSON(pemBody), "b3BlbnNzaC1rZXktdjEAAAAA"},
		{"a bearer token longer than what is held back", "Authorization: Bearer " + long, "klmnop/qrst"},
	}
	filler := strings.Repeat("lorem ipsum, dolor: sit/amet. ", 1+3*piece/30)
	r := New()
	for _, s := range secrets {
		t.Run(s.name, func(t *testing.T) {
			// Every offset that puts the secret across the first cut's two candidates:
			// the end of the full piece, and the start of the bytes held back.
			for at := piece - hold - len(s.text); at <= piece; at++ {
				if at < 0 {
					continue
				}
				line := filler[:at] + s.text + " " + filler[:2*piece]
				whole := string(r.Lines().Append(nil, []byte(line)))
				if strings.Contains(whole, s.secret) {
					t.Fatalf("redacted whole, the line still holds %q: the case proves nothing", s.secret)
				}
				if got := readPieces(r.Lines(), line, chunk, piece, hold); got != whole {
					i := 0
					for i < len(got) && i < len(whole) && got[i] == whole[i] {
						i++
					}
					t.Fatalf("secret at byte %d: cut in pieces, the line differs from redacted whole at byte %d:\n got …%q\nwant …%q",
						at, i, got[max(0, i-60):min(len(got), i+60)], whole[max(0, i-60):min(len(whole), i+60)])
				}
			}
		})
	}
}

// A secret that starts far back and goes on past the piece's end is masked to the end,
// and its rest, in the following pieces and the line's end, is dropped, not shown.
func TestAppendPieceMasksASecretLongerThanAPiece(t *testing.T) {
	token := strings.Repeat("abcdefghij.klmnop/qrst+uvwx=yz01:", 1000) // 33,000 bytes
	line := strings.Repeat("x ", 100) + "Bearer " + token + " done"
	got := readPieces(New().Lines(), line, 512, 4096, 512)
	if want := strings.Repeat("x ", 100) + "Bearer [REDACTED] done"; got != want {
		t.Errorf("got %d bytes:\n%.300q…\nwant %q", len(got), got, want)
	}
}
