// Package changes says what a run changed in its checkout, and commits it for the person.
//
// At a run's start, ReadBase records where the checkout stood: its branch, its HEAD
// commit, and the files already changed then (tracked changes and untracked files, not
// ignored ones). A run's changes are everything since that base: the commits made during
// the run and what is uncommitted now, untracked files included. Take reads them as a
// Snapshot: the changed files (added, modified, deleted, renamed; binary ones flagged; line
// counts), the commits made since the base, and for the whole or one file the unified
// diff, cut at a size a window and a terminal can show (Snapshot.Diff). Commit commits the
// run's uncommitted changes as the person, leaving out the files that were already changed
// before the run unless they are named.
//
// # What git reads
//
// Everything is computed by git itself, through segwi's one git seam (internal/gitcmd).
// The agent can write the checkout's .git/config and the person's ~/.gitconfig, and git
// runs programs that configuration names: an fsmonitor (core.fsmonitor) when it reads the
// index, clean filters (filter.NAME.clean, chosen by .gitattributes) when it hashes a file,
// textconv and external diff programs when it diffs, hooks when it writes the index or a
// ref, gpg.program when it signs. segwi reads a run's changes on its own, at times the
// person does not choose, and none of those programs may run then. So the checkout is only
// asked where it stands (rev-parse, symbolic-ref, the values of a few plain settings), and
// everything that hashes, diffs or writes runs in a scratch repository segwi makes in a
// fresh temp folder: its own GIT_DIR and config (no filters, no textconv, no fsmonitor,
// hooks off, no signing), the checkout's objects borrowed through objects/info/alternates,
// the checkout as its work tree (GIT_WORK_TREE), a copy of the checkout's index as a
// starting point, and global and system config off (GIT_CONFIG_GLOBAL=/dev/null,
// GIT_CONFIG_NOSYSTEM). What it copies from the checkout's configuration are values git
// only reads, never runs: the ignore and attribute files, line-ending and file-mode
// settings, the object format. The scratch repository is removed when the Snapshot is
// closed.
//
// What a git of the person's own would do differently: files whose .gitattributes name a
// filter (git-lfs) are hashed as they are in the work tree; a diff never goes through a
// textconv program. Commit refuses such files rather than commit them unfiltered.
//
// # The commit
//
// Commit builds the commit in the scratch repository too, with the person's identity from
// their git configuration (git var, which runs nothing) and no signature, copies the new
// objects into the checkout's object folder, moves the branch with `git update-ref`
// (expecting the commit it read, hooks off) and points the person's index at the new
// commit for the committed files only (`git reset --no-refresh`, hooks off), so that what
// they had staged for other files stays staged, and nothing of theirs is committed.
package changes
