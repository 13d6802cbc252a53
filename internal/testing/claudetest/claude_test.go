package claudetest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// These tests run the real, pinned Claude Code against the fake Messages API. Each one is a
// scenario a segwi end-to-end test builds on; together they check that the harness and the
// facts in CLAUDE_CODE.md still hold for the pinned version.

// scenario starts a fake server with script, an environment and a checkout.
func scenario(t *testing.T, script fakeapi.Script) (*fakeapi.Server, *Environment, string) {
	t.Helper()
	Binary(t) // skip early, before making anything, when there is no Claude Code
	srv := fakeapi.New(t, script)
	return srv, Env(t, srv.URL), Checkout(t)
}

func TestTextReplyGivesInitAssistantAndSuccess(t *testing.T) {
	const answer = "The checkout holds a README and hello.txt."
	srv, env, dir := scenario(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text(answer))))

	res := Run(t, Options{Env: env, Dir: dir, Prompts: []string{"What is in this checkout?"}})

	if res.ExitCode != 0 {
		t.Errorf("exit code %d, want 0; stderr:\n%s", res.ExitCode, res.Stderr)
	}
	if got, want := res.Kinds(), []string{"system/init", "assistant", "result/success"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	init := res.Init(t)
	if init.CWD != dir || init.PermissionMode != "auto" || init.APIKeySource != "ANTHROPIC_API_KEY" || init.Model != "claude-opus-5-5" {
		t.Errorf("init: cwd %q, permissionMode %q, apiKeySource %q, model %q; want %q, auto, ANTHROPIC_API_KEY, claude-opus-5-5",
			init.CWD, init.PermissionMode, init.APIKeySource, init.Model, dir)
	}
	final := res.Final(t)
	if final.IsError || final.Result != answer || final.NumTurns != 1 {
		t.Errorf("result: is_error %t, result %q, num_turns %d; want false, %q, 1", final.IsError, final.Result, final.NumTurns, answer)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server got %d requests, want 1", len(reqs))
	}
	t.Logf("first request %v after the start", reqs[0].Received.Sub(res.Started).Round(time.Millisecond))
	req := reqs[0]
	if req.Path != "/v1/messages" || !req.Stream || req.Model != "claude-opus-5-5" || req.Header.Get("x-api-key") != APIKey {
		t.Errorf("request: %s stream %t model %q key %q; want /v1/messages, streamed, claude-opus-5-5, %q",
			req.Path, req.Stream, req.Model, req.Header.Get("x-api-key"), APIKey)
	}
	if err := req.AutoMode(); err != nil {
		t.Error(err)
	}
	if texts := req.UserText(); len(texts) == 0 || texts[len(texts)-1] != "What is in this checkout?" {
		t.Errorf("the request's last user text is not the prompt: %q", texts)
	}
}

func TestOnAPTYTheRunIsTheSameAndItsEventsCarryTheirTimes(t *testing.T) {
	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List the checkout"})
	_, env, dir := scenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Let me look."), ls),
		fakeapi.Say(fakeapi.Text("Two files.")),
	))

	res := Run(t, Options{Env: env, Dir: dir, PTY: true, Prompts: []string{"List the files."}})

	if res.ExitCode != 0 || res.Final(t).Subtype != "success" {
		t.Errorf("exit %d, result %q; want 0, success; output:\n%s", res.ExitCode, res.Final(t).Subtype, res.Stdout)
	}
	if tr := res.ToolResult(t, ls.ID); tr.IsError || tr.Text != "README.md\nhello.txt" {
		t.Errorf("tool_result: is_error %t, text %q; want ls to run", tr.IsError, tr.Text)
	}
	if res.Stderr != "" {
		t.Errorf("stderr %q, want it empty: on a pty it shares stdout", res.Stderr)
	}
	if strings.Contains(res.Stdout, "\r\n") {
		t.Errorf("stdout has CRLF line ends; want the pty in raw mode")
	}
	last := res.Started
	for _, e := range res.Events {
		if e.Received.Before(last) || e.Received.After(res.Started.Add(res.Wall)) {
			t.Fatalf("%s event received at %v after the start, out of order or after the exit at %v",
				e.Type, e.Received.Sub(res.Started), res.Wall)
		}
		last = e.Received
	}
}

