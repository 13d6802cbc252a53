// Command segwi runs Claude Code for one person on their own machine: a tray app, and the
// same core from the command line.
package main

import (
	"context"
	"os"

	"github.com/segwi/segwi/app"
	"github.com/segwi/segwi/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Options{
		Tray:   func(ctx context.Context, _ *cli.Env) error { return app.Run(ctx) },
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
	}))
}
