package claudetest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/segwi/segwi/internal/testing/sockdir"
)

// APIKey is the API key the test environment gives Claude Code. It is deliberately not shaped
// like a real Anthropic key (sk-ant-...), which segwi redacts.
const APIKey = "sk-test"

// Environment is a sealed environment for one Claude Code process: its own HOME, TMPDIR and
// XDG_RUNTIME_DIR (temporary directories removed when the test ends), the fake server's URL,
// and nothing of the real user's home.
type Environment struct {
	// Home is the test's HOME; the CLI keeps ~/.claude and ~/.claude.json here, and the
	// XDG config, data, state and cache directories live under it.
	Home string
	// TempDir is the test's TMPDIR.
	TempDir string
	// RuntimeDir is the test's XDG_RUNTIME_DIR (a short path: the CLI puts a socket there).
	RuntimeDir string
	// BaseURL is the fake Messages API's base URL, given as ANTHROPIC_BASE_URL.
	BaseURL string

	vars map[string]string
}

// Env returns a fresh Environment for a Claude Code process talking to the Messages API at
// baseURL (usually a fakeapi.Server's URL). Only PATH and LANG come from the test's own
// environment.
func Env(t testing.TB, baseURL string) *Environment {
	t.Helper()
	home := t.TempDir()
	tmp := t.TempDir()
	// The CLI puts a socket in its runtime folder: a short one (see package sockdir).
	runtime := sockdir.New(t)
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = "C.UTF-8"
	}
	e := &Environment{Home: home, TempDir: tmp, RuntimeDir: runtime, BaseURL: baseURL}
	e.vars = map[string]string{
		"HOME":               home,
		"TMPDIR":             tmp,
		"XDG_RUNTIME_DIR":    runtime,
		"XDG_CONFIG_HOME":    filepath.Join(home, ".config"),
		"XDG_DATA_HOME":      filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME":     filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME":     filepath.Join(home, ".cache"),
		"ANTHROPIC_BASE_URL": baseURL,
		"ANTHROPIC_API_KEY":  APIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"PATH": os.Getenv("PATH"),
		"LANG": lang,
		// git, run by the agent's tools or by the test, reads no config of the real user.
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
	}
	return e
}

// Set sets (or, with value "", removes) one variable of the environment.
func (e *Environment) Set(key, value string) {
	if value == "" {
		delete(e.vars, key)
		return
	}
	e.vars[key] = value
}

// Get returns one variable of the environment, or "".
func (e *Environment) Get(key string) string {
	return e.vars[key]
}

// Vars returns the environment as KEY=VALUE strings, sorted, for exec.Cmd.Env.
func (e *Environment) Vars() []string {
	vars := make([]string, 0, len(e.vars))
	for k, v := range e.vars {
		vars = append(vars, k+"="+v)
	}
	slices.Sort(vars)
	return vars
}

// String returns the environment as a shell-like line, for test logs.
func (e *Environment) String() string {
	return strings.Join(e.Vars(), " ")
}
