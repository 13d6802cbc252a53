package hub_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/control"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/runs"
)

// A run that prints 64 MB while a window process that reads at 2 MB/s follows it leaves
// that window process connected: the run's events reach it thinned out, with notes of how
// many were left out, up to the run's end; an approval that waits meanwhile reaches it and
// is answered from it. (Before, the tray cut the window process off once 16 MiB of events
// waited for it, and every window vanished, the popup's too.)
func TestABigRunLeavesAWindowThatReadsSlowlyConnected(t *testing.T) {
	const lines = 16384 // of 4 KB each
	line := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum ", 340) + `"}]}}`
	claude := claudeScript(t, "read line\n"+
		fmt.Sprintf("yes '%s' | head -n %d\n", line, lines)+
		`echo '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"total_cost_usd":0.01,"result":"done"}'`+"\n"+
		"while read line; do :; done\n")
	checkout := claudetest.Checkout(t)
	h := newHarness(t, "segwi:\n  claude:\n    path: "+claude+"\n  repositories:\n    - name: web\n      path: "+checkout+"\n", options{})
	h.windows.read = func(b control.Body) {
		if e, ok := b.(control.RunEvents); ok {
			n := 0
			for _, ev := range e.Events {
				n += len(ev.Text) + 200
			}
			time.Sleep(time.Duration(n) * time.Second / (2 << 20))
		}
	}
	ctx := context.Background()
	decision := decide(ctx, h, request("1"))
	w := h.windows.window(t, 1)
	waitingFor(t, w, "1")

	id, err := w.client.Start(ctx, runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "print a lot"})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	if err := w.client.Subscribe(ctx, id); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	var texts, dropped, results int
	var states []string
	var last *control.Run
	deadline := time.After(3 * time.Minute)
	for last == nil {
		select {
		case b := <-w.events:
			e, ok := b.(control.RunEvents)
			if !ok || e.Run != id {
				continue
			}
			for _, ev := range e.Events {
				switch ev.Type {
				case runs.EventText:
					texts++
				case runs.EventDropped:
					dropped += ev.Dropped
				case runs.EventResult:
					results++
				case runs.EventState:
					states = append(states, string(ev.State.To))
				}
			}
			if e.Ended {
				last = e.Now
			}
		case <-w.gone:
			t.Fatalf("the window process was cut off after %d text events: %v (log: %s)", texts, w.client.Err(), h.log)
		case <-deadline:
			t.Fatalf("the subscription did not end: %d text events, %d left out", texts, dropped)
		}
	}
	t.Logf("the window was sent %d of %d text events, and told of %d left out", texts, lines, dropped)
	if err := w.client.Err(); err != nil {
		t.Errorf("the window process's connection ended: %v", err)
	}
	if n := h.windows.count(); n != 1 {
		t.Errorf("%d window processes were started, want the one, never cut off", n)
	}
	if strings.Contains(h.log.String(), "connection cut") {
		t.Errorf("the tray logged a cut connection:\n%s", h.log)
	}
	if last.State != runs.StateSucceeded {
		t.Errorf("the subscription ended with the run %s, want succeeded", last.State)
	}
	if results != 1 {
		t.Errorf("the window was sent %d result events, want the run's one: a run's turns are never left out", results)
	}
	var recorded []string
	runs.ReadEvents(h.core.StateDir(), id, func(e runs.Event) error {
		if e.Type == runs.EventState {
			recorded = append(recorded, string(e.State.To))
		}
		return nil
	})
	if !slices.Equal(states, recorded) {
		t.Errorf("the window was sent the state changes %q, want every one recorded, %q", states, recorded)
	}
	if dropped == 0 || texts+dropped < lines {
		t.Errorf("the window was sent %d text events and told of %d left out; want some left out, and %d in all", texts, dropped, lines)
	}

	if err := w.client.Answer(ctx, control.Answer{Request: "1", Decision: control.Allow, By: control.ByThisDesktop}); err != nil {
		t.Fatalf("answering the approval that waited through the run: %v", err)
	}
	if d := result(t, decision); d.err != nil || !d.answer.Allow || d.answer.By != approvals.ByPerson {
		t.Errorf("Decide = %+v, %v; want allowed by the person", d.answer, d.err)
	}
}
