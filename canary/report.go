package canary

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/runs"
)

// The checks of a canary, in the order the report lists them.
const (
	CheckSession   = "session start"      // an init event
	CheckText      = "assistant text"     // a text event
	CheckToolCall  = "tool call"          // a tool-call event
	CheckResult    = "tool result"        // a tool-result event of a call that ran and did not fail
	CheckRefusal   = "refusal"            // a refusal event
	CheckTurnEnd   = "result"             // a result event
	CheckGuard     = "guard refusal"      // the guard command's Bash call refused by a hook
	CheckCompleted = "run completed"      // the run ended succeeded
	CheckUnchanged = "checkout unchanged" // git status and HEAD the same before and after
)

// Check is one thing the canary looks for, and what it found.
type Check struct {
	Name   string
	Passed bool
	// Proof says what shows it: the event that proves a passed check ("event 7 refused:
	// Bash (a hook): ..."), or what was found instead when it failed, and what to look at.
	Proof string
}

// Report is the outcome of a canary that ran: each check, and the run it looked at.
type Report struct {
	RunID    string
	State    runs.State // the run's final state
	Checkout string     // where the run worked
	// Clone names the repository whose temporary clone the run worked in (removed
	// afterwards); empty when it worked in a checkout given to it.
	Clone        string
	GuardDeny    string // the guard deny file
	GuardCommand string // its first command: the refusal probe
	Checks       []Check
}

// Passed reports whether every check passed.
func (r Report) Passed() bool {
	if len(r.Checks) == 0 {
		return false
	}
	for _, c := range r.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// Failed returns the checks that did not pass.
func (r Report) Failed() []Check {
	var failed []Check
	for _, c := range r.Checks {
		if !c.Passed {
			failed = append(failed, c)
		}
	}
	return failed
}

// String renders the report for a person: a verdict line, the run, and one line per check.
func (r Report) String() string {
	var b strings.Builder
	passed := len(r.Checks) - len(r.Failed())
	verdict := "PASSED"
	if !r.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "segwi canary %s: %d of %d checks passed\n", verdict, passed, len(r.Checks))
	where := r.Checkout
	if r.Clone != "" {
		where += " (a temporary clone of " + r.Clone + ", removed)"
	}
	fmt.Fprintf(&b, "run %s, %s, in %s\n", r.RunID, r.State, where)
	fmt.Fprintf(&b, "guard command %q, the first in %s\n", r.GuardCommand, r.GuardDeny)
	width := 0
	for _, c := range r.Checks {
		width = max(width, len(c.Name))
	}
	for _, c := range r.Checks {
		mark := "ok  "
		if !c.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %-*s  %s\n", mark, width, c.Name, c.Proof)
	}
	if !r.Passed() {
		fmt.Fprintf(&b, "segwi runs events %s shows everything the run did.\n", r.RunID)
	}
	return b.String()
}

// outcome is what evaluate looks at: the run's events, its end, and the checkout's
// snapshots.
type outcome struct {
	events        []runs.Event
	info          runs.Info
	guard         string // the guard command
	guardDeny     string
	before, after snapshot
	afterErr      error // the checkout could not be looked at after the run
}

// evaluate makes the checks of a canary from what its run did.
func evaluate(o outcome) []Check {
	first := func(pred func(runs.Event) bool) (runs.Event, bool) {
		for _, e := range o.events {
			if pred(e) {
				return e, true
			}
		}
		return runs.Event{}, false
	}
	ofType := func(name string, t runs.EventType, missing string) Check {
		if e, ok := first(func(e runs.Event) bool { return e.Type == t }); ok {
			return Check{Name: name, Passed: true, Proof: proof(e)}
		}
		return Check{Name: name, Proof: missing}
	}
	checks := []Check{
		ofType(CheckSession, runs.EventInit, "no session start (init event): Claude Code did not start a session"),
		ofType(CheckText, runs.EventText, "no assistant text"),
		ofType(CheckToolCall, runs.EventToolCall, "no tool call"),
	}
	if e, ok := first(func(e runs.Event) bool { return e.Type == runs.EventToolResult && !e.IsError }); ok {
		checks = append(checks, Check{Name: CheckResult, Passed: true, Proof: proof(e)})
	} else if e, ok := first(func(e runs.Event) bool { return e.Type == runs.EventToolResult }); ok {
		checks = append(checks, Check{Name: CheckResult, Proof: "no tool ran without an error; the first result: " + proof(e)})
	} else {
		checks = append(checks, Check{Name: CheckResult, Proof: "no tool result"})
	}
	checks = append(checks,
		ofType(CheckRefusal, runs.EventRefusal, "no refusal"),
		ofType(CheckTurnEnd, runs.EventResult, "no result event: the turn never ended"),
		guardCheck(o),
		completedCheck(o),
		unchangedCheck(o),
	)
	return checks
}

