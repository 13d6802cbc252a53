// Command segwi runs Claude Code for one person on their own machine: a tray app, and the
// same core from the command line.
package main

import (
	"context"
	"os"

	"github.com/segwi/segwi/app"
)

func main() {
	_ = app.Run(context.Background())
	os.Exit(0)
}
