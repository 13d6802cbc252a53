package hub

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/segwi/segwi/control"
)

// WindowsProgram is the window process's program, installed beside segwi: a program of its
// own, so that the tray process links no Fyne (see cmd/segwi-windows).
const WindowsProgram = "segwi-windows"

// MissingProgramError is the error of a window process whose program was found nowhere the
// tray looks for it: no window can open until it is installed.
type MissingProgramError struct {
	Program string // its name, WindowsProgram
	Beside  string // the folder of segwi's own executable, looked in first; empty when unknown
	Path    string // the PATH looked in next
}

func (e *MissingProgramError) Error() string {
	beside := "beside segwi"
	if e.Beside != "" {
		beside = fmt.Sprintf("beside segwi (in %s)", e.Beside)
	}
	return fmt.Sprintf("no window can open: %s, segwi's window program, is found neither %s nor on PATH (%s). "+
		"Install it with segwi: scripts/run.sh builds both into bin/, and the package (dist/segwi.tar.xz) installs both "+
		"with make user-install or make install; then click a menu item again",
		e.Program, beside, e.Path)
}

// FindProgram returns the path of the program name: in the folder of this process's
// executable (symlinks resolved), where segwi's package and scripts/run.sh put it beside
// segwi, else on PATH. The error of a program found in neither is a *MissingProgramError.
func FindProgram(name string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return findProgram(name, exe)
}

// findProgram is FindProgram for the executable exe ("" when unknown).
func findProgram(name, exe string) (string, error) {
	beside := ""
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			beside = filepath.Dir(real)
		}
	}
	if beside != "" {
		p := filepath.Join(beside, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	// exec.LookPath refuses a program found through a relative PATH entry (exec.ErrDot):
	// the tray would start whatever its current folder holds.
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", &MissingProgramError{Program: name, Beside: beside, Path: os.Getenv("PATH")}
}

// Program is a window process's program, looked for with FindProgram each time one is
// started, so that one installed while the tray runs is found at the next window.
type Program struct {
	Name string   // WindowsProgram
	Args []string // none for segwi-windows
}

// Find looks for the program without starting it: nil when it is there, else a
// *MissingProgramError. It is the hub's Options.Find.
func (p Program) Find() error {
	_, err := FindProgram(p.Name)
	return err
}

// Spawn starts the program in a process group of its own, with its end of a new socket
// pair inherited (control.StartChild) and its output going to this process's. It is the
// hub's Options.Spawn.
func (p Program) Spawn() (*Process, error) {
	exe, err := FindProgram(p.Name)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, p.Args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// The tray stops it: a Ctrl-C meant for the tray reaches the tray only.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	conn, err := control.StartChild(cmd)
	if err != nil {
		return nil, err
	}
	return &Process{Conn: conn, Pid: cmd.Process.Pid, Wait: cmd.Wait, Kill: func() { cmd.Process.Kill() }}, nil
}

// What the tray says while the window process's program is missing.
const (
	// NoWindowProblem is the tray menu's notice (tray.Snapshot.Problem).
	NoWindowProblem = "No window can open: " + WindowsProgram + " is not installed"
	// noWindowTitle is the title of the desktop notification; its body is the
	// *MissingProgramError, which says where the tray looked and how to install it.
	noWindowTitle = WindowsProgram + " is not installed"
)

// programMissing tells the person that the window process's program went missing (err,
// a *MissingProgramError), in the log, a desktop notification and the tray menu; or, with
// nil, that it was found again.
func (h *Hub) programMissing(err error) {
	if err == nil {
		h.opts.Log.Printf("%s is found again: windows open", WindowsProgram)
	} else {
		h.opts.Log.Printf("%v", err)
		h.notify(noWindowTitle, err.Error())
	}
	h.changed()
}
