package push

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// privateRepo is the bare repository one push runs from. segwi makes it in a fresh temp
// folder after the checks, writes its config itself, lets it borrow the checkout's objects
// (objects/info/alternates) and removes it after the push. git runs there with GIT_DIR and
// HOME pointing at it and no global or system config, so it reads no configuration the
// agent could have written: not the checkout's, not the person's (see the package doc).
type privateRepo struct {
	dir  string // the bare repository, also git's HOME
	seal seal   // what dir looked like when segwi had written it
}

// privateRepoPrefix starts the name of every private repository's folder.
const privateRepoPrefix = "segwi-push-"

// privateConfig is the whole configuration git reads for a push, besides the -c options on
// its command line. %s is the protocols allowed besides https.
const privateConfig = `[core]
	repositoryformatversion = 0
	bare = true
	hooksPath = ` + os.DevNull + `
	fsmonitor = false
[protocol]
	allow = never
[protocol "https"]
	allow = always
%s[http]
	sslVerify = true
[push]
	gpgSign = false
	recurseSubmodules = no
`

// sealedEnvNames are the variables the private environment sets itself.
var sealedEnvNames = []string{"HOME", "XDG_CONFIG_HOME", "GIT_DIR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG"}

// makePrivateRepo makes the private repository for a push whose objects are in the
// checkout's object folder objects. shallow is the checkout's shallow file, or nil.
// allowHTTP lets git speak plain http (the loopback test servers).
func makePrivateRepo(ctx context.Context, gitPath string, env []string, objects string, shallow []byte, allowHTTP bool) (*privateRepo, error) {
	if strings.ContainsAny(objects, "\n\r") || strings.HasPrefix(objects, `"`) {
		return nil, fmt.Errorf("the checkout's object folder %q has a name git cannot borrow objects from", objects)
	}
	dir, err := os.MkdirTemp("", privateRepoPrefix)
	if err != nil {
		return nil, fmt.Errorf("making a folder for the push's private repository: %w", err)
	}
	p := &privateRepo{dir: dir}
	if err := p.fill(ctx, gitPath, env, objects, shallow, allowHTTP); err != nil {
		p.remove()
		return nil, fmt.Errorf("making the push's private repository in %s: %w", dir, err)
	}
	return p, nil
}

// fill makes p.dir a bare repository with segwi's config and the checkout's objects, then
// seals it.
func (p *privateRepo) fill(ctx context.Context, gitPath string, env []string, objects string, shallow []byte, allowHTTP bool) error {
	cmd := exec.CommandContext(ctx, gitPath, "init", "--bare", "--quiet", "--template=", p.dir)
	cmd.Env = p.env(env)
	cmd.Dir = p.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, bytes.TrimSpace(out))
	}
	http := ""
	if allowHTTP {
		http = "[protocol \"http\"]\n\tallow = always\n"
	}
	write := func(name string, content []byte) error {
		path := filepath.Join(p.dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		return os.WriteFile(path, content, 0o600)
	}
	if err := write("config", []byte(fmt.Sprintf(privateConfig, http))); err != nil {
		return err
	}
	if err := write(filepath.Join("objects", "info", "alternates"), []byte(objects+"\n")); err != nil {
		return err
	}
	if shallow != nil {
		if err := write("shallow", shallow); err != nil {
			return err
		}
	}
	var err error
	p.seal, err = sealFolder(p.dir)
	return err
}

// env returns env (already cleaned) with git pointed at the private repository: GIT_DIR
// and HOME are its folder (so no ~/.gitconfig, ~/.config/git/config or ~/.netrc of the
// person is read), the global config is empty and the system config is off.
func (p *privateRepo) env(env []string) []string {
	out := make([]string, 0, len(env)+len(sealedEnvNames))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !contains(sealedEnvNames, name) {
			out = append(out, kv)
		}
	}
	return append(out,
		"HOME="+p.dir,
		"XDG_CONFIG_HOME="+p.dir,
		"GIT_DIR="+p.dir,
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_CONFIG_NOSYSTEM=1",
	)
}

// changed reports, as an error naming what changed, whether anything has altered the
// private repository's folder or config since segwi wrote them; nil when nothing did.
func (p *privateRepo) changed() error { return p.seal.check(p.dir) }

// remove deletes the private repository.
func (p *privateRepo) remove() { os.RemoveAll(p.dir) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// seal is what a folder (its entries) and its config file looked like at one moment, in
// the details that any change alters: the change time (ctime), which no program can set
// back, the inode, the entries' names and the config's bytes.
type seal struct {
	dir, config stamp
	names       []string
	content     []byte
}

// sealFolder records dir and dir/config, then waits until the file system's clock has
// moved past that moment, so that any later change shows as a new change time (see
// settle).
func sealFolder(dir string) (seal, error) {
	var s seal
	var err error
	if err := settle(dir); err != nil {
		return s, err
	}
	if s.dir, err = stampOf(dir); err != nil {
		return s, err
	}
	if s.config, err = stampOf(filepath.Join(dir, "config")); err != nil {
		return s, err
	}
	if s.names, err = names(dir); err != nil {
		return s, err
	}
	if s.content, err = os.ReadFile(filepath.Join(dir, "config")); err != nil {
		return s, err
	}
	return s, nil
}

// check compares dir with the seal.
func (s seal) check(dir string) error {
	d, err := stampOf(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if d != s.dir {
		return fmt.Errorf("the folder %s was changed (an entry added, removed or renamed, or the folder replaced)", dir)
	}
	n, err := names(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	if strings.Join(n, "\n") != strings.Join(s.names, "\n") {
		return fmt.Errorf("the folder %s now holds %s instead of %s", dir, strings.Join(n, ", "), strings.Join(s.names, ", "))
	}
	config := filepath.Join(dir, "config")
	c, err := stampOf(config)
	if err != nil {
		return fmt.Errorf("%s: %w", config, err)
	}
	content, err := os.ReadFile(config)
	if err != nil {
		return fmt.Errorf("%s: %w", config, err)
	}
	if c != s.config || !bytes.Equal(content, s.content) {
		return fmt.Errorf("%s was written to", config)
	}
	return nil
}

// names lists dir's entries, sorted.
func names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Name()
	}
	return out, nil
}

// settleFile is the file whose change time settle watches.
const settleFile = "settle"

// maxSettle bounds settle's wait, for a file system whose clock moves in whole seconds.
const maxSettle = 3 * time.Second

// settle returns once a change made now to a file in dir would get a later change time than
// every change made so far. File systems stamp changes from a coarse clock (a few
// milliseconds), so a change right after segwi's last write could otherwise carry the same
// time and go unseen. It changes the mode of dir/settle (which changes no entry of dir)
// until that file's change time moves.
func settle(dir string) error {
	probe := filepath.Join(dir, settleFile)
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
