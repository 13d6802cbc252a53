package settings

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/segwi/segwi/internal/lib/httpsurl"
	"github.com/segwi/segwi/runs/ports"
	"github.com/segwi/segwi/runs/record"
)

// loader reads each known key from the file's tree and checks it. A bad value is recorded
// as a Problem and replaced by its default, so every problem in the file is found in one
// pass.
type loader struct {
	tree     map[string]any // the file as decoded, keys as the person wrote them
	file     string
	written  map[string]string
	problems []Problem

	allowLoopbackHTTP bool // see AllowLoopbackHTTP
}

func (l *loader) settings() Settings {
	d := Default()
	var s Settings
	s.Claude.Path = l.str("segwi.claude.path", d.Claude.Path)
	if strings.TrimSpace(s.Claude.Path) == "" {
		l.problem("segwi.claude.path", "must not be empty: name the Claude Code binary, e.g. claude or /usr/local/bin/claude")
		s.Claude.Path = d.Claude.Path
	}
	s.Claude.Model = l.str("segwi.claude.model", d.Claude.Model)
	s.Runtimes = l.runtimes()
	s.Repositories = l.repositories()
	s.Runs.MaxConcurrent = l.integer("segwi.runs.maxConcurrent", d.Runs.MaxConcurrent, 1, MaxConcurrentLimit)
	s.Runs.MaxDuration = l.duration("segwi.runs.maxDuration", d.Runs.MaxDuration, time.Minute, 7*24*time.Hour)
	s.Runs.IdleTimeout = l.duration("segwi.runs.idleTimeout", d.Runs.IdleTimeout, time.Minute, 7*24*time.Hour)
	s.Runs.StopGrace = l.duration("segwi.runs.stopGrace", d.Runs.StopGrace, time.Second, 5*time.Minute)
	s.Runs.PassForgeTokens = l.boolean("segwi.runs.passForgeTokens", d.Runs.PassForgeTokens)
	s.Runs.Ports = l.integer("segwi.runs.ports", d.Runs.Ports, 1, ports.MaxCount)
	s.Runs.Budget = Budget{
		Cost:   l.cost("segwi.runs.budget.cost", d.Runs.Budget.Cost, MaxBudgetCost),
		Tokens: int64(l.integer("segwi.runs.budget.tokens", int(d.Runs.Budget.Tokens), 0, MaxBudgetTokens)),
		Turns:  l.integer("segwi.runs.budget.turns", d.Runs.Budget.Turns, 0, MaxBudgetTurns),
	}
	s.Approvals.Timeout = l.duration("segwi.approvals.timeout", d.Approvals.Timeout, 10*time.Second, 24*time.Hour)
	s.Approvals.Trusted = l.trusted()
	s.Canary.GuardDeny = l.guardDeny()
	s.GitHub.APIURL = l.apiURL(d.GitHub.APIURL)
	s.Remote.Enabled = l.boolean("segwi.remote.enabled", d.Remote.Enabled)
	s.Remote.Port = l.integer("segwi.remote.port", d.Remote.Port, 1, 65535)
	s.Remote.Owners = l.owners()
	s.Remote.Socket = l.socket()
	s.Provenance.Trailer = l.boolean("segwi.provenance.trailer", d.Provenance.Trailer)
	s.Provenance.Approvals = l.boolean("segwi.provenance.approvals", d.Provenance.Approvals)
	return s
}

// key returns the key path as the person wrote it, or as canonical when they did not
// write it (the parts they did write keep their spelling).
func (l *loader) key(canonical string) string {
	if w, ok := l.written[strings.ToLower(canonical)]; ok {
		return w
	}
	i := strings.LastIndexAny(canonical, ".[")
	if i < 0 {
		return canonical
	}
	return l.key(canonical[:i]) + canonical[i:]
}

func (l *loader) problem(canonical, msg string) {
	l.problems = append(l.problems, Problem{File: l.file, Key: l.key(canonical), Message: msg})
}

// get returns the key's value, nil when the file does not set it (or sets it to null).
func (l *loader) get(canonical string) any {
	var v any = l.tree
	for name := range strings.SplitSeq(canonical, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = member(m, name)
	}
	return v
}

// member returns the value of key name in m, whatever the case it is written in, as the
// walker matches keys. A key written twice in two cases is a problem the walker reports; of
// the two, member reads the one the walker names, the first in sorted order.
func member(m map[string]any, name string) any {
	found, ok := "", false
	for k := range m {
		if strings.EqualFold(k, name) && (!ok || k < found) {
			found, ok = k, true
		}
	}
	if !ok {
		return nil
	}
	return m[found]
}

