package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// usageError is a mistake on the command line: exit status 2 and a usage line.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usageErrorf returns a usage error for a command's RunE or Args.
func usageErrorf(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// silentError ends a command with a status after it has printed its own report.
type silentError struct{ code int }

func (e *silentError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// args wraps a cobra argument check so that its failure is a usage error.
func args(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := check(cmd, a); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

// noCommand refuses arguments to a command that only groups subcommands (or to the
// root), naming the unknown command and suggesting a near one.
func noCommand(cmd *cobra.Command, a []string) error {
	if len(a) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", a[0], cmd.CommandPath())
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	if s := cmd.SuggestionsFor(a[0]); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return &usageError{errors.New(msg)}
}

// needsSubcommand is the RunE of a command that only groups subcommands.
func needsSubcommand(cmd *cobra.Command, _ []string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	return usageErrorf("%s needs a command: %s", cmd.CommandPath(), strings.Join(names, ", "))
}

// exitStatus prints err for a person and returns the exit status for it.
func exitStatus(stderr io.Writer, cmd *cobra.Command, err error) int {
	if err == nil {
		return ExitOK
	}
	var usage *usageError
	var silent *silentError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "segwi: %v\nusage: %s\nRun '%s --help' for more.\n", usage.err, usageLine(cmd), cmd.CommandPath())
		return ExitUsage
	case errors.As(err, &silent):
		return silent.code
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "segwi: interrupted")
		return ExitError
	default:
		fmt.Fprintf(stderr, "segwi: %v\n", err)
		return ExitError
	}
}

// usageLine is cmd's one-line synopsis, "segwi config <command> [flags]" for a group;
// the root's command is optional (none opens the tray).
func usageLine(cmd *cobra.Command) string {
	if !cmd.HasParent() {
		return cmd.CommandPath() + " [<command>] [flags]"
	}
	if cmd.HasAvailableSubCommands() {
		return cmd.CommandPath() + " <command> [flags]"
	}
	return cmd.UseLine()
}
