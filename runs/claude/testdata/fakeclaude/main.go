// Command fakeclaude stands in for Claude Code in the runs package's tests. It reads
// stream-json user messages from stdin and prints scripted stream-json events, chosen by a
// "fake:SCENARIO" word in the first message. With FAKECLAUDE_RECORD set to a folder, it
// writes what it was started with there, as <SEGWI_RUN_ID>.json.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Token is the GitHub token the "secret" scenario plants in its output.
const Token = "ghp_FAKEfakeFAKEfakeFAKEfakeFAKEfake0123"

var out = bufio.NewWriterSize(os.Stdout, 64<<10)

func emit(v any) {
	b, _ := json.Marshal(v)
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

func text(s string) {
	emit(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}})
}

func toolUse(id, name string, input any) {
	emit(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}}}})
}

func toolResult(id, content string, isError bool, meta any) {
	line := map[string]any{"type": "user", "message": map[string]any{"content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": content, "is_error": isError}}}}
	if meta != nil {
		line["tool_result_meta"] = meta
	}
	emit(line)
}

func result(subtype string, isError bool, cost float64) {
	emit(map[string]any{"type": "result", "subtype": subtype, "is_error": isError, "num_turns": 2, "result": "done",
		"total_cost_usd": cost, "session_id": "sess-1", "usage": map[string]any{"input_tokens": 10},
		"permission_denials": []any{map[string]any{"tool_name": "Write", "tool_use_id": "toolu_3", "tool_input": map[string]any{"file_path": "x"}}}})
}

func isTTY(fd int) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

