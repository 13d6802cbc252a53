package settings

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// confirmedBase is a settings file the person wrote and confirmed.
const confirmedBase = "segwi:\n  claude:\n    path: /usr/bin/claude\n  approvals:\n    trusted: [git status, go test]\n" +
	"  remote:\n    enabled: true\n    owners: [alice@example.com, bob@example.com]\n"

// standAfter writes confirmedBase, takes it as confirmed, then writes edit and returns
// what stands for it.
func standAfter(t *testing.T, edit string) (Standing, string) {
	t.Helper()
	p := writeConfig(t, "config.yaml", confirmedBase)
	if st := Stand(load(t, p)); !st.Adopted || st.Edit != nil || st.Problem != nil {
		t.Fatalf("the first Stand: adopted %v, edit %+v, problem %v; want the file adopted", st.Adopted, st.Edit, st.Problem)
	}
	if err := writeFile(p, edit); err != nil {
		t.Fatal(err)
	}
	return Stand(load(t, p)), p
}

func TestStandKeepsEachWideningEditWaiting(t *testing.T) {
	base := GuardedOf(load(t, writeConfig(t, "config.yaml", confirmedBase)).Settings)
	tests := []struct {
		name string
		edit string // added under segwi: after the base's claude, approvals and remote
		key  string
		new  []string
	}{
		{"another Claude Code binary", "  claude:\n    path: /tmp/evil/claude\n", "segwi.claude.path", []string{"/tmp/evil/claude"}},
		{"forge tokens handed to runs", "  runs:\n    passForgeTokens: true\n", "segwi.runs.passForgeTokens", []string{"true"}},
		{"a trusted command added", "  approvals:\n    trusted: [git status, go test, rm]\n", "segwi.approvals.trusted", []string{"git status", "go test", "rm"}},
		{"the token's host", "  github:\n    apiURL: https://127.0.0.1:8443/api/v3\n", "segwi.github.apiURL", []string{"https://127.0.0.1:8443/api/v3"}},
		{"another port for the page", "  remote:\n    enabled: true\n    port: 8080\n    owners: [alice@example.com, bob@example.com]\n", "segwi.remote.port", []string{"8080"}},
		{"an owner added", "  remote:\n    enabled: true\n    owners: [alice@example.com, bob@example.com, eve@example.com]\n", "segwi.remote.owners",
			[]string{"alice@example.com", "bob@example.com", "eve@example.com"}},
		{"the owners emptied: this machine's owner, whoever that is", "  remote:\n    enabled: true\n", "segwi.remote.owners", nil},
		{"another tailscaled", "  remote:\n    enabled: true\n    owners: [alice@example.com, bob@example.com]\n    socket: /tmp/fake.sock\n",
			"segwi.remote.socket", []string{"/tmp/fake.sock"}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" waits", func(t *testing.T) {
			// Each edit starts from the base and replaces one section, so that one key changes.
			sections := map[string]string{
				"  claude:":    "  claude:\n    path: /usr/bin/claude\n",
				"  approvals:": "  approvals:\n    trusted: [git status, go test]\n",
				"  remote:":    "  remote:\n    enabled: true\n    owners: [alice@example.com, bob@example.com]\n",
			}
			edit := "segwi:\n"
			for _, sec := range []string{"  claude:", "  approvals:", "  remote:"} {
				if !strings.HasPrefix(tt.edit, sec) {
					edit += sections[sec]
				}
			}
			st, p := standAfter(t, edit+tt.edit)
			if st.Edit == nil {
				t.Fatal("nothing waits; want the edit to wait for the person")
			}
			changes := st.Edit.Changes()
			if len(changes) != 1 || changes[0].Key != tt.key || !cmp.Equal(changes[0].New, tt.new) {
				t.Errorf("changes %+v, want one of %s to %q", changes, tt.key, tt.new)
			}
			if !st.Confirmed.Equal(base) || !GuardedOf(st.Settings).Equal(base) {
				t.Errorf("in force %+v, want what was confirmed %+v", GuardedOf(st.Settings), base)
			}
			if g, _, _ := ReadConfirmed(p); !g.Equal(base) {
				t.Errorf("the record says %+v, want what was confirmed", g)
			}
		})
	}
}

