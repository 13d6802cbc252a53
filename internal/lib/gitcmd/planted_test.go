package gitcmd_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/lib/gitcmd"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/runs/changes"
	"github.com/segwi/segwi/runs/push"
)

// token is the GitHub token of the planted tests' git server.
const token = "ghp_plantedTESTtoken0123456789abcdefghij"

// world is a checkout on a branch of its own, pushed to a loopback git server, and the
// person's HOME, where a run's agent has planted a way to make git run its program.
type world struct {
	t        *testing.T
	checkout string
	home     string
	env      []string
	program  string // the agent's program: it appends its name and arguments to ran
	ran      string
	server   *gitserver.Server
	tried    []string // the passwords the server was sent
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, checkout: claudetest.Checkout(t), home: t.TempDir()}
	w.ran = filepath.Join(t.TempDir(), "ran")
	w.program = filepath.Join(t.TempDir(), "agent-program")
	// It says it ran, then passes its input on (a filter), prints its file (a textconv),
	// or prints nothing (an fsmonitor: "nothing changed").
	w.write(w.program, "#!/bin/sh\necho \"$0 $*\" >> '"+w.ran+"'\nif [ -f \"$1\" ]; then cat \"$1\"; elif [ $# -eq 0 ]; then cat; fi\n")
	os.Chmod(w.program, 0o755)
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + t.TempDir(), "LANG=C"}
	w.server = gitserver.New(t, gitserver.Options{Token: token, Saw: func(r *http.Request, _ bool) {
		if _, pass, ok := r.BasicAuth(); ok {
			w.tried = append(w.tried, pass)
		}
	}})
	w.git(w.checkout, "push", "--quiet", w.server.Bare, "main")
	w.git(w.checkout, "remote", "add", "origin", w.server.URL)
	w.git(w.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	w.git(w.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	w.git(w.checkout, "switch", "--quiet", "-c", "segwi/work")
	return w
}

func (w *world) write(path, content string) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

// git runs git as the agent would in its Bash tool: with the person's HOME, so that it
// reads what was planted, and with the test checkout's identity.
func (w *world) git(dir string, args ...string) string {
	w.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, w.env...), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.invalid",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.invalid", "GIT_ALLOW_PROTOCOL=file:https:http")
	out, err := cmd.CombinedOutput()
	if err != nil {
		w.t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// onPath plants a program called name in a folder put first on PATH, in segwi's
// environment and in the person's it is given: a folder of the person's, such as
// ~/.local/bin, which the agent can write (another user's when the tests run as root,
// since root's own folders are root's to trust). The program says it ran, then runs the
// shell line then.
func (w *world) onPath(name, then string) {
	w.t.Helper()
	bin := filepath.Join(w.home, ".local", "bin")
	w.write(filepath.Join(bin, name), "#!/bin/sh\necho \"$0 $*\" >> '"+w.ran+"'\n"+then+"\n")
	os.Chmod(filepath.Join(bin, name), 0o755)
	if os.Geteuid() == 0 {
		for _, p := range []string{filepath.Join(bin, name), bin} {
			if err := os.Chown(p, 4242, 4242); err != nil {
				w.t.Fatal(err)
			}
		}
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	w.t.Setenv("PATH", path)
	for i, kv := range w.env {
		if strings.HasPrefix(kv, "PATH=") {
			w.env[i] = "PATH=" + path
		}
	}
}

// sh runs a shell command in the checkout as the agent would.
func (w *world) sh(script string) {
	w.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = w.checkout
	cmd.Env = append(append([]string{}, w.env...), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.invalid",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.invalid")
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("%s: %v\n%s", script, err, out)
	}
}

// nestedRepo makes a repository at checkout/name with one commit, added to the checkout's
// index as a gitlink, as the payload does.
func (w *world) nestedRepo(name string) string {
	w.t.Helper()
	sub := filepath.Join(w.checkout, name)
	w.write(filepath.Join(sub, "s"), "s\n")
	w.git(sub, "init", "-q")
	w.git(sub, "add", "s")
	w.git(sub, "commit", "-qm", "s")
	return sub
}

// Each way a run's agent can make git run a program, tried through everything segwi does
// with git on its own: the next run's base, the run's changes and their diff (segwi runs
// diff, the Changes tab), the commit of its changes (segwi commit, "Commit and push…"),
// and the push. None may run the agent's program: it would run as the person, outside any
// run, whenever segwi looks. (Issue 20: the nested repository ran its fsmonitor twice per
// look, from segwi runs diff, segwi commit and the next run's base.)
func TestNoPlantedProgramRunsWhenSegwiUsesGit(t *testing.T) {
	tests := []struct {
		name  string
		plant func(w *world)
		// pushRefused, when set, is the words a refused push says; "" wants it pushed.
		pushRefused string
	}{
		{name: "a nested repository with its own fsmonitor, as in the issue", plant: func(w *world) {
			w.sh("mkdir sub && cd sub && git init -q && echo s>s && git add s && git commit -qm s && " +
				"git config core.fsmonitor \"sh -c 'echo FSMON >>" + w.ran + "'; false\" && cd .. && git add sub")
		}},
		{name: "a nested repository not added, with its own fsmonitor", plant: func(w *world) {
			sub := w.nestedRepo("nested")
			w.git(sub, "config", "core.fsmonitor", w.program)
		}},
		{name: "an fsmonitor in the checkout's config", plant: func(w *world) {
			w.git(w.checkout, "config", "core.fsmonitor", w.program)
		}},
		{name: "an fsmonitor in the person's ~/.gitconfig", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".gitconfig"), "[core]\n\tfsmonitor = "+w.program+"\n")
		}},
		{name: "an fsmonitor in ~/.config/git/config", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".config", "git", "config"), "[core]\n\tfsmonitor = "+w.program+"\n")
		}},
		{name: "a clean filter chosen by .gitattributes", plant: func(w *world) {
			w.git(w.checkout, "config", "filter.agent.clean", w.program)
			w.git(w.checkout, "config", "filter.agent.smudge", w.program)
			w.write(filepath.Join(w.checkout, ".gitattributes"), "* filter=agent\n")
		}},
		{name: "a long-running filter process", plant: func(w *world) {
			w.git(w.checkout, "config", "filter.agent.process", w.program)
			w.write(filepath.Join(w.checkout, ".gitattributes"), "*.txt filter=agent\n")
		}},
		{name: "a textconv program", plant: func(w *world) {
			w.git(w.checkout, "config", "diff.agent.textconv", w.program)
			w.write(filepath.Join(w.checkout, ".gitattributes"), "*.txt diff=agent\n")
		}},
		{name: "an external diff program", plant: func(w *world) {
			w.git(w.checkout, "config", "diff.external", w.program)
			w.git(w.checkout, "config", "diff.agent.command", w.program)
			w.write(filepath.Join(w.checkout, ".gitattributes"), "*.txt diff=agent\n")
		}},
		{name: "hooks named by core.hooksPath, and in .git/hooks", plant: func(w *world) {
			for _, dir := range []string{filepath.Join(w.home, "agent-hooks"), filepath.Join(w.checkout, ".git", "hooks")} {
				for _, hook := range []string{"post-index-change", "reference-transaction", "pre-commit", "commit-msg", "post-commit", "pre-push", "post-checkout", "post-rewrite"} {
					w.write(filepath.Join(dir, hook), "#!/bin/sh\nexec "+w.program+" "+hook+"\n")
					os.Chmod(filepath.Join(dir, hook), 0o755)
				}
			}
			w.git(w.checkout, "config", "core.hooksPath", filepath.Join(w.home, "agent-hooks"))
		}},
		{name: "a .gitattributes in a nested repository, its filter in that repository's config", plant: func(w *world) {
			sub := w.nestedRepo("sub")
			w.git(sub, "config", "filter.agent.clean", w.program)
			w.git(sub, "config", "core.fsmonitor", w.program)
			w.write(filepath.Join(sub, ".gitattributes"), "* filter=agent\n")
			w.git(w.checkout, "add", "sub")
			w.write(filepath.Join(sub, "s"), "changed\n") // a dirty nested repository
		}},
		{name: "a submodule with its own config", plant: func(w *world) {
			src := t.TempDir()
			w.git(src, "init", "-q")
			w.write(filepath.Join(src, "m"), "m\n")
			w.git(src, "add", "m")
			w.git(src, "commit", "-qm", "m")
			w.git(w.checkout, "-c", "protocol.file.allow=always", "submodule", "--quiet", "add", src, "mod")
			mod := filepath.Join(w.checkout, ".git", "modules", "mod")
			w.git(mod, "config", "core.fsmonitor", w.program)
			w.git(mod, "config", "filter.agent.clean", w.program)
			w.write(filepath.Join(w.checkout, "mod", ".gitattributes"), "* filter=agent\n")
			w.write(filepath.Join(w.checkout, "mod", "m"), "changed\n")
		}},
		{name: "includeIf in the checkout's config", plant: func(w *world) {
			w.write(filepath.Join(w.home, "evil.inc"), "[core]\n\tfsmonitor = "+w.program+"\n\thooksPath = "+w.home+"\n[filter \"agent\"]\n\tclean = "+w.program+"\n")
			w.git(w.checkout, "config", "includeIf.gitdir:/.path", filepath.Join(w.home, "evil.inc"))
			w.write(filepath.Join(w.checkout, ".gitattributes"), "* filter=agent\n")
		}},
		{name: "include.path in the person's ~/.gitconfig", plant: func(w *world) {
			w.write(filepath.Join(w.home, "evil.inc"), "[core]\n\tfsmonitor = "+w.program+"\n[diff]\n\texternal = "+w.program+"\n")
			w.write(filepath.Join(w.home, ".gitconfig"), "[include]\n\tpath = ~/evil.inc\n")
		}},
		{name: "a pager and an editor", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".gitconfig"), "[core]\n\tpager = "+w.program+"\n\teditor = "+w.program+"\n[pager]\n\tdiff = "+w.program+"\n\tlog = "+w.program+"\n[sequence]\n\teditor = "+w.program+"\n")
			w.git(w.checkout, "config", "core.pager", w.program)
		}},
		{name: "a credential helper", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".gitconfig"), "[credential]\n\thelper = !"+w.program+"\n")
			w.git(w.checkout, "config", "credential.helper", "!"+w.program)
			w.git(w.checkout, "config", "core.askPass", w.program)
		}},
		{name: "trace2 targets in the person's ~/.gitconfig", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".gitconfig"), "[trace2]\n\teventTarget = "+w.ran+"\n\tnormalTarget = "+w.ran+"\n\tperfTarget = "+w.ran+"\n")
		}},
		{name: "signing and ssh programs", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".gitconfig"), "[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = "+w.program+"\n[push]\n\tgpgSign = true\n[core]\n\tsshCommand = "+w.program+"\n")
		}},
		{name: "a git ahead of the person's on PATH", plant: func(w *world) {
			real, err := exec.LookPath("git")
			if err != nil {
				t.Fatal(err)
			}
			w.onPath("git", "exec "+real+" \"$@\"")
		}},
		{name: "a cat ahead of the person's on PATH, which a push's credential helper runs", plant: func(w *world) {
			// It keeps what it passes on: the credential helper's answer, the token in it.
			w.onPath("cat", "exec tee -a '"+w.ran+"'")
		}},
		{name: "url.insteadOf sending the push to ext::", plant: func(w *world) {
			w.git(w.checkout, "config", "protocol.allow", "always")
			w.git(w.checkout, "config", "url.ext::"+w.program+" %S .insteadOf", w.server.Base+"/")
		}, pushRefused: "segwi pushes only over HTTPS"},
		{name: "url.insteadOf in ~/.gitconfig sending the push to ext::", plant: func(w *world) {
			w.write(filepath.Join(w.home, ".gitconfig"), "[protocol]\n\tallow = always\n[url \"ext::"+w.program+" %S \"]\n\tpushInsteadOf = "+w.server.Base+"/\n")
		}, pushRefused: "segwi pushes only over HTTPS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			ctx := context.Background()
			g := gitcmd.New("", "", w.env)
			tt.plant(w)
			os.Remove(w.ran) // what the agent's own git ran while planting is the run's

			base := changes.ReadBase(ctx, g, w.checkout)
			if base.Error != "" {
				t.Fatalf("the run's base: %s", base.Error)
			}
			// The run's work.
			w.write(filepath.Join(w.checkout, "hello.txt"), "hello, changed by the run\n")
			w.write(filepath.Join(w.checkout, "x.txt"), "a new file\n")

			snap, err := changes.Take(ctx, g, base)
			if err != nil {
				t.Fatalf("the run's changes: %v", err)
			}
			patch, err := snap.Diff(ctx, "", 0)
			if err == nil {
				_, err = snap.Diff(ctx, "hello.txt", 0)
			}
			snap.Close()
			if err != nil {
				t.Fatalf("the run's diff: %v", err)
			}
			for _, want := range []string{"+hello, changed by the run", "+a new file"} {
				if !strings.Contains(patch.Text, want) {
					t.Errorf("the diff lacks %q:\n%s", want, patch.Text)
				}
			}

			c, err := changes.Commit(ctx, g, base, changes.CommitOptions{Message: "The run's work"})
			var refused *changes.RefusedError
			switch {
			case errors.As(err, &refused) && refused.Reason == changes.Filtered:
				t.Logf("the commit was refused, as files go through a filter: %v", err)
			case err != nil:
				t.Fatalf("the commit: %v", err)
			case c.Subject != "The run's work" || !strings.Contains(strings.Join(c.Files, " "), "x.txt"):
				t.Errorf("committed %+v", c)
			}

			if next := changes.ReadBase(ctx, g, w.checkout); next.Error != "" {
				t.Errorf("the next run's base: %s", next.Error)
			}

			a, err := push.Push(ctx, push.Request{
				Checkout: w.checkout, Env: w.env, AllowLoopbackHTTP: true,
				TokenHosts: []string{strings.TrimPrefix(w.server.Base, "http://")},
				Token:      func(context.Context) (string, error) { return token, nil },
			})
			switch {
			case tt.pushRefused != "":
				if err == nil || !strings.Contains(a.Message, tt.pushRefused) {
					t.Errorf("the push: %v (%s: %s), want it refused saying %q", err, a.Outcome, a.Message, tt.pushRefused)
				}
			case err != nil:
				t.Errorf("the push: %v (%s)\n%s", err, a.Message, a.GitOutput)
			}
			for _, p := range w.tried {
				if p != token {
					t.Errorf("the server was sent the password %q", p)
				}
			}

			if b, err := os.ReadFile(w.ran); err == nil {
				t.Errorf("the agent's program ran while segwi used git:\n%s", b)
			}
		})
	}
}