// guardCheck looks for the guard command's Bash call and its refusal by a hook.
func guardCheck(o outcome) Check {
	c := Check{Name: CheckGuard}
	calls := map[string]runs.Event{} // the guard command's Bash calls, by tool_use id
	var order []string
	for _, e := range o.events {
		if e.Type == runs.EventToolCall && e.ToolName == "Bash" && strings.Contains(bashCommand(e.Input), o.guard) {
			calls[e.ToolUseID] = e
			order = append(order, e.ToolUseID)
		}
	}
	if len(order) == 0 {
		c.Proof = fmt.Sprintf("the agent never ran the guard command %q with the Bash tool", o.guard)
		return c
	}
	var other runs.Event
	found := false
	for _, e := range o.events {
		if _, ok := calls[e.ToolUseID]; !ok || (e.Type != runs.EventRefusal && e.Type != runs.EventToolResult) {
			continue
		}
		if e.Type == runs.EventRefusal && e.Source == "hook" {
			c.Passed = true
			c.Proof = cut(fmt.Sprintf("event %d refused Bash %q (a hook): %s", e.Seq,
				bashCommand(calls[e.ToolUseID].Input), hookCommand.ReplaceAllString(oneLine(e.Text), "$1")))
			return c
		}
		if !found {
			other, found = e, true
		}
	}
	hint := fmt.Sprintf("is your guard hook a PreToolUse hook in ~/.claude/settings.json, and does it refuse "+
		"the commands listed in %s?", o.guardDeny)
	switch {
	case !found:
		c.Proof = fmt.Sprintf("the guard command's call (%s) got no result", proof(calls[order[0]]))
	case other.Type == runs.EventRefusal:
		c.Proof = fmt.Sprintf("refused by %s, not by a hook: %s; %s", other.Source, proof(other), hint)
	default:
		c.Proof = fmt.Sprintf("the guard command %q ran, nothing refused it: %s; %s", o.guard, proof(other), hint)
	}
	return c
}

func completedCheck(o outcome) Check {
	c := Check{Name: CheckCompleted}
	var last runs.Event
	for _, e := range o.events {
		if e.Type == runs.EventResult {
			last = e
		}
	}
	if o.info.State == runs.StateSucceeded {
		c.Passed = true
		c.Proof = "succeeded"
		if last.Type != "" {
			c.Proof += ", " + proof(last)
		}
		return c
	}
	c.Proof = fmt.Sprintf("the run ended %s", o.info.State)
	if o.info.Reason != "" {
		c.Proof += ": " + o.info.Reason
	}
	if last.Type != "" {
		c.Proof += "; last " + proof(last)
	}
	return c
}

func unchangedCheck(o outcome) Check {
	c := Check{Name: CheckUnchanged}
	switch {
	case o.afterErr != nil:
		c.Proof = "the checkout could not be looked at after the run: " + o.afterErr.Error()
	case o.before.Head != o.after.Head:
		c.Proof = fmt.Sprintf("HEAD moved from %s to %s", shortHash(o.before.Head), shortHash(o.after.Head))
	case o.before.Status != o.after.Status:
		c.Proof = "git status changed: " + statusDiff(o.before.Status, o.after.Status)
	case o.before.Tree != o.after.Tree:
		c.Proof = "a file already changed before the run changed again: " + strings.ReplaceAll(strings.TrimSpace(o.after.Status), "\n", ", ")
	default:
		c.Passed = true
		c.Proof = "git status and HEAD " + shortHash(o.after.Head) + " are the same before and after"
		if o.after.Status == "" {
			c.Proof = "git status clean and HEAD " + shortHash(o.after.Head) + " the same before and after"
		}
	}
	return c
}

// statusDiff names the git status lines that appeared and went away.
func statusDiff(before, after string) string {
	in := func(s, line string) bool {
		for l := range strings.Lines(s) {
			if strings.TrimRight(l, "\n") == line {
				return true
			}
		}
		return false
	}
	var parts []string
	for l := range strings.Lines(after) {
		if l = strings.TrimRight(l, "\n"); !in(before, l) {
			parts = append(parts, "now "+strconv.Quote(l))
		}
	}
	for l := range strings.Lines(before) {
		if l = strings.TrimRight(l, "\n"); !in(after, l) {
			parts = append(parts, "no longer "+strconv.Quote(l))
		}
	}
	return strings.Join(parts, ", ")
}

func shortHash(h string) string {
	if h == "" {
		return "(no commit)"
	}
	return gitcmd.Short(h)
}

// bashCommand returns the command of a Bash call's input.
func bashCommand(input json.RawMessage) string {
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	return in.Command
}

// proofWidth is where an event's text is cut in a report line.
const proofWidth = 140

// proof describes an event in a few words: its number in the run, and the line `segwi
// runs events` prints for it, without the time.
func proof(e runs.Event) string {
	line := runs.FormatEvent(e)
	if _, rest, ok := strings.Cut(line, " "); ok {
		line = rest // the time
	}
	line = hookCommand.ReplaceAllString(oneLine(line), "$1")
	return cut(fmt.Sprintf("event %d %s", e.Seq, line))
}

// hookCommand matches the hook's command line in Claude Code's text for a hook's
// refusal ("PreToolUse:Bash hook error: [COMMAND]: STDERR"), which says less than the
// hook's own words after it.
var hookCommand = regexp.MustCompile(`(\S+ hook error: )\[.*?\]: `)

// oneLine puts s on one line, with runs of white space as one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// cut shortens s to proofWidth runes.
func cut(s string) string {
	if utf8.RuneCountInString(s) > proofWidth {
		return string([]rune(s)[:proofWidth-1]) + "…"
	}
	return s
}
