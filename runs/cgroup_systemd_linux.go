package runs

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/godbus/dbus/v5"
)

// systemd's manager on D-Bus.
const (
	systemdName    = "org.freedesktop.systemd1"
	systemdPath    = dbus.ObjectPath("/org/freedesktop/systemd1")
	systemdManager = "org.freedesktop.systemd1.Manager"
)

// scopePrefix starts the name of a segwi's scope; the pid of the segwi follows.
const scopePrefix = "app-segwi-"

// scopeWait bounds the wait for systemd to start segwi's scope.
const scopeWait = 10 * time.Second

// systemdScope asks the person's systemd (the user manager, on the session bus) to move
// this process into a transient scope of its own with delegation, what
// `systemd-run --user --scope -p Delegate=yes` does for the program it runs, and returns
// once systemd says it is done or failed, or after scopeWait. segwi then makes its runs'
// cgroups inside the scope, a subtree systemd leaves to it; the scope goes when its last
// process has.
func systemdScope() error {
	conn, err := dbus.SessionBusPrivateNoAutoStartup()
	if err != nil {
		return fmt.Errorf("no session bus to reach systemd on: %w", err)
	}
	defer conn.Close()
	if err := conn.Auth(nil); err != nil {
		return fmt.Errorf("connecting to the session bus: %w", err)
	}
	if err := conn.Hello(); err != nil {
		return fmt.Errorf("connecting to the session bus: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), scopeWait)
	defer cancel()
	return startScope(ctx, conn, fmt.Sprintf("%s%d.scope", scopePrefix, os.Getpid()), os.Getpid())
}

// unitProperty is one property of a unit to start, D-Bus signature (sv).
type unitProperty struct {
	Name  string
	Value dbus.Variant
}

// startScope asks the systemd manager on conn to start unit, a scope with delegation
// holding process pid, and waits for the start job to end (its JobRemoved signal). It
// returns when the job ended, or ctx is done.
func startScope(ctx context.Context, conn *dbus.Conn, unit string, pid int) error {
	// Listen before asking: the job can end before the call's answer arrives.
	match := []dbus.MatchOption{dbus.WithMatchSender(systemdName), dbus.WithMatchObjectPath(systemdPath),
		dbus.WithMatchInterface(systemdManager), dbus.WithMatchMember("JobRemoved")}
	if err := conn.AddMatchSignalContext(ctx, match...); err != nil {
		return fmt.Errorf("listening for systemd's jobs: %w", err)
	}
	defer conn.RemoveMatchSignalContext(context.Background(), match...)
	signals := make(chan *dbus.Signal, 64)
	conn.Signal(signals)
	defer conn.RemoveSignal(signals)

	props := []unitProperty{
		{"Description", dbus.MakeVariant("segwi and the cgroups of its runs")},
		{"PIDs", dbus.MakeVariant([]uint32{uint32(pid)})},
		{"Delegate", dbus.MakeVariant(true)},
		{"CollectMode", dbus.MakeVariant("inactive-or-failed")},
	}
	aux := []struct {
		Name  string
		Props []unitProperty
	}{}
	var job dbus.ObjectPath
	call := conn.Object(systemdName, systemdPath).CallWithContext(ctx, systemdManager+".StartTransientUnit", 0, unit, "fail", props, aux)
	if err := call.Store(&job); err != nil {
		return fmt.Errorf("starting %s: %w", unit, err)
	}
	for {
		select {
		case s := <-signals:
			// JobRemoved(u id, o job, s unit, s result)
			if s.Name != systemdManager+".JobRemoved" || len(s.Body) != 4 || s.Body[1] != job {
				continue
			}
			if result, _ := s.Body[3].(string); result != "done" {
				return fmt.Errorf("starting %s: systemd's job ended %q", unit, result)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("starting %s: systemd's job %s had not ended after %s", unit, job, scopeWait)
		}
	}
}
