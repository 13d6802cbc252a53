package record

// EventCapped marks where events.jsonl reached MaxEventsBytes, in place of the first bulk
// event it left out (with that event's sequence number); Text says what is kept after it.
const EventCapped EventType = "capped"
