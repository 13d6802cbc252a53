// Package mcptest is the MCP client of segwi's tests: it connects to the approvals server
// as Claude Code does, over streamable HTTP with a run's bearer token, and calls a tool.
// Only tests import it; it knows nothing of segwi's packages, so the approvals package's own
// tests can use it.
package mcptest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClaudeProtocol is the MCP protocol version the pinned Claude Code (2.1.328) speaks.
const ClaudeProtocol = "2025-11-25"

// Bearer adds a run's token to every request, as Claude Code does from the run's mcp.json.
type Bearer string

// RoundTrip sends r with the token, over http.DefaultTransport.
func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// Connect opens an MCP client session to the server at endpoint with token, named and
// versioned as Claude Code and speaking protocol version (ClaudeProtocol when empty). It
// fails the test when the server does not take it within 10 s; the session is closed at
// the end of the test.
func Connect(t testing.TB, endpoint, token, version string) *mcp.ClientSession {
	t.Helper()
	if version == "" {
		version = ClaudeProtocol
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2.1.328"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: Bearer(token)},
		MaxRetries: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s: %v", endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// CallText calls tool with args and returns the one text block it answers. A protocol
// error, a tool error, or an answer that is not one text block is an error, saying what
// came instead. It returns when the tool answers, or when ctx is done.
func CallText(ctx context.Context, cs *mcp.ClientSession, tool string, args any) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("tools/call %s: %w", tool, err)
	}
	if res.IsError {
		return "", fmt.Errorf("tools/call %s: got a tool error %+v, want an answer", tool, res.Content)
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("tools/call %s: got %d content blocks, want 1", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("tools/call %s: got content %T, want text", tool, res.Content[0])
	}
	return text.Text, nil
}
