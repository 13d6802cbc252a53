package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/internal/testing/await"
	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/coretest"
	"github.com/segwi/segwi/internal/testing/records"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// testCore builds a core over the settings file text (none when empty); no approval is
// expected.
func testCore(t *testing.T, file string, watch bool) (*core.Core, string) {
	t.Helper()
	return coretest.New(t, file, coretest.Options{Watch: watch})
}

func TestCoreRunsWithDefaultsOnBadSettings(t *testing.T) {
	c, path := testCore(t, "segwi:\n  runs:\n    maxConcurrent: 0\n", false)
	rep := c.Report()
	if rep.Err == nil || len(rep.Problems()) != 1 || !strings.Contains(rep.Err.Error(), "maxConcurrent") {
		t.Fatalf("report err %v, problems %v; want the bad maxConcurrent", rep.Err, rep.Problems())
	}
	if rep.File != path {
		t.Errorf("report file %q, want %q", rep.File, path)
	}
	if got, want := c.Settings().Runs.MaxConcurrent, settings.Default().Runs.MaxConcurrent; got != want {
		t.Errorf("maxConcurrent in force %d, want the default %d", got, want)
	}
}

func TestCoreAppliesGoodEditsAndKeepsThemOnBadOnes(t *testing.T) {
	c, path := testCore(t, "segwi:\n  claude:\n    model: opus\n", true)
	if c.Report().Err != nil || c.Settings().Claude.Model != "opus" {
		t.Fatalf("start: %v, model %q", c.Report().Err, c.Settings().Claude.Model)
	}
	var mu sync.Mutex
	var seen []core.SettingsReport
	c.OnReport(func(r core.SettingsReport) { mu.Lock(); seen = append(seen, r); mu.Unlock() })
	last := func() (core.SettingsReport, int) {
		mu.Lock()
		defer mu.Unlock()
		if len(seen) == 0 {
			return core.SettingsReport{}, 0
		}
		return seen[len(seen)-1], len(seen)
	}

	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: sonnet\n  approvals:\n    trusted: [make test]\n")
	await.For(t, 10*time.Second, "the good edit", func() bool { r, _ := last(); return r.InForce.Claude.Model == "sonnet" })
	if r, _ := last(); r.Err != nil || c.Settings().Claude.Model != "sonnet" {
		t.Errorf("after a good edit: err %v, model in force %q", r.Err, c.Settings().Claude.Model)
	}

	_, n := last()
	coretest.WriteFile(t, path, "segwi:\n  runs:\n    stopGrace: soon\n")
	await.For(t, 10*time.Second, "the bad edit", func() bool { _, m := last(); return m > n })
	r, _ := last()
	if r.Err == nil || !strings.Contains(r.Err.Error(), "stopGrace") {
		t.Errorf("bad edit reported as %v, want the stopGrace problem", r.Err)
	}
	if got := c.Settings().Claude.Model; got != "sonnet" {
		t.Errorf("after a bad edit the model in force is %q, want the last good one", got)
	}
}

func TestCoreSaysWhenClaudeIsMissing(t *testing.T) {
	c, _ := testCore(t, "segwi:\n  claude:\n    path: /nonexistent/claude\n", false)
	_, err := c.Start(context.Background(), runs.Spec{Kind: runs.KindAsk, Checkout: claudetest.Checkout(t), Prompt: "hi", KeepOpen: true})
	if err == nil || !strings.Contains(err.Error(), "segwi.claude.path") {
		t.Errorf("Start = %v, want the missing claude named with its setting", err)
	}
}

