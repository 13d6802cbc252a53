package e2e

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/segwi/segwi/internal/testing/claudetest"
	"github.com/segwi/segwi/internal/testing/fakeapi"
	"github.com/segwi/segwi/internal/testing/gitserver"
	"github.com/segwi/segwi/internal/testing/sessionbus"
)

// Issue 20, section 2, end to end with segwi push: a program running as the person
// watches the folder where segwi makes the push's private repository and, right after
// segwi's checks, swaps it (or a folder above it) for a look-alike whose config sends the
// push to ext::steal.sh. steal.sh swaps the folders back, asks segwi's credential channel
// for the token as git would, and keeps what it gets: the token was stolen 6 of 6 times.
// The token must reach nothing but the loopback git server, and a push that is refused
// must say why.
func TestAPushWhoseFolderIsSwappedKeepsTheToken(t *testing.T) {
	twoAtATime(t)
	s := newScenario(t, fakeapi.Turns(fakeapi.Say(fakeapi.Text("Nothing to do."))))
	var mu sync.Mutex
	var sent []string // the passwords the server was sent
	server := gitserver.New(t, gitserver.Options{Token: pushToken, TLS: true, Saw: func(r *http.Request, _ bool) {
		if _, pass, ok := r.BasicAuth(); ok {
			mu.Lock()
			sent = append(sent, pass)
			mu.Unlock()
		}
	}})
	s.writeConfig(config{apiURL: server.Base + "/api/v3"})
	claudetest.Git(t, s.checkout, "push", "--quiet", server.Bare, "main")
	claudetest.Git(t, s.checkout, "remote", "add", "origin", server.URL)
	claudetest.Git(t, s.checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
	claudetest.Git(t, s.checkout, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	claudetest.Git(t, s.checkout, "switch", "--quiet", "-c", "segwi/swap")
	claudetest.Git(t, s.checkout, "commit", "--quiet", "--allow-empty", "-m", "The run's work")

	// TMPDIR is a folder of the person's inside another of theirs, as many setups have
	// and as macOS's /var/folders/.../T looks. segwi passes such a base over for a person
	// (gitcmd's TestAPrivateFolderBaseMustNotBeSwappable); the tests run as root, whose own
	// folders it takes (nothing keeps root's programs out), so here what holds is that git
	// works in the folder segwi holds open and that segwi sees the swap.
	parent := filepath.Join(t.TempDir(), "person")
	tmp := filepath.Join(parent, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	s.env.Set("TMPDIR", tmp)

	run := s.start("run", "--checkout", s.checkout, "Do nothing")
	id := run.runID()
	wantExit(t, run, 0)
	s.env.Set("DBUS_SESSION_BUS_ADDRESS", sessionbus.Keyring(t))
	s.env.Set("GIT_SSL_CAINFO", server.CA)
	set := s.command([]string{"token", "set"})
	set.cmd.Stdin = strings.NewReader(pushToken + "\n")
	set.run(t)
	if code := set.exit(); code != 0 {
		t.Fatalf("segwi token set exited %d", code)
	}

	host := strings.TrimPrefix(server.Base, "https://")
	work := t.TempDir()
	loot := filepath.Join(work, "loot")
	swapBack := filepath.Join(work, "swap-back")
	steal := filepath.Join(work, "steal.sh")
	// Run by git as the ext:: remote: it has the swap undone, then asks for the token on
	// the credential channel's descriptors, as segwi's helper would (3 and 4 before the
	// seam; 4 and 5 after it), and keeps the answer.
	script := "#!/bin/sh\n" +
		": > '" + swapBack + "'\nn=0; while [ -e '" + swapBack + "' ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done\n" +
		"for fds in '4 3' '5 4'; do set -- $fds\n" +
		"  ( printf 'action=get\\nprotocol=https\\nhost=" + host + "\\npath=repo.git\\n\\n' >&$1 ) 2>/dev/null || continue\n" +
		"  ( eval \"cat <&$2\" ) >> '" + loot + "' 2>/dev/null\n" +
		"done\nexit 1\n"
	if err := os.WriteFile(steal, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	evil := "[core]\n\trepositoryformatversion = 0\n\tbare = true\n[protocol]\n\tallow = always\n" +
		"[url \"ext::sh " + steal + " %S \"]\n\tinsteadOf = https://" + host + "/\n\tpushInsteadOf = https://" + host + "/\n"

	const changed, notHTTPS = "another program changed the private repository", "segwi pushes only over HTTPS"
	tests := []struct {
		name  string
		setup func() func() // returns its undo
		swap  swapMode
		says  string // what a refused or failed push says
	}{
		{name: "TMPDIR swapped right after the checks, with no XDG_RUNTIME_DIR", swap: swapParent, says: changed, setup: func() func() {
			runtime := s.env.Get("XDG_RUNTIME_DIR")
			s.env.Set("XDG_RUNTIME_DIR", "")
			return func() { s.env.Set("XDG_RUNTIME_DIR", runtime) }
		}},
		{name: "XDG_RUNTIME_DIR swapped right after the checks", swap: swapParent, says: changed},
		{name: "the push's folder itself swapped right after the checks", swap: swapFolder, says: changed},
		{name: "the checkout's config sending the push to ext:: through insteadOf", says: notHTTPS, setup: func() func() {
			claudetest.Git(t, s.checkout, "config", "protocol.allow", "always")
			claudetest.Git(t, s.checkout, "config", "url.ext::sh "+steal+" %S .insteadOf", "https://"+host+"/")
			return func() {
				claudetest.Git(t, s.checkout, "config", "--unset", "protocol.allow")
				claudetest.Git(t, s.checkout, "config", "--remove-section", "url.ext::sh "+steal+" %S ")
			}
		}},
		{name: "the person's ~/.gitconfig sending the push to ext:: through pushInsteadOf", says: notHTTPS, setup: func() func() {
			s.env.Set("GIT_CONFIG_GLOBAL", "")
			os.WriteFile(filepath.Join(s.env.Home, ".gitconfig"), []byte(evil), 0o644)
			return func() {
				os.Remove(filepath.Join(s.env.Home, ".gitconfig"))
				s.env.Set("GIT_CONFIG_GLOBAL", os.DevNull)
			}
		}},
		{name: "a FIFO at .git/shallow", says: "not a regular file", setup: func() func() {
			// It held segwi push forever.
			fifo := filepath.Join(s.checkout, ".git", "shallow")
			if err := unix.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("no FIFOs here: %v", err)
			}
			return func() { os.Remove(fifo) }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				t.Cleanup(tt.setup())
			}
			// A race is tried a few times: it was won 6 times out of 6 before.
			attempts := 1
			if tt.swap != noSwap {
				attempts = 3
			}
			for range attempts {
				os.Remove(loot)
				var w *swapper
				if tt.swap != noSwap {
					dirs := []string{s.env.Get("TMPDIR")}
					if r := s.env.Get("XDG_RUNTIME_DIR"); r != "" {
						dirs = append(dirs, r)
					}
					w = startSwapper(t, dirs, tt.swap, evil, swapBack)
				}
				p := s.start("push", id)
				code := p.exit()
				if w != nil && w.stop() == 0 {
					t.Error("the watcher never swapped a folder, so nothing was tested")
				}
				out := p.stdout.String() + p.stderr.String()
				if b, _ := os.ReadFile(loot); len(b) > 0 {
					t.Errorf("the look-alike's program got from segwi's credential channel: %q", b)
				}
				mu.Lock()
				for _, pass := range sent {
					if pass != pushToken {
						t.Errorf("the server was sent %q", pass)
					}
				}
				mu.Unlock()
				// git reaches the held folder, never the look-alike, so a swap may leave
				// the push as it was; when segwi sees the swap, it refuses and says so.
				switch {
				case code == 0 && tt.swap != noSwap && strings.HasPrefix(p.stdout.String(), "pushed segwi/swap"):
				case code == 1 && strings.Contains(p.stdout.String(), tt.says):
					t.Logf("not pushed, as it says: %s", p.stdout.String())
				default:
					t.Errorf("segwi push exited %d: %q; want it pushed, or not pushed saying %q", code, out, tt.says)
				}
				if strings.Contains(out, pushToken) {
					t.Errorf("segwi printed the token: %q", out)
				}
			}
		})
	}
	checkNoSecret(t, s.loadRecord(id).info.Dir, pushToken)
}

// swapMode says what the watcher swaps.
type swapMode int

const (
	noSwap     swapMode = iota
	swapParent          // the folder that holds the push's folder
	swapFolder          // the push's folder itself
)

// swapper is the person's program watching for segwi's push folder with inotify.
type swapper struct {
	t       *testing.T
	done    chan struct{}
	stopped chan int
	once    sync.Once
	swaps   int
}

// startSwapper watches dirs for a new segwi-push-* folder. For each, it makes a look-alike
// beside it holding config evil; once segwi has sealed the folder (settled it, then read
// it), it exchanges the folder, or its parent, with the look-alike (renameat2
// RENAME_EXCHANGE), and exchanges them back when swapBack appears (removing it), or when
// stopped.
func startSwapper(t *testing.T, dirs []string, mode swapMode, evil, swapBack string) *swapper {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	watched := map[int32]string{}
	for _, d := range dirs {
		wd, err := unix.InotifyAddWatch(fd, d, unix.IN_CREATE)
		if err != nil {
			t.Fatalf("watching %s: %v", d, err)
		}
		watched[int32(wd)] = d
	}
	w := &swapper{t: t, done: make(chan struct{}), stopped: make(chan int, 1)}
	t.Cleanup(func() { w.stop() })
	go func() {
		defer unix.Close(fd)
		type pair struct{ a, b string }
		var current *pair // exchanged now
		folders := map[int32]string{}
		armed := map[string]bool{}
		swaps := 0
		exchange := func(p pair) {
			if err := unix.Renameat2(unix.AT_FDCWD, p.a, unix.AT_FDCWD, p.b, unix.RENAME_EXCHANGE); err != nil {
				t.Logf("swapper: exchanging %s and %s: %v", p.a, p.b, err)
				return
			}
			swaps++
		}
		done := map[string]bool{}
		swapNow := func(folder string) {
			d := filepath.Dir(folder)
			p := pair{d, d + ".lookalike"}
			if mode == swapFolder {
				p = pair{folder, filepath.Join(d+".lookalike", filepath.Base(folder))}
			}
			exchange(p)
			current = &p
			done[folder] = true
		}
		buf := make([]byte, 64<<10)
		for {
			select {
			case <-w.done:
				if current != nil {
					exchange(*current)
				}
				w.stopped <- swaps
				return
			default:
			}
			if _, err := os.Stat(swapBack); err == nil {
				if current != nil {
					exchange(*current)
					current = nil
				}
				os.Remove(swapBack)
			}
			if n, _ := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 5); n <= 0 {
				continue
			}
			n, err := unix.Read(fd, buf)
			if err != nil {
				if errors.Is(err, unix.EAGAIN) {
					continue
				}
				return
			}
			for off := 0; off+unix.SizeofInotifyEvent <= n; {
				ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+unix.SizeofInotifyEvent:off+unix.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				off += unix.SizeofInotifyEvent + int(ev.Len)
				if d, ok := watched[ev.Wd]; ok && ev.Mask&unix.IN_CREATE != 0 && strings.HasPrefix(name, "segwi-push-") {
					folder := filepath.Join(d, name)
					// Watched first: segwi fills and seals it within milliseconds.
					if wd, err := unix.InotifyAddWatch(fd, folder, unix.IN_ATTRIB|unix.IN_CLOSE_NOWRITE); err == nil {
						folders[int32(wd)] = folder
					}
					look := d + ".lookalike"
					fake := filepath.Join(look, name)
					for _, sub := range []string{"objects", "refs"} {
						os.MkdirAll(filepath.Join(fake, sub), 0o700)
					}
					os.WriteFile(filepath.Join(fake, "HEAD"), []byte("ref: refs/heads/master\n"), 0o600)
					os.WriteFile(filepath.Join(fake, "config"), []byte(evil), 0o600)
					t.Cleanup(func() { os.RemoveAll(look) })
					// Sealed before the watch was in place: as soon as possible, then.
					if _, err := os.Lstat(filepath.Join(folder, "settle")); err == nil {
						swapNow(folder)
					}
					continue
				}
				folder, ok := folders[ev.Wd]
				if !ok || name == "" || current != nil || done[folder] {
					continue
				}
				switch {
				case ev.Mask&unix.IN_ATTRIB != 0 && name == "settle":
					armed[folder] = true // segwi seals the folder
				case ev.Mask&unix.IN_CLOSE_NOWRITE != 0 && armed[folder]:
					swapNow(folder) // segwi has read it for its seal: now
				}
			}
		}
	}()
	return w
}

// stop ends the watcher, undoing a swap it left, and returns how many exchanges it made.
// It may be called again; it returns the same count.
func (w *swapper) stop() int {
	w.once.Do(func() {
		close(w.done)
		select {
		case w.swaps = <-w.stopped:
		case <-time.After(10 * time.Second):
			w.t.Error("the swapper did not stop")
		}
	})
	return w.swaps
}
