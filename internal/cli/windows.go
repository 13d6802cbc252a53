package cli

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/control"
)

// WindowsCommand is the hidden subcommand that runs segwi's window process: the tray
// process starts it when a window is needed, with the channel to the tray inherited (see
// control.StartChild). It is not for use by hand, and is not listed.
const WindowsCommand = "window-process"

func newWindowsCmd(env *Env, windows func(ctx context.Context, conn net.Conn, env *Env) error) *cobra.Command {
	return &cobra.Command{
		Use:    WindowsCommand,
		Short:  "Show segwi's windows for the tray that started this process",
		Hidden: true,
		Args:   args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Refuse before anything else: without the tray's channel there is nothing to
			// show, and no other way to reach the tray.
			conn, err := control.Inherited()
			if err != nil {
				return fmt.Errorf("segwi %s is started by segwi's tray, with a channel to it, not by hand: run segwi instead (%w)",
					WindowsCommand, err)
			}
			if windows == nil {
				conn.Close()
				return errors.New("this build of segwi has no windows: use one of its commands (segwi --help)")
			}
			return windows(cmd.Context(), conn, env)
		},
	}
}
