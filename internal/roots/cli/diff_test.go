package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/claudetest"
)

// segwi runs diff prints what changed since the run's base: a tracked file edited, a new
// untracked file, a binary file named and not dumped; --stat lists them and marks the file
// that was already changed before the run.
func TestRunsDiffShowsTheRunsChangesFromItsBase(t *testing.T) {
	isolate(t)
	checkout := claudetest.Checkout(t)
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(checkout, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", claudetest.CheckoutReadme+"a note of mine, before the run\n")
	id := runIDLine(segwi(t, "", "--config", runConfig(t, ""), "run", "--checkout", checkout, "fake:success").stderr)
	if id == "" {
		t.Fatal("the run did not start")
	}
	// What the agent did (the fake Claude Code edits nothing; the real one does, in e2e).
	write("hello.txt", "hello from the run\n")
	write("x.txt", "a new file\n")
	write("logo.bin", "\x00\x01\x02binary\x00")
	claudetest.Git(t, checkout, "add", "logo.bin")
	claudetest.Git(t, checkout, "commit", "--quiet", "-m", "Add a logo")

	r := segwi(t, "", "runs", "diff", id)
	if r.code != 0 {
		t.Fatalf("runs diff: exit %d, stderr %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"diff --git a/hello.txt b/hello.txt\n", "-" + claudetest.CheckoutHello, "+hello from the run\n",
		"diff --git a/x.txt b/x.txt\nnew file mode 100644\n", "+a new file\n",
		"Binary files /dev/null and b/logo.bin differ\n",
		"+a note of mine, before the run\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the diff lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "binary\x00") {
		t.Errorf("the diff dumps the binary file:\n%q", r.stdout)
	}

	r = segwi(t, "", "runs", "diff", "--stat", id)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 7 {
		t.Fatalf("runs diff --stat: exit %d, stdout:\n%s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if want := "run " + id + ": changes since main at "; !strings.HasPrefix(lines[0], want) ||
		!strings.HasSuffix(lines[0], ", 1 file already changed: README.md") {
		t.Errorf("first line %q, want %q… and the file already changed", lines[0], want)
	}
	got := map[string]string{}
	for _, l := range lines[1:5] {
		f := strings.Fields(l)
		got[f[1]] = strings.Join(append(f[:1:1], f[2:]...), " ")
	}
	want := map[string]string{
		"README.md": "modified +1 -0 already changed before the run",
		"hello.txt": "modified +1 -1",
		"logo.bin":  "added binary",
		"x.txt":     "added +1 -0",
	}
	for path, w := range want {
		if got[path] != w {
			t.Errorf("--stat line of %s = %q, want %q", path, got[path], w)
		}
	}
	if !strings.HasSuffix(lines[5], " Add a logo") || lines[6] != "4 files changed, +3 -1" {
		t.Errorf("--stat ends %q / %q, want the commit and the totals", lines[5], lines[6])
	}
}

// segwi runs diff prints the whole diff, however long: it was cut at 4 MiB, after git had
// computed all of it.
func TestRunsDiffPrintsALongDiffWhole(t *testing.T) {
	isolate(t)
	checkout := claudetest.Checkout(t)
	id := runIDLine(segwi(t, "", "--config", runConfig(t, ""), "run", "--checkout", checkout, "fake:success").stderr)
	if id == "" {
		t.Fatal("the run did not start")
	}
	// Three new files of 2 MiB each: each under the size from which git names a file as
	// binary, 6 MiB of diff in all.
	line := strings.Repeat("x", 63) + "\n"
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		body := strings.Repeat(line, 2<<20/len(line)-1) + "the end of " + name + "\n"
		if err := os.WriteFile(filepath.Join(checkout, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := segwi(t, "", "runs", "diff", id)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("runs diff: exit %d, stderr %s", r.code, r.stderr)
	}
	if len(r.stdout) < 6<<20 || !strings.HasSuffix(r.stdout, "+the end of c.txt\n") {
		t.Errorf("the diff is %d bytes and ends %q; want 6 MiB and more, whole", len(r.stdout), r.stdout[max(0, len(r.stdout)-40):])
	}
}
