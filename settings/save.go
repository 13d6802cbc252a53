package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// Save writes s to the YAML settings file at path, changing only the keys this package
// manages and keeping the rest of the file as it is: unknown and retired keys, comments,
// key order and the person's spelling of keys. A key the file leaves out is added only
// when its value differs from the default; a value equal to what the file already says
// (2h against 120m, ~/src/web against its expanded path) is left as written. Repository
// entries are matched by name, so their other keys stay with them; an entry whose name
// is not in s is removed. The file is replaced by a rename, so a reader never sees half
// of it. TOML and JSON files are not written: edit those by hand.
func Save(path string, s Settings) error {
	return editFile(path, func(e *editor) { e.all(s) })
}

// SaveGuardDeny sets segwi.canary.guardDeny in the YAML settings file at path to deny,
// changing nothing else in it (see Save); the file is made when there is none.
func SaveGuardDeny(path, deny string) error {
	return editFile(path, func(e *editor) { e.path("segwi.canary.guardDeny", deny) })
}

// editFile edits the YAML settings file at path with edit and writes it back by a rename.
func editFile(path string, edit func(e *editor)) error {
	doc, mode, err := readYAMLDoc(path)
	if err != nil {
		return fmt.Errorf("saving settings: %w", err)
	}
	e := &editor{root: doc.Content[0]}
	edit(e)
	if e.err != nil {
		return fmt.Errorf("saving settings: %s: %w", path, e.err)
	}
	if err := writeYAMLDoc(path, doc, mode); err != nil {
		return fmt.Errorf("saving settings: %w", err)
	}
	return nil
}

// all sets every key this package manages to s's value.
func (e *editor) all(s Settings) {
	d := Default()
	e.str("segwi.claude.path", s.Claude.Path, d.Claude.Path)
	e.str("segwi.claude.model", s.Claude.Model, d.Claude.Model)
	e.repositories(s.Repositories)
	e.integer("segwi.runs.maxConcurrent", s.Runs.MaxConcurrent, d.Runs.MaxConcurrent)
	e.duration("segwi.runs.maxDuration", s.Runs.MaxDuration, d.Runs.MaxDuration)
	e.duration("segwi.runs.idleTimeout", s.Runs.IdleTimeout, d.Runs.IdleTimeout)
	e.duration("segwi.runs.stopGrace", s.Runs.StopGrace, d.Runs.StopGrace)
	e.boolean("segwi.runs.passForgeTokens", s.Runs.PassForgeTokens, d.Runs.PassForgeTokens)
	e.integer("segwi.runs.ports", s.Runs.Ports, d.Runs.Ports)
	e.duration("segwi.approvals.timeout", s.Approvals.Timeout, d.Approvals.Timeout)
	e.list("segwi.approvals.trusted", s.Approvals.Trusted)
	e.path("segwi.canary.guardDeny", s.Canary.GuardDeny)
	e.str("segwi.github.apiURL", s.GitHub.APIURL, d.GitHub.APIURL)
	e.boolean("segwi.remote.enabled", s.Remote.Enabled, d.Remote.Enabled)
	e.integer("segwi.remote.port", s.Remote.Port, d.Remote.Port)
	e.list("segwi.remote.owners", s.Remote.Owners)
	e.path("segwi.remote.socket", s.Remote.Socket)
	e.boolean("segwi.provenance.trailer", s.Provenance.Trailer, d.Provenance.Trailer)
	e.boolean("segwi.provenance.approvals", s.Provenance.Approvals, d.Provenance.Approvals)
}

// readYAMLDoc reads the YAML settings file at path as a node tree, whose first node is
// the top mapping (empty when the file does not exist), and the file's permissions to
// write it back with. TOML and JSON files are refused: segwi writes only YAML.
func readYAMLDoc(path string) (*yaml.Node, fs.FileMode, error) {
	if typ, err := format(path); err != nil {
		return nil, 0, err
	} else if typ != "yaml" {
		return nil, 0, fmt.Errorf("%s: only YAML files can be written; edit this %s file by hand", path, strings.ToUpper(typ))
	}
	data, err := readFile(path)
	mode := fs.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, 0, err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, 0, fmt.Errorf("%s: %v: fix the YAML syntax first", path, err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, 0, fmt.Errorf("%s: the file must hold a mapping with a segwi section", path)
	}
	return &doc, mode, nil
}

// writeYAMLDoc writes doc to path with mode, through writeAtomic.
func writeYAMLDoc(path string, doc *yaml.Node, mode fs.FileMode) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return writeAtomic(path, buf.Bytes(), mode)
}

// writeAtomic writes data to a temp file beside path and renames it over path.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename there is nothing left to remove
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return nil
}

// editor changes managed keys in a YAML node tree.
type editor struct {
	root *yaml.Node
	err  error
}

// lookup returns the value node of key in mapping m, matching case-insensitively.
func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if strings.EqualFold(m.Content[i].Value, key) {
			return m.Content[i+1]
		}
	}
	return nil
}

