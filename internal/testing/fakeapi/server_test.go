package fakeapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// sseEvent is one server-sent event of a streamed reply.
type sseEvent struct {
	Name string
	Data map[string]any
}

// post sends body to the server at path with the auto-mode betas, as Claude Code does.
func post(t *testing.T, s *Server, path string, body any) *http.Response {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("anthropic-beta", "claude-code-20250219,"+BetaDangerousToolUse+", "+BetaAFKMode)
	req.Header.Set("x-api-key", "sk-test")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// readSSE reads a whole streamed reply.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var events []sseEvent
	var name string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var data map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &data); err != nil {
				t.Fatalf("event %s: data is not JSON: %v", name, err)
			}
			if data["type"] != name {
				t.Errorf("event %s carries data of type %v", name, data["type"])
			}
			events = append(events, sseEvent{Name: name, Data: data})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return events
}

// agentBody is a Messages request body like the agent's: it offers tools and streams.
func agentBody(messages ...any) map[string]any {
	return map[string]any{
		"model":      "claude-opus-5-5",
		"stream":     true,
		"messages":   messages,
		"tools":      []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Read"}},
		"safeguards": []any{map[string]any{"type": SafeguardDangerousToolUse, "classifier_context": map[string]any{}}},
	}
}

func userText(s string) map[string]any { return map[string]any{"role": "user", "content": s} }

func TestStreamedReplyCarriesBlocksStopReasonAndVerdicts(t *testing.T) {
	ls := ToolUse("Bash", Input{"command": "ls"})
	rm := ToolUse("Bash", Input{"command": "rm -rf /"}).WithVerdict(Flagged("destroys the machine"))
	s := New(t, Turns(Say(Text("Looking."), ls, rm)))

	resp := post(t, s, "/v1/messages?beta=true", agentBody(userText("hi")))
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q, want text/event-stream", ct)
	}
	events := readSSE(t, resp.Body)

	var names []string
	for _, e := range events {
		names = append(names, e.Name)
	}
	want := []string{"message_start",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("event names (-want +got):\n%s", diff)
	}
	if got := events[0].Data["message"].(map[string]any)["model"]; got != "claude-opus-5-5" {
		t.Errorf("message_start model %v, want the request's", got)
	}
	if diff := cmp.Diff(map[string]any{"type": "text_delta", "text": "Looking."}, events[2].Data["delta"]); diff != "" {
		t.Errorf("text delta (-want +got):\n%s", diff)
	}
	wantStart := map[string]any{"type": "tool_use", "id": ls.ID, "name": "Bash", "input": map[string]any{}}
	if diff := cmp.Diff(wantStart, events[4].Data["content_block"]); diff != "" {
		t.Errorf("tool_use start (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"type": "input_json_delta", "partial_json": `{"command":"ls"}`}, events[5].Data["delta"]); diff != "" {
		t.Errorf("tool_use delta (-want +got):\n%s", diff)
	}
	wantDelta := map[string]any{
		"stop_reason":   "tool_use",
		"stop_sequence": nil,
		"safeguard_results": []any{map[string]any{
			"type": "dangerous_tool_use",
			"status": map[string]any{"type": "available", "tool_uses": map[string]any{
				ls.ID: map[string]any{"type": "evaluated", "outcome": "not_flagged"},
				rm.ID: map[string]any{"type": "evaluated", "outcome": "flagged", "explanation": "destroys the machine"},
			}},
		}},
	}
	if diff := cmp.Diff(wantDelta, events[10].Data["delta"]); diff != "" {
		t.Errorf("message_delta (-want +got):\n%s", diff)
	}
}