func (l *loader) str(key, def string) string {
	switch x := l.get(key).(type) {
	case nil:
		return def
	case string:
		return x
	default:
		l.problem(key, fmt.Sprintf("must be a string, got the %s %v", kind(x), x))
		return def
	}
}

func (l *loader) boolean(key string, def bool) bool {
	switch x := l.get(key).(type) {
	case nil:
		return def
	case bool:
		return x
	default:
		l.problem(key, fmt.Sprintf("must be true or false, got %s", show(x)))
		return def
	}
}

func (l *loader) integer(key string, def, lo, hi int) int {
	raw := l.get(key)
	if raw == nil {
		return def
	}
	n, ok := wholeNumber(raw)
	if !ok {
		l.problem(key, fmt.Sprintf("must be a whole number between %d and %d, got %s", lo, hi, show(raw)))
		return def
	}
	if n < int64(lo) || n > int64(hi) {
		l.problem(key, fmt.Sprintf("must be between %d and %d, got %d", lo, hi, n))
		return def
	}
	return int(n)
}

// cost reads a sum of US dollars between 0 (no bound) and hi: a number, as 2.50.
func (l *loader) cost(key string, def, hi float64) float64 {
	raw := l.get(key)
	if raw == nil {
		return def
	}
	var v float64
	switch x := raw.(type) {
	case float64:
		v = x
	default:
		n, ok := wholeNumber(raw)
		if !ok {
			l.problem(key, fmt.Sprintf("must be a sum of US dollars like 2.50 (0 for no bound), got %s", show(raw)))
			return def
		}
		v = float64(n)
	}
	if math.IsNaN(v) || v < 0 || v > hi {
		l.problem(key, fmt.Sprintf("must be between 0 (no bound) and %s dollars, got %s", strconv.FormatFloat(hi, 'f', -1, 64), show(raw)))
		return def
	}
	return v
}

func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	case float64:
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

func (l *loader) duration(key string, def, lo, hi time.Duration) time.Duration {
	raw := l.get(key)
	if raw == nil {
		return def
	}
	s, ok := raw.(string)
	if !ok {
		l.problem(key, fmt.Sprintf("%s is not a duration like 90s, 30m or 2h: write it with a unit", show(raw)))
		return def
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		l.problem(key, fmt.Sprintf("%q is not a duration like 90s, 30m or 2h", s))
		return def
	}
	if d < lo || d > hi {
		l.problem(key, fmt.Sprintf("must be between %s and %s, got %s", FormatDuration(lo), FormatDuration(hi), FormatDuration(d)))
		return def
	}
	return d
}

// FormatDuration prints a duration as a person writes it in the settings file, without
// trailing zero units: 2h, 1h30m, 90s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// show prints a value the way the person would have written it.
func show(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprint(v)
}

func (l *loader) repositories() []Repository {
	return namedList(l, "segwi.repositories", "repositories", "name, path and remote", l.repository, func(r Repository) string { return r.Name })
}

// namedList reads the list at key, of entries that are mappings with fields (for the
// messages: "name, path and remote"), each read by entry, whose names (name of an
// entry) are unique whatever their case. An entry with a problem is left out, and so is
// the list when it is not a list; what, plural, names its entries in the message.
func namedList[T any](l *loader, key, what, fields string, entry func(at string, m map[string]any) (T, bool), name func(T) string) []T {
	raw := l.get(key)
	if raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		l.problem(key, fmt.Sprintf("must be a list of %s (each with %s), got %s", what, fields, show(raw)))
		return nil
	}
	var out []T
	names := map[string]int{}
	for i, e := range list {
		at := fmt.Sprintf("%s[%d]", key, i)
		m, ok := e.(map[string]any)
		if !ok {
			l.problem(at, fmt.Sprintf("must be a mapping with %s, got %s", fields, show(e)))
			continue
		}
		v, ok := entry(at, m)
		if !ok {
			continue
		}
		n := strings.ToLower(name(v))
		if first, dup := names[n]; dup {
			l.problem(at+".name", fmt.Sprintf("%q is already the name of %s[%d]: names must be unique", name(v), l.key(key), first))
			continue
		}
		names[n] = i
		out = append(out, v)
	}
	return out
}

