package trayproc

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/runs"
)

// The tray's core outlives its runs, and gives a run the base the last run in its checkout
// read while nothing there has changed, without git (runs.Config.KeepBases): the core the
// tray builds, the runs through it, a git that notes its commands.
func TestTheTraysCoreGivesARunTheLastBaseOfAnUnchangedCheckout(t *testing.T) {
	claude, _ := json.Marshal(claudetest.BuildFakeClaude(t, t.TempDir()))
	settings := filepath.Join(t.TempDir(), "config.yaml")
	coretest.WriteFile(t, settings, "segwi:\n  claude:\n    path: "+string(claude)+"\n")
	log := filepath.Join(t.TempDir(), "commands")
	bin := filepath.Dir(claudetest.WrappedGit(t, `echo "$1" >> '`+log+`'`))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH")) // segwi's git, found on PATH
	statuses := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "status\n")
	}

	cfg := coreConfig(settings, coretest.Refusing(t), t.Logf)
	cfg.StateDir = t.TempDir()
	cfg.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	cfg.Secrets = func() []string { return nil } // away from the person's keyring
	c, err := core.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the core: %v", err)
		}
	})

	checkout := claudetest.Checkout(t)
	coretest.WriteFile(t, filepath.Join(checkout, "hello.txt"), "changed before the run\n")
	run := func() {
		t.Helper()
		r, err := c.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: checkout, Prompt: "fake:success"})
		if err != nil {
			t.Fatalf("Start: %v", err)
		}
		await.For(t, 30*time.Second, "run "+r.ID()+" to end", func() bool { return r.Info().State.Final() })
		if info := r.Info(); info.State != runs.StateSucceeded || info.Base == nil || !slices.Equal(info.Base.Dirty, []string{"hello.txt"}) {
			t.Fatalf("run %s: %s (%s) with the base %+v, want a succeeded run with hello.txt already changed", info.ID, info.State, info.Reason, info.Base)
		}
	}
	// What was written just before a reading cannot be told from a change made just after
	// it: the first runs read with git until one is read after the checkout settled.
	await.For(t, 60*time.Second, "a run whose base was read without git", func() bool {
		ran := statuses()
		run()
		return statuses() == ran
	})
}
