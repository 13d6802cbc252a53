#!/usr/bin/env bash
# Installs what segwi's build, app and tests need on a Debian machine, only when missing.
# Idempotent: a second run checks and returns in about a second.
#   scripts/setup.sh           packages for building and running the app
#   scripts/setup.sh --test    also Chromium and chromedriver for the page tests, the pinned
#                              Claude Code for the end-to-end tests and the pinned
#                              staticcheck for the test command's lint step
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[ "${1:-}" = "--test" ] && want_test=1

# Debian packages: segwi-windows's cgo build (Fyne: GLFW over X11; segwi itself needs no cgo),
# a headless display, a session bus with a tray host, a notification daemon (dunst, started by
# the tests that need it), a real Secret Service, git for checkouts and pushes, and ss
# (iproute2) for the tests' socket checks.
pkgs=(gcc pkg-config git libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
  libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth x11-utils xdotool imagemagick
  dbus dbus-x11 haskell-status-notifier-item-utils dunst gnome-keyring libsecret-tools procps iproute2)
# The tests also drive the remote approval page in a real headless browser, through
# chromedriver (Debian's builds: nothing is downloaded at test time), and a run's own
# program reaches for the page with curl.
# The sandboxed ACP runtime's example (scripts/acp-bwrap) runs the agent under bubblewrap.
[ $want_test -eq 1 ] && pkgs+=(chromium chromium-driver curl bubblewrap)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ $want_test -eq 1 ]; then
  # The pinned Claude Code, installed into an ignored folder and kept between runs.
  fixture=testdata/claude-code
  want=$(node -p "require('./$fixture/package.json').dependencies['@anthropic-ai/claude-code']")
  have=""
  bin="$fixture/node_modules/.bin/claude"
  [ -x "$bin" ] && have=$("$bin" --version 2>/dev/null | cut -d' ' -f1 || true)
  if [ "$have" != "$want" ]; then
    echo "setup: installing Claude Code $want for the end-to-end tests" >&2
    (cd "$fixture" && npm ci --no-audit --no-fund --loglevel=error)
  fi

  # The pinned ACP agents (claude-agent-acp, codex-acp) the ACP runtime's tests run, likewise.
  fixture=testdata/acp-agents
  if ! node -e "const d = require('./$fixture/package.json').dependencies;
      for (const [name, want] of Object.entries(d))
        if (require('./$fixture/node_modules/' + name + '/package.json').version !== want) process.exit(1)" 2>/dev/null; then
    echo "setup: installing the ACP agents for the end-to-end tests" >&2
    (cd "$fixture" && npm ci --no-audit --no-fund --loglevel=error)
  fi

  # The pinned staticcheck, installed with `go install` into Go's bin folder (GOBIN, else
  # GOPATH/bin), where scripts/test.sh runs it. Release 2026.2.2 (module v0.8.2) builds
  # with Go 1.26 and checks Go 1.26 code.
  module=v0.8.2 release="2026.2.2 (0.8.2)"
  staticcheck="$(go env GOBIN)"
  staticcheck="${staticcheck:-$(go env GOPATH)/bin}/staticcheck"
  if [ "$("$staticcheck" -version 2>/dev/null || true)" != "staticcheck $release" ]; then
    echo "setup: installing staticcheck $release for the test command's lint step" >&2
    go install "honnef.co/go/tools/cmd/staticcheck@$module"
  fi
fi
