package settings

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/segwi/segwi/internal/lib/visible"
)

// Guarded are the values of the settings that widen what a run, or a stranger, can do:
// the program started as Claude Code and those started as other runtimes, the forge tokens a run gets, the commands run without
// asking, where the GitHub token goes, and who may answer approvals from the tailnet. A
// run's agent can write the settings file, so an edit of one of them made anywhere but
// segwi's settings window waits for the person to confirm it (see GuardedEdit and Stand);
// an edit that narrows one applies at once. The JSON names are the settings' keys, as the
// record of what the person confirmed holds them (see ConfirmedPath).
type Guarded struct {
	ClaudePath      string    `json:"segwi.claude.path"`
	Runtimes        []Runtime `json:"segwi.runtimes,omitempty"`
	PassForgeTokens bool      `json:"segwi.runs.passForgeTokens"`
	Trusted         []string  `json:"segwi.approvals.trusted"`
	APIURL          string    `json:"segwi.github.apiURL"`
	RemoteEnabled   bool      `json:"segwi.remote.enabled"`
	RemotePort      int       `json:"segwi.remote.port"`
	RemoteOwners    []string  `json:"segwi.remote.owners"`
	RemoteSocket    string    `json:"segwi.remote.socket"`
}

// GuardedOf returns the guarded values of s.
func GuardedOf(s Settings) Guarded {
	return Guarded{
		ClaudePath:      s.Claude.Path,
		Runtimes:        cloneRuntimes(s.Runtimes),
		PassForgeTokens: s.Runs.PassForgeTokens,
		Trusted:         slices.Clone(s.Approvals.Trusted),
		APIURL:          s.GitHub.APIURL,
		RemoteEnabled:   s.Remote.Enabled,
		RemotePort:      s.Remote.Port,
		RemoteOwners:    slices.Clone(s.Remote.Owners),
		RemoteSocket:    s.Remote.Socket,
	}
}

// Put returns s with the guarded values of g.
func (g Guarded) Put(s Settings) Settings {
	s.Claude.Path = g.ClaudePath
	s.Runtimes = cloneRuntimes(g.Runtimes)
	s.Runs.PassForgeTokens = g.PassForgeTokens
	s.Approvals.Trusted = slices.Clone(g.Trusted)
	s.GitHub.APIURL = g.APIURL
	s.Remote.Enabled = g.RemoteEnabled
	s.Remote.Port = g.RemotePort
	s.Remote.Owners = slices.Clone(g.RemoteOwners)
	s.Remote.Socket = g.RemoteSocket
	return s
}

// Equal reports whether g and o hold the same values (an empty list and none are the same).
func (g Guarded) Equal(o Guarded) bool {
	return g.ClaudePath == o.ClaudePath && slices.EqualFunc(g.Runtimes, o.Runtimes, Runtime.Equal) && g.PassForgeTokens == o.PassForgeTokens &&
		slices.Equal(g.Trusted, o.Trusted) && g.APIURL == o.APIURL &&
		g.RemoteEnabled == o.RemoteEnabled && g.RemotePort == o.RemotePort &&
		slices.Equal(g.RemoteOwners, o.RemoteOwners) && g.RemoteSocket == o.RemoteSocket
}

// resolve returns the guarded values to put in force for a file that says file, when the
// person confirmed confirmed last: each key's file value when it narrows what was confirmed
// or leaves it as it was, else the confirmed one. For the trusted commands and the owners,
// a confirmed entry the file removed goes at once, while the ones it added wait. What it
// returns is also what counts as confirmed from then on: a narrowing needs no confirmation.
func resolve(confirmed, file Guarded) Guarded {
	out := file
	if file.ClaudePath != confirmed.ClaudePath {
		out.ClaudePath = confirmed.ClaudePath // another program: no way to tell it is narrower
	}
	// A runtime removed goes at once; one added or changed (another program, another
	// environment) waits, as the Claude Code binary does.
	out.Runtimes = nil
	for _, r := range file.Runtimes {
		if slices.ContainsFunc(confirmed.Runtimes, r.Equal) {
			out.Runtimes = append(out.Runtimes, r)
		}
	}
	if file.PassForgeTokens && !confirmed.PassForgeTokens {
		out.PassForgeTokens = false
	}
	if len(missingFrom(file.Trusted, confirmed.Trusted)) > 0 {
		out.Trusted = kept(file.Trusted, confirmed.Trusted) // possibly none: asks more
	}
	if file.APIURL != confirmed.APIURL {
		out.APIURL = confirmed.APIURL
	}
	if file.RemoteEnabled && !confirmed.RemoteEnabled {
		out.RemoteEnabled = false
	}
	if file.RemotePort != confirmed.RemotePort {
		out.RemotePort = confirmed.RemotePort
	}
	// No owners means the owner of this machine's node, whoever that is: emptying the list is
	// no narrowing, and neither is an intersection that comes out empty.
	if len(file.RemoteOwners) == 0 || len(missingFrom(file.RemoteOwners, confirmed.RemoteOwners)) > 0 {
		out.RemoteOwners = confirmed.RemoteOwners
		if k := kept(file.RemoteOwners, confirmed.RemoteOwners); len(k) > 0 {
			out.RemoteOwners = k
		}
	}
	if file.RemoteSocket != confirmed.RemoteSocket {
		out.RemoteSocket = confirmed.RemoteSocket
	}
	out.Trusted, out.RemoteOwners = slices.Clip(out.Trusted), slices.Clip(out.RemoteOwners)
	return out
}

