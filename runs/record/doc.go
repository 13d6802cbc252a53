// Package record is a run as segwi records it and shows it: the types of what a run's
// folder holds and of what the window process is told of a run, with no engine behind
// them. It runs no process and no git, so that the window program (segwi-windows), which
// only shows runs, links none of what makes them (see app/deps_test.go).
//
// The packages that do the work re-export what they make from here under their own names:
// changes' Base, File, Patch and Committed (what a run changed in its checkout), push's
// Attempt (a push of its branch), worktree's Worktree, Loss and Setup (the worktree it
// worked in, what removing it would lose, and what a new one gets, as the settings say),
// and runs' Info, Event and the rest, with reading records back (Load, List, ReadEvents,
// Summaries) and putting events in words (Narrator, Story).
package record
