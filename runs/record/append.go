package record

// EventPush is segwi's own event for an attempt to push a run's branch (segwi push, the
// run window's Push button), refusals included; Event.Push holds the attempt and
// Event.Text its message. It is appended to the run's events after the run ended, by
// AppendEvent.
const EventPush EventType = "push"
