package settings

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Runtime is an agent segwi can run besides Claude Code (an entry of segwi.runtimes): a
// program that speaks the Agent Client Protocol on its standard input and output, such as
// codex-acp or claude-agent-acp, started as the person in the run's checkout.
type Runtime struct {
	// Name picks the runtime (segwi run --runtime NAME, the new-run dialog); unique, and
	// not "claude", the built-in runtime's.
	Name string `json:"name"`
	// Command is the program and its arguments; the program is a name looked up in PATH,
	// or a path.
	Command []string `json:"command"`
	// Env is added to the run's environment (which is the person's, less the forge tokens):
	// e.g. the agent's API endpoint, or IS_SANDBOX=1 for claude-agent-acp run as root.
	Env map[string]string `json:"env,omitempty"`
}

// BuiltinRuntime is the name of segwi's built-in runtime, Claude Code in a pty: no entry of
// segwi.runtimes may take it.
const BuiltinRuntime = "claude"

// MaxRuntimes bounds segwi.runtimes.
const MaxRuntimes = 32

// Equal reports whether r and o are the same runtime, entry for entry.
func (r Runtime) Equal(o Runtime) bool {
	return r.Name == o.Name && slices.Equal(r.Command, o.Command) && maps.Equal(r.Env, o.Env)
}

// String is the runtime as one line a person reads: its name, its command, its
// environment (sorted).
func (r Runtime) String() string {
	words := make([]string, len(r.Command))
	for i, w := range r.Command {
		words[i] = w
		if w == "" || strings.ContainsAny(w, " \t\"'\\") {
			words[i] = strconv.Quote(w)
		}
	}
	s := r.Name + ": " + strings.Join(words, " ")
	if len(r.Env) > 0 {
		var env []string
		for _, k := range slices.Sorted(maps.Keys(r.Env)) {
			env = append(env, k+"="+r.Env[k])
		}
		s += " (env " + strings.Join(env, " ") + ")"
	}
	return s
}

// FindRuntime returns the runtime of s called name, and whether there is one.
func (s Settings) FindRuntime(name string) (Runtime, bool) {
	for _, r := range s.Runtimes {
		if r.Name == name {
			return r, true
		}
	}
	return Runtime{}, false
}

// runtimes reads segwi.runtimes from the file's tree, which keeps the spelling of the
// environment's names. Any problem leaves the entry out.
func (l *loader) runtimes() []Runtime {
	if raw, ok := l.get("segwi.runtimes").([]any); ok && len(raw) > MaxRuntimes {
		l.problem("segwi.runtimes", fmt.Sprintf("has %d entries, at most %d are allowed", len(raw), MaxRuntimes))
		return nil
	}
	return namedList(l, "segwi.runtimes", "runtimes", "name, command and env", l.runtime, func(r Runtime) string { return r.Name })
}

// runtime reads one entry of segwi.runtimes.
func (l *loader) runtime(at string, m map[string]any) (Runtime, bool) {
	var r Runtime
	switch name := member(m, "name").(type) {
	case string:
		r.Name = strings.TrimSpace(name)
	case nil:
	default:
		l.problem(at+".name", fmt.Sprintf("must be a string, got %s", show(name)))
		return r, false
	}
	switch {
	case r.Name == "":
		l.problem(at+".name", "must not be empty: give the runtime a name to pick it by, e.g. codex")
		return r, false
	case strings.EqualFold(r.Name, BuiltinRuntime):
		l.problem(at+".name", fmt.Sprintf("%q is the built-in runtime (Claude Code, segwi.claude): pick another name", r.Name))
		return r, false
	case strings.IndexFunc(r.Name, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
	}) >= 0 || len(r.Name) > 64:
		l.problem(at+".name", fmt.Sprintf("%q: use at most 64 letters, digits, '-', '_' and '.', e.g. codex", r.Name))
		return r, false
	}
	cmd, ok := member(m, "command").([]any)
	if !ok || len(cmd) == 0 {
		l.problem(at+".command", fmt.Sprintf("must be a list: the program and its arguments, e.g. [codex-acp], got %s", show(member(m, "command"))))
		return r, false
	}
	for i, w := range cmd {
		s, ok := w.(string)
		if !ok || (i == 0 && strings.TrimSpace(s) == "") || strings.ContainsRune(s, 0) {
			l.problem(fmt.Sprintf("%s.command[%d]", at, i), fmt.Sprintf("must be a string without NUL (the first not empty), got %s", show(w)))
			return r, false
		}
		r.Command = append(r.Command, s)
	}
	r.Command[0] = strings.TrimSpace(r.Command[0])
	switch env := member(m, "env").(type) {
	case nil:
	case map[string]any:
		r.Env = map[string]string{}
		for k, v := range env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				l.problem(at+".env", fmt.Sprintf("%q is not the name of an environment variable", k))
				return r, false
			}
			switch v := v.(type) {
			case string:
				r.Env[k] = v
			case bool, int, int64, uint64, float64:
				r.Env[k] = fmt.Sprint(v)
			default:
				l.problem(at+".env."+k, fmt.Sprintf("must be a string, got %s", show(v)))
				return r, false
			}
			if strings.ContainsRune(r.Env[k], 0) {
				l.problem(at+".env."+k, "must not hold a NUL")
				return r, false
			}
		}
	default:
		l.problem(at+".env", fmt.Sprintf("must be a mapping of environment variables to values, got %s", show(env)))
		return r, false
	}
	return r, true
}
