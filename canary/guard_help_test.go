package canary

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
)

// helpBlocks returns GuardHelp's examples, the indented blocks, in order: the deny file,
// the hook script, the Claude Code settings.
func helpBlocks(t *testing.T) []string {
	t.Helper()
	var blocks []string
	for _, b := range regexp.MustCompile(`(?m)(^    .*\n?)+`).FindAllString(GuardHelp, -1) {
		var lines []string
		for _, l := range strings.Split(strings.TrimRight(b, "\n"), "\n") {
			lines = append(lines, strings.TrimPrefix(l, "    "))
		}
		blocks = append(blocks, strings.Join(lines, "\n")+"\n")
	}
	if len(blocks) != 3 {
		t.Fatalf("GuardHelp holds %d examples, want 3 (deny file, hook, settings)", len(blocks))
	}
	return blocks
}

// The guard hook example that segwi shows a person without one works as written with the
// pinned Claude Code: it refuses the deny file's first command, the canary's probe, and
// lets other commands run. A person who copies it gets a canary that passes.
func TestTheGuardHelpsExampleRefusesTheProbe(t *testing.T) {
	claudetest.Binary(t) // skips without the pinned Claude Code
	probe := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "echo segwi-canary-guard", "description": "Probe"})
	ls := fakeapi.ToolUse("Bash", fakeapi.Input{"command": "ls", "description": "List"})
	srv := fakeapi.New(t, fakeapi.Turns(fakeapi.Say(probe), fakeapi.Say(ls), fakeapi.Say(fakeapi.Text("done"))))
	env := claudetest.Env(t, srv.URL)
	blocks := helpBlocks(t)
	for _, f := range []struct {
		path, body string
		mode       os.FileMode
	}{
		{".claude/guard.deny", blocks[0], 0o644},
		{".claude/hooks/guard.sh", blocks[1], 0o755},
		{".claude/settings.json", blocks[2], 0o644},
	} {
		path := filepath.Join(env.Home, f.path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(f.body), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := GuardCommand(filepath.Join(env.Home, ".claude/guard.deny")); err != nil || got != "echo segwi-canary-guard" {
		t.Fatalf("the example deny file's guard command is %q, %v; want the harmless probe", got, err)
	}

	claudetest.Run(t, claudetest.Options{Env: env, Dir: claudetest.Checkout(t), Prompts: []string{"Run the probe, then list."}})

	if got, ok := srv.Last().ToolResult(probe.ID); !ok || !got.IsError || !strings.Contains(got.Text, "guard: refused: echo segwi-canary-guard") {
		t.Errorf("the probe's result %+v (found %v), want the example hook's refusal", got, ok)
	}
	if got, ok := srv.Last().ToolResult(ls.ID); !ok || got.IsError {
		t.Errorf("ls's result %+v (found %v), want it to run", got, ok)
	}
}
