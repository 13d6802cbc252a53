#!/usr/bin/env bash
# The overhead benchmark: what segwi adds to a Claude Code run. It builds segwi, then times
# the same scripted run (a text and a Bash `ls`, then a final text, from the project's fake
# model server on loopback) started directly with `claude -p ... --permission-mode auto` and
# started by `segwi run`, N times each, alternating, and prints the median and mean of each,
# their ratio and difference. The goal: segwi adds at most 10 % and at most 150 ms. Two more
# variants (direct+tool: claude started directly with the approval tool wired as segwi wires
# it; tool+pty: the same on a pty, as segwi starts it) split the difference into the approval
# tool's cost inside Claude Code, the pty's, and segwi's own process.
#   scripts/bench-overhead.sh                 10 runs each
#   scripts/bench-overhead.sh -n 20 -strict   20 runs each; exit 1 when the goal is missed
#   (also -warmup N, runs of each not counted, default 1; -timeout D per run; -v to print
#   each segwi run's events; -wrap 'perf record -g -o FILE --' to profile segwi)
#   scripts/bench-overhead.sh --own           segwi's own cost (TestOwnCost): its CPU per
#   run, measured from the kernel's count for its process, with one run and with 20 at
#   once, the time from `segwi run` to Claude Code's exec, and `segwi version` against a
#   hello world; each the best of -tries 5 (-many 20 runs at once, judged against what
#   they did to Claude Code's own CPU); it fails on a clear regression. It also runs
#   TestOwnCostInALongLivedSegwi: the same share in a segwi that outlives its runs, as
#   the tray does, one run after another and -many at once (-test.run picks one of the two)
# The benchmark is a test of the test room, internal/testing/bench/overhead, built on the
# harness (internal/testing/claudetest and fakeapi); this script builds segwi and that
# test's binary and runs it. Claude Code is $SEGWI_TEST_CLAUDE, else the pinned one
# (scripts/setup.sh --test installs it). Everything runs in a temporary HOME; nothing
# reaches the network or your files.
# segwi reads the GitHub token from the keyring at each run's start (to redact it): the
# benchmark gives it a session bus with a gnome-keyring, as on a desktop, when
# dbus-run-session and gnome-keyring-daemon are installed, and stores a token in it (segwi
# token set), as a person who pushes has one; else a bus address that fails at once, as on
# a machine without a keyring.
# Timings on a machine busy with other work vary: run it more than once.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--in-session" ]; then
  shift
  . scripts/desktop-env.sh
  trap desktop_stop EXIT
  start_keyring
  "$@"
  exit $?
fi

claude=${SEGWI_TEST_CLAUDE:-$PWD/testdata/claude-code/node_modules/.bin/claude}
if [ ! -x "$claude" ]; then
  echo "bench-overhead: no Claude Code at $claude: run scripts/setup.sh --test, or set SEGWI_TEST_CLAUDE" >&2
  exit 1
fi
export SEGWI_TEST_CLAUDE="$claude"
work=$(mktemp -d -t segwi-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/segwi" .  # as shipped (scripts/run.sh, the package)
go test -c -o "$work/overhead.test" ./internal/testing/bench/overhead
test='^TestOverhead$'
if [ "${1:-}" = "--own" ]; then
  shift
  test='^TestOwnCost'
fi
bench=("$work/overhead.test" -test.run "$test" -segwi "$work/segwi" "$@")
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  echo "keyring: a gnome-keyring on a private session bus"
  XDG_DATA_HOME="$work/data" dbus-run-session -- "$0" --in-session "${bench[@]}"
else
  echo "keyring: none (the session bus address fails at once)"
  DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-bus" "${bench[@]}"
fi
