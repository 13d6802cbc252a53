package runs

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/await"
)

func TestFollowUpsWhileTheRunIsKeptOpen(t *testing.T) {
	m, _ := testManager(t, nil)
	r := start(t, m, Spec{Prompt: "fake:success", KeepOpen: true})
	evs, cancel := r.Subscribe()
	defer cancel()
	results := 0
	for results < 1 {
		if e := <-evs; e.Type == EventResult {
			results++
		}
	}
	if err := r.Send("and now this"); err != nil {
		t.Fatalf("Send: %v", err)
	}
	var followUp string
	for results < 2 {
		e := <-evs
		if e.Type == EventText && strings.HasPrefix(e.Text, "follow-up:") {
			followUp = e.Text
		}
		if e.Type == EventResult {
			results++
		}
	}
	if followUp != "follow-up: and now this" {
		t.Errorf("follow-up answer = %q, want %q", followUp, "follow-up: and now this")
	}
	await.For(t, 10*time.Second, "the run to wait for your reply after the follow-up's result (kept open)", func() bool {
		return r.State() == StateWaiting && r.Info().Waiting == WaitReply
	})
	r.CloseInput()
	if info := wait(t, r); info.State != StateSucceeded {
		t.Errorf("state = %s (%s), want succeeded", info.State, info.Reason)
	}
	if err := r.Send("too late"); !errors.Is(err, ErrInputClosed) {
		t.Errorf("Send after the end: got %v, want ErrInputClosed", err)
	}
	for range evs { // the channel closes after the last event
	}
}
