// Package push pushes a finished run's branch with the person's GitHub token, so that the
// agent never holds the token (design principle 6), and can open a pull request for it.
//
// [Push] pushes the current branch of a checkout to one of its remotes over HTTPS. Before
// it reads the token or touches the network it refuses, with a [RefusedError] that says why
// and what to do, a run that is still active, a checkout that is gone, a detached HEAD, the
// remote's default branch, a remote that is not HTTPS and a remote on a host the token is
// not meant for. [Check] runs the same checks without pushing, for a Push button that
// enables itself. Every attempt, refusals included, is handed to [Request.Record] as an
// [Attempt] whose words are redacted.
//
// # How the token reaches git
//
// The token goes only to the `git push` child, and only through git's credential protocol:
// never in an argv, a file, an environment variable or a log. Every setting git needs is
// in its environment (GIT_CONFIG_COUNT/KEY/VALUE, through segwi's one git seam,
// internal/lib/gitcmd), none in a file: an empty credential.helper that clears the list, then
// a short shell function that contains no secret, credential.useHttpPath, hooks off, only
// https (GIT_ALLOW_PROTOCOL=https). Two pipes are handed to git as inherited file
// descriptors (4 and 5; 3 is the private repository, below), which git and the helpers it
// starts keep open. When git needs a password, the helper copies git's request
// (protocol, host, path) to one and then copies whatever arrives on the other to git.
// segwi reads the request, answers with the username x-access-token and the token only if
// the protocol, host and path are exactly those of the remote it checked, answers at most
// once, and then closes the answer pipe for good. When the server refuses the token, git
// asks the helpers to erase it, naming it; the helper reports that, which is how Push
// tells a wrong token from other failures without reading git's words. The pipes need a
// POSIX shell, so Push works on Linux and macOS, not on Windows.
//
// Other ways were weighed. GIT_ASKPASS answered by segwi's own executable needs the
// binary, which a library and its tests cannot assume; a loopback socket needs a client
// program in the helper (shells cannot open sockets portably) and a nonce that would sit
// in the environment; a credential helper fed on stdin from a temporary file puts the
// token in a file.
//
// # What the push reads
//
// The agent can write the checkout's .git/config, any file it includes, and the person's
// ~/.gitconfig, and a process it left behind can keep rewriting them. So the checks read
// the checkout as data (gitcmd.Checkout: HEAD, the branch's commit, the remote's push URL
// with insteadOf applied, its default branch), and git push reads none of it: Push makes
// a bare repository of its own (gitcmd.NewRepo) in a private folder (a fresh 0700 folder
// in $XDG_RUNTIME_DIR, or else $TMPDIR or /tmp, in a base that no program but root's can
// swap: every folder above it is checked), which borrows the checkout's objects
// (GIT_ALTERNATE_OBJECT_DIRECTORIES) and a copy of its shallow file, and from there
// pushes the exact commit the checks found, COMMIT:refs/heads/BRANCH, to the push URL the
// checks found, without its user or password. git gets no configuration file at all
// (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM, HOME=/dev/null: no ~/.gitconfig, no
// url.*.insteadOf, no ~/.netrc). What still applies comes from the environment segwi runs
// in, which the agent cannot change for a segwi already running: proxies (https_proxy,
// http_proxy, all_proxy, no_proxy) and certificate authorities (GIT_SSL_CAINFO,
// GIT_SSL_CAPATH and the system's store). After a push the checkout's remote-tracking
// branch is moved to the pushed commit (gitcmd.Checkout.UpdateRef, without running git in
// the checkout).
//
// segwi holds the private folder open, and git reaches it through that descriptor (on
// Linux GIT_DIR is /proc/self/fd/3, the folder, inherited), so renaming or swapping the
// folder or any folder above it changes nothing git reads. A program running as the
// person can still write into the folder itself; before it hands over the token, the
// credential channel checks that the folder is as segwi left it (every entry's name,
// inode, size and change time, which no program can set back, the bytes of its files, and
// that its path still leads to it; segwi waits for the file system's clock to tick past
// its own writes, so that any later change shows). If anything changed, git gets no token
// and the attempt says why.
//
// The push also runs with interactive prompts off (GIT_TERMINAL_PROMPT=0, an empty
// GIT_ASKPASS, GCM_INTERACTIVE=never), --no-verify, and without any GIT_* variable of the
// person's but the certificate ones. A redirect to another host or path (git follows the
// first one) gets no token: the channel refuses it. A remote with a foreign vcs helper
// (remote.NAME.vcs) or more than one push URL is refused. A user or password in the
// remote's URL is neither used nor sent; the attempt says so. git's output and GitHub's
// answers go through segwi's redactor (internal/lib/redact), given the token and its Basic
// form; remote URLs are shown and recorded without user or password.
//
// # The default branch
//
// The remote's default branch is read from the local ref refs/remotes/REMOTE/HEAD, which
// `git clone` and `git remote set-head REMOTE --auto` write, so that the refusal happens
// before any network call. When that ref is missing, Push cannot know the default branch
// without asking the server, so it refuses the usual default names main and master and
// says how to record the real one.
//
// # Pull requests
//
// [OpenPullRequest] opens a pull request through the GitHub REST API (the base URL is
// configurable for GitHub Enterprise) for a branch that Push has pushed.
package push
