package runs

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/await"
)

// longLineSecret is a credential with the bytes the cut of a long line once split it at
// ('.', '/', '+', '=', ':'), after what marks it as one. Cut there, the front was masked
// and the tail written in clear: "Bearer [REDACTED]klmnop…".
const (
	longLineSecret = "Authorization: Bearer abcdefghij.klmnop/qrstuv+wxyz=0123:4567.89ab"
	longLineMasked = "Authorization: Bearer [REDACTED]"
)

// readLongLine runs line through a run's reader, cutting lines at maxLine bytes, and
// returns what output.log and events.jsonl then hold.
func readLongLine(t *testing.T, line string, maxLine int) (output, events string) {
	t.Helper()
	r := bareRun(t, t.TempDir())
	r.readLines(strings.NewReader(line), maxLine, ClaudeParser())
	return readRecord(t, r)
}

// checkLongLine fails unless output.log holds line redacted whole, and events.jsonl holds
// no part of the secret's token.
func checkLongLine(t *testing.T, at int, line, output, events string) {
	t.Helper()
	want := strings.Replace(line, longLineSecret, longLineMasked, 1)
	if output != want {
		i := 0
		for i < len(output) && i < len(want) && output[i] == want[i] {
			i++
		}
		t.Fatalf("secret at byte %d: output.log differs from the line redacted whole at byte %d:\n got …%q…\nwant …%q…",
			at, i, output[max(0, i-40):min(len(output), i+40)], want[max(0, i-40):min(len(want), i+40)])
	}
	token := longLineSecret[len("Authorization: Bearer "):]
	for i := 0; i+6 <= len(token); i++ {
		if strings.Contains(events, token[i:i+6]) {
			t.Fatalf("secret at byte %d: events.jsonl holds %q of the token", at, token[i:i+6])
		}
	}
}

// TestALongLineIsCutWhereNoSecretIsSplit puts a credential across every place a long
// line may be cut, one byte at a time: where the line first reaches its limit (the old
// cut fell on the credential's last '.', '/', '+', '=' or ':' before it) and where the
// bytes held back for the next piece begin. output.log must hold the line exactly as
// redacted whole. The limit here is one read of the pty (64 KiB) rather than
// MaxLineBytes, so that each of the hundred-odd lines is small.
func TestALongLineIsCutWhereNoSecretIsSplit(t *testing.T) {
	const maxLine = 64 << 10
	filler := strings.Repeat("lorem ipsum, dolor sit amet. ", 2*maxLine/29+1)
	var offsets []int
	for _, cut := range []int{maxLine - maxLine/longLineHoldDivisor, maxLine} {
		for at := cut - len(longLineSecret); at <= cut; at++ {
			offsets = append(offsets, at)
		}
	}
	for _, at := range offsets {
		line := filler[:at] + longLineSecret + " " + filler[:maxLine+1000] + "\n"
		output, events := readLongLine(t, line, maxLine)
		checkLongLine(t, at, line, output, events)
	}
}

// TestALineOver16MiBKeepsABearerTokenWhole is the attack as it was seen: a line of more
// than MaxLineBytes whose bearer token has a '.' just before the 16 MiB mark.
func TestALineOver16MiBKeepsABearerTokenWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("a 16 MiB line: not in -short")
	}
	at := MaxLineBytes - strings.Index(longLineSecret, ".klmnop") - 1 // the '.' is the last byte before the mark
	filler := bytes.Repeat([]byte("lorem ipsum, dolor sit amet. "), MaxLineBytes/29+1)
	line := string(filler[:at]) + longLineSecret + " the end\n"
	output, events := readLongLine(t, line, MaxLineBytes)
	checkLongLine(t, at, line, output, events)
}

func TestAPlantedTokenIsAbsentFromEveryFileAndEvent(t *testing.T) {
	for _, scenario := range []string{"fake:secret", "fake:longline"} {
		t.Run(scenario, func(t *testing.T) {
			m, _ := testManager(t, func(c *Config) { c.Secrets = func() []string { return []string{"keyring-token-0123456789"} } })
			r := start(t, m, Spec{Prompt: scenario + " and keyring-token-0123456789"})
			evs, cancel := r.Subscribe()
			defer cancel()
			var published strings.Builder
			for e := range evs {
				published.WriteString(e.Text + string(e.Input) + string(e.Raw) + FormatEvent(e))
			}
			if info := wait(t, r); info.State != StateSucceeded {
				t.Fatalf("state = %s (%s), want succeeded", info.State, info.Reason)
			}
			for _, secret := range []string{plantedToken, "keyring-token-0123456789"} {
				if strings.Contains(published.String(), secret) {
					t.Errorf("a published event holds %q", secret)
				}
				entries, _ := os.ReadDir(r.Dir())
				for _, ent := range entries {
					b, _ := os.ReadFile(filepath.Join(r.Dir(), ent.Name()))
					if strings.Contains(string(b), secret) {
						t.Errorf("%s holds %q", ent.Name(), secret)
					}
				}
			}
			if !strings.Contains(published.String(), "[REDACTED]") {
				t.Errorf("no [REDACTED] mark in the published events")
			}
		})
	}
}

