// Package changes says what a run changed in its checkout, and commits it for the person.
//
// At a run's start, ReadBase records where the checkout stood: its branch, its HEAD
// commit, and the files already changed then (what git status lists: tracked changes,
// staged or not, and untracked files, not ignored ones). A run's changes are everything
// since that base's commit: the commits made during the run and what is uncommitted now,
// untracked files included; a file already changed at the base is flagged, its changes
// counted from the commit too. Take reads them as a Snapshot: the changed files (added,
// modified, deleted, renamed; binary ones flagged; line counts), the commits made since the
// base, and for the whole or one file the unified diff, cut at a size a window can show
// (Snapshot.Diff); Diff gives the diff alone, without the list, and WriteDiff writes it
// whole as git prints it (segwi runs diff). Commit
// commits the run's uncommitted changes as the person, leaving out the files that were
// already changed before the run unless they are named.
//
// None of these copies the work tree's files: git compares the work tree with a commit
// through a copy of the checkout's index, by the files' stat data, and reads a file only
// where it changed, as git status and git diff do; untracked files are named in that copy
// (intent-to-add) without being hashed. Only a commit hashes the files it takes. A Stamp of
// a snapshot tells later, without git, whether anything it saw has changed: the tray
// reads a run's changes again only then. Bases keeps the last base read in a checkout with
// such a stamp, and gives it to the next run there while nothing has changed.
//
// # What git reads
//
// Everything is computed by git itself, through segwi's one git seam (internal/lib/gitcmd),
// which runs git with no configuration the agent can write: not the checkout's
// .git/config nor what it includes, not a nested repository's or a submodule's, not the
// person's ~/.gitconfig, and no hook, fsmonitor, filter, textconv, external diff, pager
// or editor (see gitcmd's package doc). segwi reads a run's changes on its own, at times
// the person does not choose, and none of those programs may run then. So the checkout is
// only read as data (where it stands, a few plain settings, the person's name and email),
// and everything that hashes, diffs or writes runs in a scratch repository segwi makes in
// a private folder (gitcmd.NewRepo): its own git folder, its HEAD the checkout's commit,
// the checkout's objects borrowed, the checkout as its work tree, a copy of the checkout's
// index as a starting point.
// What it takes from the checkout's configuration are values git only reads, never runs:
// the ignore and attribute files, line-ending and file-mode settings, the object format.
// Nested repositories and submodules are opaque gitlinks: their commit is read from their
// HEAD as data, and git never looks inside them (git add would run git status there,
// which reads their configuration). The scratch repository is removed when the Snapshot
// is closed.
//
// What a git of the person's own would do differently: files whose .gitattributes name a
// filter (git-lfs) are hashed as they are in the work tree; a diff never goes through a
// textconv program; a submodule's uncommitted changes are not looked for. Commit refuses
// filtered files rather than commit them unfiltered.
//
// # The commit
//
// Commit builds the commit in the scratch repository too, with the person's identity read
// as values from their environment and git configuration (gitcmd.Checkout.Identity) and
// no signature, copies the new objects into the checkout's object folder, moves the
// branch with git update-ref under its lock, only from the commit it read
// (gitcmd.Checkout.UpdateRef), and points the person's index at the new commit for the
// committed files only: under the index's lock, a copy is changed with git reset
// --no-refresh in the scratch repository and put in place (gitcmd.Repo.UpdateIndex), so
// that what they had staged for other files stays staged, and nothing of theirs is
// committed. git never runs in the checkout itself.
package changes
