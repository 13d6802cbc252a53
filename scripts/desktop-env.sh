# Sourced by run.sh and test.sh inside a session bus: starts what a desktop would give segwi
# on a headless machine (an X display, a tray host, a Secret Service) and stops each of them
# by its pid on exit. Nothing here touches the real user's keyring: the caller points
# XDG_DATA_HOME at its own folder first.

desktop_pids=()

desktop_stop() {
  local pid
  for pid in "${desktop_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${desktop_pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  desktop_pids=()
}

# bus_has NAME: whether NAME has an owner on the session bus.
bus_has() {
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true
}

# wait_for WHAT CMD...: polls CMD for up to 10 s.
wait_for() {
  local what=$1 i
  shift
  for i in $(seq 100); do
    "$@" && return 0
    sleep 0.1
  done
  echo "desktop-env: $what did not come up within 10 s" >&2
  return 1
}

# start_display: an Xvfb display, exported as DISPLAY. -noreset: an X server resets when
# its last client leaves and refuses connections meanwhile, and here the window process is
# often the only client: one starting then died with "X11: Failed to open display". -r: no
# key repeats when held, as the tests type with xdotool, whose press and release a loaded
# machine can hold apart past the repeat delay (TestTheDisplayRepeatsNoKey).
start_display() {
  local fifo
  fifo=$(mktemp -u)
  mkfifo "$fifo"
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -noreset -r 3>"$fifo" >/dev/null 2>&1 &
  desktop_pids+=($!)
  local n
  read -r n <"$fifo"
  rm -f "$fifo"
  export DISPLAY=":$n"
}

# start_tray_host: a StatusNotifierItem watcher, so the tray icon registers.
start_tray_host() {
  status-notifier-watcher >/dev/null 2>&1 &
  desktop_pids+=($!)
  wait_for "the tray host (status-notifier-watcher)" bus_has org.kde.StatusNotifierWatcher
}

# start_keyring: gnome-keyring's Secret Service, unlocked with a throwaway password, its
# files under $XDG_DATA_HOME.
start_keyring() {
  mkdir -p "$XDG_DATA_HOME"
  printf 'segwi-test' | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
  desktop_pids+=($!)
  wait_for "the Secret Service (gnome-keyring)" bus_has org.freedesktop.secrets
}