// section returns the mapping at the dotted path, creating it when create is set; nil
// when it is missing (and not created) or is not a mapping.
func (e *editor) section(path []string, create bool) *yaml.Node {
	m := e.root
	for _, k := range path {
		next := lookup(m, k)
		if next == nil || (next.Kind == yaml.ScalarNode && next.Tag == "!!null") {
			if !create {
				return nil
			}
			if next == nil {
				next = &yaml.Node{Kind: yaml.MappingNode}
				m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, next)
			} else {
				*next = yaml.Node{Kind: yaml.MappingNode}
			}
		}
		if next.Kind != yaml.MappingNode {
			if create && e.err == nil {
				e.err = fmt.Errorf("%s is not a mapping: fix it before saving", strings.Join(path, "."))
			}
			return nil
		}
		m = next
	}
	return m
}

// set puts value under the dotted key. Unless the file already holds the key, nothing is
// written for a default value.
func (e *editor) set(key string, value *yaml.Node, isDefault bool, same func(*yaml.Node) bool) {
	parts := strings.Split(key, ".")
	parent, name := parts[:len(parts)-1], parts[len(parts)-1]
	if m := e.section(parent, false); m != nil {
		if old := lookup(m, name); old != nil {
			if same(old) {
				return
			}
			value.HeadComment, value.LineComment, value.FootComment = old.HeadComment, old.LineComment, old.FootComment
			*old = *value
			return
		}
	}
	if isDefault {
		return
	}
	if m := e.section(parent, true); m != nil {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, value)
	}
}

func (e *editor) scalar(key, tag, value string, isDefault bool, same func(string) bool) {
	e.set(key, &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}, isDefault,
		func(old *yaml.Node) bool { return old.Kind == yaml.ScalarNode && same(old.Value) })
}

func (e *editor) str(key, value, def string) {
	e.scalar(key, "!!str", value, value == def, func(v string) bool { return v == value })
}

// integer writes a whole number; the file's own spelling of the same number is kept.
func (e *editor) integer(key string, value, def int) {
	e.scalar(key, "!!int", strconv.Itoa(value), value == def, func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n == value
	})
}

// boolean writes true or false; the file's own spelling of the same value is kept.
func (e *editor) boolean(key string, value, def bool) {
	e.scalar(key, "!!bool", strconv.FormatBool(value), value == def, func(v string) bool {
		b, err := strconv.ParseBool(v)
		return err == nil && b == value
	})
}

func (e *editor) duration(key string, value, def time.Duration) {
	e.scalar(key, "!!str", FormatDuration(value), value == def, func(v string) bool {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		return err == nil && d == value
	})
}

// path writes a path, keeping the person's ~ spelling when it expands to the same path.
func (e *editor) path(key, value string) {
	e.scalar(key, "!!str", tildePath(value), value == "", func(v string) bool { return samePath(v, value) })
}

// tildePath writes a path under the home directory as ~/..., as a person would.
func tildePath(abs string) string {
	home, err := os.UserHomeDir()
	if err != nil || abs == "" {
		return abs
	}
	if rel, err := filepath.Rel(home, abs); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		return "~/" + filepath.ToSlash(rel)
	}
	return abs
}

func samePath(written, abs string) bool {
	p, err := ExpandHome(strings.TrimSpace(written))
	return err == nil && filepath.Clean(p) == filepath.Clean(abs)
}

// list writes a list of strings; a list the file holds with the same entries (its own
// style, comments and spacing) is left as written.
func (e *editor) list(key string, list []string) {
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, s := range list {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s})
	}
	e.set(key, seq, len(list) == 0, func(old *yaml.Node) bool {
		if old.Kind != yaml.SequenceNode || len(old.Content) != len(list) {
			return len(list) == 0 && old.Kind == yaml.ScalarNode && old.Tag == "!!null"
		}
		for i, n := range old.Content {
			if strings.TrimSpace(n.Value) != list[i] {
				return false
			}
		}
		return true
	})
}

// repositories rewrites segwi.repositories in the order of repos, reusing each entry with
// the same name so that its other keys (retired or unknown) stay.
func (e *editor) repositories(repos []Repository) {
	var old []*yaml.Node
	if m := e.section([]string{"segwi"}, false); m != nil {
		if seq := lookup(m, "repositories"); seq != nil && seq.Kind == yaml.SequenceNode {
			old = seq.Content
		}
	}
	byName := map[string]*yaml.Node{}
	for _, n := range old {
		if n.Kind == yaml.MappingNode {
			if name := lookup(n, "name"); name != nil {
				byName[strings.ToLower(name.Value)] = n
			}
		}
	}
	seq := &yaml.Node{Kind: yaml.SequenceNode}
	for _, r := range repos {
		entry := byName[strings.ToLower(r.Name)]
		if entry == nil {
			entry = &yaml.Node{Kind: yaml.MappingNode}
		}
		sub := &editor{root: entry}
		sub.scalar("name", "!!str", r.Name, false, func(v string) bool { return v == r.Name })
		sub.scalar("path", "!!str", tildePath(r.Path), false, func(v string) bool { return samePath(v, r.Path) })
		sub.scalar("remote", "!!str", r.Remote, r.Remote == DefaultRemote, func(v string) bool { return v == r.Remote })
		seq.Content = append(seq.Content, entry)
	}
	e.set("segwi.repositories", seq, len(repos) == 0, func(old *yaml.Node) bool {
		if old.Kind != yaml.SequenceNode {
			return len(repos) == 0 && old.Tag == "!!null"
		}
		old.Content = seq.Content // entries were edited in place; keep the list node and its comments
		return true
	})
}
