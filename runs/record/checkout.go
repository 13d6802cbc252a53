package record

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// whatToRunIn ends CheckoutDir's errors: what a person does about each.
const whatToRunIn = "runs work in the top folder of a git checkout"

// CheckoutDir returns dir absolute, symlinks resolved, when a run may start there: the top
// folder of a git checkout (it holds .git, a folder, or a file in a linked worktree). Its
// error otherwise says why and what to do, in words a person reads as they are: Start
// refuses with it, and a front end that checks a folder before starting (the new-run
// dialog, segwi run) shows the same words.
//
// A folder inside a checkout is refused too, naming the checkout above it: a build run
// holds its checkout for itself, and two runs in two folders of one checkout would not see
// each other.
func CheckoutDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no checkout given: " + whatToRunIn + "; choose one")
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", fmt.Errorf("%s does not exist: %s; choose one", dir, whatToRunIn)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s is not a directory: %s; choose one", dir, whatToRunIn)
	}
	if hasGit(abs) {
		return abs, nil
	}
	for up := filepath.Dir(abs); up != filepath.Dir(up); up = filepath.Dir(up) {
		if hasGit(up) {
			return "", fmt.Errorf("%s is not the top folder of a git checkout (it is inside %s): %s; use that one, or make this folder one with git init", dir, up, whatToRunIn)
		}
	}
	return "", fmt.Errorf("%s is not a git checkout (it has no .git): %s; use one, or make this folder one with git init", dir, whatToRunIn)
}

// hasGit reports whether dir holds a .git, as the top folder of a checkout does.
func hasGit(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}
