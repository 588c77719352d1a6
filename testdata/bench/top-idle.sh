#!/usr/bin/env bash
# Idle cost of bb top: the CPU time (utime + stime from /proc/<pid>/stat)
# of `bb top` running in an 80×24 tmux pane with nothing happening on the
# board, over 30 s, interleaved with the same measure of the baseline
# `bb events --follow` (the core's timeline follower alone).
#
#   testdata/bench/top-idle.sh <bb binary> <project dir with a board> [rounds]
set -euo pipefail
bb=$1 dir=$2 rounds=${3:-2}
sock=$(mktemp -u /tmp/bb-top-idle.XXXXXX)
tm() { tmux -S "$sock" "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
measure() {
  tm kill-server 2>/dev/null || true
  tm -f /dev/null new-session -d -s m -x 80 -y 24 "cd '$dir' && exec $*"
  sleep 3 # start-up and first snapshot are not idle
  local pid a b
  pid=$(tm display -p -t m '#{pane_pid}')
  a=$(ticks "$pid"); sleep 30; b=$(ticks "$pid")
  tm kill-server
  awk -v t=$((b - a)) -v hz="$hz" -v c="$*" 'BEGIN { printf "%-32s %5.2f s CPU in 30 s = %.2f %% of one core\n", c, t / hz, 100 * t / hz / 30 }'
}
for _ in $(seq "$rounds"); do
  measure "$bb" --as dana top
  measure "$bb" events --follow
done
