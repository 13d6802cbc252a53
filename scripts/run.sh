#!/usr/bin/env bash
# The run command: installs what segwi needs when it is missing, builds its two programs into
# bin/ (segwi: the command line and the tray process, without cgo; segwi-windows: the window
# process, with Fyne, which the tray starts from the same folder) and runs bin/segwi. With no
# arguments that is the tray app; arguments go to segwi (`scripts/run.sh config check`,
# `scripts/run.sh run --kind ask "what does this repo do?"`).
#
# On a machine without a desktop (no DISPLAY), the tray app runs in a headless one: an Xvfb
# display, a session bus, a tray host and a gnome-keyring Secret Service whose files stay under
# $XDG_DATA_HOME (the real keyring is not touched when one exists: a desktop session has its own).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

scripts/setup.sh
version=$(git describe --always --dirty 2>/dev/null || echo dev)
CGO_ENABLED=0 go build -ldflags "-X github.com/segwi/segwi/internal/roots/cli.Version=$version" -o bin/segwi .
go build -ldflags "-X main.version=$version" -o bin/segwi-windows ./cmd/segwi-windows

if [ "${1:-}" = "--in-session" ]; then
  shift
  . scripts/desktop-env.sh
  trap desktop_stop EXIT
  start_display
  start_tray_host
  bus_has org.freedesktop.secrets || start_keyring
  echo "segwi: running on the headless display $DISPLAY (screenshot: DISPLAY=$DISPLAY import -window root shot.png)" >&2
  bin/segwi "$@"
  exit $?
fi

if [ $# -eq 0 ] && [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  export XDG_DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
  export LANG=en_US.UTF-8
  exec dbus-run-session -- "$0" --in-session "$@"
fi
exec bin/segwi "$@"
