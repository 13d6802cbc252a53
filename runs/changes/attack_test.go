package changes

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// The agent can write the checkout's .git/config, its .gitattributes and the person's
// ~/.gitconfig, and git runs the programs they name: an fsmonitor when it reads the index,
// a clean filter when it hashes a file, a textconv or an external diff when it diffs, hooks
// when it writes the index. segwi reads a run's base and changes on its own (at a run's
// start, when a turn ends, for segwi runs diff): none of those programs may run then, or
// the agent's code would run outside its run, as the person, whenever segwi looks. And an
// fsmonitor that answers "nothing changed" must not hide a change.
func TestReadingChangesRunsNoProgramTheConfigNames(t *testing.T) {
	tests := []struct {
		name  string
		plant func(t *testing.T, checkout, home, program string)
	}{
		{"an fsmonitor in the checkout's config", func(t *testing.T, checkout, _, program string) {
			git(t, checkout, "config", "core.fsmonitor", program)
		}},
		{"an fsmonitor in the person's ~/.gitconfig", func(t *testing.T, _, home, program string) {
			write(t, home, ".gitconfig", "[core]\n\tfsmonitor = "+program+"\n")
		}},
		{"a clean filter chosen by .gitattributes", func(t *testing.T, checkout, _, program string) {
			git(t, checkout, "config", "filter.agent.clean", program)
			write(t, checkout, ".gitattributes", "* filter=agent\n")
		}},
		{"a textconv program chosen by .gitattributes", func(t *testing.T, checkout, _, program string) {
			git(t, checkout, "config", "diff.agent.textconv", program)
			write(t, checkout, ".gitattributes", "*.txt diff=agent\n")
		}},
		{"an external diff program", func(t *testing.T, checkout, _, program string) {
			git(t, checkout, "config", "diff.external", program)
		}},
		{"hooks that run when the index or a ref is written", func(t *testing.T, checkout, _, program string) {
			hooks := filepath.Join(checkout, ".git", "agent-hooks")
			for _, hook := range []string{"post-index-change", "reference-transaction"} {
				write(t, hooks, hook, "#!/bin/sh\nexec "+program+" \"$@\"\n")
				os.Chmod(filepath.Join(hooks, hook), 0o755)
			}
			git(t, checkout, "config", "core.hooksPath", hooks)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, home := sealedGit(t)
			checkout := claudetest.Checkout(t)
			ran := filepath.Join(t.TempDir(), "ran")
			program := filepath.Join(t.TempDir(), "agent-program")
			// It says it ran, then passes its input on (a filter), prints its file (a
			// textconv), or prints nothing (an fsmonitor: "nothing changed").
			write(t, filepath.Dir(program), filepath.Base(program),
				"#!/bin/sh\necho \"$0 $*\" >> "+ran+"\nif [ -f \"$1\" ]; then cat \"$1\"; elif [ $# -eq 0 ]; then cat; fi\n")
			if err := os.Chmod(program, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.plant(t, checkout, home, program)

			base := ReadBase(context.Background(), g, checkout)
			if base.Error != "" {
				t.Fatalf("ReadBase: %s", base.Error)
			}
			write(t, checkout, "hello.txt", "hello, changed by the run\n")
			write(t, checkout, "x.txt", "a new file\n")
			snap := take(t, g, base)
			patch, err := snap.Diff(context.Background(), "", 0)
			if err != nil {
				t.Fatalf("Diff: %v", err)
			}
			if _, err := snap.Diff(context.Background(), "hello.txt", 0); err != nil {
				t.Fatalf("Diff of hello.txt: %v", err)
			}
			if b, err := os.ReadFile(ran); err == nil {
				t.Errorf("the planted program ran while segwi read the changes:\n%s", b)
			}
			for _, want := range []string{"+hello, changed by the run", "+a new file"} {
				if !strings.Contains(patch.Text, want) {
					t.Errorf("the diff lacks %q:\n%s", want, patch.Text)
				}
			}
		})
	}
}
