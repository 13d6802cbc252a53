package gitcmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A repository segwi makes (NewRepo) lives in a private folder: 0700, in a base folder
// that no other user can write into without the sticky bit, and that, with every folder
// above it, only root can rename, so no program can swap a folder on its way. The bases
// tried, in order: $XDG_RUNTIME_DIR (/run/user/UID, which the system makes so), $TMPDIR,
// /tmp; a scratch repository, which may hold large files, tries $XDG_RUNTIME_DIR last. A base whose parent is the person's own (a TMPDIR in the home folder, macOS's
// /var/folders/.../T) is passed over: any program of theirs could swap it for a
// look-alike. root is trusted with root's folders: nothing keeps a program of root's out.
//
// segwi then holds the folder open, and git reaches it through that descriptor (on Linux,
// GIT_DIR=/proc/self/fd/3 with the folder as the inherited descriptor 3, or the folder as
// the one git starts in): renaming or swapping the folder, or any folder above it, changes
// nothing git reads. A push seals its folder (Repo.Changed): whatever a program adds to it
// or changes in it is seen before the token is handed over.

// folder is a private folder segwi made and holds open.
type folder struct {
	path string   // its name when made: for messages, and to remove it
	f    *os.File // the folder itself, open
	id   stamp    // its identity when made
}

// privateBases are the folders a private folder may be made in, best first, from env. A
// roomy folder (a scratch repository, which hashes the work tree's files into it) tries
// $TMPDIR and /tmp before $XDG_RUNTIME_DIR, which is small and held in memory.
func (g Git) privateBases(roomy bool) []string {
	order := []string{g.Person("XDG_RUNTIME_DIR"), g.Person("TMPDIR"), "/tmp"}
	if roomy {
		order = []string{g.Person("TMPDIR"), "/tmp", g.Person("XDG_RUNTIME_DIR")}
	}
	var out []string
	for _, b := range order {
		if b != "" && !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// ErrNoPrivateFolder is wrapped by the error of a task that found no base folder for its
// private folder.
var ErrNoPrivateFolder = errors.New("no private folder for git")

// newFolder makes a private folder named prefix + random in the first base that passes
// the checks (privateBases), opens it, and checks that the folder opened is the one made,
// empty, 0700 and the person's.
func (g Git) newFolder(prefix string, roomy bool) (*folder, error) {
	var why []string
	for _, base := range g.privateBases(roomy) {
		if problem := baseProblem(base, os.Geteuid()); problem != "" {
			why = append(why, problem)
			continue
		}
		return makeFolder(base, prefix)
	}
	return nil, fmt.Errorf("%w: %s; set XDG_RUNTIME_DIR to a folder of yours in a folder only root may change (as /run/user/%d is)",
		ErrNoPrivateFolder, strings.Join(why, "; "), os.Geteuid())
}

func makeFolder(base, prefix string) (*folder, error) {
	path, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return nil, fmt.Errorf("making a private folder for git in %s: %w", base, err)
	}
	f, err := os.Open(path)
	if err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("opening the private folder %s: %w", path, err)
	}
	d := &folder{path: path, f: f}
	if err := d.checkFresh(); err != nil {
		f.Close()
		// Not removed: what is at path now may not be segwi's.
		return nil, err
	}
	return d, nil
}

// checkFresh checks that the folder held is a 0700 folder of the person's, holding
// nothing, and the one at its path.
func (d *folder) checkFresh() error {
	held, err := stampFollow(d.at(""))
	if err != nil && canSeal {
		return fmt.Errorf("reading the private folder %s: %w", d.path, err)
	}
	d.id = held
	if !canSeal {
		return nil
	}
	named, err := stampOf(d.path)
	if err != nil || named.dev != held.dev || named.ino != held.ino {
		return fmt.Errorf("the private folder %s was replaced right after segwi made it: another program is working there", d.path)
	}
	if !isDirMode(held.mode) || held.mode&0o7777 != 0o700 || int(held.uid) != os.Geteuid() {
		return fmt.Errorf("the private folder %s is not a 0700 folder of yours (mode %o, owner %d)", d.path, held.mode&0o7777, held.uid)
	}
	names, err := d.names("")
	if err != nil {
		return err
	}
	if len(names) > 0 {
		return fmt.Errorf("the private folder %s segwi just made holds %s: another program is working there", d.path, strings.Join(names, ", "))
	}
	return nil
}

