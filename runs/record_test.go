package runs

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs/push"
)

// zeroTime is how a zero time.Time reads in JSON.
const zeroTime = "0001-01-01T00:00:00Z"

// A person looks for what a run did with grep: the command a tool ran, the text Claude
// Code printed. The record holds them as written, not as \u0026 and \u003e, and holds no
// zero times.
func TestRecordIsGreppable(t *testing.T) {
	fa := &fakeApprovals{t: t, runs: map[string]approvals.Run{}}
	m, recDir := testManager(t, func(c *Config) { c.Approvals = fa })
	hold, open := release(t)
	r := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:hold=" + hold + " then run git status && git diff > diff.txt"})
	waitStart(t, recDir, r.ID())

	ar := fa.run(r.ID())
	req := approvals.Request{ID: "q1", ToolName: "Bash", ToolUseID: "toolu_9",
		Input: json.RawMessage(`{"command":"git status && git diff <base> > out.txt"}`), Deadline: time.Now().Add(time.Minute), RunEnds: true}
	ar.RecordApproval(approvals.Record{Request: req})
	ar.RecordApproval(approvals.Record{Request: req, Answer: &approvals.Answer{Allow: true, By: approvals.ByTrusted, Rule: "git status, git diff"}})
	open()
	if info := wait(t, r); info.State != StateSucceeded {
		t.Fatalf("got %s (%s), want succeeded", info.State, info.Reason)
	}
	if _, err := AppendEvent(m.config().StateDir, r.ID(), Event{Type: EventPush, Text: "not pushed: <no token> && no push",
		Push: &push.Attempt{Time: time.Now(), Remote: "origin", Outcome: push.Refused, Message: "<no token> && no push"}}); err != nil {
		t.Fatalf("AppendEvent: %v", err)
	}

	events, _ := os.ReadFile(filepath.Join(r.Dir(), eventsFile))
	info, _ := os.ReadFile(filepath.Join(r.Dir(), infoFile))
	for _, tt := range []struct {
		file, name string
		b          []byte
		want       string
	}{
		{"events.jsonl", "the prompt sent", events, "then run git status && git diff > diff.txt"},
		{"events.jsonl", "the command asked about", events, `git status && git diff <base> > out.txt`},
		{"events.jsonl", "a push appended after the run", events, "<no token> && no push"},
		{"run.json", "the prompt", info, "then run git status && git diff > diff.txt"},
	} {
		if !bytes.Contains(tt.b, []byte(tt.want)) {
			t.Errorf("%s: grep %q finds nothing in %s:\n%s", tt.name, tt.want, tt.file, tt.b)
		}
	}
	for name, b := range map[string][]byte{"events.jsonl": events, "run.json": info} {
		for _, escaped := range []string{`\u0026`, `\u003c`, `\u003e`, zeroTime} {
			if bytes.Contains(b, []byte(escaped)) {
				t.Errorf("%s holds %s:\n%s", name, escaped, b)
			}
		}
	}
	for line := range strings.Lines(string(events)) {
		if strings.Contains(line, `"type":"approval-answer"`) && strings.Contains(line, `"deadline"`) {
			t.Errorf("the answer carries a deadline: %s", line)
		}
		if strings.Contains(line, `"type":"approval-request"`) && (!strings.Contains(line, `"deadline":"`) || !strings.Contains(line, `"runEnds":true`)) {
			t.Errorf("the request lost its deadline, or that it is the run's end: %s", line)
		}
	}
}

// AppendEvent redacts the event's JSON. A secret holding a quote and a '<' reads
// `x<y\"z` there, now that the record does not escape HTML; that form must be masked too.
func TestAppendEventMasksASecretInItsJSONForm(t *testing.T) {
	const secret = `tok<en"secret-0123456789`
	m, _ := testManager(t, nil)
	r := start(t, m, Spec{Kind: KindAsk, Prompt: "fake:success"})
	wait(t, r)
	written, err := AppendEvent(m.config().StateDir, r.ID(), Event{Type: EventPush, Text: "git said " + secret}, secret)
	if err != nil {
		t.Fatalf("AppendEvent: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(r.Dir(), eventsFile))
	jsonForm, _ := json.Marshal(secret)
	for _, form := range []string{secret, `tok<en\"secret-0123456789`, string(jsonForm[1 : len(jsonForm)-1])} {
		if bytes.Contains(b, []byte(form)) {
			t.Errorf("events.jsonl holds the secret as %s", form)
		}
	}
	if written.Text != "git said [REDACTED]" {
		t.Errorf("the event written says %q, want the secret masked", written.Text)
	}
}

// Every field tagged omitzero is left out of the record when it is zero, whichever
// encoder writes it: Event.AppendJSON (segmentio's, which does not know the tag) for
// events, Info.AppendJSON for run.json.
func TestRecordLeavesOutZeroTimes(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] || typ == reflect.TypeFor[time.Time]() {
			return
		}
		seen[typ] = true
		for f := range typ.Fields() {
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Event]())
	tagged := 0
	for typ := range seen {
		for f := range typ.Fields() {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !strings.Contains(","+opts+",", ",omitzero,") {
				continue
			}
			tagged++
			// The zero struct, inside an event so that the record's encoder writes it.
			b := appendInEvent(t, typ)
			if bytes.Contains(b, []byte(`"`+name+`":`)) {
				t.Errorf("%s.%s is zero but written: %s", typ, f.Name, b)
			}
		}
	}
	if tagged == 0 {
		t.Fatal("no omitzero field found: the walk is broken")
	}
	info, err := (&Info{ID: "r1", Created: time.Now()}).AppendJSON(nil)
	if err != nil || bytes.Contains(info, []byte(zeroTime)) {
		t.Errorf("run.json of a queued run: %s, %v; want no zero time", info, err)
	}
}

