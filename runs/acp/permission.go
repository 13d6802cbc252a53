package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/runs"
)

// ask answers one session/request_permission. A request for another session than the
// run's is refused as invalid; one that comes once the run is being stopped is answered
// "cancelled", as the protocol asks of a client that cancelled the turn. In an ask run a
// request to edit, delete or move is refused without asking anyone. Any other request is
// put to segwi's approvals server, with the run's token, as Claude Code's approval tool
// puts a call: a person, a trusted rule or the timeout answers, and the answer picks the
// agent's allow-once or reject-once option, never an "always" one.
func (s *session) ask(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	s.mu.Lock()
	id, stopped := s.sessionID, s.stopped
	s.mu.Unlock()
	if id == "" || p.SessionId != id {
		return acpsdk.RequestPermissionResponse{}, acpsdk.NewInvalidParams(map[string]string{"sessionId": fmt.Sprintf("%q is not this client's session", string(p.SessionId))})
	}
	cancelled := acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}
	if stopped {
		s.out.status(fmt.Sprintf("%s asked permission for tool call %s after the run was stopped: answered cancelled", s.name, p.ToolCall.ToolCallId))
		return cancelled, nil
	}
	tc := p.ToolCall
	if emptyInput(tc.RawInput) && !hasDiff(tc.Content) {
		s.waitAnnounced(ctx, tc.ToolCallId)
	}
	call := s.noteCall(tc.ToolCallId, tc.Kind, tc.Title, tc.RawInput, tc.Content)
	s.mu.Lock()
	c := *call
	announce := !call.shown
	call.shown = true
	s.mu.Unlock()
	allowOnce, rejectOnce := options(p.Options)
	deny := func(why string) (acpsdk.RequestPermissionResponse, error) {
		if rejectOnce == "" {
			s.out.status(why + "; the agent offered no reject-once option: answered cancelled")
			return cancelled, nil
		}
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(rejectOnce)}, nil
	}
	name, input := callFor(c.kind, c.title, c.rawInput, c.content)
	if s.kind == runs.KindAsk && changesFiles(c.kind) {
		s.out.write(line{Refused: &refusal{ToolCallID: string(tc.ToolCallId), Tool: name, Input: input,
			Why: fmt.Sprintf("an ask run changes nothing: segwi refuses every %s request of an ACP agent in it", c.kind)}})
		return deny("refused in an ask run")
	}
	if s.reg == nil {
		s.out.status("no approvals server is wired for this run: the request is denied")
		return deny("no approvals server")
	}
	if announce {
		// The agent asked about a call it had not announced with its input: the request
		// says what it is, and the run's record shows it before it is put to a person.
		s.out.write(line{Asked: &askedCall{ToolCallID: string(tc.ToolCallId), Tool: name, Input: input}})
	}
	a, err := askSegwi(ctx, s.reg, name, input, string(tc.ToolCallId))
	switch {
	case err != nil:
		s.out.status(fmt.Sprintf("could not ask segwi's approvals server about tool call %s: %v: denied", tc.ToolCallId, err))
		return deny("the approvals server could not be asked")
	case a.Behavior != "allow":
		resp, err := deny("denied")
		if a.Message != "" {
			// ACP carries no reason with an option; an agent that reads _meta finds it.
			resp.Meta = map[string]any{"segwi": map[string]any{"message": a.Message}}
		}
		return resp, err
	case allowOnce == "":
		s.out.status(fmt.Sprintf("tool call %s was allowed, but %s offered no allow-once option (segwi never picks an \"always\" one): denied", tc.ToolCallId, s.name))
		return deny("no allow-once option")
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(allowOnce)}, nil
}

// options returns the ids of the first allow-once and reject-once options, "" for none.
func options(opts []acpsdk.PermissionOption) (allowOnce, rejectOnce acpsdk.PermissionOptionId) {
	for _, o := range opts {
		switch {
		case o.Kind == acpsdk.PermissionOptionKindAllowOnce && allowOnce == "":
			allowOnce = o.OptionId
		case o.Kind == acpsdk.PermissionOptionKindRejectOnce && rejectOnce == "":
			rejectOnce = o.OptionId
		}
	}
	return allowOnce, rejectOnce
}