// at is the name of rel inside the folder, as this process reaches it through the held
// descriptor (on Linux; elsewhere through the folder's path).
func (d *folder) at(rel string) string {
	if rel == "" {
		return heldDir(d.f)
	}
	return heldDir(d.f) + "/" + filepath.ToSlash(rel)
}

// names lists the entries of the folder rel, sorted.
func (d *folder) names(rel string) ([]string, error) {
	entries, err := os.ReadDir(d.at(rel))
	if err != nil {
		return nil, fmt.Errorf("reading the private folder %s: %w", d.path, err)
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out, nil
}

// mkdir makes the folders rel (0700) inside the folder.
func (d *folder) mkdir(rel ...string) error {
	for _, r := range rel {
		if err := os.MkdirAll(d.at(r), 0o700); err != nil {
			return err
		}
	}
	return nil
}

// write writes content to the new file rel (0600).
func (d *folder) write(rel string, content []byte) error {
	f, err := os.OpenFile(d.at(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// remove deletes what the folder holds through the held descriptor, then the folder itself
// when its path still leads to it, and closes it.
func (d *folder) remove() {
	if d == nil || d.f == nil {
		return
	}
	if names, err := d.names(""); err == nil {
		for _, n := range names {
			os.RemoveAll(d.at(n))
		}
	}
	if now, err := stampOf(d.path); err == nil && now.dev == d.id.dev && now.ino == d.id.ino || !canSeal {
		os.Remove(d.path)
	}
	d.f.Close()
	d.f = nil
}

// seal is what a folder held, at one moment, in the details any change alters: every
// entry's name, identity, size and change time (which no program can set back), and the
// bytes of its small files.
type seal struct {
	entries map[string]stamp
	content map[string][]byte
}

// maxSealedContent bounds the files whose bytes a seal keeps.
const maxSealedContent = 1 << 20

// seal records the folder, after waiting until the file system's clock has moved past
// segwi's last write (see settle), so that any later change shows.
func (d *folder) seal() (seal, error) {
	if !canSeal {
		return seal{}, errors.New("this system gives no change time to seal a folder with")
	}
	if err := d.settle(); err != nil {
		return seal{}, fmt.Errorf("sealing the private folder %s: %w", d.path, err)
	}
	return d.record()
}

func (d *folder) record() (seal, error) {
	s := seal{entries: map[string]stamp{}, content: map[string][]byte{}}
	var walk func(rel string) error
	walk = func(rel string) error {
		st, err := stampOf(d.at(rel))
		if rel == "" {
			st, err = stampFollow(d.at(""))
		}
		if err != nil {
			return err
		}
		s.entries[rel] = st
		switch {
		case isDirMode(st.mode):
			names, err := d.names(rel)
			if err != nil {
				return err
			}
			for _, n := range names {
				if err := walk(filepath.Join(rel, n)); err != nil {
					return err
				}
			}
		case st.size <= maxSealedContent:
			b, err := os.ReadFile(d.at(rel))
			if err != nil {
				return err
			}
			s.content[rel] = b
		}
		return nil
	}
	if err := walk(""); err != nil {
		return seal{}, fmt.Errorf("reading the private folder %s: %w", d.path, err)
	}
	return s, nil
}

// check compares the folder with s, and its path with the folder held: nil when nothing
// changed, else what did.
func (d *folder) check(s seal) error {
	if named, err := stampOf(d.path); err != nil || named.dev != d.id.dev || named.ino != d.id.ino {
		return fmt.Errorf("the folder %s was moved or replaced", d.path)
	}
	now, err := d.record()
	if err != nil {
		return err
	}
	for rel, st := range now.entries {
		was, ok := s.entries[rel]
		switch {
		case !ok:
			return fmt.Errorf("%s was added to the folder %s", rel, d.path)
		case was != st:
			return fmt.Errorf("%s in the folder %s was changed", orFolder(rel), d.path)
		case !bytes.Equal(s.content[rel], now.content[rel]):
			return fmt.Errorf("%s in the folder %s was written to", rel, d.path)
		}
	}
	for rel := range s.entries {
		if _, ok := now.entries[rel]; !ok {
			return fmt.Errorf("%s was removed from the folder %s", rel, d.path)
		}
	}
	return nil
}

func orFolder(rel string) string {
	if rel == "" {
		return "the folder itself"
	}
	return rel
}

// settleFile is the file whose change time settle watches.
const settleFile = "settle"

// maxSettle bounds settle's wait, for a file system whose clock moves in whole seconds.
const maxSettle = 3 * time.Second

// settle returns once a change made now to a file in the folder would get a later change
// time than every change made so far. File systems stamp changes from a coarse clock (a
// few milliseconds), so a change right after segwi's last write could otherwise carry the
// same time and go unseen. It changes the mode of the file settle (which changes no entry
// of the folder) until that file's change time moves.
func (d *folder) settle() error {
	probe := d.at(settleFile)
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		return err
	}
	first, err := stampOf(probe)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(maxSettle)
	for mode := fs.FileMode(0o400); time.Now().Before(deadline); mode ^= 0o200 {
		if err := os.Chmod(probe, mode); err != nil {
			return err
		}
		now, err := stampOf(probe)
		if err != nil {
			return err
		}
		if now.ctime != first.ctime {
			return nil
		}
		time.Sleep(100 * time.Microsecond)
	}
	return errors.New("the file system's clock did not move for " + maxSettle.String())
}

// baseProblem says why base cannot hold private folders for a process of user uid, or ""
// when it can: it and every folder above it must be folders owned by root or uid, writable
// by nobody else (or sticky, as /tmp is), and none may be renamed by anyone but root.
func baseProblem(base string, uid int) string {
	if !canSeal {
		return ""
	}
	if !filepath.IsAbs(base) {
		return fmt.Sprintf("%s is not an absolute path", base)
	}
	real, err := filepath.EvalSymlinks(base)
	if err != nil {
		return fmt.Sprintf("%s cannot be used (%v)", base, err)
	}
	for d := real; ; d = filepath.Dir(d) {
		st, err := stampOf(d)
		if err != nil {
			return fmt.Sprintf("%s cannot be used (%v)", base, err)
		}
		switch {
		case !isDirMode(st.mode):
			return fmt.Sprintf("%s is not a folder", d)
		case st.uid != 0 && int(st.uid) != uid:
			return fmt.Sprintf("%s is owned by another user (%d)", d, st.uid)
		case st.mode&0o022 != 0 && st.mode&sticky == 0:
			return fmt.Sprintf("%s may be written by other users", d)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		p, err := stampOf(parent)
		if err != nil {
			return fmt.Sprintf("%s cannot be used (%v)", base, err)
		}
		// Who may rename d: the owner of its parent, and anyone who may write the parent,
		// unless it is sticky (then only d's owner).
		switch {
		case p.uid != 0 && uid != 0 && int(p.uid) == uid:
			return fmt.Sprintf("%s sits in %s, which is yours, so any program of yours could swap it for another folder", d, parent)
		case p.mode&0o022 != 0 && p.mode&sticky != 0 && st.uid != 0 && uid != 0:
			return fmt.Sprintf("%s is yours in the shared folder %s, so any program of yours could swap it for another folder", d, parent)
		}
	}
}
