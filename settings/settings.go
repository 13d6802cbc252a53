// Package settings loads segwi's settings file: typed values with their defaults, the
// checks that keep a bad value from reaching a run, the keys a person wrote that segwi does
// not know, and the retired keys it ignores (see package migrate).
//
// The file is YAML by default, at $XDG_CONFIG_HOME/segwi/config.yaml (see Path); TOML and
// JSON files are read too, chosen by the file's extension. Every key lives under "segwi:".
// Load reads it once; Watch reads it again after each edit, keeping the last good settings
// when an edit is bad. The file is decoded once into a tree that keeps the person's
// spelling of every key, for messages and for unknown and retired keys; values are read
// from that tree, each key matched whatever its case.
//
// Writing the file (for a later settings window): the file is the person's, not segwi's. A
// writer must change only the keys this package manages and keep everything else exactly
// as it is: unknown keys (perhaps a newer segwi's), retired keys (the person deletes those,
// after the warning), comments and key order. So it must not round-trip through a
// decoded tree (which drops comments and key order) nor through Settings (which has no place for
// the rest). Save does it on the YAML node tree instead: it edits or adds the managed
// scalar and list nodes in place and writes the file with a rename, so an editor or the
// Watcher never sees half a file.
package settings

import (
	"path/filepath"
	"time"

	"github.com/segwi/segwi/runs/ports"
	"github.com/segwi/segwi/runs/record"
)

// Settings are segwi's settings, with every value filled in: a key the file leaves out
// has its default (see Default).
type Settings struct {
	Claude       Claude
	Runtimes     []Runtime // the ACP agents a run may run on instead of Claude Code
	Repositories []Repository
	Runs         Runs
	Approvals    Approvals
	Canary       Canary
	GitHub       GitHub
	Remote       Remote
	Provenance   Provenance
}

// Claude says which Claude Code to launch (segwi.claude).
type Claude struct {
	// Path is the Claude Code binary: a name looked up in PATH, or a path.
	Path string
	// Model is passed as --model when not empty; empty means Claude Code's default.
	Model string
}

// Repository is a checkout runs can start in (an entry of segwi.repositories).
type Repository struct {
	// Name picks the repository in the tray menu and on the command line; unique.
	Name string
	// Path is the checkout's directory, absolute, with a leading ~ expanded.
	Path string
	// Remote is the git remote a run's branch is pushed to; "origin" by default.
	Remote string
	// Worktree makes its build and ready runs work in a new git worktree of their own
	// unless the person chooses the checkout; false (the default) runs them in the checkout.
	Worktree bool
	// Setup is what a new worktree of it gets before the run's agent starts there: files
	// copied from the checkout, a command run.
	Setup record.Setup
}

// Runs holds the limits every run gets (segwi.runs).
type Runs struct {
	// MaxConcurrent is how many runs may be going at once, across all repositories.
	MaxConcurrent int
	// MaxDuration is a run's wall-clock limit; then it is stopped in two steps.
	MaxDuration time.Duration
	// IdleTimeout stops a run that printed nothing for this long.
	IdleTimeout time.Duration
	// StopGrace is the time between the polite stop and the kill.
	StopGrace time.Duration
	// PassForgeTokens keeps GH_TOKEN and GITHUB_TOKEN in a run's environment.
	PassForgeTokens bool
	// Ports is how many TCP ports each run gets (SEGWI_PORT, SEGWI_PORT_COUNT).
	Ports int
	// Budget is what a run may use before it waits for the person (segwi.runs.budget);
	// a run started from the new-run dialog or segwi run may set its own.
	Budget Budget
}

// Budget bounds what each run may use, checked where each of its turns ends; a zero field
// is no bound (the default).
type Budget struct {
	Cost   float64 // in US dollars, as the runtime reckons it
	Tokens int64   // tokens of every kind
	Turns  int     // the results of the messages the run was sent
}

// Limits of a budget's values.
const (
	MaxBudgetCost   = 1_000_000         // dollars
	MaxBudgetTokens = 1_000_000_000_000 // tokens
	MaxBudgetTurns  = 1_000_000
)

// Approvals configures the approval broker (segwi.approvals).
type Approvals struct {
	// Timeout denies a request nobody answered in this long, saying so.
	Timeout time.Duration
	// Trusted are command prefixes whose plain scripts are allowed without asking.
	Trusted []string
}

// Canary configures segwi canary (segwi.canary).
type Canary struct {
	// GuardDeny is the guard hook's deny file, absolute with ~ expanded; empty when unset.
	GuardDeny string
}

// GitHub configures the optional pull-request feature (segwi.github).
type GitHub struct {
	// APIURL is the GitHub REST API's base URL.
	APIURL string
}

// Provenance says what segwi tells of where its commits and pull requests came from
// (segwi.provenance). Both are on by default. Neither is guarded (see Guarded): turning one
// off changes what segwi tells, never what a run or a stranger can do.
type Provenance struct {
	// Trailer adds a Segwi-Runs trailer naming the runs a commit of segwi's holds the
	// work of.
	Trailer bool
	// Approvals lists, in a pull request's default body, the calls allowed during the
	// conversation and by whom (redacted).
	Approvals bool
}

// Remote configures the approval page served on the tailnet (segwi.remote): the person
// answers a run's approvals from their phone or another of their devices.
type Remote struct {
	// Enabled serves the page; off by default.
	Enabled bool
	// Port is the TCP port the page listens on, on this machine's tailnet addresses.
	Port int
	// Owners are the tailnet login names allowed to answer (e.g. alice@example.com);
	// empty means the login that owns this machine's node.
	Owners []string
	// Socket is tailscaled's LocalAPI socket, absolute with ~ expanded; empty means the
	// platform's default.
	Socket string
}

// Default returns the settings used for every key the file leaves out.
func Default() Settings {
	return Settings{
		Claude: Claude{Path: "claude"},
		Runs: Runs{
			MaxConcurrent: 4,
			MaxDuration:   2 * time.Hour,
			IdleTimeout:   30 * time.Minute,
			StopGrace:     10 * time.Second,
			Ports:         ports.DefaultCount,
		},
		Approvals:  Approvals{Timeout: 10 * time.Minute},
		GitHub:     GitHub{APIURL: "https://api.github.com"},
		Remote:     Remote{Port: DefaultRemotePort},
		Provenance: Provenance{Trailer: true, Approvals: true},
	}
}

// DefaultRemote is a repository's remote when its entry names none.
const DefaultRemote = "origin"

// Limits on values, shared by validation and its messages.
const (
	MaxConcurrentLimit = 64   // segwi.runs.maxConcurrent is between 1 and this
	MaxTrusted         = 64   // entries in segwi.approvals.trusted
	MaxTrustedBytes    = 1024 // bytes in one trusted prefix
	DefaultRemotePort  = 7717 // segwi.remote.port when it is not set
	MaxOwners          = 64   // entries in segwi.remote.owners
	MaxOwnerBytes      = 256  // bytes in one login name
)

// CheckoutName names a checkout for a person: the name of the repository entry whose path
// it is, else the folder's own name.
func CheckoutName(checkout string, repos []Repository) string {
	clean := filepath.Clean(checkout)
	for _, r := range repos {
		if r.Name != "" && filepath.Clean(r.Path) == clean {
			return r.Name
		}
	}
	return filepath.Base(clean)
}
