#!/usr/bin/env bash
# Builds segwi's installable Linux archive: dist/segwi.tar.xz holds segwi's two programs
# (usr/local/bin/segwi: the command line and the tray, built without cgo; and
# usr/local/bin/segwi-windows: the window process, with Fyne, which the tray starts from the
# same folder), a .desktop file, the icon and a Makefile that installs all of them. Installs
# the fyne tool when it is missing.
#   scripts/package.sh              release build (no debug info)
#   scripts/package.sh --debug      keep debug info
# Install the archive:
#   mkdir /tmp/segwi && tar -xJf dist/segwi.tar.xz -C /tmp/segwi
#   make -C /tmp/segwi/segwi user-install     (into ~/.local), or: sudo make -C /tmp/segwi/segwi install
# A cold build takes about 4 minutes on 2 cores (segwi-windows's cgo GLFW part); a warm one, 20 s.
#
# `fyne package` writes the .desktop file, the icon and the Makefile from FyneApp.toml, for one
# program: given segwi, built here, it does not build it (its own build would add Fyne's
# metadata file, and so Fyne, to segwi). segwi-windows is then added to the archive, and to
# the Makefile's install and uninstall steps beside segwi.
set -euo pipefail
cd "$(dirname "$0")/.."

FYNE_TOOLS=fyne.io/tools/cmd/fyne@v1.7.4
windows=segwi-windows

strip="-s -w"
trimpath=-trimpath
if [ "${1:-}" = "--debug" ]; then
  strip=
  trimpath=
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

work=$(mktemp -d -t segwi-package.XXXXXX)
trap 'rm -rf "$work"' EXIT

version=$(git describe --always --dirty 2>/dev/null || echo dev)
CGO_ENABLED=0 go build $trimpath -ldflags "$strip -X github.com/segwi/segwi/internal/roots/cli.Version=$version" \
  -o "$work/bin/segwi" .
go build $trimpath -ldflags "$strip -X main.version=$version" -o "$work/bin/$windows" ./cmd/segwi-windows

# fyne package writes the archive into the source folder, and rewrites FyneApp.toml there (it
# counts up Build at every package): the file is put back as it was, so the checkout stays
# clean. The archive goes to dist/ once complete.
cp FyneApp.toml "$work/FyneApp.toml"
trap 'cp "$work/FyneApp.toml" FyneApp.toml; rm -rf "$work"' EXIT
rm -f segwi.tar.xz
"$fyne" package --target linux --src . --executable "$work/bin/segwi"
mkdir "$work/pkg"
tar -xJf segwi.tar.xz -C "$work/pkg"
rm -f segwi.tar.xz

# The archive's one folder (segwi/), its bin folder (usr/local/bin, or usr/bin when the
# building machine has no /usr/local) and its Makefile.
top=$(find "$work/pkg" -mindepth 1 -maxdepth 1 -type d)
segwi_bin=$(find "$top/usr" -type f -path '*/bin/segwi')
makefile="$top/Makefile"
if [ "$(find "$work/pkg" -mindepth 1 -maxdepth 1 | wc -l)" -ne 1 ] || [ -z "$segwi_bin" ] || [ ! -f "$makefile" ]; then
  echo "package: fyne package made an archive of another shape than segwi/{Makefile,usr/.../bin/segwi}:" >&2
  find "$work/pkg" >&2
  exit 1
fi
install -m 0755 "$work/bin/$windows" "$(dirname "$segwi_bin")/$windows"

# Each line of the Makefile that installs or removes the program, once more for segwi-windows.
awk -v w="$windows" '
  { print }
  /^\tinstall -Dm00755 .*bin\/\$\(Exec\) / || /^\t-rm .*bin\/\$\(Exec\)$/ {
    line = $0; gsub(/\$\(Exec\)/, w, line); print line
  }' "$makefile" > "$work/Makefile"
if [ "$(grep -c -- "$windows" "$work/Makefile")" -ne 4 ]; then
  echo "package: the Makefile fyne package wrote has changed: segwi-windows is not in its install and" >&2
  echo "uninstall steps (install, uninstall, user-install, user-uninstall); adjust this script:" >&2
  cat "$work/Makefile" >&2
  exit 1
fi
cp "$work/Makefile" "$makefile"

mkdir -p dist
tar -cJf dist/segwi.tar.xz -C "$work/pkg" "$(basename "$top")"
echo "package: dist/segwi.tar.xz" >&2
tar -tJvf dist/segwi.tar.xz >&2
