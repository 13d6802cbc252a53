package control

import (
	"errors"
	"fmt"

	"github.com/segwi/segwi/runs/record"
)

// Run is one run as the tray shows it: its summary (record.Info, which says its state and
// why, its times, cost and turns, and Claude Code's session), and the name a person knows
// its checkout by.
type Run struct {
	record.Info
	// Name is the repository's name in the settings, else the checkout's folder name.
	Name string `json:"name"`
	// Dir is the run's folder (record.Info.Dir, which run.json does not hold): the window
	// process reads the run's output.log there.
	Dir string `json:"dir,omitempty"`
}

// RunOf is the Run of info, known to a person as name.
func RunOf(info record.Info, name string) Run { return Run{Info: info, Name: name, Dir: info.Dir} }

// Summary is the run's record.Info, with its folder.
func (r Run) Summary() record.Info {
	info := r.Info
	info.Dir = r.Dir
	return info
}

// MessageType returns TypeRun: the run changed (sent whole, so applying it twice is
// harmless).
func (Run) MessageType() Type { return TypeRun }

func (r Run) check() error { return needRun(r.ID) }

// Runs is a snapshot of the runs the tray holds: those going, and those that ended since
// it started. A client replaces what it knew with it.
type Runs struct {
	Runs []Run `json:"runs"`
}

// MessageType returns TypeRuns.
func (Runs) MessageType() Type { return TypeRuns }

// RunEvents carries events of one run, in order, to a client that subscribed to it: its
// backlog first, then each new event. Events are as the run recorded them.
type RunEvents struct {
	Run    string         `json:"run"`
	Events []record.Event `json:"events,omitempty"`
	// Now is the run's summary after these events (its cost, turns and state move with
	// them), when the tray sends it.
	Now *Run `json:"now,omitempty"`
	// Ended says that the run has ended and these are its last events: the subscription
	// is over. (A Subscribe to a run that is not live is refused in its reply instead.)
	Ended bool `json:"ended,omitempty"`
}

// MessageType returns TypeRunEvents.
func (RunEvents) MessageType() Type { return TypeRunEvents }

func (e RunEvents) check() error { return needRun(e.Run) }

// BatchEvents splits a run's events into RunEvents messages, each encoding to at most
// about max bytes (MaxMessageBytes when max is zero), in order. An event that alone would
// not fit is replaced by one of the same type, sequence and time whose text says so
// (record.MaxFieldBytes per field keeps that rare: only a pathological event can be so
// large), so that a subscriber never misses that it happened.
func BatchEvents(runID string, events []record.Event, max int) []RunEvents {
	if max <= 0 {
		max = MaxMessageBytes
	}
	budget := max - envelopeSlack
	var out []RunEvents
	cur := RunEvents{Run: runID}
	size := 0
	for _, e := range events {
		b, err := encode(e)
		n := len(b) + 1
		if err != nil || n > budget {
			e = tooLarge(e, len(b), err)
			b, _ = encode(e)
			n = len(b) + 1
		}
		if size+n > budget && len(cur.Events) > 0 {
			out = append(out, cur)
			cur, size = RunEvents{Run: runID}, 0
		}
		cur.Events = append(cur.Events, e)
		size += n
	}
	if len(cur.Events) > 0 {
		out = append(out, cur)
	}
	return out
}

// envelopeSlack is room for a message's envelope around its events.
const envelopeSlack = 1024

// tooLarge stands in for an event too large to send.
func tooLarge(e record.Event, n int, err error) record.Event {
	why := fmt.Sprintf("[segwi: this %s event is too large for the window (%d bytes); the run's events.jsonl has it whole]", e.Type, n)
	if err != nil {
		why = fmt.Sprintf("[segwi: this %s event cannot be sent to the window (%v); the run's events.jsonl has it]", e.Type, err)
	}
	return record.Event{RunID: e.RunID, Seq: e.Seq, Time: e.Time, Type: e.Type, Text: why, Truncated: true}
}

// needRun is the check of a body that names a run.
func needRun(id string) error {
	if id == "" {
		return errors.New("no run id")
	}
	return nil
}
