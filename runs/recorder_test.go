package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

// What a run records reaches its files within syncEvery (here lowered), without a state
// change to force it and without anyone polling: a window or `segwi runs events` reading
// the record of a quiet run sees its last event. Then the recorder arms nothing more. An
// event recorded toFile is in events.jsonl at once.
func TestTheRecordReachesItsFilesWithinSyncEvery(t *testing.T) {
	dir := t.TempDir()
	rec, err := openRecorder(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.close()
	rec.every = 200 * time.Millisecond
	began := time.Now()
	rec.event(&Event{RunID: "r1", Seq: 1, Time: began, Type: EventText, Text: "the last words"}, toBuffer)
	rec.output([]byte("a line of output\n"))
	for _, f := range []struct{ name, want string }{{eventsFile, "the last words"}, {outputFile, "a line of output"}} {
		await.For(t, 5*time.Second, f.name+" to hold what was recorded", func() bool {
			b, _ := os.ReadFile(filepath.Join(dir, f.name))
			return bytes.Contains(b, []byte(f.want))
		})
	}
	t.Logf("on disk %s after the write", time.Since(began).Round(time.Millisecond))
	rec.mu.Lock()
	dirty := rec.dirty
	rec.mu.Unlock()
	if dirty {
		t.Error("the recorder still has something to sync once its files hold everything")
	}

	rec.every = time.Hour
	rec.event(&Event{RunID: "r1", Seq: 2, Time: time.Now(), Type: EventStatus, Text: "a status of the run's owner"}, toFile)
	if b, _ := os.ReadFile(filepath.Join(dir, eventsFile)); !bytes.Contains(b, []byte("a status of the run's owner")) {
		t.Errorf("an event recorded to the file is not in events.jsonl at once:\n%s", b)
	}
}

// Past its cap, events.jsonl keeps what says how the run goes and leaves out the bulk,
// with one event where it stopped that says so.
func TestEventsStopAtTheirCapKeepingHowTheRunGoes(t *testing.T) {
	state := t.TempDir()
	dir := filepath.Join(RunsDir(state), "bench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	r := bareRun(t, dir)
	r.rec.maxEv = 20 << 10
	text := strings.Repeat("lorem ipsum ", 85) // about 1 KiB
	kept := map[int64]EventType{
		50:  EventState,
		60:  EventApprovalRequest,
		61:  EventApprovalAnswer,
		70:  EventPrompt,
		80:  EventRefusal,
		90:  EventResult,
		100: EventExit,
	}
	for seq := int64(1); seq <= 100; seq++ {
		e := Event{RunID: "bench", Seq: seq, Time: time.Now(), Type: EventText, Text: text}
		switch {
		case kept[seq] != "":
			e = Event{RunID: "bench", Seq: seq, Time: time.Now(), Type: kept[seq], Text: "kept"}
		case seq%3 == 0:
			e.Type = EventToolResult
		case seq%5 == 0:
			e.Type = EventOutput
		}
		r.rec.event(&e, toBuffer)
	}
	if err := r.rec.close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > r.rec.maxEv+4<<10 {
		t.Errorf("events.jsonl holds %d bytes, want about its cap of %d and what is kept after it", st.Size(), r.rec.maxEv)
	}
	var got []Event
	if err := ReadEvents(state, "bench", func(e Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	capAt := slices.IndexFunc(got, func(e Event) bool { return e.Type == EventCapped })
	if capAt < 0 {
		t.Fatalf("no %s event in the %d recorded", EventCapped, len(got))
	}
	if capped := got[capAt]; capped.Seq != got[capAt-1].Seq+1 || capped.Text != eventsCapText {
		t.Errorf("the cap is recorded as %+v after event %d, want it in place of the next event, saying what is kept", capped, got[capAt-1].Seq)
	}
	if capAt < 15 {
		t.Errorf("the cap came after %d events of about 1 KiB, want about 20", capAt)
	}
	var after []int64
	for _, e := range got[capAt+1:] {
		if e.Type.Bulk() {
			t.Errorf("a %s event (%d) was recorded past the cap", e.Type, e.Seq)
		}
		after = append(after, e.Seq)
	}
	for seq := range kept {
		if seq > got[capAt].Seq && !slices.Contains(after, seq) {
			t.Errorf("the %s event %d past the cap was not recorded", kept[seq], seq)
		}
	}
}
