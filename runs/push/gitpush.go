package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/gitcmd"
)

// runPush runs git push from a private repository with the credential channel, and fills
// the attempt's outcome.
func runPush(ctx context.Context, req Request, t Target, token string, a Attempt) (Attempt, error) {
	fail := func(format string, args ...any) (Attempt, error) {
		a.Outcome, a.Message = Failed, fmt.Sprintf(format, args...)
		return a, errors.New("push: " + a.Message)
	}
	g := checkoutGit(req)
	gitPath, env := g.Path, g.Env
	shallow, err := os.ReadFile(filepath.Join(t.commonDir, "shallow"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fail("could not read the checkout's shallow file: %v", err)
	}
	repo, err := makePrivateRepo(ctx, gitPath, env, filepath.Join(t.commonDir, "objects"), shallow, req.AllowLoopbackHTTP)
	if err != nil {
		return fail("%v", err)
	}
	defer repo.remove()

	red := newRedactor(token)
	ch, err := newCredentialChannel(strings.ToLower(t.url.u.Scheme), t.url.u.Host, token, repo.changed)
	if err != nil {
		return fail("%v", err)
	}
	defer ch.close()

	pushURL := t.url.display() // a user or password in the remote's URL is not sent
	args := []string{
		"-c", "credential.helper=", // forget any helper for this command
		"-c", "credential.helper=" + credentialHelper,
		"-c", "credential.username=" + credentialUsername,
		"-c", "core.hooksPath=" + os.DevNull,
		"-c", "http.sslVerify=true",
		"-c", "push.gpgSign=false",
		"push", "--no-verify", "--recurse-submodules=no", "--porcelain",
		pushURL, t.Commit + ":refs/heads/" + t.Branch,
	}
	cmd := exec.CommandContext(ctx, gitPath, args...)
	cmd.Dir = repo.dir
	cmd.Env = repo.env(env)
	cmd.ExtraFiles = ch.childFiles()
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		a.Outcome, a.Message = Failed, fmt.Sprintf("could not start git push: %v", err)
		return a, fmt.Errorf("push: starting git push: %w", err)
	}
	ch.started()
	runErr := cmd.Wait()
	// Every holder of fd 4 has exited with git, so serving ends; the timer only guards
	// against a process git left behind holding it.
	select {
	case <-ch.done:
	case <-time.After(5 * time.Second):
	}
	o := ch.outcome()

	var note string
	if t.url.u.User != nil {
		note = "; the remote's URL holds a user name or password of its own, which segwi neither used nor sent: it pushes with its GitHub token"
	}
	a.GitOutput = capOutput(red.String(out.String()))
	switch {
	case o.changed != nil:
		// Checked first: git may have failed only because it got no token.
		return fail("another program changed the private repository segwi made for this push while git was starting (%v), so segwi did not hand git the token; something running as you is writing there, perhaps a process a run left behind: find and stop it, then push again",
			o.changed)
	case runErr == nil:
		a.Outcome = Pushed
		a.Message = fmt.Sprintf("pushed %s (%s) to %s (%s)%s", t.Branch, gitcmd.Short(t.Commit), t.Remote, t.URL, note)
		if err := updateTracking(ctx, req, t); err != nil {
			a.Message += fmt.Sprintf("; the checkout's remote-tracking branch %s/%s was not updated: %v", t.Remote, t.Branch, err)
		}
		return a, nil
	case ctx.Err() != nil:
		a.Outcome, a.Message = Failed, "the push was cancelled before it finished"
		return a, fmt.Errorf("push: git push to %s: %w", t.Remote, ctx.Err())
	case o.rejected:
		return fail("%s refused the GitHub token for %s; set a token that may push to this repository with `segwi token set`, then push again%s",
			t.url.u.Host, t.URL, note)
	case o.otherHost != "":
		return fail("git asked for a password for %s instead of %s, so segwi did not hand it the token; check the remote's URL, then push again",
			withoutUserinfo(o.otherHost), t.URL)
	default:
		return fail("git push of %s to %s failed: %s%s", t.Branch, t.Remote, lastLines(a.GitOutput, 6), note)
	}
}

// updateTracking moves the checkout's remote-tracking branch to the pushed commit, as a
// push from the checkout would have, when the remote maps branches the usual way
// (refs/heads/*:refs/remotes/REMOTE/*). No token is involved any more; hooks stay off.
func updateTracking(ctx context.Context, req Request, t Target) error {
	g := checkoutGit(req)
	specs, err := g.Output(ctx, "config", "--get-all", "remote."+t.Remote+".fetch")
	if err != nil {
		return nil // the remote fetches nothing, so nothing tracks the branch
	}
	for _, spec := range strings.Split(specs, "\n") {
		if strings.TrimPrefix(strings.TrimSpace(spec), "+") == "refs/heads/*:refs/remotes/"+t.Remote+"/*" {
			_, err := g.Output(ctx, "-c", "core.hooksPath="+os.DevNull, "update-ref", "-m", "segwi push",
				"refs/remotes/"+t.Remote+"/"+t.Branch, t.Commit)
			return err
		}
	}
	return nil
}

// capOutput keeps the end of s, where git puts its verdict, within maxGitOutput bytes.
func capOutput(s string) string {
	if len(s) <= maxGitOutput {
		return s
	}
	return "[...]\n" + s[len(s)-maxGitOutput:]
}

// lastLines returns the last n non-empty lines of s joined by "; ".
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if len(lines) == 0 {
		return "git printed nothing"
	}
	return strings.Join(lines, "; ")
}
