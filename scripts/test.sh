#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, lints the code (gofmt,
# go vet and staticcheck; any finding fails the command) beside running every test of segwi
# (unit, keyring, desktop and the end-to-end tests with the real Claude Code) in a
# throwaway desktop: its own HOME and XDG folders, a session bus, an Xvfb display, a tray
# host and a gnome-keyring Secret Service, all stopped afterwards.
#   scripts/test.sh                 the lint beside everything
#   scripts/test.sh ./runs/ -run X  no lint; arguments go to `go test` (default ./...)
set -euo pipefail
cd "$(dirname "$0")/.."

# fastTmp prints a folder on a tmpfs for the tests' throwaway files, or nothing: /dev/shm
# when it is a tmpfs with 4 GB free that may run programs (the tests build and run theirs
# there). On this kind of machine's ext4, making and removing a file costs about 0.5 ms of
# CPU (the 10,000-run fixture, written by seven tests: 13.7 s of CPU on ext4, 0.57 s on a
# tmpfs), and the tests make hundreds of thousands.
fastTmp() {
  local d=/dev/shm
  [ "$(stat -f -c %T "$d" 2>/dev/null)" = tmpfs ] || return 0
  [ "$(df --output=avail -k "$d" 2>/dev/null | tail -1)" -ge 4000000 ] 2>/dev/null || return 0
  local t
  t=$(mktemp -d "$d/segwi-tmp.XXXXXX" 2>/dev/null) || return 0
  printf '#!/bin/sh\nexit 0\n' >"$t/x" && chmod +x "$t/x" && "$t/x" 2>/dev/null || { rm -rf "$t"; return 0; }
  rm -f "$t/x"
  echo "$t"
}

