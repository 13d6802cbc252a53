package runs

// proc is one process of a snapshot of the system's process table (scanProcs).
type proc struct {
	PID, PPID  int
	PGID, SID  int    // its process group and session
	Start      uint64 // when it started, in clock ticks after boot: with PID, its identity
	Zombie     bool   // ended, not yet reaped: it runs nothing any more
	RunID      string // SEGWI_RUN_ID in its environment; "" when absent or unreadable
	OutsideRun bool   // outsideRunEnv in its environment: segwi started it outside any run
}

// outsideRunEnv is set in segwi's own environment once it adopts orphans (adoptOrphans),
// so that what segwi starts outside its runs (git, a browser or editor opened from the
// tray) carries it. A run's environment never does (droppedEnv). It tells an orphan that
// detached from a run with an empty environment from one that detached from such a
// program: segwi adopts both.
const outsideRunEnv = "SEGWI_OUTSIDE_RUN"

// scope says which processes belong to a run: attribute finds them in a snapshot.
type scope struct {
	runID string
	// groups are process groups and sessions known to be the run's: its agent's own,
	// whose id is the agent's pid. leaderStart tells whether a process with that pid now
	// is another one (then the id was reused and says nothing).
	groups      []int
	leaderStart uint64
	// self is this segwi's pid, selfPGID and selfSID its process group and session: never
	// the run's, whatever else says so.
	self, selfPGID, selfSID int
	// adopt is set when this segwi adopts orphans and the run is its own. Orphans adopted
	// by segwi (children of self in another session) that segwi did not start itself
	// (isChild), that carry no outsideRunEnv and no id of another live run (otherLive),
	// and that started at or after since, then belong to the run: with runs going at
	// once, to each one that had started by then.
	adopt     bool
	since     uint64
	isChild   func(pid int) bool
	otherLive func(id string) bool
}

// attribute returns the live processes of snapshot that belong to the run: those carrying
// its SEGWI_RUN_ID, the orphans segwi adopted from it (see scope), and every process
// descending from one of those, or in a process group or session of one of those or of
// the agent. A process group or session is only ever made by one of its processes, and a
// run's processes start in the agent's session, so these are all processes the run started:
// none of segwi's own, none of another run's.
func attribute(snapshot []proc, sc scope) []proc {
	elsewhere := func(p proc) bool {
		return p.RunID != "" && p.RunID != sc.runID && sc.otherLive != nil && sc.otherLive(p.RunID)
	}
	groups := map[int]bool{}
	for _, g := range sc.groups {
		groups[g] = true
	}
	for _, p := range snapshot {
		if groups[p.PID] && p.Start != sc.leaderStart {
			groups[p.PID] = false // the agent's pid is another process's now
		}
	}
	in := map[int]bool{}
	var found []proc
	add := func(p proc) {
		in[p.PID] = true
		for _, g := range []int{p.PGID, p.SID} {
			if g != sc.selfPGID && g != sc.selfSID {
				groups[g] = true
			}
		}
		found = append(found, p)
	}
	candidate := func(p proc) bool {
		return !p.Zombie && !in[p.PID] && p.PID != 1 && p.PID != sc.self && !elsewhere(p)
	}
	for _, p := range snapshot {
		if candidate(p) && p.RunID == sc.runID {
			add(p)
		}
	}
	if sc.adopt {
		for _, p := range snapshot {
			if candidate(p) && p.PPID == sc.self && p.SID != sc.selfSID && !p.OutsideRun && p.Start >= sc.since &&
				(sc.isChild == nil || !sc.isChild(p.PID)) {
				add(p)
			}
		}
	}
	for grown := true; grown; {
		grown = false
		for _, p := range snapshot {
			if candidate(p) && (in[p.PPID] || groups[p.PGID] || groups[p.SID]) {
				add(p)
				grown = true
			}
		}
	}
	return found
}
