//go:build linkall

package main

// What main.go of segwi links: the Fyne app and the command line.
import (
	_ "github.com/segwi/segwi/app"
	_ "github.com/segwi/segwi/internal/cli"
	_ "github.com/segwi/segwi/internal/fynelocale"
)
