package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/testing/approvaltest"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/mcptest"
)

// connect opens an MCP client session to s with token, as Claude Code does, speaking the
// protocol version Claude Code 2.1.328 speaks unless version says otherwise.
func connect(t testing.TB, s *Server, token, version string) *mcp.ClientSession {
	t.Helper()
	return mcptest.Connect(t, s.URL(), token, version)
}

// callApprove calls the approval tool as Claude Code does and returns the text it answers.
func callApprove(t testing.TB, cs *mcp.ClientSession, toolName, input, toolUseID string) string {
	t.Helper()
	text, err := tryApprove(cs, toolName, input, toolUseID)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// approveText is callApprove for goroutines other than the test's: a failure comes back
// as the text, to fail the comparison with the answer wanted.
func approveText(cs *mcp.ClientSession, toolName, input, toolUseID string) string {
	text, err := tryApprove(cs, toolName, input, toolUseID)
	if err != nil {
		return "error: " + err.Error()
	}
	return text
}

// tryApprove calls the approval tool with the raw input, as Claude Code sends it.
func tryApprove(cs *mcp.ClientSession, toolName, input, toolUseID string) (string, error) {
	args := json.RawMessage(`{"tool_name":` + quote(toolName) + `,"input":` + input + `,"tool_use_id":` + quote(toolUseID) + `}`)
	return mcptest.CallText(context.Background(), cs, approvals.ToolName, args)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// bashInput has its keys out of the order encoding/json would give them, and characters
// it would escape: the request shown must be the input exactly as sent.
const bashInput = `{"description":"Remove the build","command":"rm -rf build && echo <done>"}`

func TestApproveRunEndedDeniesPendingRequest(t *testing.T) {
	p := approvaltest.NewPerson()
	s := newTestServer(t, Config{Decider: p})
	reg, run := register(t, s, "r1")
	cs := connect(t, s, reg.Token, "")
	text := make(chan string, 1)
	go func() { text <- approveText(cs, "Bash", bashInput, "toolu_1") }()
	p.NextAsked(t)
	s.Unregister("r1")
	want := `{"behavior":"deny","message":"denied: the segwi run ended before a person answered"}`
	if got := await.Recv(t, 10*time.Second, "the answer", text); got != want {
		t.Errorf("answer text:\n got %s\nwant %s", got, want)
	}
	if w := p.NextWithdrawn(t); w.Req.ToolUseID != "toolu_1" {
		t.Errorf("withdrawn: got %s, want toolu_1", w.Req.ToolUseID)
	}
	if a := run.Answered(); len(a) != 1 || a[0].Answer.By != approvals.ByRunEnded {
		t.Errorf("recorded answers: got %+v, want one by run-ended", a)
	}
}

func TestApproveCallWhoseCallerHangsUpIsWithdrawn(t *testing.T) {
	p := approvaltest.NewPerson()
	s := newTestServer(t, Config{Decider: p})
	reg, run := register(t, s, "r1")
	ctx, hangUp := context.WithCancel(context.Background())
	req := mcpRequest(t, s, reg.Token, strings.NewReader(callApproveBody)).WithContext(ctx)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	p.NextAsked(t)
	hangUp()
	if w := p.NextWithdrawn(t); !errors.Is(w.Cause, approvals.ErrWithdrawn) {
		t.Errorf("the Decider's context cause: got %v, want ErrWithdrawn", w.Cause)
	}
	await.For(t, 10*time.Second, "the answer to be recorded", func() bool { return len(run.Answered()) == 1 })
	if a := run.Answered()[0].Answer; a.By != approvals.ByCancelled {
		t.Errorf("recorded answer: got By %s, want cancelled", a.By)
	}
}

// A stop makes Claude Code abort the call it is making, hanging up on segwi: the request
// is then recorded as cut short by the run's end, not as Claude Code's own timeout.
func TestApproveCallHungUpOnByAStoppingRunIsRunEnded(t *testing.T) {
	p := approvaltest.NewPerson()
	s := newTestServer(t, Config{Decider: p})
	reg, run := register(t, s, "r1")
	ctx, hangUp := context.WithCancel(context.Background())
	req := mcpRequest(t, s, reg.Token, strings.NewReader(callApproveBody)).WithContext(ctx)
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	p.NextAsked(t)
	run.Stop()
	hangUp()
	if w := p.NextWithdrawn(t); !errors.Is(w.Cause, approvals.ErrRunEnded) {
		t.Errorf("the Decider's context cause: got %v, want ErrRunEnded", w.Cause)
	}
	await.For(t, 10*time.Second, "the answer to be recorded", func() bool { return len(run.Answered()) == 1 })
	if a := run.Answered()[0].Answer; a.By != approvals.ByRunEnded {
		t.Errorf("recorded answer: got By %s, want run-ended", a.By)
	}
}

func TestApproveAnswersTheRightRunWhenTwoAreActive(t *testing.T) {
	p := approvaltest.NewPerson()
	s := newTestServer(t, Config{Decider: p})
	regA, runA := register(t, s, "a")
	regB, runB := register(t, s, "b")
	csA, csB := connect(t, s, regA.Token, ""), connect(t, s, regB.Token, "")

	textA, textB := make(chan string, 1), make(chan string, 1)
	go func() { textA <- approveText(csA, "Bash", `{"command":"make a"}`, "toolu_a") }()
	go func() { textB <- approveText(csB, "Bash", `{"command":"make b"}`, "toolu_b") }()
	shown := map[string]string{}
	for range 2 {
		req := p.NextAsked(t)
		shown[req.ToolUseID] = req.Run.ID + " " + string(req.Input)
	}
	if diff := cmp.Diff(map[string]string{"toolu_a": `a {"command":"make a"}`, "toolu_b": `b {"command":"make b"}`}, shown); diff != "" {
		t.Errorf("requests shown, by tool use (-want +got):\n%s", diff)
	}

	p.Answer("toolu_b", approvals.Answer{Allow: true, By: approvals.ByPerson})
	if got, want := await.Recv(t, 10*time.Second, "run b's answer", textB), `{"behavior":"allow"}`; got != want {
		t.Errorf("run b's answer: got %s, want %s", got, want)
	}
	p.Answer("toolu_a", approvals.Answer{By: approvals.ByPerson, Message: "not a"})
	if got, want := await.Recv(t, 10*time.Second, "run a's answer", textA), `{"behavior":"deny","message":"Denied by the person at segwi: not a"}`; got != want {
		t.Errorf("run a's answer: got %s, want %s", got, want)
	}
	for id, run := range map[string]*approvaltest.Run{"a": runA, "b": runB} {
		recs := run.Records()
		if len(recs) != 2 {
			t.Errorf("run %s: got %d records, want 2", id, len(recs))
		}
		for _, rec := range recs {
			if rec.Request.Run.ID != id || rec.Request.ToolUseID != "toolu_"+id {
				t.Errorf("run %s holds a record of run %s (%s)", id, rec.Request.Run.ID, rec.Request.ToolUseID)
			}
		}
	}
}

// approveSchemaJSON is the approval tool's input schema as Claude Code is told it: any
// object as input, and room for fields Claude Code may add.
const approveSchemaJSON = `{
  "type": "object",
  "properties": {
    "tool_name": {"type": "string", "description": "The tool the agent wants to use, e.g. Bash."},
    "input": {"type": "object", "description": "The tool's input."},
    "tool_use_id": {"type": "string", "description": "The id of the tool use."}
  },
  "required": ["tool_name", "input"]
}`

func TestApproveIsTheOnlyTool(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, _ := register(t, s, "r1")
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("a client speaking "+version+" lists only approve", func(t *testing.T) {
			cs := connect(t, s, reg.Token, version)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if len(res.Tools) != 1 || res.Tools[0].Name != approvals.ToolName {
				t.Fatalf("tools: got %+v, want only %q", res.Tools, approvals.ToolName)
			}
			schema, _ := json.Marshal(res.Tools[0].InputSchema)
			var got, want any
			if err := json.Unmarshal(schema, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(approveSchemaJSON), &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("input schema listed:\n%s\nwant:\n%s", schema, approveSchemaJSON)
			}
		})
	}
}

// segwi's tool list never changes (and a stateless server could not tell a client if it
// did): it says so. While it let Claude Code (2.1.328) think the list might change, Claude
// Code opened a subscriptions/listen stream at every run's start and held it for the whole
// run: one request in three of a run's, and a connection kept open, for nothing.
func TestTheToolListIsSaidNeverToChange(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, _ := register(t, s, "r1")
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run("to a client speaking "+version, func(t *testing.T) {
			caps := connect(t, s, reg.Token, version).InitializeResult().Capabilities
			if caps == nil || caps.Tools == nil {
				t.Fatalf("capabilities %+v: no tools capability, so a client looks for no tools", caps)
			}
			if caps.Tools.ListChanged {
				t.Error("the tools capability says the list may change: a client listens for changes for the whole run")
			}
		})
	}
}

