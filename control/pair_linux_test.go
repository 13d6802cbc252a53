package control

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/segwi/segwi/internal/testing/sockdir"
)

// The modes in which the test binary runs as a child of a test (see TestMain).
const (
	childEnv     = "SEGWI_CONTROL_TEST_CHILD"
	childWindow  = "window"   // the window process: speaks over the fd it inherited
	childHangs   = "hangs"    // a window process that connects, then hangs until killed
	childIntrude = "intruder" // another process of the same user: tries to reach the tray's channel
)

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case childWindow:
		os.Exit(windowChild())
	case childIntrude:
		os.Exit(intruderChild())
	case childHangs:
		conn, err := Inherited()
		if err == nil {
			_, err = NewClient(conn, ClientOptions{Program: "segwi test window that hangs"})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		select {}
	}
	os.Exit(m.Run())
}

// windowChild is the window process: it takes the channel it inherited, checks that its
// own children would not inherit it, and says so to the tray over it.
func windowChild() int {
	fd, _ := strconv.Atoi(os.Getenv(EnvFD))
	conn, err := Inherited()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, ok := os.LookupEnv(EnvFD); ok {
		fmt.Fprintln(os.Stderr, EnvFD, "is still set")
		return 1
	}
	if _, err := fcntl(fd, syscall.F_GETFD); !errors.Is(err, syscall.EBADF) {
		fmt.Fprintf(os.Stderr, "descriptor %d is still open after Inherited (%v)\n", fd, err)
		return 1
	}
	// What a process this one starts holds open.
	out, err := exec.Command("/bin/sh", "-c", `ls -l /proc/$$/fd`).Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "listing a grandchild's files:", err)
		return 1
	}
	c, err := NewClient(conn, ClientOptions{Program: "segwi test window child"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer c.Close()
	if _, err := c.Do(context.Background(), FollowUp{Run: "grandchild-files", Text: string(out)}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func TestAChildSpeaksOverTheDescriptorItInherited(t *testing.T) {
	c := newCore()
	s := NewServer("segwi test tray", c)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+childWindow)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	conn, err := StartChild(cmd)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), conn, Grant{Role: RoleWindow, Who: ByThisDesktop}) }()

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var got received
	select {
	case got = <-c.cmds:
	case err := <-exited:
		t.Fatalf("the child exited (%v) before it spoke:\n%s", err, stderr.String())
	case <-time.After(within):
		t.Fatalf("the child said nothing within %s:\n%s", within, stderr.String())
	}
	f, ok := got.cmd.(FollowUp)
	if !ok || f.Run != "grandchild-files" {
		t.Fatalf("the child sent %+v", got.cmd)
	}
	if strings.Contains(f.Text, "socket:") {
		t.Errorf("a process the window process starts holds a socket:\n%s", f.Text)
	}
	if err := <-exited; err != nil {
		t.Fatalf("the child failed: %v\n%s", err, stderr.String())
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after the child exited = %v, want nil", err)
		}
	case <-time.After(within):
		t.Fatal("Serve did not return after the child exited")
	}
}

func TestAKilledWindowProcessEndsOnlyItsConnection(t *testing.T) {
	c := newCore()
	connected := make(chan *Peer, 2)
	c.connected = func(p *Peer) { connected <- p }
	s := NewServer("segwi test tray", c)
	start := func(mode string) (*exec.Cmd, <-chan error) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+mode)
		conn, err := StartChild(cmd)
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- s.Serve(context.Background(), conn, Grant{Role: RoleWindow, Who: ByThisDesktop}) }()
		return cmd, served
	}
	hung, served := start(childHangs)
	select {
	case <-connected:
	case <-time.After(within):
		t.Fatal("the window process did not connect")
	}
	hung.Process.Kill() // kill -9, as a crash or a person would
	hung.Wait()
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("Serve after the window process was killed = %v, want it to have hung up", err)
		}
	case <-time.After(within):
		t.Fatal("Serve did not notice that the window process was killed")
	}
	if n := len(s.Peers(RoleWindow)); n != 0 {
		t.Errorf("the server still has %d window peers", n)
	}
	// The tray starts a new window process, which is served as the first was.
	next, _ := start(childWindow)
	if got := c.next(t).cmd; got.MessageType() != TypeFollowUp {
		t.Errorf("the new window process sent %v", got)
	}
	if err := next.Wait(); err != nil {
		t.Errorf("the new window process failed: %v", err)
	}
}

func TestThereIsNothingToConnectTo(t *testing.T) {
	conn, child, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	defer child.Close()
	if got := inodes(t, os.Getpid()); len(got) < 2 {
		t.Fatalf("found %d sockets of this process, want at least the pair's two", len(got))
	}
	if got := reachable(t, os.Getpid()); len(got) > 0 {
		t.Errorf("with only the pair made, this process has sockets another process can reach: %v", got)
	}

	t.Run("another process of the same user reaches none of them", func(t *testing.T) {
		if out, err := intrude(t); err != nil {
			t.Errorf("the intruder reached this process: %v\n%s", err, out)
		}
	})

	// The check itself can fail: a listening socket, named or on loopback, is seen and
	// reached.
	t.Run("a listening socket would be seen and reached", func(t *testing.T) {
		path := filepath.Join(sockdir.New(t), "tray.sock")
		ul, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer ul.Close()
		tl, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer tl.Close()
		got := strings.Join(reachable(t, os.Getpid()), "\n")
		if !strings.Contains(got, path) || !strings.Contains(got, "tcp") {
			t.Errorf("reachable = %q; want the unix socket %s and the TCP port", got, path)
		}
		if out, err := intrude(t); err == nil {
			t.Errorf("the intruder did not reach a listening unix socket:\n%s", out)
		}
	})
}

