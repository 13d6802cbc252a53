package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	r.readLines(strings.NewReader(line), maxLine)
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
