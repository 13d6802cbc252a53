package app

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeOpener writes an executable script named name into a new folder and returns the
// folder, for PATH.
func fakeOpener(t *testing.T, name, body string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The desktop's opener failing is an error in words, with what it said: Fyne's OpenURL
// started xdg-open and never looked at its exit status, so Open folder did nothing when
// no program could open a folder. An opener still running when the wait is over found a
// program; one that is not installed says so.
func TestOpenAndWaitSaysWhyTheDesktopOpenedNothing(t *testing.T) {
	u := &url.URL{Scheme: "file", Path: "/home/ada/src/web"}
	for _, c := range []struct {
		name, script string
		want         string // "" for no error
	}{
		{"no program for a folder", `echo "xdg-open: no method available for opening '$1'" >&2; exit 3`,
			"xdg-open found no program to open it with (xdg-open: no method available for opening '/home/ada/src/web')"},
		{"a file that is not there", `echo "xdg-open: file '$1' does not exist" >&2; exit 2`,
			"it is not there (xdg-open: file '/home/ada/src/web' does not exist)"},
		{"the program chosen failed", `exit 4`, "the program xdg-open chose for it failed"},
		{"opened", `exit 0`, ""},
		{"still running: it found a program and waits for it", `exec sleep 2`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PATH", fakeOpener(t, "xdg-open", c.script)+string(os.PathListSeparator)+os.Getenv("PATH"))
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			err := openAndWait(ctx, "xdg-open", u)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("openAndWait = %v, want it opened", err)
			case c.want != "" && (err == nil || err.Error() != c.want):
				t.Errorf("openAndWait = %v, want %q", err, c.want)
			}
		})
	}
	t.Setenv("PATH", t.TempDir())
	if err := openAndWait(context.Background(), "xdg-open", u); err == nil || !strings.Contains(err.Error(), "xdg-open is not installed") {
		t.Errorf("without xdg-open: %v", err)
	}
}
