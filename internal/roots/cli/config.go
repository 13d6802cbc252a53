package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/internal/roots/core"
	"github.com/segwi/segwi/remote"
	"github.com/segwi/segwi/settings"
)

func newConfigCmd(env *Env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check the settings file or print where it is",
		Args:  noCommand,
		RunE:  needsSubcommand,
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check",
		Short: "Validate the settings file; list problems, unknown keys, retired keys and warnings",
		Long: "Validate the settings file and list every problem, unknown key and retired key in it, each\n" +
			"edit of a guarded setting that waits for your confirmation (segwi config confirm), and\n" +
			"warn about what would stop a run: a repository path that is not a git checkout, a\n" +
			"claude.path that finds no Claude Code. With segwi.remote.enabled, also ask tailscaled\n" +
			"whether the approval page can be served.\n" +
			"Exits 1 when a value is invalid, the file cannot be read or the page cannot be served, 0 otherwise.",
		Args: args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error { return configCheck(env) },
	})
	cmd.AddCommand(newConfirmCmd(env))
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the settings file's path (it need not exist)",
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			path, err := env.ConfigPath()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(env.Stdout, path)
			return err
		},
	})
	return cmd
}

// configCheck prints a report of the settings file on Stdout.
func configCheck(env *Env) error {
	path, err := env.ConfigPath()
	if err != nil {
		return err
	}
	out := env.Stdout
	res, err := settings.Load(path, env.settingsOptions()...)
	if err != nil {
		fmt.Fprintf(out, "error: %v\n", err)
		return &silentError{ExitError}
	}
	// What is in force: a guarded value whose edit waits for the person is the one they
	// confirmed, and that is what a run would meet.
	inForce := res.Settings
	var waiting []settings.KeyChange
	if res.Err() == nil {
		st := settings.Stand(res)
		if st.Problem != nil {
			fmt.Fprintf(out, "warning: %v\n", st.Problem)
		}
		if st.Edit != nil {
			waiting = st.Edit.Changes()
		}
		inForce = st.Settings
	}
	warnings := core.Checks(inForce)
	if !res.Found {
		fmt.Fprintf(out, "%s does not exist: segwi uses the defaults\n", path)
		for _, w := range warnings {
			fmt.Fprintf(out, "warning: %v\n", w)
		}
		return nil
	}
	for _, p := range res.Problems {
		fmt.Fprintf(out, "error: %v\n", p)
	}
	errs := len(res.Problems)
	if !checkRemote(out, res, inForce.Remote) {
		errs++
	}
	for _, c := range waiting {
		fmt.Fprintf(out, "waits: %s: %s: changed outside segwi's settings window; segwi uses the value you confirmed "+
			"until you confirm this one (segwi config confirm, or the tray's window)\n", path, changeLine(c))
	}
	for _, k := range res.Unknown {
		fmt.Fprintf(out, "unknown: %s: %s: %s\n", path, k, settings.UnknownHint)
	}
	for _, r := range res.Retired {
		fmt.Fprintf(out, "retired: %s: %s\n", path, r.Message())
	}
	for _, w := range warnings {
		fmt.Fprintf(out, "warning: %v\n", w)
	}
	summary(out, path, errs, len(res.Unknown), len(res.Retired), len(waiting), len(warnings))
	if errs > 0 {
		return &silentError{ExitError}
	}
	return nil
}

func summary(out io.Writer, path string, errs, unknown, retired, waiting, warnings int) {
	if errs+unknown+retired+waiting+warnings == 0 {
		fmt.Fprintf(out, "%s: ok\n", path)
		return
	}
	var parts []string
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{errs, "error", "errors"}, {unknown, "unknown key", "unknown keys"}, {retired, "retired key", "retired keys"},
		{waiting, "setting waiting for your confirmation", "settings waiting for your confirmation"},
		{warnings, "warning", "warnings"},
	} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.many))
		}
	}
	fmt.Fprintf(out, "%s: %s\n", path, strings.Join(parts, ", "))
}

// checkRemote asks tailscaled, when segwi.remote.enabled is on in r (in force for res),
// whether the approval page can be served, and prints what it found: where the page will
// be, or what is wrong with tailscaled and what to do. It returns false for a problem.
func checkRemote(out io.Writer, res *settings.Result, r settings.Remote) bool {
	if !r.Enabled {
		return true
	}
	for _, p := range res.Problems {
		if strings.HasPrefix(strings.ToLower(p.Key), "segwi.remote.") {
			return true // said above; the page would not start with it
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	node, err := remote.Check(ctx, r.Socket, r.Owners)
	if err != nil {
		fmt.Fprintf(out, "error: %s: segwi.remote.enabled is true, but the approval page cannot be served: %v\n", res.File, err)
		return false
	}
	owners := strings.Join(r.Owners, ", ")
	if owners == "" {
		owners = node.Login + " (the owner of this machine's node)"
	}
	host := node.DNSName
	if host == "" {
		host = node.Addrs[0].String()
	}
	fmt.Fprintf(out, "remote: %s: the approval page will be at http://%s/ for the other devices of %s; this machine's own node (%s) is refused\n",
		res.File, net.JoinHostPort(host, strconv.Itoa(r.Port)), owners, node.Name)
	return true
}
