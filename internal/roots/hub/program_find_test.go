package hub

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tray looks for segwi-windows beside its own executable first, where scripts/run.sh
// and the package put it, so that the segwi a person started finds the windows built with
// it even when another is on PATH; then on PATH.
func TestTheWindowProgramIsFoundBesideSegwiThenOnPath(t *testing.T) {
	install := t.TempDir()   // segwi and, maybe, segwi-windows
	links := t.TempDir()     // a symlink to segwi, as in ~/bin
	onPath := t.TempDir()    // another segwi-windows on PATH
	elsewhere := t.TempDir() // a folder with nothing
	write := func(path string, mode os.FileMode) string {
		t.Helper()
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	segwi := write(filepath.Join(install, "segwi"), 0o755)
	link := filepath.Join(links, "segwi")
	if err := os.Symlink(segwi, link); err != nil {
		t.Fatal(err)
	}

	t.Run("beside segwi, through the symlink it was started by", func(t *testing.T) {
		beside := write(filepath.Join(install, WindowsProgram), 0o755)
		defer os.Remove(beside)
		write(filepath.Join(onPath, WindowsProgram), 0o755)
		defer os.Remove(filepath.Join(onPath, WindowsProgram))
		t.Setenv("PATH", onPath)
		if got, err := findProgram(WindowsProgram, link); err != nil || got != beside {
			t.Errorf("found %q (%v), want %q", got, err, beside)
		}
	})
	t.Run("on PATH when not beside segwi", func(t *testing.T) {
		want := write(filepath.Join(onPath, WindowsProgram), 0o755)
		defer os.Remove(want)
		t.Setenv("PATH", elsewhere+string(os.PathListSeparator)+onPath)
		if got, err := findProgram(WindowsProgram, link); err != nil || got != want {
			t.Errorf("found %q (%v), want %q", got, err, want)
		}
	})
	t.Run("neither a file it cannot run nor one found through a relative PATH entry", func(t *testing.T) {
		notRunnable := write(filepath.Join(install, WindowsProgram), 0o644)
		defer os.Remove(notRunnable)
		write(filepath.Join(onPath, WindowsProgram), 0o755)
		defer os.Remove(filepath.Join(onPath, WindowsProgram))
		t.Chdir(onPath)
		t.Setenv("PATH", ".")
		got, err := findProgram(WindowsProgram, link)
		var missing *MissingProgramError
		if !errors.As(err, &missing) {
			t.Fatalf("found %q (%v), want a *MissingProgramError", got, err)
		}
	})
	t.Run("missing, it says where it looked and how to install it", func(t *testing.T) {
		t.Setenv("PATH", elsewhere)
		_, err := findProgram(WindowsProgram, link)
		var missing *MissingProgramError
		if !errors.As(err, &missing) {
			t.Fatalf("got %v, want a *MissingProgramError", err)
		}
		for _, want := range []string{"no window can open", WindowsProgram, "beside segwi (in " + install + ")",
			"on PATH (" + elsewhere + ")", "scripts/run.sh builds both", "make user-install"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the error %q does not say %q", err, want)
			}
		}
	})
}