func record(extra map[string]any) {
	dir := os.Getenv("FAKECLAUDE_RECORD")
	if dir == "" {
		return
	}
	cwd, _ := os.Getwd()
	pgid, _ := syscall.Getpgid(0)
	rec := map[string]any{"args": os.Args, "env": os.Environ(), "stdinTTY": isTTY(0), "stdoutTTY": isTTY(1),
		"cwd": cwd, "pid": os.Getpid(), "pgid": pgid, "started": time.Now().UnixNano()}
	for k, v := range extra {
		rec[k] = v
	}
	b, _ := json.Marshal(rec)
	os.WriteFile(dir+"/"+os.Getenv("SEGWI_RUN_ID")+".json", b, 0o600)
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sleeper" {
		sleeper(os.Args[2:])
		return
	}
	if os.Getenv("FAKECLAUDE_ROLE") == "sleeper" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
		time.Sleep(time.Hour)
		return
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	first, err := readMessage(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error: Input must be provided either through stdin or as a prompt argument when using --print")
		os.Exit(1)
	}
	scenario, arg := "success", ""
	if i := strings.Index(first, "fake:"); i >= 0 {
		word := strings.Fields(first[i+5:])[0]
		scenario, arg, _ = strings.Cut(word, "=")
	}
	extra := map[string]any{"prompt": first}
	emit(map[string]any{"type": "system", "subtype": "init", "session_id": "sess-1", "cwd": must(os.Getwd()),
		"tools": []string{"Bash", "Read"}, "mcp_servers": []any{map[string]any{"name": "segwi", "status": "connected"}},
		"model": "claude-test", "permissionMode": "auto", "claude_code_version": "0.0.0-fake"})

	switch scenario {
	case "success":
		record(extra)
		text("Looking at the checkout.\nSecond line.")
		toolUse("toolu_1", "Bash", map[string]any{"command": "ls"})
		toolResult("toolu_1", "a.txt\nb.txt", false, nil)
		toolUse("toolu_2", "Write", map[string]any{"file_path": "x", "content": "y"})
		toolResult("toolu_2", "<tool_use_error>Error: No such tool available: Write.</tool_use_error>", true, nil)
		toolUse("toolu_3", "Bash", map[string]any{"command": "rm -rf /"})
		toolResult("toolu_3", "PreToolUse:Bash hook error: [guard]: denied", true,
			[]any{map[string]any{"id": "toolu_3", "permission_decision": map[string]any{"decision": "reject", "source": "hook"}}})
		emit(map[string]any{"type": "system", "subtype": "status", "status": "compacting"})
		emit(map[string]any{"type": "system", "subtype": "informational", "content": "auto mode cannot check actions"})
		emit(map[string]any{"type": "mystery", "payload": 42})
		out.WriteString("{not json at all\n")
		out.WriteString("\x1b[?25h" + `{"type":"assistant","message":{"content":[{"type":"text","text":"after escape"}]}}` + "\n")
		out.Flush()
		fmt.Fprintln(os.Stderr, "warning: a line on stderr")
		result("success", false, 0.0123)
		followUps(in)
	case "secret":
		record(extra)
		text("the token is " + Token)
		toolUse("toolu_1", "Bash", map[string]any{"command": "curl -H 'Authorization: Bearer " + Token + "'"})
		fmt.Fprintln(os.Stderr, "stderr says "+Token)
		// The token split across two writes, with a pause between them.
		out.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"split ` + Token[:10])
		out.Flush()
		time.Sleep(20 * time.Millisecond)
		out.WriteString(Token[10:] + `"}]}}` + "\n")
		out.Flush()
		result("success", false, 0.01)
		followUps(in)
	case "ignore-term":
		signal.Ignore(syscall.SIGTERM)
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "FAKECLAUDE_ROLE=sleeper")
		child.Start()
		extra["grandchild"] = child.Process.Pid
		record(extra)
		text("ignoring SIGTERM")
		for {
			time.Sleep(time.Hour)
		}
	case "flood":
		record(extra)
		n, _ := strconv.Atoi(arg)
		chunk := strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 70)
		line, _ := json.Marshal(map[string]any{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "text", "text": chunk}}}})
		line = append(line, '\n')
		for written := 0; written < n; written += len(line) {
			out.Write(line)
		}
		out.Flush()
		result("success", false, 1)
		followUps(in)
	case "work":
		// ARG seconds of work as an agent does it: every half second a few words, a Bash
		// call and its result.
		record(extra)
		secs, _ := strconv.Atoi(arg)
		for i := range 2 * secs {
			id := fmt.Sprintf("toolu_w%d", i)
			text(fmt.Sprintf("Step %d: running the tests of the package.", i))
			toolUse(id, "Bash", map[string]any{"command": "go test ./...", "description": "Run the tests"})
			toolResult(id, "ok  \texample.com/demo\t0.012s", false, nil)
			time.Sleep(500 * time.Millisecond)
		}
		result("success", false, 0.02)
		followUps(in)
	case "crash":
		record(extra)
		text("about to crash")
		out.WriteString(`{"type":"assistant","message":{"con`)
		out.Flush()
		panic("fakeclaude crashed on purpose")
	case "fail":
		record(extra)
		result("error_max_turns", true, 0.5)
		followUps(in)
		os.Exit(1)
	case "oom":
		// Moves itself into the memory cgroup ARG (a folder whose limit the test set) and
		// takes memory until the kernel's out-of-memory killer kills it.
		record(extra)
		if err := os.WriteFile(arg+"/cgroup.procs", []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "fakeclaude: joining the cgroup:", err)
			os.Exit(3)
		}
		var held [][]byte
		for {
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = byte(i)
			}
			held = append(held, b)
		}
	case "silent":
		record(extra)
		in.ReadString(0) // until stdin closes; prints nothing
	case "chatty":
		record(extra)
		for {
			emit(map[string]any{"type": "system", "subtype": "status", "status": "thinking"})
			time.Sleep(20 * time.Millisecond)
		}
	case "hold":
		record(extra)
		for {
			if _, err := os.Stat(arg); err == nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		result("success", false, 0)
		followUps(in)
	case "toolcall":
		// A Bash call toolu_7, announced once ARG.call exists, with its result once
		// ARG.result exists.
		record(extra)
		waitFile(arg + ".call")
		toolUse("toolu_7", "Bash", map[string]any{"command": "make"})
		waitFile(arg + ".result")
		toolResult("toolu_7", "built", false, nil)
		result("success", false, 0)
		followUps(in)
	case "detach", "detach-hang":
		// A process that leaves the run on purpose: a new session (setsid -f), its parent
		// gone at once, so that neither the run's process group nor claude's death reaches
		// it. arg "env" keeps the environment (and SEGWI_RUN_ID); "scrubbed" starts it with
		// none; "brief" with none, and it exits by itself at once.
		extra["detached"] = detach(arg)
		record(extra)
		text("left a process behind")
		if scenario == "detach-hang" {
			for {
				time.Sleep(time.Hour)
			}
		}
		result("success", false, 0)
		followUps(in)
	case "hop", "hop-hang":
		// arg fork-hoppers (proctest.Hoppers), each started with `setsid -f` from the
		// command line in FAKECLAUDE_HOPPER (words split at spaces), keeping this
		// environment. "hop" ends its turn once the test says they all hop (the file
		// <FAKECLAUDE_RECORD>/<SEGWI_RUN_ID>.hopping exists); "hop-hang" never does.
		n, _ := strconv.Atoi(arg)
		for range n {
			cmd := exec.Command("setsid", append([]string{"-f"}, strings.Fields(os.Getenv("FAKECLAUDE_HOPPER"))...)...)
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, "fakeclaude: setsid -f forkhopper:", err)
				os.Exit(5)
			}
		}
		record(extra)
		text("left " + arg + " fork-hoppers behind")
		if scenario == "hop-hang" {
			for {
				time.Sleep(time.Hour)
			}
		}
		waitFile(os.Getenv("FAKECLAUDE_RECORD") + "/" + os.Getenv("SEGWI_RUN_ID") + ".hopping")
		result("success", false, 0)
		followUps(in)
	case "alive":
		// Whether process arg is alive (a zombie is not) when this run starts.
		pid, _ := strconv.Atoi(arg)
		st, err := os.ReadFile("/proc/" + arg + "/stat")
		extra["alive"] = pid > 0 && err == nil && !strings.Contains(string(st), ") Z ")
		record(extra)
		result("success", false, 0)
		followUps(in)
	case "ask":
		// A Bash call (the command ARG, else "touch approved.txt") put to segwi's approval
		// tool as Claude Code puts an escalated call: over the MCP server of its
		// --mcp-config, with the run's token. The answer is printed as the call's result.
		record(extra)
		command := arg
		if command == "" {
			command = "touch approved.txt"
		}
		input := map[string]any{"command": command}
		toolUse("toolu_ask", "Bash", input)
		answer, err := askApproval("toolu_ask", "Bash", input)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakeclaude: asking for approval:", err)
			os.Exit(6)
		}
		toolResult("toolu_ask", answer, false, nil)
		text("the approval tool answered: " + answer)
		result("success", false, 0.01)
		followUps(in)
	case "longline":
		record(extra)
		out.WriteString(strings.Repeat("x", 17<<20) + " " + Token + "\n")
		text("after the long line")
		result("success", false, 0)
		followUps(in)
	default:
		fmt.Fprintf(os.Stderr, "fakeclaude: unknown scenario %q\n", scenario)
		os.Exit(3)
	}
}

