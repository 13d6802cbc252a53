// Package await is how segwi's tests wait for something to happen: For checks a condition
// until it holds or a deadline passes, and then fails the test saying what it waited for.
// A test never sleeps a fixed time and then asserts; it waits for the state it needs.
//
//	await.For(t, 10*time.Second, "the run to be running", func() bool {
//		return r.State() == runs.StateRunning
//	})
//
// A condition that can say what it saw instead returns an error, and the last one ends the
// failure message:
//
//	await.For(t, 20*time.Second, "the settings window", func() error {
//		if title := activeTitle(); title != "segwi settings" {
//			return fmt.Errorf("the active window is %q", title)
//		}
//		return nil
//	})
package await

import (
	"testing"
	"time"
)

// Cond is what For waits on: a func() bool that reports whether the awaited state holds, or a
// func() error that returns nil once it holds and otherwise says what holds instead.
type Cond interface {
	func() bool | func() error
}

// maxPause is the longest pause between two checks of a condition. The pauses start at a
// millisecond and double up to it, so a short wait ends soon after its condition holds and a
// long one (a window appearing, a process starting) does not check a costly condition (a
// D-Bus call, an xdotool process) hundreds of times a second.
const maxPause = 20 * time.Millisecond

// For checks cond at once and then after each pause until it holds, and returns then. When
// within passes first it fails t with "timed out after WITHIN waiting for WHAT", followed by
// cond's last error when cond returns one. cond runs on the caller's goroutine, so it may
// fail t itself to end the wait early, for example when the process it waits on has exited.
func For[C Cond](t testing.TB, within time.Duration, what string, cond C) {
	t.Helper()
	check := func() (bool, error) {
		switch c := any(cond).(type) {
		case func() bool:
			return c(), nil
		case func() error:
			err := c()
			return err == nil, err
		}
		panic("unreachable: Cond is func() bool or func() error")
	}
	deadline := time.Now().Add(within)
	pause := time.Millisecond
	for {
		ok, err := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("timed out after %s waiting for %s: %v", within, what, err)
			} else {
				t.Fatalf("timed out after %s waiting for %s", within, what)
			}
			return
		}
		time.Sleep(pause)
		pause = min(2*pause, maxPause)
	}
}

// Recv waits for a value on ch and returns it. When within passes first it fails t with
// "timed out after WITHIN waiting for WHAT".
func Recv[T any](t testing.TB, within time.Duration, what string, ch <-chan T) T {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case v := <-ch:
		return v
	case <-timer.C:
		t.Fatalf("timed out after %s waiting for %s", within, what)
		var zero T
		return zero
	}
}
