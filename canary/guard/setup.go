package guard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Setup is what setting up segwi's example guard hook (Help) writes under a
// person's home folder: the deny file, the hook script, and the hook's entry in Claude
// Code's user settings. PlanSetup makes it without writing anything, for the person
// to read; Apply writes it. Nothing the person has is replaced: a deny file or hook of
// theirs is kept, and the settings file keeps every key, hook and order it has.
type Setup struct {
	Deny  string // the deny file, for segwi.canary.guardDeny
	Files []File // in the order they are written
}

// File is one file of a Setup.
type File struct {
	Path    string      `json:"path"`
	Action  Action      `json:"action"`
	Content string      `json:"content"` // what the file holds once written
	Mode    fs.FileMode `json:"mode"`
	before  []byte      // the file as read when planned; nil when it did not exist
}

// Action says what Apply does to a file.
type Action string

// What Apply does to each file.
const (
	Create Action = "create" // the file is new
	Add    Action = "add to" // the hook's entry is added to the file
	Keep   Action = "keep"   // the file already holds what it needs: left as it is
)

// ErrChanged is Apply's error when a file changed since the setup was planned.
var ErrChanged = errors.New("changed since the guard hook's setup was shown")

// PlanSetup says what setting up the example guard hook under home would write. It
// refuses, saying why and what to do, when a hook script of another content is where the
// example's goes, or when Claude Code's settings file is not a JSON object whose hooks
// segwi can read.
func PlanSetup(home string) (Setup, error) {
	s := Setup{Deny: filepath.Join(home, exampleDenyFile)}
	deny, err := planFile(s.Deny, exampleDeny, 0o644)
	if err != nil {
		return Setup{}, err
	}
	hook, err := planFile(filepath.Join(home, exampleHookFile), exampleHook, 0o755)
	if err != nil {
		return Setup{}, err
	}
	if hook.Action == Keep && string(hook.before) != exampleHook {
		return Setup{}, fmt.Errorf("%s is there already and is not segwi's example hook: segwi does not "+
			"replace it; set segwi.canary.guardDeny to the deny file it reads (Settings…, Canary)", hook.Path)
	}
	settingsFile, err := planSettings(filepath.Join(home, claudeSettingsFile))
	if err != nil {
		return Setup{}, err
	}
	s.Files = []File{deny, hook, settingsFile}
	return s, nil
}

// planFile plans a file that is written only when it is not there: a deny file of the
// person's is theirs, and its first command is what the canary will probe.
func planFile(path, content string, mode fs.FileMode) (File, error) {
	f := File{Path: path, Action: Create, Content: content, Mode: mode}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return File{}, fmt.Errorf("reading %s: %w", path, err)
	}
	f.Action, f.Content, f.before = Keep, string(data), data
	return f, nil
}

// planSettings plans the hook's entry in Claude Code's user settings at path: a new file
// with the entry alone, the entry added to the file's hooks.PreToolUse, or the file kept
// when an entry runs the hook already.
func planSettings(path string) (File, error) {
	f := File{Path: path, Action: Create, Content: exampleSettings, Mode: 0o644}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		return File{}, fmt.Errorf("reading %s: %w", path, err)
	}
	f.before = data
	if fi, err := os.Stat(path); err == nil {
		f.Mode = fi.Mode().Perm()
	}
	fail := func(what string) (File, error) {
		return File{}, fmt.Errorf("%s: %s: add the guard hook's entry by hand (Help shows it)", path, what)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		f.Action = Add
		return f, nil
	}
	top, err := decodeObject(data)
	if err != nil {
		return fail("not a JSON object segwi can read (" + err.Error() + ")")
	}
	hooks := object{}
	if raw, ok := top.get("hooks"); ok {
		if hooks, err = decodeObject(raw); err != nil {
			return fail(`"hooks" is not an object`)
		}
	}
	var pre []json.RawMessage
	if raw, ok := hooks.get("PreToolUse"); ok {
		if err := json.Unmarshal(raw, &pre); err != nil {
			return fail(`"hooks.PreToolUse" is not a list`)
		}
	}
	if runsHook(pre, exampleHookCommand) {
		f.Action, f.Content = Keep, string(data)
		return f, nil
	}
	var entry struct {
		Hooks struct {
			PreToolUse []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(exampleSettings), &entry); err != nil {
		panic("canary: the example settings are not JSON: " + err.Error())
	}
	pre = append(pre, entry.Hooks.PreToolUse...)
	list, err := json.Marshal(pre)
	if err != nil {
		return File{}, err
	}
	hooks.set("PreToolUse", list)
	top.set("hooks", hooks.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", "  "); err != nil {
		return File{}, err
	}
	out.WriteByte('\n')
	f.Action, f.Content = Add, out.String()
	return f, nil
}

