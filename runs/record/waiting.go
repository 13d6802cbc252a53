package record

// WaitReason says what a waiting run (StateWaiting) waits for: a front end shows the
// two apart, and a person answers them in different places.
type WaitReason string

// The reasons a run waits.
const (
	// WaitApproval: an approval request of the run waits for a person's answer.
	WaitApproval WaitReason = "approval"
	// WaitReply: Claude Code finished its turn and the run, kept open (Spec.KeepOpen),
	// waits for the person's next message, until the idle timeout ends it.
	WaitReply WaitReason = "reply"
	// WaitBudget: a turn ended at or over the run's budget, and the run waits for the
	// person to raise it (Run.RaiseBudget) or stop it; no further turn starts meanwhile.
	WaitBudget WaitReason = "budget"
)

// stateText is StateText of a run in state s, waiting for w.
func stateText(s State, w WaitReason) string {
	switch {
	case s != StateWaiting:
		return string(s)
	case w == WaitReply:
		return WaitingForReply
	case w == WaitBudget:
		return WaitingAtBudget
	}
	return "waiting for approval"
}

// The reasons a waiting run's state gives, for a person.
const (
	WaitingForApproval = "an approval request waits for a person"
	WaitingForReply    = "waiting for your reply"
	WaitingAtBudget    = "budget reached"
)