if [ "${1:-}" != "--in-session" ]; then
  scripts/setup.sh --test
  # The tests' throwaway files go on a tmpfs when there is one (fastTmp), unless
  # SEGWI_TEST_TMPDIR names another folder; Go's build caches stay where they are.
  tmp=${SEGWI_TEST_TMPDIR:-$(fastTmp)}
  if [ -n "$tmp" ]; then
    export TMPDIR="$tmp"
  fi
  work=$(mktemp -d -t segwi-test.XXXXXX)
  # The runtime folder holds sockets (the bus's, the keyring's, Claude Code's), whose paths
  # must fit in 108 bytes: under TMPDIR when it is short, else under /tmp, as the tests'
  # own socket folders are (internal/testing/sockdir).
  short=${TMPDIR:-/tmp}
  [ ${#short} -le 40 ] || short=/tmp
  run=$(mktemp -d "$short/segwi-run.XXXXXX")
  # Everything built here, the lint's go vet, the test programs and the segwi the tests
  # build, is built with -trimpath, as scripts/package.sh ships it: the compiled packages then
  # name no folder, so another clone or worktree of segwi finds them in Go's cache instead of
  # compiling all of segwi again (about 65 s of CPU on two cores).
  export GOFLAGS="${GOFLAGS:+$GOFLAGS }-trimpath"
  lint=
  trap '[ -z "$lint" ] || kill "$lint" 2>/dev/null; rm -rf "$work" "$run"; [ -z "${SEGWI_TEST_TMPDIR:-}" ] && [ -n "$tmp" ] && rm -rf "$tmp"' EXIT
  if [ $# -eq 0 ]; then
    # Compile, once and in one go command, what the go commands of the test command would
    # otherwise each compile at the same moment: the lint's go vet, go test, and the
    # builds the tests run themselves (segwi with and without cgo, segwi-windows, the
    # tailnet kit's tailscaled). Go's cache shares what one go command finished with the
    # others, not the work in progress: on a fresh machine they compiled the same packages
    # side by side (Fyne's OpenGL binding alone takes one core 3 minutes), 45 minutes of
    # CPU, and the cold command took 24 minutes. Warm, this costs about two seconds.
    echo "test: compiling the packages once (cold: about 8 minutes on two cores)" >&2
    go list -export -deps -test ./... tailscale.com/cmd/tailscaled tailscale.com/cmd/tailscale >/dev/null
    CGO_ENABLED=0 go list -export -deps . >/dev/null
    # The lint runs beside the tests, which mostly wait (on Claude Code, on the clock), and
    # its findings are told after theirs: before, it held the tests back by its own time.
    # It starts before the throwaway HOME, so that staticcheck keeps its cache in yours.
    (
      unformatted=$(git ls-files --cached --others --exclude-standard '*.go' | xargs gofmt -l)
      if [ -n "$unformatted" ]; then
        echo "test: gofmt would change these files (run gofmt -w on them):"
        echo "$unformatted"
        exit 1
      fi
      go vet ./...
      staticcheck="$(go env GOBIN)"
      "${staticcheck:-$(go env GOPATH)/bin}/staticcheck" ./...
    ) >"$work/lint.log" 2>&1 &
    lint=$!
  fi
  # Go keeps its caches where they are (warm builds); everything else gets a fresh home.
  GOCACHE=$(go env GOCACHE) GOMODCACHE=$(go env GOMODCACHE) GOPATH=$(go env GOPATH)
  export GOCACHE GOMODCACHE GOPATH
  mkdir -p "$work/home" "$work/config" "$work/state" "$work/data" "$work/cache"
  export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" \
    XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache" XDG_RUNTIME_DIR="$run"
  export LANG=en_US.UTF-8 SEGWI_TEST_STRICT=1
  export SEGWI_TEST_CLAUDE="$PWD/testdata/claude-code/node_modules/.bin/claude"
  unset GH_TOKEN GITHUB_TOKEN ANTHROPIC_API_KEY ANTHROPIC_BASE_URL
  # Never the person's real display: the tests' display is the Xvfb started below.
  unset DISPLAY WAYLAND_DISPLAY
  # A session bus that starts no service on demand: the tests start what they need (the
  # tray host, the keyring, a notification daemon on a bus of its own). With the machine's
  # services, each desktop notification started dunst, which found no display and aborted.
  sed "s|@DIR@|$run|" scripts/session-bus.conf >"$work/bus.conf"
  status=0
  dbus-run-session --config-file="$work/bus.conf" -- "$0" --in-session "$@" || status=$?
  if [ -n "$lint" ]; then
    linted=0
    wait "$lint" || linted=$?
    lint=
    if [ "$linted" -ne 0 ]; then
      cat "$work/lint.log" >&2
      echo "test: the lint failed (gofmt, go vet or staticcheck): see above" >&2
      [ "$status" -ne 0 ] || status=1
    fi
  fi
  exit "$status"
fi
shift

. scripts/desktop-env.sh
trap desktop_stop EXIT
start_display
start_tray_host
start_keyring

if [ $# -eq 0 ]; then
  # go test starts the packages' test binaries in the order named and, by default, only as
  # many at once as there are cores (-p), builds included. The end-to-end and desktop
  # packages take minutes, mostly waiting on Claude Code and the clock (the 90 s answers):
  # named last, as ./... names them, they began after three minutes and then held both
  # places of a two-core machine while runs, remote and the rest queued behind them. So
  # they start first and four programs run at once, the waits beside the work.
  # -vet=off: the lint runs go vet ./... over the same packages, tests included, with every
  # check of go test's own vet among its own; vetting again cost about 29 s of CPU.
  set -- -p 4 -vet=off ./internal/testing/e2e/ ./internal/testing/desktop/ ./runs/ ./remote/ \
    ./internal/roots/cli/ ./app/ ./...
fi
# -count=1: the end-to-end tests depend on programs (Claude Code, git, the built segwi)
# that Go's test cache does not track, so a cached pass would prove nothing.
go test -count=1 -timeout 30m "$@"
