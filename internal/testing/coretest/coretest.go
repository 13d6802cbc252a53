// Package coretest builds segwi's core (internal/roots/core) for tests: over a settings file the
// test gives, with every run under a temp state folder and away from the keyring, closed
// (its runs stopped) at the end of the test.
//
//	c, path := coretest.New(t, "segwi:\n  claude:\n    model: opus\n", coretest.Options{Watch: true})
//	coretest.WriteFile(t, path, "segwi:\n  claude:\n    model: sonnet\n") // an edit
package coretest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/roots/core"
)

// Options change what New builds.
type Options struct {
	// Watch makes the core watch its settings file.
	Watch bool
	// Decider answers approvals; nil means Refusing: the test expects none.
	Decider approvals.Decider
	// StateDir is the state folder; empty means a new temp folder.
	StateDir string
	// Env is the runs' base environment; nil means PATH and a temp HOME.
	Env []string
}

// New builds the core over the settings file text (no file when empty), written as
// segwi/config.yaml in a temp folder, and returns it with the file's path. Its runs get
// the environment o.Env (PATH and a temp HOME by default); its log goes to t.Logf.
func New(t testing.TB, file string, o Options) (*core.Core, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "segwi", "config.yaml")
	if file != "" {
		WriteFile(t, path, file)
	}
	if o.Decider == nil {
		o.Decider = Refusing(t)
	}
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	if o.Env == nil {
		o.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	}
	c, err := core.New(core.Config{
		ConfigPath: path,
		StateDir:   o.StateDir,
		Decider:    o.Decider,
		Env:        o.Env,
		Secrets:    func() []string { return nil },
		Watch:      o.Watch,
		Log:        t.Logf,
	})
	if err != nil {
		t.Fatalf("core.New: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("closing the core: %v", err)
		}
	})
	return c, path
}

// Refusing returns a Decider that fails the test on any approval request.
func Refusing(t testing.TB) approvals.Decider { return refusing{t} }

type refusing struct{ t testing.TB }

func (d refusing) Decide(_ context.Context, req approvals.Request) (approvals.Answer, error) {
	d.t.Errorf("unexpected approval request %+v", req)
	return approvals.Answer{}, nil
}

// WriteFile writes text to path (0600), making its folder.
func WriteFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