// GuardedEdit is an edit of guarded settings in the settings file that widens what a run or
// a stranger can do and did not come from segwi's settings window: it waits for the person.
// Old is in force until they confirm New. The core decides when there is one; the windows
// and the commands show it.
type GuardedEdit struct {
	Old Guarded `json:"old"` // in force: what the person confirmed, with what the edit narrowed
	New Guarded `json:"new"` // what the file says
	// Declined is set once the person chose to keep Old; the edit is not asked again while
	// the file says New.
	Declined bool `json:"declined,omitempty"`
}

// Same reports whether e and o are the same edit, whether declined or not.
func (e GuardedEdit) Same(o GuardedEdit) bool { return e.Old.Equal(o.Old) && e.New.Equal(o.New) }

// KeyChange is one guarded key an edit changes, as a person reads it: its values are shown
// with control characters, line breaks and bidirectional formatting characters as escapes
// (the agent wrote them), so that what the person confirms is what they read.
type KeyChange struct {
	Key string // e.g. "segwi.github.apiURL"
	// Why says what the key lets happen, so that the person knows what they confirm.
	Why string
	// Old and New are the values, as text; for a list, its entries.
	Old, New []string
	// List is set for a list, whose entries Added and Removed name.
	List           bool
	Added, Removed []string
}

// Changes returns the keys e changes, in the order of the settings file's reference.
func (e GuardedEdit) Changes() []KeyChange {
	o, n := e.Old, e.New
	var out []KeyChange
	scalar := func(key, why, old, new, empty string) {
		if old == new {
			return
		}
		show := func(v string) []string {
			if v == "" {
				return []string{empty}
			}
			return []string{shown(v)}
		}
		out = append(out, KeyChange{Key: key, Why: why, Old: show(old), New: show(new)})
	}
	list := func(key, why string, old, new []string) {
		if slices.Equal(old, new) {
			return
		}
		out = append(out, KeyChange{Key: key, Why: why, Old: shownAll(old), New: shownAll(new), List: true,
			Added: shownAll(missingFrom(new, old)), Removed: shownAll(missingFrom(old, new))})
	}
	scalar("segwi.claude.path", "the program segwi starts, as you, for every run", o.ClaudePath, n.ClaudePath, "")
	list("segwi.runtimes", "the programs segwi starts, as you, for a run on one of these runtimes",
		runtimeLines(o.Runtimes), runtimeLines(n.Runtimes))
	scalar("segwi.runs.passForgeTokens", "true hands GH_TOKEN and GITHUB_TOKEN to every run",
		strconv.FormatBool(o.PassForgeTokens), strconv.FormatBool(n.PassForgeTokens), "")
	list("segwi.approvals.trusted", "a run's commands that start with one of these run without asking you", o.Trusted, n.Trusted)
	scalar("segwi.github.apiURL", "segwi sends the GitHub token to this host", o.APIURL, n.APIURL, "")
	scalar("segwi.remote.enabled", "true lets approvals be answered from the tailnet",
		strconv.FormatBool(o.RemoteEnabled), strconv.FormatBool(n.RemoteEnabled), "")
	scalar("segwi.remote.port", "the port of the approval page on the tailnet", strconv.Itoa(o.RemotePort), strconv.Itoa(n.RemotePort), "")
	list("segwi.remote.owners", "the tailnet logins that may answer approvals (none: this machine's owner)", o.RemoteOwners, n.RemoteOwners)
	scalar("segwi.remote.socket", "the tailscaled that tells segwi who is answering", o.RemoteSocket, n.RemoteSocket,
		"(empty: the platform's default)")
	return out
}

// shown is v as a person may read it on a terminal or in a window: see KeyChange.
func shown(v string) string {
	return strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(visible.Escape(v))
}

// shownAll is shown of each entry of list.
func shownAll(list []string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, v := range list {
		out[i] = shown(v)
	}
	return out
}

// missingFrom returns the entries of list that are not in other, in list's order.
func missingFrom(list, other []string) []string {
	var out []string
	for _, e := range list {
		if !slices.Contains(other, e) {
			out = append(out, e)
		}
	}
	return out
}

// kept returns the entries of list that are also in other, in list's order.
func kept(list, other []string) []string {
	var out []string
	for _, e := range list {
		if slices.Contains(other, e) {
			out = append(out, e)
		}
	}
	return out
}

// cloneRuntimes returns a deep copy of rs.
func cloneRuntimes(rs []Runtime) []Runtime {
	if rs == nil {
		return nil
	}
	out := make([]Runtime, len(rs))
	for i, r := range rs {
		out[i] = Runtime{Name: r.Name, Command: slices.Clone(r.Command), Env: maps.Clone(r.Env)}
	}
	return out
}

// runtimeLines returns each runtime as a person reads it (Runtime.String).
func runtimeLines(rs []Runtime) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}
