package guard

import (
	"regexp"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// helpBlocks returns Help's examples, the indented blocks, in order: the deny file,
// the hook script, the Claude Code settings.
func helpBlocks(t *testing.T) []string {
	t.Helper()
	var blocks []string
	for _, b := range regexp.MustCompile(`(?m)(^    .*\n?)+`).FindAllString(Help, -1) {
		var lines []string
		for _, l := range strings.Split(strings.TrimRight(b, "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "    "))
		}
		blocks = append(blocks, strings.Join(lines, "\n")+"\n")
	}
	if len(blocks) != 3 {
		t.Fatalf("Help holds %d examples, want 3 (deny file, hook, settings)", len(blocks))
	}
	return blocks
}

// The guard hook help shows the very files the setup writes.
func TestTheGuardHelpShowsTheExample(t *testing.T) {
	blocks := helpBlocks(t)
	for i, want := range []string{exampleDeny, exampleHook, exampleSettings} {
		if blocks[i] != want {
			t.Errorf("the help's example %d is\n%s\nwant\n%s", i+1, blocks[i], want)
		}
	}
}

// The guard hook example that segwi shows a person without one, and sets up when asked,
// works as written with the pinned Claude Code: set up in a home that has Claude Code
// settings of its own, it refuses the deny file's first command, the canary's probe, and
// lets other commands run. A person who takes it gets a canary that passes.
func TestTheGuardSetupRefusesTheProbe(t *testing.T) {
	claudetest.Binary(t) // skips without the pinned Claude Code
	probe := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo segwi-canary-guard", "description": "Probe"})
	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List"})
	srv := fakeapi.New(t, fakeapi.Turns(fakeapi.Say(probe), fakeapi.Say(ls), fakeapi.Say(fakeapi.Text("done"))))
	env := claudetest.Env(t, srv.URL)
	env.WriteSettings(t, claudetest.Settings{Permissions: &claudetest.Permissions{Ask: []string{"Bash(touch:*)"}}})
	setup, err := PlanSetup(env.Home)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(actions(setup), ", "), "create guard.deny, create guard.sh, add to settings.json"; got != want {
		t.Errorf("planned %s, want %s", got, want)
	}
	if err := setup.Apply(); err != nil {
		t.Fatal(err)
	}
	if got, err := Command(setup.Deny); err != nil || got != "echo segwi-canary-guard" {
		t.Fatalf("the deny file's guard command is %q, %v; want the harmless probe", got, err)
	}

	claudetest.Run(t, claudetest.Options{Env: env, Dir: claudetest.Checkout(t), Prompts: []string{"Run the probe, then list."}})

	if got, ok := srv.Last().ToolResult(probe.ID); !ok || !got.IsError || !strings.Contains(got.Text, "guard: refused: echo segwi-canary-guard") {
		t.Errorf("the probe's result %+v (found %v), want the example hook's refusal", got, ok)
	}
	if got, ok := srv.Last().ToolResult(ls.ID); !ok || got.IsError {
		t.Errorf("ls's result %+v (found %v), want it to run", got, ok)
	}
}
