package gitcmd

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// maxConfigFile bounds a git configuration file segwi reads.
const maxConfigFile = 4 << 20

// maxIncludeDepth is how deep includes are followed, as git does.
const maxIncludeDepth = 10

// Config is the values of git configuration files, read as data: in the order git reads
// them, later values winning. No program named in them is run, and git never loads them as
// its own configuration.
type Config struct {
	entries []configEntry
}

type configEntry struct {
	key   string // section and name lower case, subsection as written: "remote.Origin.url"
	value string
	bare  bool // "key" without "=": a boolean true
}

// canonKey is key as git lists it: section and name lower case, a subsection kept.
func canonKey(key string) string {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 {
		return strings.ToLower(key)
	}
	if first == last {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:first]) + key[first:last] + strings.ToLower(key[last:])
}

// Get returns the last value of key ("section.name" or "section.sub.name").
func (c Config) Get(key string) (string, bool) {
	key = canonKey(key)
	for i := len(c.entries) - 1; i >= 0; i-- {
		if e := c.entries[i]; e.key == key {
			return e.value, true
		}
	}
	return "", false
}

// All returns every value of key, in order. An empty value resets the list for the keys
// git treats as lists that way (credential.helper); callers that care say so.
func (c Config) All(key string) []string {
	key = canonKey(key)
	var out []string
	for _, e := range c.entries {
		if e.key == key {
			out = append(out, e.value)
		}
	}
	return out
}

// Bool returns key's last value as git reads a boolean, or def when it is not set or not
// a boolean.
func (c Config) Bool(key string, def bool) bool {
	key = canonKey(key)
	for i := len(c.entries) - 1; i >= 0; i-- {
		e := c.entries[i]
		if e.key != key {
			continue
		}
		if e.bare {
			return true
		}
		switch strings.ToLower(e.value) {
		case "true", "yes", "on", "1":
			return true
		case "false", "no", "off", "0", "":
			return false
		}
		return def
	}
	return def
}

// includeContext is what conditional includes are decided on.
type includeContext struct {
	skip   bool   // follow no include
	gitDir string // the checkout's git folder, absolute
	branch string // its branch, short name
	home   string
}