// changesFiles says whether a tool call of kind changes files: what an ask run refuses.
func changesFiles(kind acpsdk.ToolKind) bool {
	return kind == acpsdk.ToolKindEdit || kind == acpsdk.ToolKindDelete || kind == acpsdk.ToolKindMove
}

// callFor is a tool call as segwi's approvals and records know calls: an execute call
// whose command is one string is a Bash call ({"command", "description"}), which the
// trusted commands can allow; a call whose content is one diff is an Edit ({"file_path",
// "old_string", "new_string"}) or, with no old text, a Write ({"file_path", "content"}),
// which the approval's view shows as a change; any other is the call's kind with its
// title, locations and raw input, for a person to read.
func callFor(kind acpsdk.ToolKind, title string, rawInput any, content []acpsdk.ToolCallContent) (string, json.RawMessage) {
	if kind == acpsdk.ToolKindExecute {
		if m, ok := rawInput.(map[string]any); ok {
			if cmd, ok := m["command"].(string); ok {
				in := map[string]string{"command": cmd}
				if d, ok := m["description"].(string); ok && d != "" {
					in["description"] = d
				}
				return "Bash", mustJSON(in)
			}
		}
	}
	var diffs []*acpsdk.ToolCallContentDiff
	for _, c := range content {
		if c.Diff != nil {
			diffs = append(diffs, c.Diff)
		}
	}
	if len(diffs) == 1 {
		d := diffs[0]
		if d.OldText == nil {
			return "Write", mustJSON(map[string]string{"file_path": d.Path, "content": d.NewText})
		}
		return "Edit", mustJSON(map[string]string{"file_path": d.Path, "old_string": *d.OldText, "new_string": d.NewText})
	}
	name := string(kind)
	if name == "" {
		name = "other"
	}
	in := map[string]any{"title": title}
	if rawInput != nil && !emptyInput(rawInput) {
		in["rawInput"] = rawInput
	}
	if len(diffs) > 1 {
		in["diffs"] = diffs
	}
	return name, mustJSON(in)
}

// emptyInput says whether a raw input says nothing: null, or an empty object.
func emptyInput(v any) bool {
	m, ok := v.(map[string]any)
	return v == nil || ok && len(m) == 0
}

func hasDiff(content []acpsdk.ToolCallContent) bool {
	for _, c := range content {
		if c.Diff != nil {
			return true
		}
	}
	return false
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// approveAnswer is the approval tool's answer (approvals.AnswerJSON).
type approveAnswer struct {
	Behavior  string `json:"behavior"`
	Message   string `json:"message"`
	Interrupt bool   `json:"interrupt"`
}

// askSegwi puts a call to segwi's approvals server as Claude Code's approval tool does:
// an MCP tools/call of approve, with the run's bearer token. It returns when the server
// answers (a person, a rule, the timeout, the run's end), or when ctx is done.
func askSegwi(ctx context.Context, reg *approvals.Registration, tool string, input json.RawMessage, toolUseID string) (approveAnswer, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "segwi-acp", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   reg.URL,
		HTTPClient: &http.Client{Transport: bearer(reg.Token)},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		return approveAnswer{}, fmt.Errorf("connecting: %w", err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: approvals.ToolName, Arguments: map[string]any{
		"tool_name": tool, "input": input, "tool_use_id": toolUseID,
	}})
	if err != nil {
		return approveAnswer{}, fmt.Errorf("tools/call: %w", err)
	}
	if res.IsError || len(res.Content) != 1 {
		return approveAnswer{}, fmt.Errorf("tools/call: an answer of %d blocks (error %v)", len(res.Content), res.IsError)
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return approveAnswer{}, fmt.Errorf("tools/call: an answer of %T", res.Content[0])
	}
	var a approveAnswer
	if err := json.Unmarshal([]byte(text.Text), &a); err != nil {
		return approveAnswer{}, fmt.Errorf("reading the answer %q: %w", strings.TrimSpace(text.Text), err)
	}
	return a, nil
}

// bearer sends the run's token with each request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
