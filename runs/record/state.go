package record

// State is where a run is in its life:
//
//	queued -> starting -> running <-> waiting -> stopping ->
//	    succeeded | failed | stopped | timed-out | interrupted
type State string

// The run states.
const (
	StateQueued      State = "queued"      // waiting for a free slot or for its checkout
	StateStarting    State = "starting"    // the process is being launched
	StateRunning     State = "running"     // Claude Code is working
	StateWaiting     State = "waiting"     // waiting for a person: an approval, or their reply (Info.Waiting says which)
	StateStopping    State = "stopping"    // stopped or timed out; waiting for the process to end
	StateSucceeded   State = "succeeded"   // every turn gave a successful result and the process exited 0
	StateFailed      State = "failed"      // it could not start, a turn failed, or the process exited otherwise
	StateStopped     State = "stopped"     // a person (or segwi quitting) stopped it
	StateTimedOut    State = "timed-out"   // it ran longer than maxDuration or was idle longer than idleTimeout
	StateInterrupted State = "interrupted" // segwi itself ended while it ran
)

// Final says whether s is an end state: the run will not change again.
func (s State) Final() bool {
	switch s {
	case StateSucceeded, StateFailed, StateStopped, StateTimedOut, StateInterrupted:
		return true
	}
	return false
}

// Active says whether a run in state s holds a slot (it has, or is getting, a process).
func (s State) Active() bool {
	switch s {
	case StateStarting, StateRunning, StateWaiting, StateStopping:
		return true
	}
	return false
}