func TestCoreCloseStopsRunsInTwoSteps(t *testing.T) {
	// A claude that ignores its input and SIGTERM: only the second step ends it.
	bin := filepath.Join(t.TempDir(), "claude")
	coretest.WriteFile(t, bin, "#!/bin/sh\ntrap '' TERM\nwhile :; do sleep 1; done\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(bin)
	c, _ := testCore(t, "segwi:\n  claude:\n    path: "+string(cfg)+"\n  runs:\n    stopGrace: 1s\n", false)
	if err := c.Report().Err; err != nil {
		t.Fatalf("settings: %v", err)
	}
	r, err := c.Start(context.Background(), runs.Spec{Kind: runs.KindBuild, Checkout: claudetest.Checkout(t), Prompt: "wait", KeepOpen: true})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	await.For(t, 10*time.Second, "the run to start its process", func() bool { return r.Info().PID != 0 })
	if live := c.Live(); len(live) != 1 || live[0].ID() != r.ID() {
		t.Errorf("Live = %v, want the run", live)
	}
	if got := c.QueuedAhead(r.ID()); got != 0 {
		t.Errorf("QueuedAhead = %d, want 0", got)
	}

	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if info := r.Info(); info.State != runs.StateStopped {
		t.Errorf("after Close the run is %s (%s), want stopped", info.State, info.Reason)
	}
	if took := time.Since(start); took > time.Second+core.StopSlack {
		t.Errorf("Close took %s, longer than stopGrace plus the slack", took)
	}
	if err := c.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
}

// A damaged run record does not stop the core: it starts, says which file is damaged, and
// runs go on.
func TestCoreStartsBesideDamagedRunRecords(t *testing.T) {
	state := t.TempDir()
	st := records.WriteDamaged(t, state)
	var mu sync.Mutex
	var logged []string
	c, err := core.New(core.Config{
		StateDir: state,
		Decider:  coretest.Refusing(t),
		Secrets:  func() []string { return nil },
		Log: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			logged = append(logged, fmt.Sprintf(format, args...))
		},
	})
	if err != nil {
		t.Fatalf("New: %v; want a core, with the damaged records reported", err)
	}
	t.Cleanup(func() { c.Close() })

	var files []string
	for _, d := range c.Damaged() {
		files = append(files, d.File)
	}
	want := []string{st.BadInfo, st.InterruptedEvents}
	slices.Sort(files)
	slices.Sort(want)
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("Damaged files (-want +got):\n%s", diff)
	}
	mu.Lock()
	log := strings.Join(logged, "\n")
	mu.Unlock()
	for _, f := range want {
		if !strings.Contains(log, f) {
			t.Errorf("the log does not name %s:\n%s", f, log)
		}
	}
}

// A command loads and checks the settings itself; the core takes them as they are.
func TestCoreRunsWithTheSettingsACommandLoaded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: opus\n")
	res, err := settings.Load(path)
	if err != nil || res.Err() != nil {
		t.Fatalf("loading %s: %v %v", path, err, res.Err())
	}
	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: sonnet\n") // not read again
	c, err := core.New(core.Config{ConfigPath: path, Settings: res, StateDir: t.TempDir(), Decider: coretest.Refusing(t),
		Secrets: func() []string { return nil }})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if got := c.Settings().Claude.Model; got != "opus" {
		t.Errorf("model in force %q, want the loaded opus", got)
	}
	if rep := c.Report(); rep.File != path || rep.Err != nil {
		t.Errorf("report file %q, err %v; want %s and none", rep.File, rep.Err, path)
	}
}

func TestCoreStopsCallingAReportSubscriberThatCancelled(t *testing.T) {
	c, path := testCore(t, "segwi:\n  claude:\n    model: opus\n", true)
	var mu sync.Mutex
	var kept, cancelled int
	c.OnReport(func(core.SettingsReport) { mu.Lock(); kept++; mu.Unlock() })
	cancel := c.OnReport(func(core.SettingsReport) { mu.Lock(); cancelled++; mu.Unlock() })
	cancel()
	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: sonnet\n")
	await.For(t, 10*time.Second, "the edit to be reported", func() bool { mu.Lock(); defer mu.Unlock(); return kept > 0 })
	mu.Lock()
	defer mu.Unlock()
	if cancelled != 0 {
		t.Errorf("a cancelled subscriber was called %d times", cancelled)
	}
}
