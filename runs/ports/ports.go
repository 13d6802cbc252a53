// Package ports gives each run a range of TCP ports of its own (SEGWI_PORT, SEGWI_PORT_COUNT
// in its environment), so that the dev servers of runs side by side do not collide.
//
// # How a range is picked, and what keeps it free
//
// Ranges are taken from a pool of ports the kernel never hands out on its own: below its
// ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by default), from FirstPort
// up; when that leaves too little room, above it. So no outgoing connection and no
// program that binds port 0 is given one of them. The first range whose every port is free
// is taken:
//   - free of segwi's other runs: each port of a range is held by a lock file
//     (STATE/ports/PORT.lock, flock) for as long as its run lives, by whichever segwi
//     process runs it (the tray, each segwi run), and the kernel lets go of the lock when
//     that process ends, however it ends;
//   - free on the machine when taken: each port is bound on every address (IPv4 and IPv6)
//     and let go at once; a port some program listens on, on any address, is passed over.
//
// What is not guaranteed: a program outside segwi that binds one of these ports by number
// after the check can still take it; the run's dev server then fails to bind it, as it
// would with any fixed port.
package ports

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// FirstPort is where the pool starts: above the ports people give their own servers
// (3000, 5173, 8000, 8080 ...).
const FirstPort = 20000

// DefaultCount is how many ports a run gets unless settings say otherwise.
const DefaultCount = 10

// MaxCount bounds a range.
const MaxCount = 100

// Range is a run's ports: First to First+Count-1.
type Range struct {
	First int `json:"first"`
	Count int `json:"count"`
}

// Last is the range's last port.
func (r Range) Last() int { return r.First + r.Count - 1 }

// String is "20000-20009".
func (r Range) String() string { return fmt.Sprintf("%d-%d", r.First, r.Last()) }

// Env returns the variables that give a run its range: SEGWI_PORT, the first port, and
// SEGWI_PORT_COUNT.
func (r Range) Env() []string {
	return []string{"SEGWI_PORT=" + strconv.Itoa(r.First), "SEGWI_PORT_COUNT=" + strconv.Itoa(r.Count)}
}

// Held is a range taken for a run; Release lets go of it.
type Held struct {
	Range
	locks []lockFile
	once  sync.Once
}

// Release lets go of the range: other runs may take its ports from now on.
func (h *Held) Release() {
	if h == nil {
		return
	}
	h.once.Do(func() {
		for _, l := range h.locks {
			l.release()
		}
	})
}

// ErrNoRange is wrapped by Take's error when no range of free ports is left in the pool.
var ErrNoRange = errors.New("no range of free ports left")

// Take takes the first range of count free ports in the pool (see the package doc),
// holding it through lock files in stateDir/ports until Release. It returns at once.
func Take(stateDir string, count int) (*Held, error) {
	if count < 1 || count > MaxCount {
		return nil, fmt.Errorf("taking ports: %d is not a number of ports between 1 and %d", count, MaxCount)
	}
	dir := filepath.Join(stateDir, "ports")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("taking ports: %w", err)
	}
	for _, pool := range pools(count) {
		for first := pool[0]; first+count-1 <= pool[1]; first += count {
			h, err := TryRange(dir, first, count)
			if err != nil {
				return nil, err
			}
			if h != nil {
				return h, nil
			}
		}
	}
	return nil, fmt.Errorf("taking %d ports: %w between %d and 65535 (others hold them)", count, ErrNoRange, FirstPort)
}

// TryRange takes the ports first.. first+count-1, holding them through lock files in dir
// until Release, when every one is free of whoever else holds ports through dir and of
// listeners: nil when one is not. Take tries a pool's ranges with it; the page tests pick
// their port with it (internal/testing/tailnet).
func TryRange(dir string, first, count int) (*Held, error) {
	h := &Held{Range: Range{First: first, Count: count}, locks: make([]lockFile, 0, count)}
	for p := first; p < first+count; p++ {
		f, err := lock(filepath.Join(dir, strconv.Itoa(p)+".lock"))
		if err != nil {
			h.Release()
			if errors.Is(err, errBusy) {
				return nil, nil
			}
			return nil, fmt.Errorf("taking port %d: %w", p, err)
		}
		h.locks = append(h.locks, f)
		if !free(p) {
			h.Release()
			return nil, nil
		}
	}
	return h, nil
}

// pools are the ranges of ports to take from, best first: below the kernel's ephemeral
// range, then above it.
func pools(count int) [][2]int {
	low, high := Ephemeral()
	var out [][2]int
	if low-1-FirstPort+1 >= count {
		out = append(out, [2]int{FirstPort, low - 1})
	}
	if start := max(high+1, FirstPort); 65535-start+1 >= count {
		out = append(out, [2]int{start, 65535})
	}
	return out
}

// Ephemeral returns the kernel's ephemeral port range (Linux's ip_local_port_range; the
// IANA range elsewhere): the ports it hands out on its own, to outgoing connections and to
// programs that bind port 0.
func Ephemeral() (low, high int) {
	low, high = 49152, 65535
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return low, high
	}
	f := strings.Fields(string(b))
	if len(f) == 2 {
		l, errL := strconv.Atoi(f[0])
		h, errH := strconv.Atoi(f[1])
		if errL == nil && errH == nil && 0 < l && l <= h && h <= 65535 {
			return l, h
		}
	}
	return low, high
}
