// Command depcost says what each large dependency costs segwi's tray process: the bytes of
// the binary its symbols take (code and data, from the ELF symbol table, as
// `go tool nm -size` shows them) and, given the pid of a running tray, how many of those
// bytes are resident (from /proc/PID/pagemap: a page counts for every symbol it holds,
// in proportion to the bytes each holds there). The idle tray's RSS follows its binary:
// most of its text is resident (issue 22).
//
//	go run ./scripts/depcost BINARY [PID]
//
// Build segwi as shipped (CGO_ENABLED=0 go build -o bin/segwi .), start its tray
// (bin/segwi), wait for it to settle (5 s) and pass its pid. Reading another process's pagemap needs root or CAP_SYS_ADMIN; without
// it the resident column is left out.
package main

import (
	"bufio"
	"cmp"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// groups name the dependencies reported, by the first matching prefix of a symbol's
// package path; the rest is "other" (the standard library counts as "Go runtime and
// standard library").
var groups = []struct{ name, prefix string }{
	{"gitleaks rules (internal/lib/redact)", "github.com/segwi/segwi/internal/lib/redact"},
	{"segwi's own code", "github.com/segwi/segwi"},
	{"tailscale.com (remote page over the tailnet)", "tailscale.com"},
	{"gvisor (netstack, for tailscale.com)", "gvisor.dev"},
	{"aws-sdk-go-v2 (linked by tailscale.com)", "github.com/aws"},
	{"fyne.io/fyne (windows; segwi-windows only)", "fyne.io/fyne"},
	{"fyne.io/systray", "fyne.io/systray"},
	{"MCP SDK (modelcontextprotocol/go-sdk)", "github.com/modelcontextprotocol/go-sdk"},
	{"cobra and pflag (command line)", "github.com/spf13/"},
	{"go-keyring", "github.com/zalando/go-keyring"},
	{"godbus", "github.com/godbus/dbus"},
	{"mvdan.cc/sh (shell parsing)", "mvdan.cc/sh"},
	{"golang.org/x", "golang.org/x/"},
	{"go-yaml", "go.yaml.in/yaml"},
}

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: depcost BINARY [PID]")
		os.Exit(2)
	}
	bin := os.Args[1]
	f, err := elf.Open(bin)
	if err != nil {
		fail("depcost: reading %s: %v", bin, err)
	}
	syms, err := f.Symbols()
	if err != nil {
		fail("depcost: reading the symbols of %s: %v", bin, err)
	}
	var resident func(lo, hi uint64) float64
	if len(os.Args) == 3 {
		resident, err = residentOf(os.Args[2], bin)
		if err != nil {
			fmt.Fprintf(os.Stderr, "depcost: no resident figures: %v\n", err)
		}
	}
	size, rss := map[string]uint64{}, map[string]float64{}
	var total uint64
	var totalRSS float64
	for _, s := range syms {
		if s.Size == 0 || s.Section == elf.SHN_UNDEF || int(s.Section) >= len(f.Sections) ||
			f.Sections[s.Section].Type == elf.SHT_NOBITS { // zeroed memory, not in the file
			continue
		}
		g := group(pkgOf(s.Name))
		size[g] += s.Size
		total += s.Size
		if resident != nil {
			r := resident(s.Value, s.Value+s.Size)
			rss[g] += r
			totalRSS += r
		}
	}
	names := make([]string, 0, len(size))
	for g := range size {
		names = append(names, g)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(size[b], size[a]) })
	fi, _ := os.Stat(bin)
	fmt.Printf("%s: %.1f MB on disk, %.1f MB of it in symbols of known size (code and data); the rest is\n"+
		"  mostly Go's function tables (pclntab), which grow with the code, and is not split below\n",
		filepath.Base(bin), mb(float64(fi.Size())), mb(float64(total)))
	for _, g := range names {
		line := fmt.Sprintf("  %-48s %6.1f MB of the binary", g, mb(float64(size[g])))
		if resident != nil {
			line += fmt.Sprintf(", %5.1f MB resident", mb(rss[g]))
		}
		fmt.Println(line)
	}
	if resident != nil {
		fmt.Printf("  %-48s %6s             %5.1f MB resident\n", "all symbols", "", mb(totalRSS))
	}
}

// pkgOf returns the package path of a Go symbol: "fyne.io/systray.(*T).M" gives
// "fyne.io/systray", "type:*tailscale.com/net.X" gives "tailscale.com/net".
func pkgOf(name string) string {
	for _, p := range []string{"type:", "go:itab.", "go:info.", "go:", "*", "[]", "map."} {
		name = strings.TrimPrefix(name, p)
	}
	slash := strings.LastIndexByte(name, '/')
	dot := strings.IndexByte(name[slash+1:], '.')
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}

// group names the dependency pkg belongs to.
func group(pkg string) string {
	for _, g := range groups {
		if pkg == g.prefix || strings.HasPrefix(pkg, strings.TrimSuffix(g.prefix, "/")+"/") || strings.HasSuffix(g.prefix, "/") && strings.HasPrefix(pkg, g.prefix) {
			return g.name
		}
	}
	if first, _, _ := strings.Cut(pkg, "/"); !strings.Contains(first, ".") {
		return "Go runtime and standard library"
	}
	return "other"
}

// residentOf returns how many bytes of [lo, hi) of bin's mappings in process pid are
// resident, a partly resident page counting for the bytes of it in the range.
func residentOf(pid, bin string) (func(lo, hi uint64) float64, error) {
	want, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return nil, err
	}
	exe, err := os.Readlink("/proc/" + pid + "/exe")
	if err != nil {
		return nil, err
	}
	if exe != want {
		return nil, fmt.Errorf("pid %s runs %s, not %s", pid, exe, want)
	}
	maps, err := os.Open("/proc/" + pid + "/maps")
	if err != nil {
		return nil, err
	}
	defer maps.Close()
	pagemap, err := os.Open("/proc/" + pid + "/pagemap")
	if err != nil {
		return nil, err
	}
	defer pagemap.Close()
	page := uint64(os.Getpagesize())
	present := map[uint64]bool{} // page number: resident
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != exe {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		start, _ := strconv.ParseUint(lo, 16, 64)
		end, _ := strconv.ParseUint(hi, 16, 64)
		buf := make([]byte, 8*(end-start)/page)
		if _, err := pagemap.ReadAt(buf, int64(start/page*8)); err != nil {
			return nil, fmt.Errorf("reading the pagemap of pid %s: %w", pid, err)
		}
		for i := uint64(0); i < (end-start)/page; i++ {
			if binary.LittleEndian.Uint64(buf[i*8:])>>63 == 1 {
				present[start/page+i] = true
			}
		}
	}
	if len(present) == 0 {
		return nil, fmt.Errorf("no page of %s is resident in pid %s, or its pagemap is hidden (run as root)", exe, pid)
	}
	return func(lo, hi uint64) float64 {
		var n uint64
		for p := lo / page; p*page < hi; p++ {
			if present[p] {
				n += min(hi, (p+1)*page) - max(lo, p*page)
			}
		}
		return float64(n)
	}, nil
}

func mb(b float64) float64 { return b / (1 << 20) }

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
