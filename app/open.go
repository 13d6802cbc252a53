package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// openingApp is the window process's app, whose OpenURL says when the desktop could not
// open what it was asked to. Fyne's starts xdg-open and forgets it: xdg-open finding no
// program for a folder (no file manager), or a file that is not there, failed unseen, and
// Open folder did nothing. This one waits for the opener's exit status (see openAndWait).
type openingApp struct{ fyne.App }

// OpenURL opens u with the desktop's opener and returns its failure, if any, within
// openWait. It blocks: call it off Fyne's goroutine (see openThen).
func (a openingApp) OpenURL(u *url.URL) error {
	opener := desktopOpener()
	if opener == "" {
		return a.App.OpenURL(u)
	}
	ctx, cancel := context.WithTimeout(context.Background(), openWait)
	defer cancel()
	return openAndWait(ctx, opener, u)
}

// openWait is how long OpenURL waits for the opener's verdict. xdg-open hands a URL to
// the program it finds and exits at once with most desktops, but with no desktop session
// it runs that program itself and waits for it: still running after openWait, it has
// found one.
const openWait = 3 * time.Second

// desktopOpener is the program that opens a URL with the person's default application
// here; "" where Fyne's own way is the one (Windows, mobile).
func desktopOpener() string {
	switch runtime.GOOS {
	case "darwin":
		return "open"
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
		return "xdg-open"
	}
	return ""
}

// maxOpenerOutput caps what is kept of the opener's error output.
const maxOpenerOutput = 2 << 10

// openAndWait runs opener on u and returns nil once it exited successfully or is still
// running when ctx is done (it found a program and waits for it); else why it failed, in
// words, with what it wrote on stderr. The opener is reaped whenever it exits.
func openAndWait(ctx context.Context, opener string, u *url.URL) error {
	target := u.String()
	if u.Scheme == "file" {
		target = u.Path // xdg-open and open take a path as well, and say it in their errors
	}
	cmd := exec.Command(opener, target)
	var stderr capped
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("%s is not installed, and segwi opens files and folders with it", opener)
		}
		return fmt.Errorf("starting %s: %w", opener, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-ctx.Done():
		return nil // still running: it found a program and waits for it
	case err := <-done:
		if err == nil {
			return nil
		}
		return openerError(opener, err, strings.TrimSpace(stderr.String()))
	}
}

// openerError says why opener failed: xdg-open's exit statuses in words, and its own.
func openerError(opener string, err error, said string) error {
	var exit *exec.ExitError
	why := err.Error()
	if errors.As(err, &exit) && opener == "xdg-open" {
		switch exit.ExitCode() {
		case 2:
			why = "it is not there"
		case 3:
			why = "xdg-open found no program to open it with"
		case 4:
			why = "the program xdg-open chose for it failed"
		}
	}
	if said != "" {
		why += " (" + opener + ": " + strings.TrimPrefix(said, opener+": ") + ")"
	}
	return errors.New(why)
}

// capped is a buffer that keeps the first maxOpenerOutput bytes written to it.
type capped struct{ bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := maxOpenerOutput - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// openThen opens u with a's OpenURL off Fyne's goroutine (it may wait for the opener), then
// calls done with its error on Fyne's goroutine.
func openThen(a fyne.App, u *url.URL, done func(error)) {
	go func() {
		err := a.OpenURL(u)
		onUI(func() { done(err) })
	}()
}

// openIn opens path (a file or a folder; what names it, "the folder") with the person's
// default application for it, off Fyne's goroutine, and says in note why it could not,
// putting the path on the clipboard to paste where they want it. note shows nothing while
// it works.
func openIn(a fyne.App, note *widget.Label, what, path string) {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	openThen(a, &url.URL{Scheme: "file", Path: path}, func(err error) {
		if err == nil {
			note.Hide()
			return
		}
		a.Clipboard().SetContent(path)
		note.Importance = widget.DangerImportance
		note.SetText(openFailed(what, path, err))
		note.Show()
	})
}

// openFailed says that opening what at path failed, why, and that its path is on the
// clipboard.
func openFailed(what, path string, err error) string {
	return fmt.Sprintf("Could not open %s %s: %v. Its path is on the clipboard.", what, path, err)
}

// openSettingsFile is the Open file button of the windows about the settings: it opens
// file; with no file there yet (segwi runs on its defaults until one is written) it offers
// to create one, every key at its default and commented (create, called off Fyne's
// goroutine: the tray writes it), and opens that. With create nil it says how to write one.
func openSettingsFile(a fyne.App, win fyne.Window, note *widget.Label, file string, create func() error) {
	if _, err := os.Stat(file); err == nil || !errors.Is(err, fs.ErrNotExist) {
		openIn(a, note, "the settings file", file)
		return
	}
	if create == nil {
		note.Importance = widget.WarningImportance
		note.SetText("There is no settings file at " + file + " yet: Save in the settings window writes one.")
		note.Show()
		return
	}
	ask := dialog.NewConfirm("Create the settings file?", "There is no settings file at "+file+" yet: segwi runs with its "+
		"defaults. Create it, with every setting at its default and a comment saying what it is, and open it?",
		func(ok bool) {
			if !ok {
				return
			}
			go func() {
				err := create()
				onUI(func() {
					if err != nil {
						note.Importance = widget.DangerImportance
						note.SetText("The settings file was not created: " + err.Error())
						note.Show()
						return
					}
					openIn(a, note, "the settings file", file)
				})
			}()
		}, win)
	ask.SetConfirmText("Create and open")
	ask.SetDismissText("Cancel")
	ask.Show()
}
