// Package runs is a run's life: it launches an agent in a checkout, feeds it the prompt
// and follow-ups, turns what it prints into typed events, records them (redacted) under
// the state folder, enforces the limits (how many runs at once, one writing run per
// checkout, wall-clock and idle timeouts) and stops a run in two steps, reaching its whole
// process group. The agent comes through a Runtime (runtime.go): how to start it, talk to
// it and read it. Claude Code's is package runs/claude, which this package does not
// import; segwi's core gives the Manager that one.
//
// A Manager owns the runs of one segwi process. Start queues a run and returns at once;
// the run's Subscribe publishes its events to the run window or the CLI printer, and the
// Manager's Subscribe publishes every run's state changes to the tray. The record of a
// run, live or past, is read with List, Load and ReadEvents. A Narrator puts events in
// words, the same for the command line (Line, one readable line) and the run window
// (Words); Event.AppendJSON is their JSON form, as events.jsonl holds it. `segwi run` and
// `segwi runs` are thin layers over these.
//
// A run ends when segwi closes its agent's input. By default that happens as soon as
// every message sent has its result (the prompt and any follow-up sent before the result
// came); Spec.KeepOpen keeps the input open after a result, for a person who may send a
// follow-up, until CloseInput, Stop, or the idle timeout (which then ends the run
// normally, as CloseInput would).
//
// A run stops in two steps, SIGTERM then SIGKILL, on a second Stop or once
// Config.StopGrace has passed; a Stop that comes after the agent exited changes nothing.
// The stop is one phase value with its moves in one place (stop.go).
//
// A run has one owner, a goroutine that holds its state (its phase, its input, its
// process, its pending approvals, its timers) and carries out every change asked of it;
// the work that waits runs on goroutines of its own that report to the owner. Start takes
// a context: when it ends, the run stops as Stop does.
//
// Each file holds one concern: runtime.go the seam to the agent (Runtime, Launch,
// Session); process.go
// the agent's process as segwi starts it; run.go is a run's API (Send, CloseInput, the
// approvals server's hooks); owner.go its owner goroutine and what it carries out; launch.go the
// steps that wait, from the launch to the agent's process and from its exit to what it
// left swept, and the run's end (finish); writer.go the writes to the agent's input;
// input.go where the conversation stands (input.next); stop.go the stop phase
// (phase.next); limits.go the limits as deadlines (maxDuration, idleTimeout, the stop
// grace); waiting.go what a waiting run waits for; base.go the base it records before
// Claude Code starts (where its checkout stood, see package changes); leftovers.go the
// processes a run leaves, killed before its checkout is free; output.go the output's
// reader and the cut of long lines; fanout.go the journal:
// events recorded and published to subscribers; manager.go the queue and the slots;
// checkoutlock.go the lock of a checkout a run holds; recorder.go a live run's record,
// record.go writing run.json, append.go adding to an ended run's record, interrupted.go
// marking the runs of a segwi that is gone.
//
// What a run's record is (Info, Event and their parts, State, Kind, Budget, Usage), reading
// it back (Load, List, ReadEvents, the runs index behind Summaries) and its words (Narrator,
// Story) live in package record, a leaf that the window program links to show runs without
// linking this engine; records.go gives them their names here, so that a caller of this
// package need not know. The events a runtime makes of what it cannot read
// (record.OutputEvent, RawEvent) and a Subscriber's channel are there too.
//
// What a run leaves running is killed before its checkout is free: cgroup.go keeps a run's
// processes in a cgroup of its own where the system allows one (cgroup_linux.go, and
// cgroup_home_linux.go for where segwi may make it), and leftovers.go finds them by a sweep
// of /proc where it does not.
//
// Nothing in this package imports settings or a UI: the caller fills Config.
package runs
