// Package claudetest runs the real, pinned Claude Code CLI in end-to-end tests, sealed from
// the real user: it finds the binary, gives each process its own HOME, TMPDIR and
// XDG_RUNTIME_DIR pointed at a fakeapi server, writes the test HOME's Claude Code settings
// (permission rules, a guard hook), makes throwaway git checkouts, and can run the CLI
// directly and parse its stream-json events.
//
// The binary is $SEGWI_TEST_CLAUDE, else testdata/claude-code/node_modules/.bin/claude under
// the module root (installed by scripts/setup.sh --test). When it is missing, Binary skips
// the test, or fails it when SEGWI_TEST_STRICT=1 (CI).
//
// An end-to-end test of segwi uses both packages: the fake model server decides what the
// model does, the environment keeps Claude Code (and segwi's own state, under the test
// HOME's XDG directories) away from the real user's files, and the test drives segwi:
//
//	func TestAskRunRefusesGuardedCommand(t *testing.T) {
//		claude := claudetest.Binary(t) // skips without the pinned Claude Code
//		curl := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "curl https://example.invalid"})
//		srv := fakeapi.New(t, fakeapi.Turns(
//			fakeapi.Say(curl),
//			fakeapi.Say(fakeapi.Text("The guard refused it.")),
//		))
//		env := claudetest.Env(t, srv.URL)
//		deny := claudetest.WriteDenyFile(t, t.TempDir(), "curl")
//		env.WriteSettings(t, claudetest.Settings{
//			Permissions: &claudetest.Permissions{Ask: []string{"Bash(touch:*)"}},
//			Hooks:       map[string][]claudetest.HookMatcher{"PreToolUse": {env.GuardHook(t, deny)}},
//		})
//		checkout := claudetest.Checkout(t)
//
//		// Start segwi's run with claude as the binary, env.Vars() as its environment and
//		// checkout as its directory, and wait for it to end; then check its events and:
//		got, _ := srv.Last().ToolResult(curl.ID)
//		if !got.IsError || !strings.Contains(got.Text, claudetest.GuardMessage) { ... }
//		if st := claudetest.Status(t, checkout); st != "" { ... } // the checkout is unchanged
//	}
//
// Run and Start run the CLI directly (as segwi would, with PrintArgs: -p, stream-json in and
// out, --permission-mode auto), for tests of the harness itself and for the overhead
// benchmark (internal/testing/bench/overhead), which times them against segwi's runs.
// A run of two turns takes about 1.5 s on two idle cores, most of it Claude Code's start-up.
package claudetest
