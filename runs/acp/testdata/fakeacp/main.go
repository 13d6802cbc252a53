// Command fakeacp is a test double of an ACP agent, written by hand on JSON-RPC lines so
// that it can break the protocol where a test needs it. Its session's turns follow the
// prompt's first word:
//
//	say TEXT       answers TEXT, in two chunks, with a usage update
//	run CMD        announces an execute call of CMD (its input in an update, as
//	               claude-agent-acp does), asks permission, runs it with sh in its folder
//	               when allowed, and says "allowed: OUTPUT" or "denied: REASON" (the
//	               reason segwi put in the answer's _meta, segwi.message)
//	write FILE TEXT  an edit call with a diff creating FILE, asked, written when allowed
//	other-session  asks permission for a session that is not the client's, and says what
//	               came back
//	hang           announces a call and waits for session/cancel, then asks permission
//	               for it, says what came back, and ends the turn cancelled
//	malformed      writes a line that is not JSON, then answers "still here"
//	huge           writes a session/update line of 11 MB
//
// With FAKEACP_NO_INIT set it never answers initialize; with FAKEACP_INIT_EXIT set it
// says why on stderr and exits with code 3 instead; with FAKEACP_INIT_ERROR set it answers
// it with an error. It never exits when its input
// closes, as claude-agent-acp 0.23.1 does not.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

type msg struct {
	JSONRPC string           `json:"jsonrpc"`
	ID      *json.RawMessage `json:"id,omitempty"`
	Method  string           `json:"method,omitempty"`
	Params  json.RawMessage  `json:"params,omitempty"`
	Result  json.RawMessage  `json:"result,omitempty"`
	Error   json.RawMessage  `json:"error,omitempty"`
}

var (
	outMu   sync.Mutex
	pendMu  sync.Mutex
	pending = map[string]chan msg{}
	nextID  = 100
	cancel  = make(chan struct{}, 16)
	cwd     string
	callN   int
)

func writeLine(b []byte) {
	outMu.Lock()
	defer outMu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

func send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	writeLine(b)
}

func respond(id *json.RawMessage, result any) {
	send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func notify(update map[string]any) {
	send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "sess-1", "update": update}})
}

// request sends a request to the client and waits for its answer.
func request(method string, params any) msg {
	pendMu.Lock()
	nextID++
	id := fmt.Sprint(nextID)
	ch := make(chan msg, 1)
	pending[id] = ch
	pendMu.Unlock()
	send(map[string]any{"jsonrpc": "2.0", "id": nextIDRaw(id), "method": method, "params": params})
	return <-ch
}

func nextIDRaw(id string) json.RawMessage { return json.RawMessage(id) }

func main() {
	br := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		b, err := br.ReadBytes('\n')
		if err != nil {
			for { // input closed: stay, as claude-agent-acp does
				time.Sleep(time.Hour)
			}
		}
		var m msg
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch {
		case m.Method == "" && m.ID != nil:
			pendMu.Lock()
			ch := pending[string(*m.ID)]
			delete(pending, string(*m.ID))
			pendMu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.Method == "initialize":
			switch {
			case os.Getenv("FAKEACP_NO_INIT") != "":
				continue
			case os.Getenv("FAKEACP_INIT_EXIT") != "":
				fmt.Fprintln(os.Stderr, "fakeacp: no such mode, try --acp")
				os.Exit(3)
			case os.Getenv("FAKEACP_INIT_ERROR") != "":
				send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32603, "message": "protocol version 1 is not supported"}})
				continue
			}
			respond(m.ID, map[string]any{"protocolVersion": 1, "agentInfo": map[string]any{"name": "fakeacp", "version": "1.0"},
				"agentCapabilities": map[string]any{"loadSession": true}, "authMethods": []any{}})
		case m.Method == "session/new":
			var p struct{ Cwd string }
			json.Unmarshal(m.Params, &p)
			cwd = p.Cwd
			respond(m.ID, map[string]any{"sessionId": "sess-1"})
		case m.Method == "session/load":
			var p struct{ Cwd string }
			json.Unmarshal(m.Params, &p)
			cwd = p.Cwd
			respond(m.ID, map[string]any{})
		case m.Method == "session/cancel":
			cancel <- struct{}{}
		case m.Method == "session/prompt":
			go prompt(m)
		case m.ID != nil:
			send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}

