package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Starter is a settings file for a person who has none yet: every key segwi reads, at its
// default, each with a comment saying what it is, so that the file shows what there is to
// set. Loaded, it gives Default().
func Starter() string {
	d := Default()
	var b strings.Builder
	b.WriteString("# segwi's settings. Every key is here at its default: change what you need, and segwi\n" +
		"# picks the file up when it changes. See the README's Configuration section.\n")
	line := func(text, comment string) {
		if comment == "" {
			b.WriteString(text + "\n")
			return
		}
		fmt.Fprintf(&b, "%-26s# %s\n", text+"  ", comment) // two spaces at least: YAML's comment needs one
	}
	line("segwi:", "")
	line("  claude:", "")
	line("    path: "+d.Claude.Path, "the Claude Code binary")
	line(`    model: ""`, "empty: Claude Code's default")
	line("  repositories: []", "the checkouts the tray offers, for example:")
	line("  #  - name: web", "")
	line("  #    path: ~/src/web", "")
	line("  #    remote: origin", "where segwi pushes")
	line("  runs:", "")
	line(fmt.Sprintf("    maxConcurrent: %d", d.Runs.MaxConcurrent), "all runs; more wait in a queue, in order")
	line("    maxDuration: "+FormatDuration(d.Runs.MaxDuration), "wall clock, then a two-step stop (state timed-out)")
	line("    idleTimeout: "+FormatDuration(d.Runs.IdleTimeout), "no output for this long, then a two-step stop")
	line("    stopGrace: "+FormatDuration(d.Runs.StopGrace), "between the polite stop (SIGTERM) and the kill")
	line(fmt.Sprintf("    passForgeTokens: %t", d.Runs.PassForgeTokens), "keep GH_TOKEN/GITHUB_TOKEN in a run's environment")
	line("    budget:", "what a run may use; at a turn's end over it, the run waits for you")
	line("      cost: 0", "US dollars, as Claude Code reckons them; 0: no bound")
	line("      tokens: 0", "tokens of every kind; 0: no bound")
	line("      turns: 0", "answered messages; 0: no bound")
	line("  approvals:", "")
	line("    timeout: "+FormatDuration(d.Approvals.Timeout), "no answer: deny, saying it timed out")
	line("    trusted: []", "Bash command prefixes allowed without asking (max 64, 1 KiB each)")
	line("  canary:", "")
	line(`    guardDeny: ""`, "a guard.deny file; its first command is the canary's refusal probe")
	line("  github:", "")
	line("    apiURL: "+d.GitHub.APIURL, "where the GitHub token goes (GitHub Enterprise: https://HOST/api/v3)")
	line("  remote:", "approvals from your phone, over your tailnet")
	line(fmt.Sprintf("    enabled: %t", d.Remote.Enabled), "")
	line(fmt.Sprintf("    port: %d", d.Remote.Port), "")
	line("    owners: []", "tailnet logins allowed to answer; empty: this machine's owner")
	line(`    socket: ""`, "tailscaled's LocalAPI socket; empty: the platform's default")
	return b.String()
}

// CreateStarter writes Starter to path, a YAML file that does not exist yet, with its
// folder when needed; it never replaces a file (an error matching fs.ErrExist says so).
func CreateStarter(path string) error {
	if typ, err := format(path); err != nil {
		return fmt.Errorf("creating the settings file: %w", err)
	} else if typ != "yaml" {
		return fmt.Errorf("creating the settings file: %s is not a YAML file, and segwi writes only YAML: write it by hand", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("creating the settings file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating the settings file: %s exists already, and segwi does not replace it: %w", path, err)
	}
	if err != nil {
		return fmt.Errorf("creating the settings file: %w", err)
	}
	if _, err := f.WriteString(Starter()); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("creating the settings file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("creating the settings file %s: %w", path, err)
	}
	return nil
}
