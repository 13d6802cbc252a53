package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/segwi/segwi/approvals"
)

// approveInput is what Claude Code passes to the approval tool.
type approveInput struct {
	ToolName  string          `json:"tool_name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
}

// approveSchema is the tool's input schema, built once: every run's server shares it (it
// is never changed), and schemaCache keeps its resolved form, so that a run's registration
// neither builds nor resolves the schema again; that was most of a registration's CPU. It
// is written out rather than inferred so that input may be any object and Claude Code may
// add fields without being refused; as a Go value rather than JSON, since decoding it took
// each segwi run about 0.7 ms of CPU on the second machine of the README's figures (its
// JSON is in the test).
var approveSchema = sync.OnceValue(func() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"tool_name":   {Type: "string", Description: "The tool the agent wants to use, e.g. Bash."},
			"input":       {Type: "object", Description: "The tool's input."},
			"tool_use_id": {Type: "string", Description: "The id of the tool use."},
		},
		Required:      []string{"tool_name", "input"},
		PropertyOrder: []string{"tool_name", "input", "tool_use_id"}, // as written
	}
})

// schemaCache caches the resolved approveSchema for all the servers of runs.
var schemaCache = mcp.NewSchemaCache()

// newRunServer returns the MCP server that serves the approval tool to run runID.
func (s *Server) newRunServer(runID string, run approvals.Run) *mcp.Server {
	server := mcp.NewServer(
		&mcp.Implementation{Name: approvals.ServerName, Title: "segwi approvals", Version: "1"},
		&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}, SchemaCache: schemaCache},
	)
	mcp.AddTool(server, &mcp.Tool{
		Name: approvals.ToolName,
		Description: "Asks segwi whether a tool call may run. A person answers, or a trusted " +
			"command rule they configured, or the approval timeout (which denies).",
		InputSchema: approveSchema(),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in approveInput) (*mcp.CallToolResult, any, error) {
		call := approvals.CallOf(req.Params.Arguments, in.ToolName, in.ToolUseID)
		ctx, stop := whileCallerWaits(ctx, run)
		defer stop()
		answer := s.broker.Ask(ctx, runID, call)
		return &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: string(AnswerJSON(answer))}},
		}, nil, nil
	})
	return server
}

// whileCallerWaits returns a context that is also cancelled when the HTTP request that
// carried the call ends, so that a call whose caller hung up is withdrawn from the person.
// Its cause says why Claude Code hung up: approvals.ErrRunEnded when run is ending (a stop makes
// Claude Code abort the call), else approvals.ErrWithdrawn (it stopped waiting: its own timeout).
func whileCallerWaits(ctx context.Context, run approvals.Run) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	if httpCtx, ok := ctx.Value(requestContextKey{}).(context.Context); ok {
		stopAfter := context.AfterFunc(httpCtx, func() {
			if run.Ending() {
				cancel(approvals.ErrRunEnded)
				return
			}
			cancel(approvals.ErrWithdrawn)
		})
		return ctx, func() { stopAfter(); cancel(nil) }
	}
	return ctx, func() { cancel(nil) }
}

// maxMessageBytes caps the message of a deny. Claude Code 2.1.328 takes an MCP tool result
// of over 2 x MAX_MCP_OUTPUT_TOKENS characters (50,000 by default) for one to shorten,
// after which the answer no longer reads as one; a person's reason never needs that much.
const maxMessageBytes = 8 << 10

// AnswerJSON returns the text the approval tool answers with, as Claude Code's permission
// prompt tool contract has it: {"behavior":"allow"}, {"behavior":"deny","message":"..."},
// or the same with "interrupt":true.
//
// An allow leaves out updatedInput, which Claude Code 2.1.328 takes as optional: it then
// runs the input it asked about. Sending the input back, as segwi did, made the answer as
// long as the input, and Claude Code refused an answer to a call of about 100 KB as "an
// invalid result" (it shortens long MCP results); without it, an answer is short whatever
// the call, and Claude Code runs exactly what it showed.
func AnswerJSON(a approvals.Answer) []byte {
	if a.Allow {
		return []byte(`{"behavior":"allow"}`)
	}
	deny := struct {
		Behavior  string `json:"behavior"`
		Message   string `json:"message"`
		Interrupt bool   `json:"interrupt,omitempty"`
	}{"deny", a.Message, a.Interrupt}
	if deny.Message == "" {
		deny.Message = "denied by segwi"
	}
	if len(deny.Message) > maxMessageBytes {
		cut := maxMessageBytes
		for cut > 0 && !utf8.RuneStart(deny.Message[cut]) {
			cut--
		}
		deny.Message = deny.Message[:cut] + " [… cut by segwi]"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(deny); err != nil {
		panic(err) // strings and a bool always encode
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
