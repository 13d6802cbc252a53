package gitcmd

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lsFiles is what git ls-files -s -v says of dir's index, as IndexEntry values: what
// ParseIndex must read.
func lsFiles(t testing.TB, dir string) []IndexEntry {
	t.Helper()
	var entries []IndexEntry
	for _, rec := range strings.Split(hostGit(t, dir, "ls-files", "-z", "-s", "-v"), "\x00") {
		meta, path, ok := strings.Cut(rec, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			continue
		}
		mode, _ := strconv.ParseUint(f[1], 8, 32)
		stage, _ := strconv.Atoi(f[3])
		tag := f[0][0]
		entries = append(entries, IndexEntry{Path: path, Mode: uint32(mode), Stage: stage,
			AssumeUnchanged: tag >= 'a' && tag <= 'z', SkipWorktree: tag == 'S' || tag == 's'})
	}
	return entries
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// indexWithEverything makes a checkout whose index holds every kind of entry segwi looks
// for (assume-unchanged, skip-worktree, both, a conflict's three stages, a gitlink, an
// intent-to-add entry, a link, an executable, a path longer than the flags' 12 bits), in
// index version version and object format format, and returns it.
func indexWithEverything(t testing.TB, format string, version int) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	hostGit(t, dir, "init", "-q", "-b", "main", "--object-format="+format)
	for _, p := range []string{"a.txt", "b/assumed.txt", "b/skipped.txt", "b/both.txt", "conflict.txt", "run.sh"} {
		writeFile(t, filepath.Join(dir, p), p+"\n")
	}
	if err := os.Chmod(filepath.Join(dir, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	hostGit(t, dir, "add", "-A")
	hostGit(t, dir, "commit", "-qm", "first")
	hostGit(t, dir, "switch", "-qc", "other")
	writeFile(t, filepath.Join(dir, "conflict.txt"), "other\n")
	hostGit(t, dir, "commit", "-qam", "other")
	hostGit(t, dir, "switch", "-q", "main")
	writeFile(t, filepath.Join(dir, "conflict.txt"), "main\n")
	hostGit(t, dir, "commit", "-qam", "main")
	cmdOK := func(args ...string) { hostGit(t, dir, args...) }
	if out, err := hostGitErr(dir, "merge", "-q", "other"); err == nil {
		t.Fatalf("the merge did not conflict: %s", out)
	}
	commit := hostGit(t, dir, "rev-parse", "HEAD")
	cmdOK("update-index", "--add", "--cacheinfo", "160000,"+commit+",nested")
	// A path longer than the flags' 12 bits hold (4,095 bytes), longer than any this
	// system opens: it is only in the index.
	blob := hostGit(t, dir, "rev-parse", "HEAD:a.txt")
	long := strings.Repeat(strings.Repeat("d", 200)+"/", 21) + "long.txt"
	cmdOK("update-index", "--add", "--cacheinfo", "100644,"+blob+","+long)
	writeFile(t, filepath.Join(dir, "new.txt"), "new\n")
	cmdOK("add", "-N", "new.txt")
	cmdOK("update-index", "--assume-unchanged", "b/assumed.txt", "b/both.txt")
	cmdOK("update-index", "--skip-worktree", "b/skipped.txt", "b/both.txt")
	cmdOK("update-index", "--index-version", strconv.Itoa(version))
	return dir
}

// hostGitErr is hostGit for a command that may fail.
func hostGitErr(dir string, args ...string) (string, error) {
	cmd := execGit(dir, args...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestParseIndexReadsWhatGitReads(t *testing.T) {
	for _, format := range []string{"sha1", "sha256"} {
		for _, version := range []int{2, 3, 4} {
			t.Run(format+" version "+strconv.Itoa(version), func(t *testing.T) {
				dir := indexWithEverything(t, format, version)
				b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
				if err != nil {
					t.Fatal(err)
				}
				if got := int(b[7]); got != version && !(version == 2 && got == 3) {
					t.Fatalf("git wrote index version %d, want %d", got, version)
				}
				got, err := ParseIndex(b, format)
				if err != nil {
					t.Fatal(err)
				}
				want := lsFiles(t, dir)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("ParseIndex read another index than git ls-files (-want +got):\n%s", diff)
				}
				kinds := map[string]bool{}
				for _, e := range got {
					kinds["stage "+strconv.Itoa(e.Stage)] = true
					kinds["mode "+strconv.FormatUint(uint64(e.Mode), 8)] = true
					kinds["assumed "+strconv.FormatBool(e.AssumeUnchanged)] = true
					kinds["skipped "+strconv.FormatBool(e.SkipWorktree)] = true
				}
				for _, k := range []string{"stage 1", "stage 2", "stage 3", "mode 160000", "mode 120000", "mode 100755", "assumed true", "skipped true"} {
					if !kinds[k] {
						t.Errorf("the index holds no entry of %s: the test does not test it", k)
					}
				}
			})
		}
	}
}

func TestParseIndexLeavesToGitWhatItDoesNotRead(t *testing.T) {
	dir := indexWithEverything(t, "sha1", 4)
	index := filepath.Join(dir, ".git", "index")
	good, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	damaged := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	for name, b := range map[string][]byte{
		"a byte changed":   damaged(func(b []byte) []byte { b[len(b)/2] ^= 1; return b }),
		"cut":              good[:len(good)-30],
		"empty":            nil,
		"version 5":        damaged(func(b []byte) []byte { b[7] = 5; return b }),
		"too many entries": damaged(func(b []byte) []byte { b[11] += 1; return b }),
	} {
		if _, err := ParseIndex(b, "sha1"); !errors.Is(err, ErrIndexUnread) {
			t.Errorf("%s: ParseIndex returned %v, want ErrIndexUnread", name, err)
		}
	}
	if _, err := ParseIndex(good, "sha256"); !errors.Is(err, ErrIndexUnread) {
		t.Errorf("a sha1 index read as sha256: ParseIndex returned %v, want ErrIndexUnread", err)
	}

	// A split index names a shared index whose entries it lacks; a sparse one holds
	// folders. Both carry an extension git must understand.
	hostGit(t, dir, "update-index", "--split-index")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseIndex(b, "sha1"); !errors.Is(err, ErrIndexUnread) {
		t.Errorf("a split index: ParseIndex returned %v, want ErrIndexUnread", err)
	}

	// index.skipHash (git 2.40) leaves the checksum zero: git reads such an index, and so
	// does segwi.
	plain := t.TempDir()
	hostGit(t, plain, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(plain, "a.txt"), "a\n")
	hostGit(t, plain, "add", "a.txt")
	b, err = os.ReadFile(filepath.Join(plain, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	clear(b[len(b)-20:])
	if err := os.WriteFile(filepath.Join(plain, ".git", "index"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ParseIndex(b, "sha1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lsFiles(t, plain), got); diff != "" {
		t.Errorf("an index without checksum (-want +got):\n%s", diff)
	}
}

func TestParseIndexLeavesASparseIndexToGit(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	hostGit(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "in/a.txt"), "a\n")
	writeFile(t, filepath.Join(dir, "out/b.txt"), "b\n")
	hostGit(t, dir, "add", "-A")
	hostGit(t, dir, "commit", "-qm", "first")
	hostGit(t, dir, "sparse-checkout", "set", "--cone", "--sparse-index", "in")
	b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("sdir")) {
		t.Skip("this git wrote no sparse index")
	}
	if _, err := ParseIndex(b, "sha1"); !errors.Is(err, ErrIndexUnread) {
		t.Errorf("a sparse index: ParseIndex returned %v, want ErrIndexUnread", err)
	}
}

func TestIndexVarintIsGits(t *testing.T) {
	// git's varint.c: 0..127 in one byte, 128 as 0x80 0x00, 16511 as 0xff 0x7f.
	for _, c := range []struct {
		b    []byte
		want uint64
		n    int
	}{
		{[]byte{0}, 0, 1}, {[]byte{127}, 127, 1}, {[]byte{0x80, 0}, 128, 2}, {[]byte{0xff, 0x7f}, 16511, 2},
		{[]byte{0x80, 0x80, 0}, 16512, 3}, {[]byte{0x80}, 0, 0}, {nil, 0, 0},
	} {
		if got, n := indexVarint(c.b); got != c.want || n != c.n {
			t.Errorf("indexVarint(%x) = %d, %d; want %d, %d", c.b, got, n, c.want, c.n)
		}
	}
}

// The agent can write the checkout's index: no bytes make ParseIndex panic, loop or read
// past them, and whatever it reads has paths and stages as git's are.
func FuzzParseIndex(f *testing.F) {
	needGit(f)
	for _, version := range []int{2, 3, 4} {
		dir := indexWithEverything(f, "sha1", version)
		b, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		clear(b[len(b)-20:]) // no checksum, so that changed bytes are read
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, err := ParseIndex(b, "sha1")
		if err != nil {
			if !errors.Is(err, ErrIndexUnread) {
				t.Fatalf("error %v does not wrap ErrIndexUnread", err)
			}
			return
		}
		for _, e := range entries {
			if e.Path == "" || e.Stage < 0 || e.Stage > 3 {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}
