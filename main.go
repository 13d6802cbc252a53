// Command segwi runs Claude Code for one person on their own machine: a tray app, and the
// same core from the command line.
package main

import (
	"context"
	"os"

	"github.com/segwi/segwi/app"
	"github.com/segwi/segwi/internal/cli"
	"github.com/segwi/segwi/internal/fynelocale"
)

func main() {
	fynelocale.Restore()
	os.Exit(cli.Main(os.Args[1:], cli.Options{
		Tray:   tray,
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
	}))
}

// tray opens the desktop app with the command line's settings file.
func tray(ctx context.Context, env *cli.Env) error {
	path, err := env.ConfigPath()
	if err != nil {
		return err
	}
	return app.Run(ctx, app.Options{ConfigPath: path, Warner: env.Warner, Version: cli.Version})
}