func TestReplyOptionsShapeTheMessageDelta(t *testing.T) {
	use := ToolUse("Bash", Input{"command": "ls"})
	tests := []struct {
		name  string
		reply Reply
		want  map[string]any
	}{
		{"a text reply ends the turn with no verdicts", Say(Text("done")), map[string]any{
			"stop_reason": "end_turn", "stop_sequence": nil,
			"safeguard_results": []any{map[string]any{"type": "dangerous_tool_use",
				"status": map[string]any{"type": "available", "tool_uses": map[string]any{}}}},
		}},
		{"NoVerdict leaves the tool use out", Say(use.WithVerdict(NoVerdict)), map[string]any{
			"stop_reason": "tool_use", "stop_sequence": nil,
			"safeguard_results": []any{map[string]any{"type": "dangerous_tool_use",
				"status": map[string]any{"type": "available", "tool_uses": map[string]any{}}}},
		}},
		{"NoSafeguards leaves safeguard_results out", Reply{Content: []Block{use}, NoSafeguards: true}, map[string]any{
			"stop_reason": "tool_use", "stop_sequence": nil,
		}},
		{"an explicit stop reason wins", Reply{Content: []Block{Text("cut")}, StopReason: "max_tokens", NoSafeguards: true}, map[string]any{
			"stop_reason": "max_tokens", "stop_sequence": nil,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t, Turns(tt.reply))
			events := readSSE(t, post(t, s, "/v1/messages", agentBody(userText("hi"))).Body)
			if len(events) < 2 {
				t.Fatalf("got %d events", len(events))
			}
			if diff := cmp.Diff(tt.want, events[len(events)-2].Data["delta"]); diff != "" {
				t.Errorf("message_delta (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTurnsAnswersByTheNumberOfAssistantMessages(t *testing.T) {
	first := ToolUse("Bash", Input{"command": "ls"})
	s := New(t, Turns(Say(first), Say(Text("second"))))

	post(t, s, "/v1/messages", agentBody(userText("go")))
	events := readSSE(t, post(t, s, "/v1/messages", agentBody(
		userText("go"),
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": first.ID, "name": "Bash", "input": map[string]any{"command": "ls"}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": first.ID, "is_error": true,
			"content": []any{map[string]any{"type": "text", "text": "line one"}, map[string]any{"type": "text", "text": "line two"}},
		}}},
	)).Body)

	if got := events[2].Data["delta"].(map[string]any)["text"]; got != "second" {
		t.Errorf("turn 1 was answered with %v, want the second reply", got)
	}
	last := s.Last()
	if last.Turn() != 1 {
		t.Errorf("Turn() = %d, want 1", last.Turn())
	}
	got, ok := last.ToolResult(first.ID)
	if want := (ToolResult{ToolUseID: first.ID, IsError: true, Text: "line one\nline two"}); !ok || got != want {
		t.Errorf("ToolResult = %+v, %t; want %+v", got, ok, want)
	}
	if texts := last.UserText(); !cmp.Equal(texts, []string{"go"}) {
		t.Errorf("UserText() = %q, want [go]", texts)
	}
}

func TestRequestPastTheScriptIsAProblem(t *testing.T) {
	s, err := Start(Turns())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	events := readSSE(t, post(t, s, "/v1/messages", agentBody(userText("hi"))).Body)

	if len(events) == 0 || events[len(events)-1].Name != "message_stop" {
		t.Errorf("an unscripted request got no whole reply: %v", events)
	}
	problems := s.Problems()
	if len(problems) != 1 || !strings.Contains(problems[0], "script has 0 replies, got a request for turn 0") {
		t.Errorf("Problems() = %q, want one saying the script ran out", problems)
	}
}

func TestSideRequestsDoNotReachTheScript(t *testing.T) {
	s := New(t, func(req *Request) Reply {
		t.Errorf("the script was asked about request %d, a side request", req.Seq)
		return Say(Text("scripted"))
	})

	resp := post(t, s, "/v1/messages", map[string]any{"model": "claude-haiku-4-5", "max_tokens": 32, "messages": []any{userText("title?")}})
	var msg struct {
		Model      string  `json:"model"`
		StopReason string  `json:"stop_reason"`
		Content    []Block `json:"content"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatalf("a non-streamed side request got no JSON message: %v", err)
	}
	if msg.Model != "claude-haiku-4-5" || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text == "" {
		t.Errorf("side reply %+v, want one text block ending the turn on the asked model", msg)
	}
	if reqs := s.Requests(); len(reqs) != 1 || !reqs[0].Side {
		t.Errorf("the request was not recorded as a side request")
	}
	if len(s.Scripted()) != 0 || s.Last() != nil {
		t.Errorf("Scripted() = %d requests, want none", len(s.Scripted()))
	}
}

func TestNonStreamedScriptedReplyIsOneMessage(t *testing.T) {
	use := ToolUse("Read", Input{"file_path": "/x"})
	s := New(t, Turns(Say(use)))
	body := agentBody(userText("read"))
	body["stream"] = false

	var msg message
	if err := json.NewDecoder(post(t, s, "/v1/messages", body).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.StopReason == nil || *msg.StopReason != "tool_use" || len(msg.Content) != 1 || msg.Content[0].ID != use.ID {
		t.Errorf("reply %+v, want the tool use with stop_reason tool_use", msg)
	}
	if len(msg.SafeguardResults) != 1 || msg.SafeguardResults[0].Status.ToolUses[use.ID].Outcome != "not_flagged" {
		t.Errorf("safeguard results %+v, want not_flagged for %s", msg.SafeguardResults, use.ID)
	}
}

func TestOtherEndpoints(t *testing.T) {
	s := New(t, Turns())
	tests := []struct {
		name, method, path string
		want               string
	}{
		{"count_tokens gets a count", http.MethodPost, "/v1/messages/count_tokens?beta=true", `{"input_tokens":`},
		{"anything else gets an empty object", http.MethodGet, "/api/oauth/profile", `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, s.URL+tt.path, strings.NewReader(`{"messages":[]}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), tt.want) {
				t.Errorf("got %d %s, want 200 %s...", resp.StatusCode, body, tt.want)
			}
		})
	}
	if n := len(s.Requests()); n != 2 {
		t.Errorf("recorded %d requests, want 2", n)
	}
}

func TestAPIErrorReply(t *testing.T) {
	s := New(t, Turns(APIError(http.StatusBadRequest, "invalid_request_error", "prompt is too long")))

	resp := post(t, s, "/v1/messages", agentBody(userText("hi")))
	body, _ := io.ReadAll(resp.Body)
	want := `{"error":{"message":"prompt is too long","type":"invalid_request_error"},"type":"error"}`
	if resp.StatusCode != http.StatusBadRequest || string(body) != want {
		t.Errorf("got %d %s, want 400 %s", resp.StatusCode, body, want)
	}
}

func TestAutoModeNamesWhatIsMissing(t *testing.T) {
	s := New(t, Turns(Say(Text("a")), Say(Text("b"))))
	post(t, s, "/v1/messages", agentBody(userText("hi")))
	if err := s.Last().AutoMode(); err != nil {
		t.Errorf("a request with both betas and the safeguard: %v", err)
	}

	body := agentBody(userText("hi"))
	delete(body, "safeguards")
	data, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	err = s.Last().AutoMode()
	for _, want := range []string{"beta " + BetaDangerousToolUse, "beta " + BetaAFKMode, "safeguard dangerous_tool_use"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AutoMode() = %v, want it to name %s", err, want)
		}
	}
}

func TestHangLastsUntilTheClientLeaves(t *testing.T) {
	s := New(t, Turns(Hang()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	data, _ := json.Marshal(agentBody(userText("think")))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", bytes.NewReader(data))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	// The reader collects event names until the body ends; a reply that did not hang would
	// end with EOF after message_stop instead of the client's cancellation.
	first := make(chan string, 1)
	var names []string
	readDone := make(chan error, 1)
	go func() {
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if name, ok := strings.CutPrefix(strings.TrimSpace(line), "event: "); ok {
				names = append(names, name)
				if len(names) == 1 {
					first <- name
				}
			}
			if err != nil {
				readDone <- err
				return
			}
		}
	}()
	if name := <-first; name != "message_start" {
		t.Fatalf("first event %q, want message_start", name)
	}
	cancel()
	if err := <-readDone; !errors.Is(err, context.Canceled) {
		t.Errorf("reading a hanging reply ended with %v, want context.Canceled", err)
	}
	if !cmp.Equal(names, []string{"message_start"}) {
		t.Errorf("a hanging reply sent %v, want only message_start", names)
	}
}

func TestCloseEndsHangingReplies(t *testing.T) {
	s, err := Start(Turns(Hang()))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(agentBody(userText("think")))
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	closed := make(chan struct{})
	go func() {
		s.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return while a reply was hanging")
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Logf("the hanging reply ended with %v", err)
	}
	s.Close() // a second Close is harmless
}

func TestWaitRequest(t *testing.T) {
	s := New(t, Turns(Say(Text("hi"))))
	data, _ := json.Marshal(agentBody(userText("hello")))
	posted := make(chan error, 1)
	go func() {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(data))
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		posted <- err
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := s.WaitRequest(ctx, func(r *Request) bool { return r.Model == "claude-opus-5-5" })
	if err != nil {
		t.Fatal(err)
	}
	if got.Seq != 0 {
		t.Errorf("got request %d, want 0", got.Seq)
	}
	if err := <-posted; err != nil {
		t.Fatal(err)
	}

	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	if _, err := s.WaitRequest(short, func(r *Request) bool { return r.Model == "never" }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("waiting for a request that never comes: %v, want context.DeadlineExceeded", err)
	}
}

func TestToolUseIDsAreFreshAndShaped(t *testing.T) {
	a, b := ToolUse("Bash", Input{}), ToolUse("Bash", Input{})
	if a.ID == b.ID {
		t.Errorf("two tool uses share the id %s", a.ID)
	}
	if !strings.HasPrefix(a.ID, "toolu_01") || len(a.ID) != len("toolu_01")+22 {
		t.Errorf("id %q is not shaped like toolu_01 and 22 characters", a.ID)
	}
}

func TestMessageContentAsStringOrBlocks(t *testing.T) {
	var m Message
	if err := json.Unmarshal([]byte(`{"role":"user","content":"plain"}`), &m); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Message{Role: "user", Content: []Block{{Type: "text", Text: "plain"}}}, m, cmp.AllowUnexported(Verdict{})); diff != "" {
		t.Errorf("string content (-want +got):\n%s", diff)
	}
	if err := json.Unmarshal([]byte(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"out"}]}`), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 1 || m.Content[0].ResultText() != "out" {
		t.Errorf("tool_result content %+v, want text out", m.Content)
	}
}