// appendInEvent returns the record's JSON of an event holding a zero typ.
func appendInEvent(t *testing.T, typ reflect.Type) []byte {
	t.Helper()
	e := Event{RunID: "r1", Seq: 1, Time: time.Now(), Type: EventStatus}
	ev := reflect.ValueOf(&e).Elem()
	if typ == ev.Type() {
		b, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for i := range ev.NumField() {
		if f := ev.Field(i); f.Type() == reflect.PointerTo(typ) {
			f.Set(reflect.New(typ))
			b, err := e.AppendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("no field of Event holds a %s: extend appendInEvent", typ)
	return nil
}

// ReadEvents reads a record as encoding/json reads it, whatever its lines hold: every
// kind of event as the recorder writes it, and lines written by hand or by an older segwi
// (escapes, surrogates, bytes that are not UTF-8, keys in other cases, nulls, fields it
// does not know, a line cut short, a line longer than the reader's buffer).
func TestReadEventsReadsWhatEncodingJSONReads(t *testing.T) {
	at := time.Date(2025, 1, 2, 15, 4, 5, 123456789, time.UTC)
	code := 3
	written := []Event{
		{Type: EventInit, Init: &InitInfo{Model: "m", Tools: []string{"Bash"}, MCPServers: []MCPServer{{Name: "segwi", Status: "connected"}}}},
		{Type: EventText, Text: "a <b> && c\n\ttab \x1b[1m é 😀 \u202e"},
		{Type: EventToolCall, ToolName: "Bash", ToolUseID: "t1", Input: json.RawMessage(`{"command":"ls  -la", "n": [1, 2.5, null]}`)},
		{Type: EventToolResult, ToolUseID: "t1", IsError: true, Text: strings.Repeat("long output ", 20000)},
		{Type: EventResult, Subtype: "success", Result: &ResultInfo{NumTurns: 2, CostUSD: 0.0123, Usage: json.RawMessage(`{"input_tokens":10}`),
			Denials: []Denial{{ToolName: "Write", Input: json.RawMessage(`{"file_path":"x"}`)}}}},
		{Type: EventState, State: &StateChange{From: StateRunning, To: StateWaiting, Waiting: WaitApproval}},
		{Type: EventExit, Exit: &ExitInfo{Code: code, Signal: "killed"}},
		{Type: EventApprovalAnswer, Approval: &ApprovalInfo{RequestID: "q", Allow: true, By: "person", WaitedMS: 1500}},
		{Type: EventApprovalRequest, Approval: &ApprovalInfo{RequestID: "q", Deadline: at}, Input: json.RawMessage(`{"command":"x"}`)},
		{Type: EventPush, Push: &push.Attempt{Time: at, Remote: "origin", Outcome: push.Refused, Message: "no"}},
		{Type: EventRaw, Raw: json.RawMessage(`{"type":"mystery","payload":42}`), Truncated: true},
	}
	var file bytes.Buffer
	for i, e := range written {
		e.RunID, e.Seq, e.Time = "bench", int64(i+1), at
		b, err := e.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		file.Write(append(b, '\n'))
	}
	for _, line := range []string{
		`{"run":"bench","seq":20,"time":"2025-01-02T15:04:05Z","type":"text","text":"\u0026\u003c \ud83d\ude00 \ud800 lone \"q\" \\ \/"}`,
		"{\"run\":\"bench\",\"seq\":21,\"time\":\"2025-01-02T15:04:05Z\",\"type\":\"text\",\"text\":\"not \xff\xfe utf-8\"}",
		`{"RUN":"bench","Seq":22,"Time":"2025-01-02T15:04:05+02:00","TYPE":"output","Text":"keys in other cases"}`,
		`{"run":"bench","seq":23,"time":"2025-01-02T15:04:05Z","type":"exit","exit":null,"text":null,"unknown":{"a":[1,2]}}`,
		`  {"run":"bench","seq":24,"time":"2025-01-02T15:04:05Z","type":"status","dropped":7}  `,
		`{"run":"bench","seq":25,"time":"2025-01-02T15:04:05Z","type":"text","text":"cut sho`,
		``,
		`{"run":"bench","seq":26,"time":"2025-01-02T15:04:05Z","type":"text","text":"` + strings.Repeat("x", 200<<10) + `"}`,
	} {
		file.WriteString(line + "\n")
	}
	var want []Event
	for line := range strings.Lines(file.String()) {
		var e Event
		if json.Unmarshal([]byte(line), &e) == nil {
			want = append(want, e)
		}
	}
	state := t.TempDir()
	dir := filepath.Join(RunsDir(state), "bench")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, eventsFile), file.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []Event
	if err := ReadEvents(state, "bench", func(e Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d events, want %d as encoding/json reads them", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("event %d reads as\n%+v\nwant, as encoding/json reads it,\n%+v", want[i].Seq, got[i], want[i])
		}
	}
}
