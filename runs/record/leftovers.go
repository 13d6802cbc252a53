package record

// EventLeftover is segwi's own event for a process a run left behind when it ended (one
// that left Claude Code's process group, or outlived Claude Code), and what segwi did
// about it; Event.Process says which process.
const EventLeftover EventType = "leftover"

// ProcessInfo names a process a run left behind.
type ProcessInfo struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`         // its command line, redacted
	Killed  bool   `json:"killed"`          // segwi killed it; false when it could not
	Error   string `json:"error,omitempty"` // why it could not
}
