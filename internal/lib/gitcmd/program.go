package gitcmd

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Which git segwi runs, and where git finds the programs it runs itself.
//
// A PATH often names folders of the person's first (~/.local/bin, ~/bin), which any program
// of theirs can write, a run's agent among them. A git put there would run whenever segwi
// runs git, as the person and outside any run; and the credential helper a push gives git
// runs cat from PATH, so a cat put there would read the GitHub token. So segwi runs the
// first git on its PATH that only root can change, and gives git a PATH of only the folders
// only root can change: the file or folder, and every folder on the way to it, root's and
// writable by no one else. A folder on the way that others may write is accepted when it
// is sticky (/tmp, /nix/store), for then only an entry's owner can replace the entry; as
// a PATH folder itself it is not, since others may add a program of a name not taken yet.
// A Git whose Path is set runs that program as given: the code that set it chose it.
//
// What that costs a person whose git is their own (Homebrew's on macOS, one built into
// their home folder): segwi runs the system's git after it on PATH, or, with none, says
// which git it passed over and why.

// ErrNoGit is wrapped by the error of a command that found no git segwi may run.
var ErrNoGit = errors.New("no git that segwi may run")

// programProblem returns path with its links followed, and says why a program of someone
// other than root could change it (a program, or a folder its programs live in), or ""
// when only root can: it must be root's and writable by no one else, and so must every
// folder above it, but for a sticky one, whose entries only their owners may replace
// (wayProblem).
func programProblem(path string) (real, problem string) {
	if !canSeal {
		return path, ""
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return path, fmt.Sprintf("%s cannot be used (%v)", path, err)
	}
	st, err := stampOf(real)
	switch {
	case err != nil:
		return real, fmt.Sprintf("%s cannot be used (%v)", path, err)
	case st.uid != 0:
		who, programs := owner(st.uid)
		return real, fmt.Sprintf("%s is %s, not root's, so %s could change it", real, who, programs)
	case st.mode&0o022 != 0:
		return real, fmt.Sprintf("%s may be written by users other than root", real)
	}
	if parent := filepath.Dir(real); parent != real {
		return real, wayProblem(parent)
	}
	return real, ""
}

// owner names the owner uid of a file in the person's words, and whose programs could
// change it: "yours (user 1000)" and "any program of yours", or "user 1001's" and "that
// user's programs".
func owner(uid uint32) (who, programs string) {
	if int(uid) == os.Getuid() {
		return fmt.Sprintf("yours (user %d)", uid), "any program of yours"
	}
	return fmt.Sprintf("user %d's", uid), "that user's programs"
}

// ways caches wayProblem: the folders of a PATH share most of theirs (/usr, /home/p).
var ways sync.Map // folder -> string

// wayProblem says why a program of someone other than root could replace what folder d
// holds, or "" when only root can: d and every folder above it root's, writable by no one
// else or sticky. A verdict is kept: a folder's owner and mode change only by its owner's
// hand, and a folder that passed is root's.
func wayProblem(d string) string {
	if p, ok := ways.Load(d); ok {
		return p.(string)
	}
	var p string
	st, err := stampOf(d)
	switch {
	case err != nil:
		p = fmt.Sprintf("%s cannot be used (%v)", d, err)
	case st.uid != 0:
		who, programs := owner(st.uid)
		p = fmt.Sprintf("%s is %s, not root's, so %s could change what it holds", d, who, programs)
	case st.mode&0o022 != 0 && st.mode&sticky == 0:
		p = fmt.Sprintf("%s may be written by users other than root", d)
	default:
		if parent := filepath.Dir(d); parent != d {
			p = wayProblem(parent)
		}
	}
	ways.Store(d, p)
	return p
}

// folderProblems caches programProblem for the folders of a PATH, as ways does.
var folderProblems sync.Map // folder -> string

func folderProblem(dir string) string {
	if p, ok := folderProblems.Load(dir); ok {
		return p.(string)
	}
	_, p := programProblem(dir)
	folderProblems.Store(dir, p)
	return p
}

// found is the git found on one PATH, kept once found: the folders it was found through
// are root's.
var found struct {
	sync.Mutex
	list, git string
}

// passedOver holds, for a git found after others were passed over, what was passed over
// and why: a git too old says so, for the person whose own git is newer.
var passedOver sync.Map // git path -> string

// Program returns the git g runs: its Path when set, else the first git on this process's
// PATH that only root can change (see the top of this file), its links followed.
func (g Git) Program() (string, error) {
	if g.Path != "" {
		return g.Path, nil
	}
	list := os.Getenv("PATH")
	found.Lock()
	defer found.Unlock()
	if found.git != "" && found.list == list {
		return found.git, nil
	}
	git, err := lookGit(list)
	if err == nil {
		found.list, found.git = list, git
	}
	return git, err
}

// lookGit finds the git segwi runs on the PATH list. Not found, the error names each git
// passed over and why.
func lookGit(list string) (string, error) {
	if !canSeal {
		// No owner to check here: git as exec finds it, with the system's extensions.
		git, err := exec.LookPath("git")
		if err != nil {
			return "", fmt.Errorf("%w: git is not installed or not on PATH (%w); install git %s or later", ErrNoGit, err, MinVersion)
		}
		return git, nil
	}
	var passed []string
	for _, dir := range filepath.SplitList(list) {
		if !filepath.IsAbs(dir) {
			continue // as exec.LookPath, never a program found relative to the folder segwi is in
		}
		path := filepath.Join(dir, "git")
		st, err := os.Stat(path)
		if err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
			continue
		}
		if p := folderProblem(dir); p != "" {
			passed = append(passed, fmt.Sprintf("%s: %s", path, p))
			continue
		}
		real, p := programProblem(path)
		if p != "" {
			passed = append(passed, fmt.Sprintf("%s: %s", path, p))
			continue
		}
		if len(passed) > 0 {
			passedOver.Store(real, strings.Join(passed, "; "))
		}
		return real, nil
	}
	if len(passed) == 0 {
		return "", fmt.Errorf("%w: git is not installed or not on PATH; install git %s or later", ErrNoGit, MinVersion)
	}
	return "", fmt.Errorf("%w: segwi runs git on its own (a run's base and changes, commits, pushes with your GitHub token), "+
		"so it runs only a git that no program of yours, a run's agent among them, can replace; it passed over %s. "+
		"Install git where only root can change it (your system's packages: apt install git, dnf install git) and keep that folder on PATH",
		ErrNoGit, strings.Join(passed, "; "))
}

// rootPath returns the folders of the PATH list that only root can change, in their order.
func rootPath(list string) string {
	var kept []string
	for _, dir := range filepath.SplitList(list) {
		if filepath.IsAbs(dir) && folderProblem(dir) == "" {
			kept = append(kept, dir)
		}
	}
	return strings.Join(kept, string(os.PathListSeparator))
}

// sealPath replaces the PATH of env (changed in place) by its folders that only root can
// change (rootPath).
func sealPath(env []string) {
	for i, kv := range env {
		if list, ok := strings.CutPrefix(kv, "PATH="); ok {
			env[i] = "PATH=" + rootPath(list)
		}
	}
}