func TestModelAliasReachesTheServerAsItsID(t *testing.T) {
	srv, env, dir := scenario(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("ok"))))

	res := Run(t, Options{Env: env, Dir: dir, Args: []string{"--model", "sonnet"}, Prompts: []string{"hi"}})

	if got := res.Init(t).Model; got != "claude-sonnet-5-5" {
		t.Errorf("init model %q, want claude-sonnet-5-5", got)
	}
	if got := srv.Last().Model; got != "claude-sonnet-5-5" {
		t.Errorf("request model %q, want claude-sonnet-5-5", got)
	}
}

func TestBashToolUseRunsAndItsResultReachesTheServer(t *testing.T) {
	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List the checkout"})
	srv, env, dir := scenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("Let me look."), ls),
		fakeapi.Say(fakeapi.Text("Two files.")),
	))

	res := Run(t, Options{Env: env, Dir: dir, Prompts: []string{"List the files."}})

	if res.ExitCode != 0 || res.Final(t).Subtype != "success" {
		t.Errorf("exit %d, result %q; want 0, success", res.ExitCode, res.Final(t).Subtype)
	}
	t.Logf("tool results on stdout: %+v", res.ToolResults(t))
	got, ok := srv.Last().ToolResult(ls.ID)
	if !ok {
		t.Fatalf("the last request holds no tool_result for %s", ls.ID)
	}
	if got.IsError || got.Text != "README.md\nhello.txt" {
		t.Errorf("tool_result: is_error %t, text %q; want false, %q", got.IsError, got.Text, "README.md\nhello.txt")
	}
	if tr := res.ToolResult(t, ls.ID); tr.Decision != "accept" || tr.IsError {
		t.Errorf("stdout tool_result: decision %q, is_error %t; want accept, false", tr.Decision, tr.IsError)
	}
	if err := srv.Last().AutoMode(); err != nil {
		t.Error(err)
	}
}

func TestFlaggedVerdictDeniesTheCommand(t *testing.T) {
	rm := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch ../outside.txt", "description": "Make a file outside"}).
		WithVerdict(fakeapi.Flagged("Deleting files was not asked for."))
	srv, env, dir := scenario(t, fakeapi.Turns(
		fakeapi.Say(rm),
		fakeapi.Say(fakeapi.Text("I was not allowed to.")),
	))

	res := Run(t, Options{Env: env, Dir: dir, Prompts: []string{"Tidy up."}})

	t.Logf("tool results on stdout: %+v", res.ToolResults(t))
	got, ok := srv.Last().ToolResult(rm.ID)
	if !ok {
		t.Fatalf("the last request holds no tool_result for %s", rm.ID)
	}
	if !got.IsError || !strings.Contains(got.Text, "auto mode classifier") || !strings.Contains(got.Text, "Deleting files was not asked for.") {
		t.Errorf("tool_result: is_error %t, text %q; want an error naming the auto mode classifier and its reason", got.IsError, got.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "hello.txt")); err != nil {
		t.Errorf("the flagged command ran: %v", err)
	}
	if denied := res.Final(t).PermissionDenials; len(denied) != 1 || denied[0].ToolUseID != rm.ID {
		t.Errorf("permission_denials %+v, want the rm call", denied)
	}
}

func TestDisallowedWriteIsNoSuchTool(t *testing.T) {
	write := fakeapi.ToolUse("Write", fakeapi.Input{"file_path": "new.txt", "content": "x\n"})
	srv, env, dir := scenario(t, fakeapi.Turns(
		fakeapi.Say(write),
		fakeapi.Say(fakeapi.Text("I cannot write files here.")),
	))

	res := Run(t, Options{Env: env, Dir: dir, Args: []string{"--disallowedTools", "Edit,Write,NotebookEdit"}, Prompts: []string{"Write new.txt."}})

	for _, tool := range []string{"Edit", "Write", "NotebookEdit"} {
		if slices.Contains(res.Init(t).Tools, tool) {
			t.Errorf("init lists the disallowed tool %s", tool)
		}
	}
	t.Logf("tool results on stdout: %+v", res.ToolResults(t))
	got, ok := srv.Last().ToolResult(write.ID)
	if !ok {
		t.Fatalf("the last request holds no tool_result for %s", write.ID)
	}
	if !got.IsError || !strings.Contains(got.Text, "No such tool available: Write") {
		t.Errorf("tool_result: is_error %t, text %q; want an error saying there is no such tool", got.IsError, got.Text)
	}
	if st := Status(t, dir); st != "" {
		t.Errorf("the checkout changed:\n%s", st)
	}
	if res.Final(t).Subtype != "success" {
		t.Errorf("result %q, want success", res.Final(t).Subtype)
	}
}

