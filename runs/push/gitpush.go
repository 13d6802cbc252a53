package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/segwi/segwi/internal/lib/gitcmd"
)

// privateRepoPrefix starts the name of every private repository's folder.
const privateRepoPrefix = "segwi-push-"

// runPush runs git push from a private repository with the credential channel, and fills
// the attempt's outcome.
func runPush(ctx context.Context, req Request, t Target, token string, a Attempt) (Attempt, error) {
	fail := func(format string, args ...any) (Attempt, error) {
		a.Outcome, a.Message = Failed, fmt.Sprintf(format, args...)
		return a, errors.New("push: " + a.Message)
	}
	repo, err := gitcmd.NewRepo(ctx, t.checkout, gitcmd.RepoOptions{Prefix: privateRepoPrefix, Seal: true})
	if err != nil {
		return fail("could not make the private repository for the push: %v", err)
	}
	defer repo.Close()

	red := newRedactor(token)
	ch, err := newCredentialChannel(strings.ToLower(t.url.u.Scheme), t.url.u.Host, t.url.u.Path, token, repo.Changed)
	if err != nil {
		return fail("%v", err)
	}
	defer ch.close()

	g := repo.Git.WithFiles(ch.childFiles()...)
	answers := g.Files() + 1 // descriptors from 3 on; the channel's two come last: answers, requests
	g = g.Config(
		"credential.helper="+credentialHelper(answers, answers+1),
		"credential.username="+credentialUsername,
		"credential.useHttpPath=true",
	).Within(pushTimeout)
	if req.AllowLoopbackHTTP {
		g = g.With("GIT_ALLOW_PROTOCOL=https:http").Config("protocol.http.allow=always")
	}
	pushURL := t.url.display() // a user or password in the remote's URL is not sent
	var out bytes.Buffer
	ch.start()
	runErr := g.Combined(ctx, &out, "push", "--no-verify", "--recurse-submodules=no", "--porcelain",
		pushURL, t.Commit+":refs/heads/"+t.Branch)
	ch.finish()
	// Every holder of the requests pipe has exited with git, so serving ends; the timer
	// only guards against a process git left behind holding it.
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
		if err := updateTracking(ctx, t); err != nil {
			a.Message += fmt.Sprintf("; the checkout's remote-tracking branch %s/%s was not updated: %v", t.Remote, t.Branch, err)
		}
		return a, nil
	case ctx.Err() != nil:
		a.Outcome, a.Message = Failed, "the push was cancelled before it finished"
		return a, fmt.Errorf("push: git push to %s: %w", t.Remote, ctx.Err())
	case errors.Is(runErr, gitcmd.ErrDeadline):
		return fail("git push of %s to %s did not finish within %s, so segwi ended it%s", t.Branch, t.Remote, pushTimeout, note)
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
// (refs/heads/*:refs/remotes/REMOTE/*). No token is involved any more, and git does not
// run in the checkout (gitcmd.Checkout.UpdateRef).
func updateTracking(ctx context.Context, t Target) error {
	c := t.checkout
	for _, spec := range c.Config.All("remote." + t.Remote + ".fetch") {
		if strings.TrimPrefix(strings.TrimSpace(spec), "+") == "refs/heads/*:refs/remotes/"+t.Remote+"/*" {
			_, who, _ := c.Identity()
			return c.UpdateRef(ctx, "refs/remotes/"+t.Remote+"/"+t.Branch, t.Commit, nil, "segwi push", who)
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