func TestALineLongerThanTheLimitIsCutNotLost(t *testing.T) {
	m, _ := testManager(t, nil)
	r := start(t, m, Spec{Prompt: "fake:longline"})
	if info := wait(t, r); info.State != StateSucceeded {
		t.Fatalf("state = %s (%s), want succeeded", info.State, info.Reason)
	}
	evs := events(t, m, r.ID())
	long, ok := find(evs, func(e Event) bool { return e.Subtype == "long-line" })
	if !ok || !long.Truncated || len(long.Text) > MaxFieldBytes {
		t.Errorf("long line event = %v (truncated %v, %d bytes), want one cut output event", ok, long.Truncated, len(long.Text))
	}
	if _, ok := find(evs, func(e Event) bool { return e.Text == "after the long line" }); !ok {
		t.Errorf("the line after the long one was not parsed")
	}
	st, _ := os.Stat(filepath.Join(r.Dir(), outputFile))
	if st.Size() < 17<<20 {
		t.Errorf("output.log holds %d bytes, want the whole 17 MiB line", st.Size())
	}
}

// TestTerminalEscapesAreStrippedFromEventsNotFromOutputLog feeds the reader what Claude
// Code and the tools it runs write to the pty: coloured text, and the ESC[?25h of its exit
// on a line of its own and before a JSON line. The events carry the text without the
// sequences, and no event at all for a line of escapes only; output.log keeps every byte.
func TestTerminalEscapesAreStrippedFromEventsNotFromOutputLog(t *testing.T) {
	r := bareRun(t, t.TempDir())
	owned(t, r) // the result goes to it
	evs, cancel := r.Subscribe()
	defer cancel()
	in := "\x1b[1;31mFAIL\x1b[0m web/login\n" +
		"\x1b[?25h" + `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","total_cost_usd":0.01}` + "\n" +
		"\x1b[?25h"
	r.readLines(strings.NewReader(in), MaxLineBytes, ClaudeParser())
	output, _ := readRecord(t, r)
	if output != in {
		t.Errorf("output.log = %q, want the raw bytes %q", output, in)
	}
	var got []string
	for len(evs) > 0 {
		e := <-evs
		got = append(got, string(e.Type)+": "+e.Text)
	}
	want := []string{"output: FAIL web/login", "result: done"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestASecretPartedByAnEscapeIsRedactedInEvents is the attack on stripping escapes: a
// token written with a colour change in its middle passes the redaction of the raw line
// (it is not the token there), and the stripped text joins it. Events must not hold it.
func TestASecretPartedByAnEscapeIsRedactedInEvents(t *testing.T) {
	r := bareRun(t, t.TempDir())
	evs, cancel := r.Subscribe()
	defer cancel()
	r.readLines(strings.NewReader("token: keyring-token-0123\x1b[0m456789\n"), MaxLineBytes, ClaudeParser())
	_, events := readRecord(t, r)
	var published strings.Builder
	for len(evs) > 0 {
		published.WriteString((<-evs).Text)
	}
	for where, text := range map[string]string{"events.jsonl": events, "a published event": published.String()} {
		if strings.Contains(text, "keyring-token-0123456789") {
			t.Errorf("%s holds the token joined: %q", where, text)
		}
	}
	if !strings.Contains(published.String(), "[REDACTED]") {
		t.Errorf("published %q, want the token masked", published.String())
	}
}

// TestTheRecordIsCurrentOnceThePtyIsQuiet: the lines read so far reach output.log, and
// their events events.jsonl, once the reader has handled what it read, so that `segwi runs
// events` or a window opening on a quiet run is not left behind until the next output or
// the recorder's sync (syncEvery). The reader once wrote its buffers out before it parsed
// the last line it read, whose events then waited for that sync.
func TestTheRecordIsCurrentOnceThePtyIsQuiet(t *testing.T) {
	r := bareRun(t, t.TempDir())
	evs, cancel := r.Subscribe()
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.readLines(pr, MaxLineBytes, ClaudeParser())
	}()
	defer func() { pw.Close(); <-done }()
	if _, err := pw.Write([]byte("the timeout denied it\n")); err != nil {
		t.Fatal(err)
	}
	if e := <-evs; e.Text != "the timeout denied it" {
		t.Fatalf("event %q, want the line", e.Text)
	}
	for _, f := range []struct{ name, want string }{{outputFile, "the timeout denied it\n"}, {eventsFile, `"the timeout denied it"`}} {
		await.For(t, syncEvery/2, f.name+" to hold the line while the run is quiet", func() bool {
			b, _ := os.ReadFile(filepath.Join(r.dir, f.name))
			return strings.Contains(string(b), f.want)
		})
	}
}

// readRecord closes r's record and returns what output.log and events.jsonl hold.
func readRecord(t *testing.T, r *Run) (output, events string) {
	t.Helper()
	if err := r.rec.close(); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(r.dir, outputFile))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := os.ReadFile(filepath.Join(r.dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(out), string(ev)
}