func TestGuardHookRefusesADeniedCommand(t *testing.T) {
	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch guarded.txt", "description": "Make a file"})
	srv, env, dir := scenario(t, fakeapi.Turns(
		fakeapi.Say(touch),
		fakeapi.Say(fakeapi.Text("The guard refused.")),
	))
	deny := WriteDenyFile(t, t.TempDir(), "touch guarded.txt")
	env.WriteSettings(t, Settings{Hooks: map[string][]HookMatcher{"PreToolUse": {env.GuardHook(t, deny)}}})

	res := Run(t, Options{Env: env, Dir: dir, Prompts: []string{"Make guarded.txt."}})

	t.Logf("tool results on stdout: %+v", res.ToolResults(t))
	got, ok := srv.Last().ToolResult(touch.ID)
	if !ok {
		t.Fatalf("the last request holds no tool_result for %s", touch.ID)
	}
	if !got.IsError || !strings.Contains(got.Text, GuardMessage) || !strings.Contains(got.Text, "PreToolUse:Bash") {
		t.Errorf("tool_result: is_error %t, text %q; want the hook's refusal", got.IsError, got.Text)
	}
	if tr := res.ToolResult(t, touch.ID); tr.Decision != "reject" || tr.Source != "hook" {
		t.Errorf("stdout tool_result: decision %q source %q, want reject hook", tr.Decision, tr.Source)
	}
	if denied := res.Final(t).PermissionDenials; len(denied) != 1 || denied[0].ToolUseID != touch.ID {
		t.Errorf("permission_denials %+v, want the touch call", denied)
	}
	if _, err := os.Stat(filepath.Join(dir, "guarded.txt")); err == nil {
		t.Error("the guarded command ran: guarded.txt exists")
	}
}

func TestGuardHookLetsOtherCommandsRun(t *testing.T) {
	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List"})
	srv, env, dir := scenario(t, fakeapi.Turns(fakeapi.Say(ls), fakeapi.Say(fakeapi.Text("done"))))
	deny := WriteDenyFile(t, t.TempDir(), "touch guarded.txt")
	env.WriteSettings(t, Settings{Hooks: map[string][]HookMatcher{"PreToolUse": {env.GuardHook(t, deny)}}})

	Run(t, Options{Env: env, Dir: dir, Prompts: []string{"List."}})

	if got, ok := srv.Last().ToolResult(ls.ID); !ok || got.IsError {
		t.Errorf("tool_result %+v (found %t), want ls to run", got, ok)
	}
}

// With an ask rule and a permission prompt tool whose MCP server is not configured, the
// pinned CLI asks the model, and when the model calls a tool the rule escalates, it looks up
// the prompt tool, does not find it, and exits 1 without a result event.
func TestAskRuleWithoutPromptToolServerExitsNotFound(t *testing.T) {
	touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch asked.txt", "description": "Make a file"})
	srv, env, dir := scenario(t, fakeapi.Turns(fakeapi.Say(touch), fakeapi.Say(fakeapi.Text("done"))))
	env.WriteSettings(t, Settings{Permissions: &Permissions{Ask: []string{"Bash(touch:*)"}}})

	res := Run(t, Options{Env: env, Dir: dir, Args: []string{"--permission-prompt-tool", "mcp__segwi__approve"}, Prompts: []string{"Make asked.txt."}})

	t.Logf("observed: exit %d, events %v, %d requests, stderr %q, tool results %+v", res.ExitCode, res.Kinds(), len(srv.Requests()), res.Stderr, res.ToolResults(t))
	if res.ExitCode != 1 {
		t.Errorf("exit code %d, want 1", res.ExitCode)
	}
	if want := "MCP tool mcp__segwi__approve (passed via --permission-prompt-tool) not found"; !strings.Contains(res.Stderr, want) {
		t.Errorf("stderr %q, want it to contain %q", res.Stderr, want)
	}
	if _, ok := res.Find("result", ""); ok {
		t.Errorf("a result event was printed: %v", res.Kinds())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1 (the turn that asked for the tool)", n)
	}
	if tr := res.ToolResult(t, touch.ID); !tr.IsError || !strings.Contains(tr.Text, "mcp__segwi__approve (passed via --permission-prompt-tool) not found") {
		t.Errorf("stdout tool_result: is_error %t, text %q; want an error saying the prompt tool was not found", tr.IsError, tr.Text)
	}
	if _, err := os.Stat(filepath.Join(dir, "asked.txt")); err == nil {
		t.Error("the asked command ran")
	}
}

