package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/internal/wire"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/settings"
)

// core is segwi's core as one headless command uses it: the runs manager, wired to an
// approvals server whose requests go to the person at the controlling terminal.
type core struct {
	settings settings.Settings
	stateDir string
	mgr      *runs.Manager
	server   *approvals.Server
}

// newCore starts the approvals server and the runs manager for s. Runs that a segwi that
// is gone left live are marked interrupted; a damaged record is a warning on stderr.
func newCore(env *Env, s settings.Settings) (*core, error) {
	stateDir, err := settings.StateDir()
	if err != nil {
		return nil, fmt.Errorf("finding the state folder: %w", err)
	}
	// The decider needs the manager's redactor, and the manager the server: the redactor
	// is looked up when a request is shown, by which time mgr is set.
	var mgr *runs.Manager
	decider := approvals.NewTerminalDecider(func(text string) string { return mgr.Redactor().String(text) })
	srv, err := approvals.NewServer(wire.Approvals(s, decider))
	if err != nil {
		return nil, fmt.Errorf("starting the approvals server: %w", err)
	}
	mgr, err = runs.NewManager(wire.Runs(s, stateDir, wire.KeyringSecrets, srv, nil))
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("starting the runs manager: %w", err)
	}
	warnDamaged(env, mgr.Damaged())
	return &core{settings: s, stateDir: stateDir, mgr: mgr, server: srv}, nil
}

// close stops every run still going (two steps, within stopGrace and a little more) and
// then the approvals server.
func (c *core) close() {
	ctx, cancel := context.WithTimeout(context.Background(), c.settings.Runs.StopGrace+5*time.Second)
	defer cancel()
	c.mgr.StopAll(ctx) //nolint:errcheck // it kills what is left; nothing more to do
	c.server.Close()
}
