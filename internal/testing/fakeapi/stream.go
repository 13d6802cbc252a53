package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Usage is the token usage a reply reports, as the Messages API words it; Claude Code
// turns it into the run's cost (at its own list prices) and its result's usage.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheCreationInputTokens += o.CacheCreationInputTokens
	u.CacheReadInputTokens += o.CacheReadInputTokens
}

// usage is the usage the reply reports to a request whose body has in tokens (a plausible
// count): r.Usage when the script set it.
func (r Reply) usage(in int) Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	return Usage{InputTokens: in, OutputTokens: r.outputTokens()}
}

// message is a whole assistant message, as a non-streamed reply or message_start carries it.
type message struct {
	ID               string            `json:"id"`
	Type             string            `json:"type"`
	Role             string            `json:"role"`
	Model            string            `json:"model"`
	Content          []Block           `json:"content"`
	StopReason       *string           `json:"stop_reason"`
	StopSequence     *string           `json:"stop_sequence"`
	Usage            Usage             `json:"usage"`
	SafeguardResults []safeguardResult `json:"safeguard_results,omitempty"`
}

// safeguardResult is auto mode's classifier result for one reply.
type safeguardResult struct {
	Type   string          `json:"type"`
	Status safeguardStatus `json:"status"`
}

type safeguardStatus struct {
	Type     string                      `json:"type"`
	ToolUses map[string]toolUseEvaluated `json:"tool_uses"`
}

type toolUseEvaluated struct {
	Type        string `json:"type"`
	Outcome     string `json:"outcome"`
	Explanation string `json:"explanation,omitempty"`
}

// safeguardResults returns the verdicts of the reply's tool_use blocks as the
// safeguard_results field, or nil when the reply has none.
func (r Reply) safeguardResults() []safeguardResult {
	if r.NoSafeguards {
		return nil
	}
	uses := map[string]toolUseEvaluated{}
	for _, b := range r.Content {
		if b.Type != "tool_use" || b.Verdict.omit {
			continue
		}
		outcome := b.Verdict.Outcome
		if outcome == "" {
			outcome = NotFlagged.Outcome
		}
		uses[b.ID] = toolUseEvaluated{Type: "evaluated", Outcome: outcome, Explanation: b.Verdict.Explanation}
	}
	return []safeguardResult{{
		Type:   SafeguardDangerousToolUse,
		Status: safeguardStatus{Type: "available", ToolUses: uses},
	}}
}

// replyBlocks returns the reply's content as the API sends it: tool_use blocks always carry
// an input object.
func (r Reply) replyBlocks() []Block {
	blocks := make([]Block, len(r.Content))
	for i, b := range r.Content {
		if b.Type == "tool_use" && len(b.Input) == 0 {
			b.Input = json.RawMessage("{}")
		}
		blocks[i] = b
	}
	return blocks
}

// outputTokens is a plausible output token count for the reply: about one per four bytes.
func (r Reply) outputTokens() int {
	n := 1
	for _, b := range r.Content {
		n += (len(b.Text) + len(b.Input) + len(b.Name)) / 4
	}
	return n
}

// sseWriter writes server-sent events and flushes each one.
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	err     error
}

// event writes one event of the given name with payload as its JSON data.
func (s *sseWriter) event(name string, payload any) {
	if s.err != nil {
		return
	}
	data, err := json.Marshal(payload)
	if err != nil {
		s.err = fmt.Errorf("marshaling %s event: %w", name, err)
		return
	}
	if _, err := fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		s.err = fmt.Errorf("writing %s event: %w", name, err)
		return
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// streamStart writes the headers of a streamed reply and its message_start event, which
// carries the input side of u (the output tokens come with message_delta).
func streamStart(w http.ResponseWriter, id, model string, u Usage) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_"+id)
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	s := &sseWriter{w: w, flusher: flusher}
	s.event("message_start", map[string]any{
		"type": "message_start",
		"message": message{
			ID: id, Type: "message", Role: "assistant", Model: model, Content: []Block{},
			Usage: Usage{InputTokens: u.InputTokens, CacheCreationInputTokens: u.CacheCreationInputTokens,
				CacheReadInputTokens: u.CacheReadInputTokens, OutputTokens: 1},
		},
	})
	return s
}

// streamRest writes the rest of a streamed reply after message_start: each block as
// content_block_start, one delta and content_block_stop, then message_delta (with the stop
// reason, the safeguard verdicts and the output tokens of u) and message_stop.
func (s *sseWriter) streamRest(r Reply, u Usage) {
	for i, b := range r.replyBlocks() {
		switch b.Type {
		case "tool_use":
			s.event("content_block_start", map[string]any{
				"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": map[string]any{}},
			})
			s.event("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(b.Input)},
			})
		default:
			s.event("content_block_start", map[string]any{
				"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""},
			})
			s.event("content_block_delta", map[string]any{
				"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b.Text},
			})
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	delta := map[string]any{"stop_reason": r.stopReason(), "stop_sequence": nil}
	if results := r.safeguardResults(); results != nil {
		delta["safeguard_results"] = results
	}
	s.event("message_delta", map[string]any{
		"type": "message_delta", "delta": delta,
		"usage": map[string]any{"output_tokens": u.OutputTokens},
	})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}

// whole returns the reply as one non-streamed message, reporting u.
func (r Reply) whole(id, model string, u Usage) message {
	stop := r.stopReason()
	return message{
		ID: id, Type: "message", Role: "assistant", Model: model,
		Content: r.replyBlocks(), StopReason: &stop,
		Usage:            u,
		SafeguardResults: r.safeguardResults(),
	}
}