// readConfigFile reads the configuration file path as data and appends its entries, and
// those of the files it includes (include.path, includeIf.gitdir:/gitdir/i:/onbranch:),
// to c. A missing file adds nothing; a file that is not regular is an error.
func (g Git) readConfigFile(ctx context.Context, c *Config, path string, ic includeContext, depth int) error {
	data, err := ReadRegular(path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading git configuration %s: %w", path, err)
	}
	entries, err := g.parseConfig(ctx, data)
	if err != nil {
		return fmt.Errorf("reading git configuration %s: %w", path, err)
	}
	for _, e := range entries {
		c.entries = append(c.entries, e)
		inc, ok := includePath(e, ic, filepath.Dir(path))
		if !ok || inc == "" || ic.skip {
			continue
		}
		if depth >= maxIncludeDepth {
			return fmt.Errorf("reading git configuration %s: includes nest deeper than %d", path, maxIncludeDepth)
		}
		inc = expandPath(inc, filepath.Dir(path), ic.home)
		if err := g.readConfigFile(ctx, c, inc, ic, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// parsed keeps what git made of the configuration files this process had it parse, by git
// binary and content: the same bytes parse the same, so a checkout read again (each look
// at a run's changes) runs no git for the files that did not change.
var parsed = struct {
	sync.Mutex
	m map[parsedKey][]configEntry
}{m: map[parsedKey][]configEntry{}}

type parsedKey struct {
	git string
	sum [sha256.Size]byte
}

// maxParsed bounds the files parsed keeps; past it, it starts again.
const maxParsed = 64

// parseConfig has git parse data as a configuration file, without following its includes
// and outside any repository: git only reads the text. The entries returned are shared:
// callers copy them, never change them.
func (g Git) parseConfig(ctx context.Context, data []byte) ([]configEntry, error) {
	git, err := g.Program()
	if err != nil {
		return nil, err
	}
	key := parsedKey{git: git, sum: sha256.Sum256(data)}
	parsed.Lock()
	entries, ok := parsed.m[key]
	parsed.Unlock()
	if ok {
		return entries, nil
	}
	entries, err = g.runParseConfig(ctx, data)
	if err != nil {
		return nil, err
	}
	parsed.Lock()
	if len(parsed.m) >= maxParsed {
		clear(parsed.m)
	}
	parsed.m[key] = entries
	parsed.Unlock()
	return entries, nil
}

func (g Git) runParseConfig(ctx context.Context, data []byte) ([]configEntry, error) {
	var out bytes.Buffer
	// With no repository and its configuration given as text on its input, git runs
	// nothing the text names, whatever its version: the first such parse tells it.
	p := g.In(string(filepath.Separator)).With("GIT_DIR=" + os.DevNull)
	p.anyVersion = true
	if err := p.Run(ctx, bytes.NewReader(data), &out, "config", "--no-includes", "--file", "-", "--list", "-z"); err != nil {
		return nil, err
	}
	var entries []configEntry
	for _, rec := range bytes.Split(out.Bytes(), []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		key, value, hasValue := strings.Cut(string(rec), "\n")
		entries = append(entries, configEntry{key: key, value: value, bare: !hasValue})
	}
	return entries, nil
}

// includePath returns the file an entry includes, when it is an include whose condition
// holds.
func includePath(e configEntry, ic includeContext, dir string) (string, bool) {
	if e.key == "include.path" {
		return e.value, true
	}
	cond, ok := strings.CutPrefix(e.key, "includeif.")
	if !ok {
		return "", false
	}
	cond, ok = strings.CutSuffix(cond, ".path")
	if !ok {
		return "", false
	}
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return e.value, ic.gitDir != "" && matchGitDir(strings.TrimPrefix(cond, "gitdir:"), dir, ic, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return e.value, ic.gitDir != "" && matchGitDir(strings.TrimPrefix(cond, "gitdir/i:"), dir, ic, true)
	case strings.HasPrefix(cond, "onbranch:"):
		pat := strings.TrimPrefix(cond, "onbranch:")
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		return e.value, ic.branch != "" && wildmatch(pat, ic.branch, false)
	}
	// hasconfig: and conditions this segwi does not know: not included, as an older git
	// would not.
	return "", false
}

// matchGitDir matches the git folder against an includeIf gitdir: pattern as git does:
// ~/ is the home folder, ./ the folder of the file that holds the pattern (dir), another
// relative pattern matches at any depth, a trailing / matches everything below.
func matchGitDir(pat, dir string, ic includeContext, fold bool) bool {
	if rest, ok := strings.CutPrefix(pat, "~/"); ok {
		pat = strings.TrimSuffix(ic.home, "/") + "/" + rest
	} else if rest, ok := strings.CutPrefix(pat, "./"); ok {
		pat = strings.TrimSuffix(dir, "/") + "/" + rest
	}
	if !strings.HasPrefix(pat, "/") {
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	if wildmatch(pat, ic.gitDir, fold) {
		return true
	}
	real, err := filepath.EvalSymlinks(ic.gitDir)
	return err == nil && real != ic.gitDir && wildmatch(pat, real, fold)
}

// expandPath turns a path named in a configuration file into an absolute one: ~/ is the
// home folder, a relative path is relative to the file's folder.
func expandPath(p, dir, home string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		return filepath.Join(home, strings.TrimPrefix(p, "~"))
	case filepath.IsAbs(p):
		return p
	}
	return filepath.Join(dir, p)
}

// wildmatch reports whether name matches the pattern as git's wildmatch does with
// WM_PATHNAME: * and ? stop at /, ** spans folders, [...] is a class.
func wildmatch(pattern, name string, fold bool) bool {
	re, err := regexp.Compile(wildmatchRegexp(pattern, fold))
	return err == nil && re.MatchString(name)
}

func wildmatchRegexp(p string, fold bool) string {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			start := i == 0 || p[i-1] == '/'
			j := i + 2
			switch {
			case start && j < len(p) && p[j] == '/': // **/ : any folders, or none
				b.WriteString("(?:.*/)?")
				i = j
			case start && j == len(p): // trailing /** : everything
				b.WriteString(".*")
				i = j - 1
			default: // ** elsewhere is *
				b.WriteString("[^/]*")
				i = j - 1
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+1+end]
			if end == 0 { // "[]...]": ] first is literal
				if e2 := strings.IndexByte(p[i+2:], ']'); e2 >= 0 {
					class, end = p[i+1:i+2+e2], e2+1
				}
			}
			neg := strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^")
			if neg {
				class = class[1:]
			}
			b.WriteString("[")
			if neg {
				b.WriteString("^")
			}
			b.WriteString(strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`).Replace(class))
			if neg {
				b.WriteString("/")
			}
			b.WriteString("]")
			i += end + 1
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(string(p[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}
