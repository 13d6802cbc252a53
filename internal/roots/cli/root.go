// Package cli builds segwi's command tree: the headless face of the same core the tray
// app uses. main.go calls Main with the tray app passed in, so this package does not
// import Fyne and its commands test without a display.
//
// Each verb lives in its own file (config.go, token.go, version.go, ...) as a function
// that returns its *cobra.Command, and is registered with one line in newRoot. Commands
// take their dependencies from Env, which tests fill with buffers and fakes; a command
// that needs the settings calls Env.LoadSettings.
package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/segwi/segwi/migrate"
)

// Exit statuses.
const (
	ExitOK    = 0 // the command did what was asked
	ExitError = 1 // it failed at run time; the message says why
	ExitUsage = 2 // the command line was wrong; a usage line is printed
)

// Options holds Main's dependencies, so tests can swap them.
type Options struct {
	// Tray opens the desktop tray app and blocks until the person quits it or ctx is
	// cancelled. Called when segwi runs without a subcommand.
	Tray func(ctx context.Context, env *Env) error
	// Stdin, Stdout and Stderr default to the process's own when nil.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// AllowLoopbackHTTP lets push, pull requests and the settings check accept plain-HTTP
	// URLs on this machine (127.0.0.1, ::1, localhost). It is for tests, whose loopback
	// servers have no certificate; segwi's main never sets it.
	AllowLoopbackHTTP bool
	// Terminal opens the person's terminal for a question only they may answer (segwi
	// config confirm); nil opens the controlling terminal, /dev/tty.
	Terminal func() (io.ReadWriteCloser, error)
	// Headless, when set, is called on the calling goroutine before a command other than
	// the tray runs (main.go releases there the main thread, which the tray keeps).
	Headless func()
}

// Main runs segwi with args (without the program name) and returns the exit status.
// SIGINT, SIGTERM and SIGHUP cancel the context commands run with. It returns when the command
// is done.
func Main(args []string, opts Options) int {
	// A closed terminal (SIGHUP) ends segwi as Ctrl-C does, stopping its runs and recording
	// them. A closed pipe on stdout (segwi run | head) must not kill it mid-run: with
	// SIGPIPE notified (not ignored, which the agents it starts would inherit), a write
	// to the closed pipe just fails.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return run(ctx, args, opts)
}

// run is Main without the signal handling.
func run(ctx context.Context, args []string, opts Options) int {
	env := &Env{Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr, Warner: migrate.NewWarner(),
		AllowLoopbackHTTP: opts.AllowLoopbackHTTP, Terminal: opts.Terminal}
	if env.Stdin == nil {
		env.Stdin = os.Stdin
	}
	if env.Stdout == nil {
		env.Stdout = os.Stdout
	}
	if env.Stderr == nil {
		env.Stderr = os.Stderr
	}
	root := newRoot(env, opts)
	root.SetArgs(args)
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	return exitStatus(env.Stderr, cmd, err)
}

// newRoot builds the command tree. Register each verb here with one line.
func newRoot(env *Env, opts Options) *cobra.Command {
	tray := opts.Tray
	root := &cobra.Command{
		Use:   "segwi",
		Short: "Run Claude Code in your own checkouts, from the tray or the command line",
		Long: "segwi runs Claude Code for you on your own machine. Without a command it opens the tray app;\n" +
			"the commands below run the same core headless.",
		Args:          noCommand,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tray == nil {
				return errors.New("this build of segwi has no tray app: use one of its commands (segwi --help)")
			}
			return tray(cmd.Context(), env)
		},
	}
	root.PersistentPreRun = func(cmd *cobra.Command, _ []string) {
		if cmd != root && opts.Headless != nil {
			opts.Headless()
		}
	}
	root.CompletionOptions.HiddenDefaultCmd = true
	root.PersistentFlags().StringVar(&env.configFlag, "config", "", "settings `FILE` (default $SEGWI_CONFIG, else $XDG_CONFIG_HOME/segwi/config.yaml)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })

	root.AddCommand(newConfigCmd(env))
	root.AddCommand(newTokenCmd(env))
	root.AddCommand(newVersionCmd(env))
	root.AddCommand(newRunCmd(env))
	root.AddCommand(newRunsCmd(env))
	root.AddCommand(newWorktreesCmd(env))
	root.AddCommand(newUsageCmd(env))
	root.AddCommand(newCommitCmd(env))
	root.AddCommand(newPushCmd(env))
	root.AddCommand(newCanaryCmd(env))
	return root
}