func TestSigtermStopsARunWaitingOnTheModel(t *testing.T) {
	srv, env, dir := scenario(t, fakeapi.Turns(fakeapi.Hang()))

	p := Start(t, Options{Env: env, Dir: dir, Prompts: []string{"Think hard."}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.WaitRequest(ctx, func(r *fakeapi.Request) bool { return !r.Side }); err != nil {
		t.Fatal(err)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	res := p.Wait(t)
	t.Logf("exited %v after SIGTERM", time.Since(stopped).Round(time.Millisecond))

	if res.ExitCode != 143 {
		t.Errorf("exit code %d after SIGTERM, want 143; stderr:\n%s", res.ExitCode, res.Stderr)
	}
}

// The command writes outside the checkout: auto mode accepts writes inside the working
// directory without looking for a verdict, so only a call like this one needs the server's.
func TestMissingVerdictsDenyTheCall(t *testing.T) {
	tests := []struct {
		name  string
		reply func(fakeapi.Block) fakeapi.Reply
		// informational reports whether Claude Code should say auto mode cannot check
		// actions in this session.
		informational bool
	}{
		{
			name:  "a tool use left out of the verdicts is denied",
			reply: func(b fakeapi.Block) fakeapi.Reply { return fakeapi.Say(b.WithVerdict(fakeapi.NoVerdict)) },
		},
		{
			name: "a reply without safeguard results is denied and reported",
			reply: func(b fakeapi.Block) fakeapi.Reply {
				r := fakeapi.Say(b)
				r.NoSafeguards = true
				return r
			},
			informational: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			touch := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "touch ../outside.txt", "description": "Make a file outside"})
			srv, env, dir := scenario(t, fakeapi.Turns(tt.reply(touch), fakeapi.Say(fakeapi.Text("ok"))))

			res := Run(t, Options{Env: env, Dir: dir, Prompts: []string{"Make ../outside.txt."}})

			t.Logf("tool results on stdout: %+v", res.ToolResults(t))
			got, ok := srv.Last().ToolResult(touch.ID)
			if !ok || !got.IsError {
				t.Errorf("tool_result %+v (found %t), want a denial", got, ok)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "outside.txt")); err == nil {
				t.Error("the unchecked command ran")
			}
			if _, ok := res.Find("system", "informational"); ok != tt.informational {
				t.Errorf("system/informational event present %t, want %t; events %v", ok, tt.informational, res.Kinds())
			}
		})
	}
}

func TestFollowUpPromptContinuesTheSession(t *testing.T) {
	srv, env, dir := scenario(t, fakeapi.Turns(
		fakeapi.Say(fakeapi.Text("First answer.")),
		fakeapi.Say(fakeapi.Text("Second answer.")),
	))

	res := Run(t, Options{Env: env, Dir: dir, Prompts: []string{"First question?", "Second question?"}})

	var results []string
	for _, e := range res.Events {
		if e.Type == "result" {
			var r ResultEvent
			if err := e.Decode(&r); err != nil {
				t.Fatal(err)
			}
			results = append(results, r.Result)
		}
	}
	if want := []string{"First answer.", "Second answer."}; !slices.Equal(results, want) {
		t.Errorf("results %q, want %q", results, want)
	}
	if res.ExitCode != 0 {
		t.Errorf("exit code %d, want 0", res.ExitCode)
	}
	for _, r := range srv.Requests() {
		t.Logf("request %d: %s side=%t turn=%d", r.Seq, r.Path, r.Side, r.Turn())
	}
	last := srv.Last()
	if texts := last.UserText(); !slices.Contains(texts, "First question?") || texts[len(texts)-1] != "Second question?" {
		t.Errorf("the second request's user texts %q, want both prompts, the second last", texts)
	}
	if last.Turn() != 1 {
		t.Errorf("the second request is turn %d, want 1", last.Turn())
	}
}