func TestStandAppliesANarrowingEditAtOnce(t *testing.T) {
	tests := []struct {
		name string
		edit string
		want func(*Guarded)
	}{
		{"the page turned off", "segwi:\n  claude:\n    path: /usr/bin/claude\n  approvals:\n    trusted: [git status, go test]\n" +
			"  remote:\n    owners: [alice@example.com, bob@example.com]\n", func(g *Guarded) { g.RemoteEnabled = false }},
		{"a trusted command removed", "segwi:\n  claude:\n    path: /usr/bin/claude\n  approvals:\n    trusted: [go test]\n" +
			"  remote:\n    enabled: true\n    owners: [alice@example.com, bob@example.com]\n", func(g *Guarded) { g.Trusted = []string{"go test"} }},
		{"an owner removed", "segwi:\n  claude:\n    path: /usr/bin/claude\n  approvals:\n    trusted: [git status, go test]\n" +
			"  remote:\n    enabled: true\n    owners: [bob@example.com]\n", func(g *Guarded) { g.RemoteOwners = []string{"bob@example.com"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name+" applies", func(t *testing.T) {
			st, p := standAfter(t, tt.edit)
			want := GuardedOf(load(t, writeConfig(t, "config.yaml", confirmedBase)).Settings)
			tt.want(&want)
			if st.Edit != nil {
				t.Errorf("the edit waits (%+v); a narrowing edit applies at once", st.Edit.Changes())
			}
			if !GuardedOf(st.Settings).Equal(want) {
				t.Errorf("in force %+v, want %+v", GuardedOf(st.Settings), want)
			}
			if g, _, _ := ReadConfirmed(p); !g.Equal(want) {
				t.Errorf("the record says %+v, want the narrowed values: narrowing needs no confirmation", g)
			}
		})
	}
}

func TestStandAppliesWhatAnEditRemovesAndHoldsWhatItAdds(t *testing.T) {
	st, _ := standAfter(t, "segwi:\n  claude:\n    path: /usr/bin/claude\n  approvals:\n    trusted: [go test, rm]\n"+
		"  remote:\n    enabled: true\n    owners: [alice@example.com, eve@example.com]\n")
	if got := st.Settings.Approvals.Trusted; !cmp.Equal(got, []string{"go test"}) {
		t.Errorf("trusted commands in force %q, want only go test: git status was removed, rm waits", got)
	}
	if got := st.Settings.Remote.Owners; !cmp.Equal(got, []string{"alice@example.com"}) {
		t.Errorf("owners in force %q, want only alice: bob was removed, eve waits", got)
	}
	if st.Edit == nil {
		t.Fatal("nothing waits")
	}
	want := []KeyChange{
		{Key: "segwi.approvals.trusted", Why: "a run's commands that start with one of these run without asking you",
			Old: []string{"go test"}, New: []string{"go test", "rm"}, List: true, Added: []string{"rm"}},
		{Key: "segwi.remote.owners", Why: "the tailnet logins that may answer approvals (none: this machine's owner)",
			Old: []string{"alice@example.com"}, New: []string{"alice@example.com", "eve@example.com"}, List: true, Added: []string{"eve@example.com"}},
	}
	if diff := cmp.Diff(want, st.Edit.Changes()); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

func TestStandConfirmedEditApplies(t *testing.T) {
	st, p := standAfter(t, confirmedBase+"  github:\n    apiURL: https://ghe.example.com/api/v3\n")
	if st.Edit == nil {
		t.Fatal("nothing waits")
	}
	if err := WriteConfirmed(p, st.Edit.New); err != nil {
		t.Fatal(err)
	}
	after := Stand(load(t, p))
	if after.Edit != nil || after.Settings.GitHub.APIURL != "https://ghe.example.com/api/v3" {
		t.Errorf("after confirming: edit %+v, apiURL %q; want none waiting and the new URL in force", after.Edit, after.Settings.GitHub.APIURL)
	}
}

func TestStandWithoutARecord(t *testing.T) {
	t.Run("a file found with no record is taken as confirmed, and recorded", func(t *testing.T) {
		p := writeConfig(t, "config.yaml", confirmedBase)
		st := Stand(load(t, p))
		if !st.Adopted || st.Edit != nil || st.Settings.Claude.Path != "/usr/bin/claude" {
			t.Errorf("adopted %v, edit %+v, claude %q; want the file adopted as it is", st.Adopted, st.Edit, st.Settings.Claude.Path)
		}
		if _, found, err := ReadConfirmed(p); !found || err != nil {
			t.Errorf("record found %v, err %v; want it written", found, err)
		}
	})
	t.Run("without a settings file the defaults are recorded, so that a file written later waits", func(t *testing.T) {
		p := writeConfig(t, "config.yaml", "")
		os.Remove(p)
		if st := Stand(load(t, p)); !st.Adopted || st.Problem != nil {
			t.Fatalf("adopted %v, problem %v; want the defaults recorded", st.Adopted, st.Problem)
		}
		if err := writeFile(p, "segwi:\n  runs:\n    passForgeTokens: true\n"); err != nil {
			t.Fatal(err)
		}
		if st := Stand(load(t, p)); st.Edit == nil || st.Settings.Runs.PassForgeTokens {
			t.Errorf("edit %+v, passForgeTokens in force %v; want the new file's widening to wait", st.Edit, st.Settings.Runs.PassForgeTokens)
		}
	})
	t.Run("an unreadable record counts as the defaults, and says so", func(t *testing.T) {
		p := writeConfig(t, "config.yaml", confirmedBase)
		if err := writeFile(ConfirmedPath(p), "{not json"); err != nil {
			t.Fatal(err)
		}
		st := Stand(load(t, p))
		if st.Problem == nil || !strings.Contains(st.Problem.Error(), "segwi config confirm") {
			t.Errorf("problem %v, want one saying to confirm again", st.Problem)
		}
		if st.Edit == nil || st.Settings.Claude.Path != "claude" || st.Settings.Remote.Enabled {
			t.Errorf("edit %+v, claude %q, remote %v; want the defaults in force and the file waiting", st.Edit, st.Settings.Claude.Path, st.Settings.Remote.Enabled)
		}
	})
	t.Run("a record missing a key counts it at its default", func(t *testing.T) {
		p := writeConfig(t, "config.yaml", "segwi:\n  remote:\n    port: 9000\n")
		if err := writeFile(ConfirmedPath(p), `{"confirmed": {"segwi.claude.path": "claude", "segwi.newer.key": 1}}`); err != nil {
			t.Fatal(err)
		}
		st := Stand(load(t, p))
		if st.Problem != nil || st.Edit == nil || st.Settings.Remote.Port != DefaultRemotePort {
			t.Errorf("problem %v, edit %+v, port %d; want port 9000 waiting against the default", st.Problem, st.Edit, st.Settings.Remote.Port)
		}
	})
}

func TestWatcherReloadsWhenTheRecordChanges(t *testing.T) {
	p := writeConfig(t, "config.yaml", "segwi:\n  runs:\n    maxConcurrent: 2\n")
	_, changes := watch(t, p, load(t, p).Settings)
	if err := WriteConfirmed(p, GuardedOf(Default())); err != nil {
		t.Fatal(err)
	}
	if c := next(t, changes); c.Err != nil || c.Settings.Runs.MaxConcurrent != 2 {
		t.Errorf("got %+v, %v; want the file loaded again", c.Settings.Runs, c.Err)
	}
}

// The agent writes the values a person is asked to confirm: what would act on a terminal,
// or reorder what they read, is shown as escapes.
func TestChangesShowWhatTheAgentWroteAsEscapes(t *testing.T) {
	e := GuardedEdit{Old: GuardedOf(Default()), New: GuardedOf(Default())}
	e.New.ClaudePath = "/tmp/x\x1b[2K\rclaude"
	e.New.Trusted = []string{"git status\u202e", "ls\nrm -rf ~"}
	changes := e.Changes()
	want := []KeyChange{
		{Key: "segwi.claude.path", Why: "the program segwi starts, as you, for every run", Old: []string{"claude"}, New: []string{`/tmp/x\x1b[2K\x0dclaude`}},
		{Key: "segwi.approvals.trusted", Why: "a run's commands that start with one of these run without asking you", List: true,
			New: []string{`git status\u202e`, `ls\nrm -rf ~`}, Added: []string{`git status\u202e`, `ls\nrm -rf ~`}},
	}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}
