#!/usr/bin/env bash
# Builds segwi's installable Linux archive with `fyne package`, from FyneApp.toml and the
# icon in assets/: dist/segwi.tar.xz holds the binary (usr/local/bin/segwi), a .desktop
# file, the icon and a Makefile. Installs the fyne tool when it is missing.
#   scripts/package.sh              release build (no debug info)
#   scripts/package.sh --debug      keep debug info
# Install the archive:
#   mkdir /tmp/segwi && tar -xJf dist/segwi.tar.xz -C /tmp/segwi
#   make -C /tmp/segwi user-install     (into ~/.local), or: sudo make -C /tmp/segwi install
# A cold build takes about 4 minutes on 2 cores (the cgo GLFW part); a warm one, 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."

FYNE_TOOLS=fyne.io/tools/cmd/fyne@v1.7.4

release=--release
if [ "${1:-}" = "--debug" ]; then
  release=
fi

fyne=$(command -v fyne || true)
if [ -z "$fyne" ]; then
  bin=$(go env GOBIN)
  [ -n "$bin" ] || bin="$(go env GOPATH)/bin"
  fyne="$bin/fyne"
  if [ ! -x "$fyne" ]; then
    echo "package: installing $FYNE_TOOLS" >&2
    go install "$FYNE_TOOLS"
  fi
fi

# fyne package writes the archive into the source folder; move it to dist/.
rm -f segwi.tar.xz
"$fyne" package --target linux --src . $release
mkdir -p dist
mv -f segwi.tar.xz dist/segwi.tar.xz
echo "package: dist/segwi.tar.xz" >&2
tar -tJvf dist/segwi.tar.xz >&2
