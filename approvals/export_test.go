package approvals

import "time"

// SetClock makes b read the time from now.
func SetClock(b *Broker, now func() time.Time) { b.now = now }

// SetToolCallWait makes b wait at most d for a request's tool call to appear.
func SetToolCallWait(b *Broker, d time.Duration) { b.toolCallWait = d }