// intrude runs the test binary as another process of this user that tries to reach this
// one's sockets; its error says what it reached.
func intrude(t *testing.T) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+childIntrude, "SEGWI_CONTROL_TEST_TARGET="+strconv.Itoa(os.Getpid()))
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// intruderChild tries every way in to the target process's sockets that a process of the
// same user has without ptrace: opening them through /proc/PID/fd, and connecting to the
// named sockets and TCP ports among them. It exits 1 when one worked.
func intruderChild() int {
	pid, _ := strconv.Atoi(os.Getenv("SEGWI_CONTROL_TEST_TARGET"))
	reached := 0
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		fmt.Println("reading the target's descriptors:", err)
		return 2
	}
	for _, e := range entries {
		p := fmt.Sprintf("/proc/%d/fd/%s", pid, e.Name())
		if link, _ := os.Readlink(p); strings.HasPrefix(link, "socket:") {
			if f, err := os.OpenFile(p, os.O_RDWR, 0); err == nil {
				f.Close()
				fmt.Println("opened", p)
				reached++
			}
		}
	}
	for _, r := range reachableOf(pid) {
		network, addr, _ := strings.Cut(r, " ")
		if c, err := net.DialTimeout(network, addr, time.Second); err == nil {
			c.Close()
			fmt.Println("connected to", r)
			reached++
		}
	}
	if reached > 0 {
		return 1
	}
	return 0
}

// inodes returns the inodes of pid's sockets.
func inodes(t *testing.T, pid int) map[string]bool {
	t.Helper()
	got, err := socketInodes(pid)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func socketInodes(pid int) (map[string]bool, error) {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, e := range entries {
		link, _ := os.Readlink(filepath.Join(dir, e.Name()))
		if ino, ok := strings.CutPrefix(link, "socket:["); ok {
			out[strings.TrimSuffix(ino, "]")] = true
		}
	}
	return out, nil
}

// reachable lists pid's sockets that another process could reach, as "network address".
func reachable(t *testing.T, pid int) []string {
	t.Helper()
	if _, err := os.Stat("/proc/net/unix"); err != nil {
		t.Skipf("no /proc/net/unix: %v", err)
	}
	return reachableOf(pid)
}

// reachableOf reads /proc/net/{unix,tcp,tcp6,udp,udp6} for pid's sockets that have a
// name, listen, or are bound to a port.
func reachableOf(pid int) []string {
	mine, err := socketInodes(pid)
	if err != nil {
		return []string{"cannot read its descriptors: " + err.Error()}
	}
	var out []string
	// Num RefCount Protocol Flags Type St Inode [Path]
	for _, f := range procTable("/proc/net/unix") {
		if len(f) < 7 || !mine[f[6]] {
			continue
		}
		flags, _ := strconv.ParseUint(f[3], 16, 32)
		const acceptConn = 1 << 16 // __SO_ACCEPTCON: listening
		switch {
		case len(f) > 7 && strings.HasPrefix(f[7], "@"):
			out = append(out, "unix @"+f[7][1:]+" (abstract)")
		case len(f) > 7:
			out = append(out, "unix "+f[7])
		case flags&acceptConn != 0:
			out = append(out, "unix (unnamed, listening) inode "+f[6])
		}
	}
	// sl local rem st tx:rx tr:when retrnsmt uid timeout inode
	for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
		for _, f := range procTable("/proc/net/" + table) {
			if len(f) < 10 || !mine[f[9]] {
				continue
			}
			if strings.HasPrefix(table, "tcp") && f[3] != "0A" { // LISTEN
				continue
			}
			out = append(out, strings.TrimSuffix(table, "6")+" "+hexAddr(f[1]))
		}
	}
	return out
}

// procTable returns the fields of each line of a /proc/net table, its header left out.
func procTable(path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	sc.Scan()
	for sc.Scan() {
		rows = append(rows, strings.Fields(sc.Text()))
	}
	return rows
}

// hexAddr turns /proc/net's "0100007F:1F90" into "127.0.0.1:8080" (IPv4), or a port on
// the IPv6 loopback.
func hexAddr(s string) string {
	ip, port, _ := strings.Cut(s, ":")
	p, _ := strconv.ParseUint(port, 16, 16)
	if len(ip) == 8 {
		v, _ := strconv.ParseUint(ip, 16, 32)
		return fmt.Sprintf("%d.%d.%d.%d:%d", byte(v), byte(v>>8), byte(v>>16), byte(v>>24), p)
	}
	return fmt.Sprintf("[::1]:%d", p)
}

// fcntl is fcntl(2) with an int argument.
func fcntl(fd, cmd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(cmd), 0)
	if errno != 0 {
		return int(r), errno
	}
	return int(r), nil
}
