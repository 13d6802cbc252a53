package records

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/changes"
)

// Many is the state folder WriteMany wrote.
type Many struct {
	// IDs are the runs' ids, oldest first.
	IDs []string
	// Repos are the checkouts the runs ran in.
	Repos []string
}

// WriteMany writes n ended runs under stateDir (as settings.StateDir names it), the way a
// person's state folder holds them after months of use: build, ready and ask runs in a few
// checkouts over the year before 2026-01-01, a run every hour or so, each with the command
// line, base, cost, turns, usage and cgroup segwi records (one in ten without usage, as an older
// segwi recorded it), some continued by a later run, some with a
// pull request; tasks of one line to a few paragraphs. Each run.json is dated (its
// modification time) when its run ended, as segwi left it. It writes run.json only: what
// lists the runs reads nothing else. The same n gives the same runs.
func WriteMany(t testing.TB, stateDir string, n int) Many {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), 22))
	home := "/home/ada/src"
	m := Many{Repos: []string{home + "/web", home + "/api", home + "/infra", home + "/notes", home + "/segwi-fork"}}
	at := time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC)
	step := 365 * 24 * time.Hour / time.Duration(max(n, 1))
	last := map[string]string{} // the latest run of each checkout, which a later one may continue
	for i := range n {
		created := at.Add(time.Duration(i)*step + time.Duration(rng.Int64N(int64(step/2))))
		id := fmt.Sprintf("%s-%06x", created.Format("20060102-150405"), rng.Uint32()&0xffffff)
		checkout := m.Repos[rng.IntN(len(m.Repos))]
		kind := []runs.Kind{runs.KindBuild, runs.KindBuild, runs.KindBuild, runs.KindReady, runs.KindAsk}[rng.IntN(5)]
		state := []runs.State{runs.StateSucceeded, runs.StateSucceeded, runs.StateSucceeded, runs.StateSucceeded,
			runs.StateFailed, runs.StateStopped, runs.StateTimedOut, runs.StateInterrupted}[rng.IntN(8)]
		start := created.Add(time.Duration(50+rng.IntN(200)) * time.Millisecond)
		end := start.Add(time.Duration(20+rng.IntN(1800)) * time.Second)
		code := 0
		if state != runs.StateSucceeded {
			code = 1
		}
		dir := filepath.Join(runs.RunsDir(stateDir), id)
		info := runs.Info{
			ID: id, Kind: kind, Checkout: checkout, Prompt: task(rng, i), State: state,
			Created: created, Start: start, End: end, ExitCode: &code,
			CostUSD: float64(rng.IntN(250000)) / 100000, Turns: 1 + rng.IntN(12),
			SessionID: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1)),
			PID:       1000 + rng.IntN(60000),
			Argv: []string{"/home/ada/.local/bin/claude", "-p", "--input-format", "stream-json", "--output-format", "stream-json",
				"--verbose", "--permission-mode", "auto", "--permission-prompt-tool", "mcp__segwi__approve",
				"--mcp-config", filepath.Join(dir, "mcp.json")},
			Base: &changes.Base{Repo: checkout, Branch: "main", Commit: fmt.Sprintf("%016x%016x%08x", rng.Uint64(), rng.Uint64(), rng.Uint32()),
				Dirty: dirty(rng), DirtyCount: 0},
		}
		if state != runs.StateSucceeded {
			info.Reason = "Claude Code exited with status 1"
		}
		if i >= n/5 { // the later runs ran in a cgroup of their own, which segwi removed at their end
			info.Cgroup = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/segwi.scope/" + "segwi-run-" + id
		}
		if i%10 != 0 { // one run in ten recorded before segwi kept usage: its cost alone
			info.Runtime = "claude"
			c := info.CostUSD
			info.Usage = &runs.RunUsage{Turns: info.Turns, Usage: runs.Usage{
				InputTokens: int64(c * 200_000), OutputTokens: int64(c * 20_000), CacheReadTokens: int64(c * 1_000_000),
				CacheWriteTokens: int64(c * 50_000), CostUSD: c,
			}, Models: []runs.ModelUsage{{Model: "claude-opus-5-5"}}}
			info.Usage.Models[0].Usage = info.Usage.Usage
		}
		info.Base.DirtyCount = len(info.Base.Dirty)
		if kind == runs.KindAsk {
			info.Argv = append(info.Argv, "--disallowedTools", "Edit,Write,NotebookEdit")
		}
		if prev, ok := last[checkout]; ok && rng.IntN(6) == 0 {
			info.ContinuedFrom = prev
		}
		if kind != runs.KindAsk && state == runs.StateSucceeded && rng.IntN(4) == 0 {
			info.PullRequest = fmt.Sprintf("https://github.com/ada/%s/pull/%d", filepath.Base(checkout), 1+i/7)
		}
		last[checkout] = id
		WriteRun(t, stateDir, info)
		if err := os.Chtimes(filepath.Join(dir, "run.json"), end, end); err != nil {
			t.Fatal(err)
		}
		m.IDs = append(m.IDs, id)
	}
	return m
}

// task is the i-th run's task: mostly a line, sometimes a few paragraphs.
func task(rng *rand.Rand, i int) string {
	verbs := []string{"Fix", "Add", "Refactor", "Document", "Speed up", "Test", "Remove", "Explain"}
	things := []string{"the login form", "the retry loop in the client", "the settings page", "the CSV export",
		"the flaky integration test", "the README's install section", "the cache eviction", "the release script"}
	line := fmt.Sprintf("%s %s (#%d)", verbs[rng.IntN(len(verbs))], things[rng.IntN(len(things))], i)
	switch rng.IntN(4) {
	case 0:
		return line
	case 1:
		return line + "\n\nKeep the public API as it is and add a test that fails before the change."
	}
	return line + "\n\n" + strings.Repeat("The failure shows up only under load, when two requests race for the same row; "+
		"the log has the stack trace. Look at how the lock is taken and released. ", 1+rng.IntN(4))
}

// dirty is a base's files already changed: mostly none, sometimes a few.
func dirty(rng *rand.Rand) []string {
	if rng.IntN(3) != 0 {
		return nil
	}
	files := []string{"README.md", "go.mod", "internal/server/handler.go", "notes.txt", "web/src/app.ts"}
	return files[:1+rng.IntN(len(files))]
}
