package approvals

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/segwi/segwi/internal/lib/visible"
)

// Describe names the run the way a person recognises it: "build run in web", by the
// repository's name, else the checkout's folder.
func (r RunInfo) Describe() string {
	name := "run"
	if r.Kind != "" {
		name = r.Kind + " run"
	}
	switch {
	case r.Name != "":
		name += " in " + r.Name
	case r.Checkout != "":
		name += " in " + filepath.Base(filepath.Clean(r.Checkout))
	}
	return name
}

// Tool is the tool the request is for, or "a tool" when Claude Code named none.
func (req Request) Tool() string {
	if req.ToolName == "" {
		return "a tool"
	}
	return req.ToolName
}

// Command is a Bash call's command and its description, when req is one whose input is
// exactly what Claude Code's Bash tool takes (see View); ok is false for any other request.
func (req Request) Command() (command, description string, ok bool) {
	if req.ToolName != "Bash" {
		return "", "", false
	}
	call, err := readBash(req.Input)
	if err != nil {
		return "", "", false
	}
	return call.Command, call.Description, true
}

// Summary is the one line of req that fits in a notification: a Bash call's command, or
// the file, path, URL or pattern another tool works on; empty when there is none.
func (req Request) Summary() string {
	if cmd, _, ok := req.Command(); ok {
		return visible.FirstLine(cmd, 120)
	}
	var fields map[string]any
	if json.Unmarshal(req.Input, &fields) != nil {
		return ""
	}
	for _, key := range []string{"file_path", "notebook_path", "path", "url", "pattern"} {
		if s, ok := fields[key].(string); ok && s != "" {
			return visible.FirstLine(s, 120)
		}
	}
	return ""
}

// Notice is what a desktop notification says of req, its hidden characters escaped (see
// visible.Escape): "The build run in web wants to use Bash: make test".
func (req Request) Notice() string {
	n := fmt.Sprintf("The %s wants to use %s", req.Run.Describe(), req.Tool())
	if s := req.Summary(); s != "" {
		n += ": " + s
	}
	return visible.Escape(n)
}
