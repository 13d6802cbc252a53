package runs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/segwi/segwi/internal/testing/sessionbus"
)

func TestCgroupFolderIsFoundUnderTheCgroup2Mount(t *testing.T) {
	const hybrid = `25 31 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw
35 25 0:30 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755
36 35 0:31 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate
37 35 0:32 / /sys/fs/cgroup/pids rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,pids
`
	const unified = `30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot
`
	const spaced = `30 23 0:26 /user.slice /mnt/my\040cgroups rw - cgroup2 cgroup2 rw
`
	tests := []struct {
		name, mountinfo, path, want, err string
	}{
		{name: "a desktop's unified hierarchy", mountinfo: unified,
			path: "/user.slice/user-1000.slice/user@1000.service/app.slice/app-segwi-42.scope",
			want: "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/app-segwi-42.scope"},
		{name: "the root of a hybrid layout", mountinfo: hybrid, path: "/", want: "/sys/fs/cgroup/unified"},
		{name: "a mount of a subtree, its point escaped", mountinfo: spaced, path: "/user.slice/x.scope", want: "/mnt/my cgroups/x.scope"},
		{name: "a cgroup outside the mounted subtree", mountinfo: spaced, path: "/system.slice/x.service", err: "no cgroup v2 mount holds"},
		{name: "a sibling whose name starts alike", mountinfo: spaced, path: "/user.slice2/x.scope", err: "no cgroup v2 mount holds"},
		{name: "cgroup v1 only", mountinfo: strings.ReplaceAll(hybrid, "cgroup2 cgroup2", "tmpfs tmpfs"), path: "/", err: "no cgroup v2 hierarchy is mounted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cgroupFolder([]byte(tt.mountinfo), tt.path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("cgroupFolder = %q, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("cgroupFolder = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// Where segwi makes its runs' cgroups: beside itself, unless systemd owns the cgroups; then
// in a scope systemd delegated to it, or nowhere.
func TestTheCgroupHomeIsAskedOfSystemdWhereSystemdOwnsTheCgroups(t *testing.T) {
	const terminal = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/vte-spawn-1.scope"
	const scope = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/app-segwi-42.scope"
	tests := []struct {
		name       string
		systemd    bool
		delegated  bool
		ask        error
		moves      bool // asking moves this process into scope
		want, err  string
		wantAsking bool
	}{
		{name: "no systemd: beside itself, where segwi may write or not", want: terminal},
		{name: "systemd, segwi started in a delegated cgroup: there", systemd: true, delegated: true, want: terminal},
		{name: "systemd: in the scope it gives segwi", systemd: true, moves: true, want: scope, wantAsking: true},
		{name: "systemd that fails: nowhere, saying why", systemd: true, ask: errors.New("no session bus to reach systemd on"),
			err: "systemd manages this system's cgroups, and asking it for a scope of segwi's own failed: no session bus", wantAsking: true},
		{name: "systemd that says done but moved nothing: nowhere", systemd: true,
			err: "systemd started a scope for segwi, but segwi is still in cgroup " + terminal, wantAsking: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			own, asked := terminal, false
			got, err := findCgroupHome(cgroupHost{
				own:       func() (string, error) { return own, nil },
				systemd:   tt.systemd,
				delegated: func(string) bool { return tt.delegated },
				askSystemd: func() error {
					asked = true
					if tt.moves {
						own = scope
					}
					return tt.ask
				},
			})
			if asked != tt.wantAsking {
				t.Errorf("asked systemd: %v, want %v", asked, tt.wantAsking)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("findCgroupHome = %q, %v; want an error saying %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("findCgroupHome = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// fakeSystemd stands in for the person's systemd on a session bus of the test's own: it
// answers StartTransientUnit as systemd does for a scope (it makes the scope's cgroup
// under parent, moves the pids into it, and says the job ended with result), and records
// what it was asked.
type fakeSystemd struct {
	conn   *dbus.Conn
	parent string // the cgroup folder scopes go in (a stand-in for app.slice)
	result string // the job's result: "done", "failed"

	mu    sync.Mutex
	asked []startedUnit
}

type startedUnit struct {
	name, mode string
	props      map[string]any
	aux        int
}

// StartTransientUnit is systemd's method. Its job ends before it answers, as a fast
// systemd's may: segwi must be listening already.
func (f *fakeSystemd) StartTransientUnit(name, mode string, props []unitProperty, aux []struct {
	Name  string
	Props []unitProperty
}) (dbus.ObjectPath, *dbus.Error) {
	u := startedUnit{name: name, mode: mode, props: map[string]any{}, aux: len(aux)}
	for _, p := range props {
		u.props[p.Name] = p.Value.Value()
	}
	f.mu.Lock()
	f.asked = append(f.asked, u)
	f.mu.Unlock()
	job := dbus.ObjectPath(fmt.Sprintf("/org/freedesktop/systemd1/job/%d", 100+len(f.asked)))
	if f.result == "done" {
		dir := filepath.Join(f.parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", dbus.MakeFailedError(err)
		}
		pids, _ := u.props["PIDs"].([]uint32)
		for _, pid := range pids {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), fmt.Appendf(nil, "%d", pid), 0); err != nil {
				return "", dbus.MakeFailedError(err)
			}
		}
	}
	f.conn.Emit(systemdPath, systemdManager+".JobRemoved", uint32(100+len(f.asked)), job, name, f.result)
	return job, nil
}

// serveSystemd starts a fakeSystemd on a bus of its own, and returns it and segwi's
// connection to that bus.
func serveSystemd(t *testing.T, result string) (*fakeSystemd, *dbus.Conn) {
	t.Helper()
	addr := sessionbus.Private(t)
	connect := func() *dbus.Conn {
		conn, err := dbus.Connect(addr)
		if err != nil {
			t.Fatalf("connecting to the test's bus: %v", err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	home, _ := runCgroupHome()
	f := &fakeSystemd{conn: connect(), parent: filepath.Join(home, "segwi-test-app-"+filepath.Base(t.TempDir())), result: result}
	if err := os.Mkdir(f.parent, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(f.parent) })
	if err := f.conn.Export(f, systemdPath, systemdManager); err != nil {
		t.Fatal(err)
	}
	if reply, err := f.conn.RequestName(systemdName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("taking systemd's name on the test's bus: %v (%v)", reply, err)
	}
	return f, connect()
}

// On a desktop, segwi asks the person's systemd for a scope of its own with delegation,
// as systemd-run --user --scope -p Delegate=yes does, and is in it once systemd says the
// job is done. (No systemd runs here: a stand-in answers on a bus of the test's own, and
// does with the cgroups what systemd would.)
func TestSegwiAsksSystemdForADelegatedScope(t *testing.T) {
	needCgroups(t)
	f, conn := serveSystemd(t, "done")
	sleep := exec.Command("sleep", "7341") // stands in for segwi: it is what moves
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	unit := "app-segwi-" + fmt.Sprint(sleep.Process.Pid) + ".scope"
	t.Cleanup(func() {
		sleep.Process.Kill()
		sleep.Wait()
		os.Remove(filepath.Join(f.parent, unit))
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if err := startScope(ctx, conn, unit, sleep.Process.Pid); err != nil {
		t.Fatalf("startScope: %v", err)
	}

	if got, err := cgroupDir(sleep.Process.Pid); err != nil || got != filepath.Join(f.parent, unit) {
		t.Errorf("the process is in cgroup %q (%v), want the scope's %s", got, err, filepath.Join(f.parent, unit))
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.asked) != 1 {
		t.Fatalf("systemd was asked %d times, want once", len(f.asked))
	}
	a := f.asked[0]
	pids, _ := a.props["PIDs"].([]uint32)
	if a.name != unit || a.mode != "fail" || a.props["Delegate"] != true || len(pids) != 1 || int(pids[0]) != sleep.Process.Pid || a.aux != 0 {
		t.Errorf("systemd was asked for %s (mode %s, %d aux units) with %v; want %s, mode fail, Delegate true, PIDs [%d]",
			a.name, a.mode, a.aux, a.props, unit, sleep.Process.Pid)
	}
}

// A job that fails, and a bus where systemd does not answer, leave segwi where it was,
// saying why.
func TestASystemdThatCannotGiveAScopeSaysWhy(t *testing.T) {
	needCgroups(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t.Run("the job fails", func(t *testing.T) {
		_, conn := serveSystemd(t, "failed")
		err := startScope(ctx, conn, "app-segwi-1.scope", os.Getpid())
		if err == nil || !strings.Contains(err.Error(), `systemd's job ended "failed"`) {
			t.Errorf("startScope = %v, want it to say the job failed", err)
		}
	})
	t.Run("no systemd on the bus", func(t *testing.T) {
		conn, err := dbus.Connect(sessionbus.Private(t))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		err = startScope(ctx, conn, "app-segwi-1.scope", os.Getpid())
		if err == nil || !strings.Contains(err.Error(), "starting app-segwi-1.scope") {
			t.Errorf("startScope = %v, want it to say starting the scope failed", err)
		}
	})
}
