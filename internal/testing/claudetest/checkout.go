package claudetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Files of the checkout that Checkout makes.
const (
	// CheckoutReadme is the committed README.md's content.
	CheckoutReadme = "# sample\n\nA checkout for segwi's end-to-end tests.\n"
	// CheckoutHello is the committed hello.txt's content.
	CheckoutHello = "hello from the test checkout\n"
)

// Checkout makes a git checkout in a temporary directory for a run to work in: branch main,
// one commit holding README.md and hello.txt, user.name and user.email set in its own
// config. It returns the checkout's path. It skips the test when git is missing.
func Checkout(t testing.TB) string {
	t.Helper()
	NeedTool(t, "git")
	dir := t.TempDir()
	for name, content := range map[string]string{"README.md": CheckoutReadme, "hello.txt": CheckoutHello} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatalf("writing %s: %v", name, err)
		}
	}
	Git(t, dir, "init", "--quiet", "--initial-branch=main")
	Git(t, dir, "config", "user.name", "segwi test")
	Git(t, dir, "config", "user.email", "test@segwi.invalid")
	Git(t, dir, "config", "commit.gpgsign", "false")
	Git(t, dir, "add", "README.md", "hello.txt")
	Git(t, dir, "commit", "--quiet", "-m", "Start the sample")
	return dir
}

// Git runs git with args in dir, isolated from the real user's git config and committing as
// Checkout's user, and returns its trimmed output; it fails the test when git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=segwi test", "GIT_AUTHOR_EMAIL=test@segwi.invalid",
		"GIT_COMMITTER_NAME=segwi test", "GIT_COMMITTER_EMAIL=test@segwi.invalid")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Status returns `git status --porcelain --untracked-files=all` of a checkout: empty when
// nothing changed since the last commit. Compare it before and after a run to see that the
// run changed nothing.
func Status(t testing.TB, dir string) string {
	t.Helper()
	return Git(t, dir, "status", "--porcelain", "--untracked-files=all")
}

// WrappedGit writes a program named git, in a folder of its own, that runs the shell
// commands before and then the git on PATH now, with the same arguments: a git that notes
// its commands (before appends "$1" to a file) or is slow or waits. It returns the
// program's path: a gitcmd.Git's Path, or its folder first on PATH. It skips the test
// when git is missing.
func WrappedGit(t testing.TB, before string) string {
	t.Helper()
	real := NeedTool(t, "git")
	path := filepath.Join(t.TempDir(), "git")
	script := "#!/bin/sh\n" + before + "\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}
