package runs

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// FormatEvent renders e as one line for a person to read, as `segwi run` and
// `segwi runs events` print it: the time, a short label, and what happened. Newlines in
// texts show as "⏎" and long texts are shortened; the JSON form (json.Marshal of the
// event) has everything.
func FormatEvent(e Event) string {
	label, detail := describe(e)
	return fmt.Sprintf("%s %-9s %s", e.Time.Local().Format("15:04:05"), label, oneLine(detail, 400))
}

func describe(e Event) (label, detail string) {
	switch e.Type {
	case EventInit:
		in := e.Init
		if in == nil {
			return "session", e.SessionID
		}
		var servers []string
		for _, s := range in.MCPServers {
			servers = append(servers, s.Name+" "+s.Status)
		}
		d := fmt.Sprintf("started: model %s, %s mode, %d tools", orDash(in.Model), orDash(in.PermissionMode), len(in.Tools))
		if len(servers) > 0 {
			d += ", MCP " + strings.Join(servers, ", ")
		}
		return "session", d
	case EventText:
		return "claude", e.Text
	case EventToolCall:
		return "tool", e.ToolName + ": " + inputSummary(e.Input)
	case EventToolResult:
		if e.IsError {
			return "error", e.Text
		}
		return "output", e.Text
	case EventRefusal:
		who := e.Source
		switch e.Source {
		case "hook":
			who = "a hook"
		case "user_reject":
			who = "the approver"
		case "disallowed":
			who = "not allowed in this run"
		case "classifier":
			who = "auto mode"
		}
		return "refused", fmt.Sprintf("%s (%s): %s", orDash(e.ToolName), who, e.Text)
	case EventStatus:
		if e.Text == "" {
			return "status", e.Subtype
		}
		return "status", e.Subtype + ": " + e.Text
	case EventResult:
		res := e.Result
		if res == nil {
			return "result", e.Subtype
		}
		d := fmt.Sprintf("%s after %d turns, $%.4f", e.Subtype, res.NumTurns, res.CostUSD)
		if n := len(res.Denials); n > 0 {
			d += fmt.Sprintf(", %d refused", n)
		}
		if res.TerminalReason != "" {
			d += ", " + res.TerminalReason
		}
		return "result", d
	case EventRaw:
		if len(e.Raw) > 0 {
			return "event", string(e.Raw)
		}
		return "event", e.Text
	case EventPrompt:
		return "you", e.Text
	case EventOutput:
		return "stderr", e.Text
	case EventState:
		if e.State == nil {
			return "state", ""
		}
		d := string(e.State.To)
		if e.State.Reason != "" {
			d += ": " + e.State.Reason
		}
		return "state", d
	case EventExit:
		if e.Exit == nil {
			return "exit", ""
		}
		if e.Exit.Signal != "" {
			return "exit", fmt.Sprintf("code %d (%s)", e.Exit.Code, e.Exit.Signal)
		}
		return "exit", fmt.Sprintf("code %d", e.Exit.Code)
	case EventApprovalRequest:
		d := e.ToolName + ": " + inputSummary(e.Input)
		if e.Approval != nil && e.Approval.Note != "" {
			d += " (" + e.Approval.Note + ")"
		}
		return "approve?", d
	case EventApprovalAnswer:
		a := e.Approval
		if a == nil {
			return "approval", ""
		}
		verb := "denied"
		switch {
		case a.Allow:
			verb = "allowed"
		case a.Interrupt:
			verb = "denied and stopped"
		}
		d := fmt.Sprintf("%s by %s after %s", verb, a.By, time.Duration(a.WaitedMS)*time.Millisecond)
		if a.Rule != "" {
			d += " (rule " + a.Rule + ")"
		}
		if a.Message != "" {
			d += ": " + a.Message
		}
		return "approval", d
	case EventPush:
		a := e.Push
		if a == nil {
			return "push", e.Text
		}
		d := string(a.Outcome)
		if a.Branch != "" {
			d += " " + a.Branch
			if a.Remote != "" {
				d += " to " + a.Remote
			}
		}
		if a.Commit != "" {
			d += " at " + a.Commit[:min(len(a.Commit), 12)]
		}
		return "push", d + ": " + a.Message
	case EventDropped:
		return "dropped", fmt.Sprintf("%d events not shown (too slow to keep up); the run's events file has them", e.Dropped)
	}
	return string(e.Type), e.Text
}

// inputSummary shows a tool call's input the way a person thinks of it: the command of a
// Bash call, the file of a Read or Edit, else the input's JSON.
func inputSummary(input json.RawMessage) string {
	var fields map[string]any
	if json.Unmarshal(input, &fields) == nil {
		for _, key := range []string{"command", "file_path", "notebook_path", "pattern", "url", "query", "path"} {
			if v, ok := fields[key].(string); ok {
				return v
			}
		}
	}
	return string(input)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine shows s on one line, at most max runes.
func oneLine(s string, max int) string {
	s = strings.TrimRight(s, "\r\n")
	s = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "", "\x1b", "␛").Replace(s)
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}
