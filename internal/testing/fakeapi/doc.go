// Package fakeapi is segwi's fake Anthropic Messages API for end-to-end tests: a loopback
// HTTP server that the real Claude Code CLI talks to (via ANTHROPIC_BASE_URL), answering each
// step of the agent's conversation from a per-scenario Script and recording every request.
//
// It speaks what the pinned Claude Code expects (see CLAUDE_CODE.md in the shared notes):
// POST /v1/messages streamed as server-sent events (message_start, content_block_start,
// one content_block_delta per block — text_delta for text, input_json_delta with the whole
// input for tool_use — content_block_stop, message_delta with the stop reason and auto
// mode's safeguard_results verdicts, message_stop), or as one JSON message when the request
// does not stream; POST /v1/messages/count_tokens with a token count; anything else with {}.
//
// A Script maps a Request to a Reply. Turns answers by turn (the number of assistant
// messages in the conversation), so a scenario reads as the model's side of the
// conversation:
//
//	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List files"})
//	rm := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "rm -rf build"}).
//		WithVerdict(fakeapi.Flagged("Deleting files was not asked for."))
//	srv := fakeapi.New(t, fakeapi.Turns(
//		fakeapi.Say(fakeapi.Text("Let me look."), ls), // turn 0: runs (not flagged by default)
//		fakeapi.Say(rm),                              // turn 1: auto mode denies it
//		fakeapi.Say(fakeapi.Text("Done.")),           // turn 2: ends the turn
//	))
//	// ... run Claude Code with ANTHROPIC_BASE_URL=srv.URL (see package claudetest) ...
//	got, _ := srv.Last().ToolResult(rm.ID) // what the model was told
//	// got.IsError == true, got.Text mentions "auto mode classifier"
//
// Every tool_use block is judged not_flagged unless given another Verdict (Flagged,
// NoVerdict); Reply.NoSafeguards leaves the verdicts out entirely. Hang gives a reply that
// never finishes, for stop tests; APIError an API error. A Messages request that offers the
// model no tools is one of Claude Code's own side requests (a title, a summary): it gets a
// short text reply and never reaches the script.
//
// New ties the server to a test: it logs each request, closes the server at the end and fails
// the test for requests the script did not plan for (Unexpected replies). Request.AutoMode
// checks that a request carried auto mode's betas and safeguard; Server.WaitRequest waits for
// a request without sleeping.
package fakeapi