// detach starts `setsid -f fakeclaude sleeper ...` as described at its scenario, and
// returns the sleeper's pid once it runs.
func detach(mode string) int {
	setsid, err := exec.LookPath("setsid")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeclaude:", err)
		os.Exit(5)
	}
	ready := os.Getenv("FAKECLAUDE_RECORD") + "/" + os.Getenv("SEGWI_RUN_ID") + ".detached"
	life := "3600"
	if mode == "brief" {
		life = "0"
	}
	cmd := exec.Command(setsid, "-f", os.Args[0], "sleeper", "fakeclaude-sleeper-"+os.Getenv("SEGWI_RUN_ID"), ready, life)
	if mode != "env" {
		cmd.Env = []string{}
	}
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakeclaude: setsid -f:", err)
		os.Exit(5)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if b, err := os.ReadFile(ready); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			return pid
		}
	}
	fmt.Fprintln(os.Stderr, "fakeclaude: the detached sleeper did not start")
	os.Exit(5)
	return 0
}

// sleeper is a process a run left behind: it writes its pid to the file args[1], ignores
// SIGTERM and SIGHUP, and lives args[2] seconds. args[0] only marks its command line.
func sleeper(args []string) {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	os.WriteFile(args[1], []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	secs, _ := strconv.Atoi(args[2])
	time.Sleep(time.Duration(secs) * time.Second)
}

// followUps answers each further message with text and a result, then exits as Claude
// Code does once its input closes.
func followUps(in *bufio.Reader) {
	for {
		msg, err := readMessage(in)
		if err != nil {
			break
		}
		text("follow-up: " + msg)
		result("success", false, 0.02)
	}
	out.WriteString("\x1b[?25h")
	out.Flush()
}

func readMessage(in *bufio.Reader) (string, error) {
	line, err := in.ReadBytes('\n')
	if err != nil {
		return "", err
	}
	var m struct {
		Type    string `json:"type"`
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &m); err != nil || m.Type != "user" {
		fmt.Fprintf(os.Stderr, "fakeclaude: bad input line %q\n", line)
		os.Exit(4)
	}
	return m.Message.Content, nil
}

func must(s string, _ error) string { return s }

// waitFile waits until path exists.
func waitFile(path string) {
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// askApproval calls the approval tool of the --mcp-config this process was started with
// for the call id of tool with input, as Claude Code does, and returns the tool's text.
func askApproval(id, tool string, input any) (string, error) {
	path := ""
	for i, a := range os.Args {
		if a == "--mcp-config" && i+1 < len(os.Args) {
			path = os.Args[i+1]
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading --mcp-config: %w", err)
	}
	var doc struct {
		MCPServers map[string]struct {
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("reading --mcp-config: %w", err)
	}
	server, ok := doc.MCPServers["segwi"]
	if !ok {
		return "", fmt.Errorf("--mcp-config %s names no segwi server", path)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "0.0.0-fake"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   server.URL,
		HTTPClient: &http.Client{Transport: headers(server.Headers)},
		MaxRetries: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "approve", Arguments: map[string]any{
		"tool_name": tool, "input": input, "tool_use_id": id,
	}})
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("the approval tool answered %d blocks", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return "", fmt.Errorf("the approval tool answered %T", res.Content[0])
	}
	return text.Text, nil
}

// headers adds the --mcp-config's headers (the run's bearer token) to every request.
type headers map[string]string

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
