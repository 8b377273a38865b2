#!/usr/bin/env bash
# Runs a command on a screen of its own: a fresh Xvfb of the given size with the openbox window manager, a fresh
# home (so a fresh configuration), Qt on xcb, QT_SCALE_FACTOR as given. WB_SCREEN names the screen for the command
# ("1366x768", "3840x2160-at-2x").
# usage: tests/gui/on_screen.sh WIDTHxHEIGHT SCALE COMMAND [ARGS...]
set -uo pipefail
size=$1 scale=$2
shift 2
for tool in Xvfb openbox xwininfo xprop; do
  command -v "$tool" >/dev/null || { echo "on_screen.sh: $tool is missing (scripts/setup.sh installs xvfb, openbox, x11-utils)" >&2; exit 1; }
done
home=$(mktemp -d)
cleanup() { kill "${wm:-}" "${xvfb:-}" 2>/dev/null; wait 2>/dev/null; rm -rf "$home"; }
trap cleanup EXIT
# -displayfd: the server picks a free display number and writes it when it is ready. Ready means our own server
# answers and stays up: right after another test's server on the same number has shut down, a new one can be
# told the number is free and then fail to hold it (seen once in a full ctest run), so it is started again.
start_xvfb() {
  : >"$home/display"
  Xvfb -displayfd 3 -screen 0 "${size}x24" -nolisten tcp 3>"$home/display" 2>"$home/xvfb.log" &
  xvfb=$!
  for _ in $(seq 100); do [[ -s "$home/display" ]] && break; kill -0 "$xvfb" 2>/dev/null || return 1; sleep 0.1; done
  [[ -s "$home/display" ]] || return 1
  export DISPLAY=:$(head -1 "$home/display")
  for _ in $(seq 100); do
    kill -0 "$xvfb" 2>/dev/null || return 1
    xprop -root >/dev/null 2>&1 && break
    sleep 0.1
  done
  sleep 0.2
  kill -0 "$xvfb" 2>/dev/null && xprop -root >/dev/null 2>&1
}
# Stops the server and the window manager of a failed attempt.
stop_screen() {
  [[ -n "${wm:-}" ]] && kill "$wm" 2>/dev/null
  [[ -n "${xvfb:-}" ]] && kill "$xvfb" 2>/dev/null
  wait 2>/dev/null
  wm= xvfb=
}
# The window manager, ready when it has announced itself on the root window (EWMH); started again if it gave up.
wm_ready() { xprop -root _NET_SUPPORTING_WM_CHECK 2>/dev/null | grep -q "window id"; }
start_wm() {
  local attempt
  for attempt in 1 2 3; do
    HOME=$home openbox >"$home/openbox.log" 2>&1 &
    wm=$!
    for _ in $(seq 100); do
      wm_ready && return 0
      kill -0 "$wm" 2>/dev/null || break
      sleep 0.1
    done
    wm_ready && return 0
    kill "$wm" 2>/dev/null
    echo "on_screen.sh: openbox did not start on $DISPLAY (attempt $attempt):" >&2
    cat "$home/openbox.log" >&2
    # A server that answered a moment ago and is gone now (another test's server took the number back) is
    # started afresh, on a new number, by the caller.
    kill -0 "$xvfb" 2>/dev/null && xprop -root >/dev/null 2>&1 || return 1
  done
  return 1
}
screen_ready=
for attempt in 1 2 3; do
  if start_xvfb; then
    start_wm && { screen_ready=1; break; }
  else
    echo "on_screen.sh: Xvfb on ${DISPLAY:-no display} did not start or answer (attempt $attempt):" >&2
    cat "$home/xvfb.log" >&2
  fi
  stop_screen
  sleep 0.5
done
[[ -n "$screen_ready" ]] || exit 1
mkdir -p "$home/config" "$home/runtime"
chmod 700 "$home/runtime"
# Nothing of the desktop session this may run in: its D-Bus, its settings.
unset DBUS_SESSION_BUS_ADDRESS
HOME=$home XDG_CONFIG_HOME=$home/config XDG_RUNTIME_DIR=$home/runtime QT_QPA_PLATFORM=xcb QT_SCALE_FACTOR=$scale \
  WB_SCREEN=$size$([[ "$scale" == 1 ]] || echo "-at-${scale}x") "$@"
