package core

import (
	"context"
	"time"

	"github.com/segwi/segwi/approvals"
	"github.com/segwi/segwi/approvals/mcpserver"
	"github.com/segwi/segwi/runs"
	"github.com/segwi/segwi/runs/acp"
	"github.com/segwi/segwi/runs/claude"
	"github.com/segwi/segwi/settings"
	"github.com/segwi/segwi/settings/token/keyring"
)

// keyringWait bounds the keyring read at a run's start: a locked keyring must not hold up
// a run.
const keyringWait = 3 * time.Second

// runsConfig returns the runs manager's configuration for s, with the core's secrets (the
// strings to redact beyond the common secret shapes: keyringSecrets in production), base
// environment (nil: segwi's own) and log from cfg; srv is the approvals server.
func runsConfig(s settings.Settings, stateDir string, cfg Config, srv runs.Approvals) runs.Config {
	return runs.Config{
		Runtime:          claude.Runtime{Path: s.Claude.Path},
		Runtimes:         acpRuntimes(s.Runtimes),
		Model:            s.Claude.Model,
		MaxConcurrent:    s.Runs.MaxConcurrent,
		MaxDuration:      s.Runs.MaxDuration,
		IdleTimeout:      s.Runs.IdleTimeout,
		StopGrace:        s.Runs.StopGrace,
		PassForgeTokens:  s.Runs.PassForgeTokens,
		StateDir:         stateDir,
		Secrets:          cfg.Secrets,
		Approvals:        srv,
		Env:              cfg.Env,
		Log:              cfg.Log,
		Ports:            s.Runs.Ports,
		Repositories:     RunRepositories(s.Repositories),
		Budget:           RunBudget(s.Runs.Budget),
		CheckEveryRecord: cfg.CheckEveryRecord,
		KeepBases:        cfg.KeepBases,
	}
}

// RunBudget returns the runs' budget of the settings' (segwi.runs.budget).
func RunBudget(b settings.Budget) runs.Budget {
	return runs.Budget{CostUSD: b.Cost, Tokens: b.Tokens, Turns: b.Turns}
}

// RunRepositories returns what runs need of the configured repositories.
func RunRepositories(repos []settings.Repository) []runs.Repository {
	out := make([]runs.Repository, 0, len(repos))
	for _, r := range repos {
		out = append(out, runs.Repository{Path: r.Path, Name: r.Name, Remote: r.Remote, Worktree: r.Worktree, Setup: r.Setup})
	}
	return out
}

// acpRuntimes returns the runtimes of segwi.runtimes, each an ACP agent.
func acpRuntimes(rs []settings.Runtime) []runs.Runtime {
	var out []runs.Runtime
	for _, r := range rs {
		out = append(out, acp.Runtime{RuntimeName: r.Name, Command: r.Command, Env: r.Env})
	}
	return out
}

// approvalsConfig returns the approvals server's configuration for s, with d answering for
// the person.
func approvalsConfig(s settings.Settings, d approvals.Decider) mcpserver.Config {
	return mcpserver.Config{Timeout: s.Approvals.Timeout, Trusted: s.Approvals.Trusted, Decider: d}
}

// keyringSecrets returns the GitHub token from the keyring, so that no record of a run
// holds it; nothing when no token is set or the keyring cannot be read: a run never fails
// for want of a token. It is asked at each run's start, so a token set since is covered.
func keyringSecrets() []string {
	ctx, cancel := context.WithTimeout(context.Background(), keyringWait)
	defer cancel()
	tok, err := keyring.Get(ctx)
	if err != nil || tok == "" {
		return nil
	}
	return []string{tok}
}