// repository reads one entry.
func (l *loader) repository(at string, m map[string]any) (Repository, bool) {
	field := func(name string) (string, bool) {
		switch x := member(m, name).(type) {
		case nil:
			return "", true
		case string:
			return strings.TrimSpace(x), true
		default:
			l.problem(at+"."+name, fmt.Sprintf("must be a string, got %s", show(x)))
			return "", false
		}
	}
	name, okName := field("name")
	path, okPath := field("path")
	remote, okRemote := field("remote")
	if !okName || !okPath || !okRemote {
		return Repository{}, false
	}
	if name == "" {
		l.problem(at+".name", "must not be empty: give the repository a name to pick it by")
		return Repository{}, false
	}
	if remote == "" {
		remote = DefaultRemote
	}
	dir, ok := l.existing(at+".path", path, true)
	if !ok {
		return Repository{}, false
	}
	r := Repository{Name: name, Path: dir, Remote: remote}
	switch x := member(m, "worktree").(type) {
	case nil:
	case bool:
		r.Worktree = x
	default:
		l.problem(at+".worktree", fmt.Sprintf("must be true or false, got %s", show(x)))
	}
	r.Setup = l.setup(at+".setup", member(m, "setup"))
	return r, true
}

// setup reads a repository's setup (segwi.repositories[].setup): copy, a list of globs
// relative to the checkout; run, a command; timeout, a duration.
func (l *loader) setup(at string, raw any) record.Setup {
	var s record.Setup
	if raw == nil {
		return s
	}
	m, ok := raw.(map[string]any)
	if !ok {
		l.problem(at, fmt.Sprintf("must be a mapping with copy, run and timeout, got %s", show(raw)))
		return s
	}
	switch x := member(m, "copy").(type) {
	case nil:
	case []any:
		for i, e := range x {
			p, ok := e.(string)
			if !ok {
				l.problem(fmt.Sprintf("%s.copy[%d]", at, i), fmt.Sprintf("must be a file or a glob, got %s", show(e)))
				continue
			}
			if err := record.CheckPattern(p); err != nil {
				l.problem(fmt.Sprintf("%s.copy[%d]", at, i), err.Error())
				continue
			}
			s.Copy = append(s.Copy, p)
		}
	default:
		l.problem(at+".copy", fmt.Sprintf("must be a list of files or globs relative to the checkout, e.g. [.env], got %s", show(x)))
	}
	switch x := member(m, "run").(type) {
	case nil:
	case string:
		s.Run = strings.TrimSpace(x)
	default:
		l.problem(at+".run", fmt.Sprintf("must be a command, e.g. npm ci, got %s", show(x)))
	}
	switch x := member(m, "timeout").(type) {
	case nil:
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		switch {
		case err != nil:
			l.problem(at+".timeout", fmt.Sprintf("%q is not a duration like 90s, 10m or 1h", x))
		case d < time.Second || d > 24*time.Hour:
			l.problem(at+".timeout", fmt.Sprintf("must be between 1s and 24h, got %s", FormatDuration(d)))
		default:
			s.Timeout = d
		}
	default:
		l.problem(at+".timeout", fmt.Sprintf("%s is not a duration like 90s, 10m or 1h: write it with a unit", show(x)))
	}
	return s
}

// existing expands a leading ~ in p, and checks that the result is absolute and exists as
// a directory (wantDir) or as a file.
func (l *loader) existing(key, p string, wantDir bool) (string, bool) {
	what := "the checkout's directory, e.g. ~/src/web"
	if !wantDir {
		what = "a file, e.g. ~/.claude/guard.deny"
	}
	if p == "" {
		l.problem(key, "must not be empty: write "+what)
		return "", false
	}
	abs, err := ExpandHome(p)
	if err != nil {
		l.problem(key, err.Error())
		return "", false
	}
	if !filepath.IsAbs(abs) {
		l.problem(key, fmt.Sprintf("must be an absolute path or start with ~/, got %q", p))
		return "", false
	}
	abs = filepath.Clean(abs)
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.problem(key, fmt.Sprintf("%s does not exist: fix the path or create it", abs))
		return "", false
	case err != nil:
		l.problem(key, fmt.Sprintf("cannot check %s: %v", abs, err))
		return "", false
	case wantDir && !fi.IsDir():
		l.problem(key, fmt.Sprintf("%s is not a directory: write the checkout's directory", abs))
		return "", false
	case !wantDir && fi.IsDir():
		l.problem(key, fmt.Sprintf("%s is a directory: write the path of a file", abs))
		return "", false
	}
	return abs, true
}

