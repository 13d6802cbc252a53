package runs

import (
	"slices"
	"testing"
)

// A process table around segwi (pid 100, in session 90) running run "r1" with claude
// (pid 200, started at tick 1000) and run "r2" (claude 300).
var table = []proc{
	{PID: 1, PPID: 0, PGID: 1, SID: 1, RunID: "r1"}, // init carrying the id is still never the run's
	{PID: 90, PPID: 1, PGID: 90, SID: 90},           // the shell that started segwi
	{PID: 100, PPID: 90, PGID: 100, SID: 90, RunID: "r1"},
	{PID: 101, PPID: 100, PGID: 100, SID: 90, Start: 1500},                     // git, started by segwi
	{PID: 200, PPID: 100, PGID: 200, SID: 200, Start: 1000, RunID: "r1"},       // claude
	{PID: 201, PPID: 200, PGID: 201, SID: 201, Start: 1100, RunID: "r1"},       // a Bash tool, its own session
	{PID: 202, PPID: 201, PGID: 201, SID: 201, Start: 1200},                    // env -i child of the tool
	{PID: 203, PPID: 100, PGID: 203, SID: 203, Start: 1300, RunID: "r1"},       // setsid -f, adopted by segwi
	{PID: 204, PPID: 100, PGID: 204, SID: 204, Start: 1400},                    // env -i setsid -f, adopted
	{PID: 205, PPID: 204, PGID: 204, SID: 204, Start: 1401},                    // its child
	{PID: 206, PPID: 100, PGID: 206, SID: 206, Start: 900},                     // adopted, older than the run
	{PID: 207, PPID: 100, PGID: 207, SID: 207, Start: 1600, OutsideRun: true},  // an editor opened from the tray
	{PID: 208, PPID: 1, PGID: 200, SID: 200, Start: 1700},                      // in claude's session, reparented to init
	{PID: 209, PPID: 100, PGID: 209, SID: 209, Start: 1800, Zombie: true},      // ended already
	{PID: 300, PPID: 100, PGID: 300, SID: 300, Start: 1050, RunID: "r2"},       // claude of r2
	{PID: 301, PPID: 100, PGID: 301, SID: 301, Start: 1900, RunID: "r2"},       // r2's setsid -f, adopted
	{PID: 302, PPID: 100, PGID: 302, SID: 302, Start: 1950, RunID: "gone-run"}, // an id of no live run, adopted
	{PID: 400, PPID: 1, PGID: 400, SID: 400, Start: 2000, RunID: "r1"},         // r1's, after segwi died
	{PID: 401, PPID: 400, PGID: 400, SID: 400, Start: 2001},                    // its scrubbed child
	{PID: 500, PPID: 1, PGID: 500, SID: 500, Start: 2100},                      // r2's with its environment emptied, elsewhere
	{PID: 501, PPID: 500, PGID: 500, SID: 500, Start: 2101, RunID: "r2"},       // its child, with r2's id
}

func pids(ps []proc) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.PID)
	}
	slices.Sort(out)
	return out
}

func TestAttributeFindsEveryProcessOfARunAndNoOther(t *testing.T) {
	live := func(id string) bool { return id == "r2" }
	own := scope{runID: "r1", groups: []int{200}, leaderStart: 1000, self: 100, selfPGID: 100, selfSID: 90,
		adopt: true, since: 1000, isChild: func(pid int) bool { return pid == 200 || pid == 300 },
		otherLive: live}
	tests := []struct {
		name  string
		scope scope
		table []proc
		want  []int
	}{
		{"segwi's own run: its id, its sessions and groups, their children and the orphans segwi adopted since it started",
			own, table, []int{200, 201, 202, 203, 204, 205, 208, 302, 400, 401}},
		{"a sweep by id: no orphans, no claude group known, but the sessions of what it finds",
			scope{runID: "r1", self: 100, selfPGID: 100, selfSID: 90}, table, []int{200, 201, 202, 203, 208, 400, 401}},
		{"another segwi sweeping a dead run's processes",
			scope{runID: "r2", self: 999, selfPGID: 999, selfSID: 999}, table, []int{300, 301, 500, 501}},
		{"claude's pid taken by another process: its group says nothing",
			scope{runID: "none", groups: []int{200}, leaderStart: 1, self: 100, selfPGID: 100, selfSID: 90},
			table, nil},
		{"a process with the run's id in segwi's own session never brings the session in",
			scope{runID: "r1", self: 100, selfPGID: 100, selfSID: 90},
			[]proc{{PID: 100, PPID: 90, PGID: 100, SID: 90}, {PID: 110, PPID: 100, PGID: 100, SID: 90, RunID: "r1"},
				{PID: 111, PPID: 100, PGID: 100, SID: 90}, {PID: 91, PPID: 90, PGID: 91, SID: 90}},
			[]int{110}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pids(attribute(tt.table, tt.scope)); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