func TestApproveRefusesCallsWithoutToolName(t *testing.T) {
	s := newTestServer(t, Config{Decider: approvaltest.Nobody(t)})
	reg, run := register(t, s, "r1")
	cs := connect(t, s, reg.Token, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: approvals.ToolName, Arguments: json.RawMessage(`{"input":{}}`)})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if !res.IsError {
		t.Errorf("result: got %+v, want a tool error (Claude Code then denies)", res.Content)
	}
	if recs := run.Records(); len(recs) != 0 {
		t.Errorf("records: got %+v, want none", recs)
	}
}

func TestAnswerJSON(t *testing.T) {
	long := strings.Repeat("é", maxMessageBytes) // two bytes a rune: twice the cap
	tests := []struct {
		name   string
		answer approvals.Answer
		want   string
	}{
		{"an allow leaves the input out", approvals.Answer{Allow: true}, `{"behavior":"allow"}`},
		{"a deny without a message still carries one", approvals.Answer{}, `{"behavior":"deny","message":"denied by segwi"}`},
		{"a deny message is not HTML-escaped", approvals.Answer{Message: "a <b> & c"}, `{"behavior":"deny","message":"a <b> & c"}`},
		{"a long deny message is cut, on a rune", approvals.Answer{Message: long},
			`{"behavior":"deny","message":"` + long[:maxMessageBytes] + ` [… cut by segwi]"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AnswerJSON(tt.answer)); got != tt.want {
				t.Errorf("got %.200s, want %.200s", got, tt.want)
			}
		})
	}
}

// TestApproveRefusesArgumentsReadTwoWays sends approval requests whose own arguments a Go
// decoder and a JavaScript one read differently: a key twice, or in two cases. Claude
// Code never sends such a request; a client holding the run's token could. segwi judged
// one reading (an INPUT key won over input): now it denies, and records why.
func TestApproveRefusesArgumentsReadTwoWays(t *testing.T) {
	tests := []struct {
		name, args, why string
	}{
		{"an input key in two cases is refused",
			`{"tool_name":"Bash","input":{"command":"rm -rf x"},"INPUT":{"command":"git status"},"tool_use_id":"toolu_1"}`,
			`the keys \"input\" and \"INPUT\" differ only in case`},
		{"a tool name given twice is refused",
			`{"tool_name":"Write","tool_name":"Bash","input":{"command":"git status"},"tool_use_id":"toolu_1"}`,
			`the key \"tool_name\" appears twice`},
		{"a tool name key in two cases is refused",
			`{"tool_name":"Bash","Tool_Name":"Write","input":{"command":"git status"},"tool_use_id":"toolu_1"}`,
			`the keys \"tool_name\" and \"Tool_Name\" differ only in case`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t, Config{Decider: approvaltest.Nobody(t), Trusted: []string{"git status"}})
			reg, run := register(t, s, "r1")
			cs := connect(t, s, reg.Token, "")
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: approvals.ToolName, Arguments: json.RawMessage(tt.args)})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			text := ""
			if len(res.Content) == 1 {
				if c, ok := res.Content[0].(*mcp.TextContent); ok {
					text = c.Text
				}
			}
			if !strings.HasPrefix(text, `{"behavior":"deny","message":"denied: segwi could not read this approval request one way only: `) ||
				!strings.Contains(text, tt.why) {
				t.Errorf("answer: got %s, want a deny saying %s", text, tt.why)
			}
			answered := run.Answered()
			if len(answered) != 1 || answered[0].Answer.By != approvals.ByInvalid ||
				!strings.Contains(answered[0].Request.Note, strings.ReplaceAll(tt.why, `\"`, `"`)) {
				t.Errorf("recorded: got %+v, want one deny by invalid noting why", answered)
			}
		})
	}
}