func (l *loader) trusted() []string {
	return l.stringList("segwi.approvals.trusted", "command prefixes", MaxTrusted, func(s string) string {
		switch {
		case s == "":
			return "must not be empty: an empty prefix would trust every command"
		case len(s) > MaxTrustedBytes:
			return fmt.Sprintf("is %d bytes long, at most %d (1 KiB) are allowed", len(s), MaxTrustedBytes)
		}
		return ""
	}, `a command prefix such as "go test"`)
}

// stringList reads key as a list of at most max strings, each trimmed and then checked by
// bad (which says what is wrong with it, or ""); what names the list in a problem ("command
// prefixes") and one names an entry ("a command prefix such as ..."). Any problem makes
// the whole list nil: a list half read would mean something the person did not write.
func (l *loader) stringList(key, what string, max int, bad func(s string) string, one string) []string {
	raw := l.get(key)
	if raw == nil {
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		l.problem(key, fmt.Sprintf("must be a list of %s, got %s", what, show(raw)))
		return nil
	}
	if len(list) > max {
		l.problem(key, fmt.Sprintf("has %d entries, at most %d are allowed", len(list), max))
		return nil
	}
	var out []string
	failed := false
	for i, e := range list {
		at := fmt.Sprintf("%s[%d]", key, i)
		s, ok := e.(string)
		if !ok {
			l.problem(at, fmt.Sprintf("must be a string (%s), got %s", one, show(e)))
			failed = true
			continue
		}
		s = strings.TrimSpace(s)
		if why := bad(s); why != "" {
			l.problem(at, why)
			failed = true
			continue
		}
		out = append(out, s)
	}
	if failed {
		return nil
	}
	return out
}

func (l *loader) guardDeny() string {
	const key = "segwi.canary.guardDeny"
	p := strings.TrimSpace(l.str(key, ""))
	if p == "" {
		return ""
	}
	abs, ok := l.existing(key, p, false)
	if !ok {
		return ""
	}
	return abs
}

func (l *loader) apiURL(def string) string {
	const key = "segwi.github.apiURL"
	s := strings.TrimSpace(l.str(key, def))
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		l.problem(key, fmt.Sprintf("must be an https URL like %s (or https://HOST/api/v3 for GitHub Enterprise), got %q", def, s))
		return def
	}
	if !httpsurl.Allowed(u, l.allowLoopbackHTTP) {
		l.problem(key, fmt.Sprintf("must be an https URL: segwi sends the GitHub token to it, and only over HTTPS; got %q (write https://%s)", s, strings.TrimPrefix(s, u.Scheme+"://")))
		return def
	}
	return strings.TrimSuffix(s, "/")
}

// owners reads segwi.remote.owners: tailnet login names, each as tailscale shows it
// (alice@example.com, alice@github).
func (l *loader) owners() []string {
	return l.stringList("segwi.remote.owners", "tailnet login names such as alice@example.com", MaxOwners, func(s string) string {
		switch {
		case len(s) > MaxOwnerBytes:
			return fmt.Sprintf("is %d bytes long, at most %d are allowed", len(s), MaxOwnerBytes)
		case strings.IndexFunc(s, unicode.IsSpace) >= 0 || strings.Count(s, "@") != 1 || strings.HasPrefix(s, "@") || strings.HasSuffix(s, "@"):
			return fmt.Sprintf("%q is not a tailnet login name: write it as tailscale shows it, such as alice@example.com or alice@github "+
				"(`tailscale status --json` shows yours under User)", s)
		}
		return ""
	}, "a tailnet login name such as alice@example.com")
}

// socket reads segwi.remote.socket: a path, which need not exist yet (tailscaled creates
// it when it starts; segwi config check says when it is missing).
func (l *loader) socket() string {
	const key = "segwi.remote.socket"
	p := strings.TrimSpace(l.str(key, ""))
	if p == "" {
		return ""
	}
	abs, err := ExpandHome(p)
	if err != nil {
		l.problem(key, err.Error())
		return ""
	}
	if !filepath.IsAbs(abs) {
		l.problem(key, fmt.Sprintf("must be an absolute path or start with ~/, got %q: write the path of tailscaled's socket, e.g. /var/run/tailscale/tailscaled.sock", p))
		return ""
	}
	return filepath.Clean(abs)
}
