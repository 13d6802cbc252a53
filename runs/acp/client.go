package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/segwi/segwi/runs"
)

// client is segwi's side of the protocol for one session: it takes the agent's updates
// and permission requests, and refuses the file system and terminal methods, which segwi
// does not offer (initialize says so).
type client struct{ s *session }

// maxCalls bounds the tool calls a session remembers; beyond it the oldest are forgotten.
const maxCalls = 4096

// SessionUpdate writes the update as a line of the output: the agent's message and
// thought chunks gathered into text, the rest as the agent sent it.
func (c client) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	s := c.s
	s.mu.Lock()
	replaying := s.replaying
	s.mu.Unlock()
	if replaying {
		return nil // the earlier runs recorded it
	}
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			s.out.chunk(t.Text, false)
			return nil
		}
	case u.AgentThoughtChunk != nil:
		if t := u.AgentThoughtChunk.Content.Text; t != nil {
			s.out.chunk(t.Text, true)
			return nil
		}
	case u.UserMessageChunk != nil:
		return nil // the person's own words, which the run recorded as they were sent (or replayed by session/load)
	case u.ToolCall != nil:
		tc := u.ToolCall
		s.noteCall(tc.ToolCallId, &tc.Kind, &tc.Title, tc.RawInput, tc.Content)
	case u.ToolCallUpdate != nil:
		tu := u.ToolCallUpdate
		s.noteCall(tu.ToolCallId, tu.Kind, tu.Title, tu.RawInput, tu.Content)
	case u.UsageUpdate != nil:
		if cost := u.UsageUpdate.Cost; cost != nil && cost.Currency == "USD" {
			s.mu.Lock()
			s.costUSD = cost.Amount
			s.mu.Unlock()
		}
	}
	b, err := json.Marshal(u)
	if err != nil {
		s.out.status(fmt.Sprintf("an update of the agent could not be kept: %v", err))
		return nil
	}
	s.out.write(line{Update: b})
	return nil
}

// noteCall remembers what the agent says of a tool call, for its permission request.
func (s *session) noteCall(id acpsdk.ToolCallId, kind *acpsdk.ToolKind, title *string, rawInput any, content []acpsdk.ToolCallContent) *toolCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	tc := s.calls[id]
	if tc == nil {
		if len(s.calls) >= maxCalls {
			clear(s.calls)
		}
		tc = &toolCall{}
		s.calls[id] = tc
	}
	if kind != nil && *kind != "" {
		tc.kind = *kind
	}
	if title != nil && *title != "" {
		tc.title = *title
	}
	if rawInput != nil && !emptyInput(rawInput) {
		tc.rawInput = rawInput
		tc.shown = true
	}
	if len(content) > 0 {
		tc.content = content
		if hasDiff(content) {
			tc.shown = true
		}
	}
	close(s.noted)
	s.noted = make(chan struct{})
	return tc
}

// announceWait bounds the wait of a permission request for the announcement of its call:
// the SDK hands requests and notifications to different goroutines, so a request can be
// handled before the update that came ahead of it.
const announceWait = 2 * time.Second

// waitAnnounced waits until the agent has announced tool call id with its input or its
// diff, for at most announceWait or until ctx is done; the request then goes with what
// it says itself.
func (s *session) waitAnnounced(ctx context.Context, id acpsdk.ToolCallId) {
	timer := time.NewTimer(announceWait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		tc, noted := s.calls[id], s.noted
		s.mu.Unlock()
		if tc != nil && tc.shown {
			return
		}
		select {
		case <-noted:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// RequestPermission answers a permission request: see ask.
func (c client) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	return c.s.ask(ctx, p)
}

// errNotOffered refuses a method of a capability segwi does not offer.
func errNotOffered(method string) error {
	return acpsdk.NewInvalidRequest(map[string]string{"error": method + " is not offered: segwi gives an agent no file system or terminal of its own (clientCapabilities)"})
}

func (client) ReadTextFile(context.Context, acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	return acpsdk.ReadTextFileResponse{}, errNotOffered("fs/read_text_file")
}

func (client) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, errNotOffered("fs/write_text_file")
}

func (client) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, errNotOffered("terminal/create")
}

func (client) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, errNotOffered("terminal/kill")
}

func (client) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, errNotOffered("terminal/output")
}

func (client) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, errNotOffered("terminal/release")
}

func (client) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, errNotOffered("terminal/wait_for_exit")
}

var _ runs.Lingering = (*session)(nil)
var _ runs.Canceler = (*session)(nil)