// runsHook says whether one of Claude Code's PreToolUse entries runs command.
func runsHook(entries []json.RawMessage, command string) bool {
	for _, raw := range entries {
		var e struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(raw, &e) != nil {
			continue
		}
		for _, h := range e.Hooks {
			if h.Command == command {
				return true
			}
		}
	}
	return false
}

// Digest names what the setup writes, where: the person's confirmation is for this and
// nothing else (see Apply's caller).
func (s Setup) Digest() string {
	h := sha256.New()
	for _, f := range s.Files {
		fmt.Fprintf(h, "%s\x00%s\x00%o\x00%d\x00%s\x00", f.Path, f.Action, f.Mode, len(f.Content), f.Content)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Apply writes the files the setup creates or adds to, each only if it is as it was when
// planned (ErrChanged otherwise: plan again and show it); a new file is never written
// over one that appeared meanwhile, and the settings file is replaced by a rename, so
// Claude Code never reads half of it.
func (s Setup) Apply() error {
	for _, f := range s.Files {
		if err := f.unchanged(); err != nil {
			return err
		}
	}
	for _, f := range s.Files {
		if err := f.apply(); err != nil {
			return err
		}
	}
	return nil
}

// unchanged says whether the file is as it was when planned.
func (f File) unchanged() error {
	data, err := os.ReadFile(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if f.before != nil {
			return fmt.Errorf("%s: %w (it is gone)", f.Path, ErrChanged)
		}
	case err != nil:
		return fmt.Errorf("reading %s: %w", f.Path, err)
	case f.before == nil || !bytes.Equal(data, f.before):
		return fmt.Errorf("%s: %w", f.Path, ErrChanged)
	}
	return nil
}

// apply writes the file as planned.
func (f File) apply() error {
	switch f.Action {
	case Keep:
		return nil
	case Create:
		if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
			return fmt.Errorf("setting up the guard hook: %w", err)
		}
		out, err := os.OpenFile(f.Path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, f.Mode)
		if err != nil {
			return fmt.Errorf("setting up the guard hook: %w", err)
		}
		if _, err := out.WriteString(f.Content); err != nil {
			out.Close()
			return fmt.Errorf("setting up the guard hook: writing %s: %w", f.Path, err)
		}
		if err := out.Close(); err != nil {
			return fmt.Errorf("setting up the guard hook: writing %s: %w", f.Path, err)
		}
		return os.Chmod(f.Path, f.Mode) // the umask may have taken the hook's x bits
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".settings-*.json")
	if err != nil {
		return fmt.Errorf("setting up the guard hook: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	if _, err := tmp.WriteString(f.Content); err != nil {
		tmp.Close()
		return fmt.Errorf("setting up the guard hook: writing %s: %w", f.Path, err)
	}
	if err := tmp.Chmod(f.Mode); err != nil {
		tmp.Close()
		return fmt.Errorf("setting up the guard hook: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("setting up the guard hook: writing %s: %w", f.Path, err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("setting up the guard hook: %w", err)
	}
	return nil
}

// object is a JSON object whose members keep their order, so that a person's settings file
// keeps its order when segwi adds to it.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// decodeObject reads a JSON object, keeping its members' order.
func decodeObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return nil, err
	} else if t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var o object
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o = append(o, member{t.(string), v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("more after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces key's value, or adds key last.
func (o *object) set(key string, value json.RawMessage) {
	for i, m := range *o {
		if m.key == key {
			(*o)[i].value = value
			return
		}
	}
	*o = append(*o, member{key, value})
}

func (o object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
