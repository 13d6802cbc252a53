package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// segwi is the tray process that runs all day and the command line: it must not link Fyne,
// whose code and package state, linked in, held the idle tray at 31 MB against 15 MB
// without it, though Fyne's driver never started. The windows are segwi-windows's. And it
// builds without cgo, which Fyne needs and nothing of segwi's does. Nor does it link
// gonum's plot, with its fonts and rasterizer: only the Usage window draws charts.
func TestSegwiLinksNoFyneAndBuildsWithoutCgo(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var fyne, plot []string
	for _, d := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(d, "fyne.io/fyne/"):
			fyne = append(fyne, d)
		case d == "gonum.org/v1/plot" || strings.HasPrefix(d, "gonum.org/v1/plot/"):
			plot = append(plot, d)
		}
	}
	if len(fyne) > 0 {
		t.Errorf("segwi links Fyne: %s", strings.Join(fyne, ", "))
	}
	if len(plot) > 0 {
		t.Errorf("segwi links gonum's plot: %s", strings.Join(plot, ", "))
	}
	// The check reads the right list: the tray and the command line are there.
	for _, want := range []string{"fyne.io/systray", "github.com/segwi/segwi/internal/roots/trayproc", "github.com/segwi/segwi/internal/roots/cli"} {
		if !strings.Contains(string(out), want+"\n") {
			t.Errorf("go list -deps . does not list %s; is the check reading the right package?", want)
		}
	}

	build := exec.Command("go", "build", "-o", filepath.Join(t.TempDir(), "segwi"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go build .: %v\n%s", err, out)
	}
}