func prompt(m msg) {
	var p struct {
		Prompt []struct{ Text string } `json:"prompt"`
	}
	json.Unmarshal(m.Params, &p)
	text := ""
	if len(p.Prompt) > 0 {
		text = p.Prompt[len(p.Prompt)-1].Text
	}
	// An ask run's prompt comes with segwi's instruction before the question: the last
	// line is the question.
	if i := strings.LastIndex(text, "\n"); i >= 0 {
		text = strings.TrimPrefix(text[i+1:], "Question: ")
	}
	word, rest, _ := strings.Cut(strings.TrimSpace(text), " ")
	stop := "end_turn"
	say := func(s string) {
		notify(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": s}})
	}
	switch word {
	case "say":
		half := len(rest) / 2
		say(rest[:half])
		say(rest[half:])
		notify(map[string]any{"sessionUpdate": "usage_update", "used": 1200, "size": 200000, "cost": map[string]any{"amount": 0.25, "currency": "USD"}})
	case "run":
		// Tool call ids are unique within a session, as the protocol asks; segwi refuses a
		// request for a call that already ended.
		callN++
		call := fmt.Sprintf("call-run-%d", callN)
		notify(map[string]any{"sessionUpdate": "tool_call", "toolCallId": call, "title": "Terminal", "kind": "execute", "status": "pending", "rawInput": map[string]any{}})
		notify(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": call, "rawInput": map[string]any{"command": rest, "description": "runs it"}})
		r := askPermission("sess-1", call, "execute", map[string]any{"command": rest})
		if outcome(r) != "allow" {
			notify(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "failed"})
			say(strings.TrimSuffix("denied: "+segwiMessage(r), ": "))
			break
		}
		cmd := exec.Command("sh", "-c", rest)
		cmd.Dir = cwd
		out, _ := cmd.CombinedOutput()
		notify(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed",
			"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": string(out)}}}})
		say("allowed: " + strings.TrimSpace(string(out)))
	case "write":
		file, body, _ := strings.Cut(rest, " ")
		path := filepath.Join(cwd, file)
		diff := []any{map[string]any{"type": "diff", "path": path, "newText": body + "\n"}}
		notify(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-write", "title": "Write " + file, "kind": "edit", "status": "pending", "content": diff})
		if outcome(askPermission("sess-1", "call-write", "edit", nil)) != "allow" {
			notify(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-write", "status": "failed"})
			say("denied")
			break
		}
		os.WriteFile(path, []byte(body+"\n"), 0o644)
		notify(map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "call-write", "status": "completed", "content": diff})
		say("written")
	case "other-session":
		notify(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-x", "title": "Terminal", "kind": "execute", "status": "pending", "rawInput": map[string]any{"command": "true"}})
		r := askPermission("sess-other", "call-x", "execute", map[string]any{"command": "true"})
		if len(r.Error) > 0 {
			say("refused: " + string(r.Error))
		} else {
			say("answered: " + string(r.Result))
		}
	case "hang":
		notify(map[string]any{"sessionUpdate": "tool_call", "toolCallId": "call-hang", "title": "Terminal", "kind": "execute", "status": "pending", "rawInput": map[string]any{"command": "sleep 1000"}})
		<-cancel
		r := askPermission("sess-1", "call-hang", "execute", map[string]any{"command": "sleep 1000"})
		say("after cancel: " + outcome(r))
		stop = "cancelled"
	case "malformed":
		writeLine([]byte(`{"jsonrpc":"2.0","method":"session/update","params":{`))
		say("still here")
	case "huge":
		notify(map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": strings.Repeat("x", 11<<20)}})
		say("after the huge line")
	default:
		say("unknown: " + text)
	}
	respond(m.ID, map[string]any{"stopReason": stop, "usage": map[string]any{"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, "cachedReadTokens": 3}})
}

func askPermission(session, call, kind string, rawInput any) msg {
	tc := map[string]any{"toolCallId": call, "kind": kind}
	if rawInput != nil {
		tc["rawInput"] = rawInput
	}
	return request("session/request_permission", map[string]any{"sessionId": session, "toolCall": tc, "options": []any{
		map[string]any{"optionId": "always", "name": "Always Allow", "kind": "allow_always"},
		map[string]any{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
		map[string]any{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
	}})
}

// segwiMessage is the reason segwi put in the answer's _meta ("segwi": {"message"}), ""
// for none. No agent tried reads it (claude-agent-acp 0.23.1 does not); this one does.
func segwiMessage(r msg) string {
	var res struct {
		Meta struct {
			Segwi struct {
				Message string `json:"message"`
			} `json:"segwi"`
		} `json:"_meta"`
	}
	json.Unmarshal(r.Result, &res)
	return res.Meta.Segwi.Message
}

// outcome is "allow", "reject", "always" or "cancelled", as the client answered.
func outcome(r msg) string {
	var res struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(r.Result, &res) != nil {
		return "error: " + string(r.Error)
	}
	if res.Outcome.Outcome == "selected" {
		return res.Outcome.OptionID
	}
	return res.Outcome.Outcome
}
