#!/bin/bash
# serve-ab.sh ROUNDS DURATION CLIENT_BB BB...
#
# Interleaved A/B run of `bb serve` builds under one load generator: for
# each round and each BB binary, start `BB serve` on a fresh board, drive it
# with `CLIENT_BB serve bench --url … --clients 50`, and print posts/s,
# latencies, the server's peak RSS and its CPU time per post (utime+stime
# from /proc, which is what a loaded shared machine can compare).
#
#   go build -o /tmp/bb-new ./cmd/bb
#   git -C <old checkout> build … -o /tmp/bb-base ./cmd/bb
#   testdata/bench/serve-ab.sh 2 8s /tmp/bb-new /tmp/bb-new /tmp/bb-base
set -u
rounds=$1; dur=$2; client=$3; shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for _ in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    d=$(mktemp -d "$work/board.XXXX")
    "$bin" --dir "$d" init >/dev/null 2>&1
    port=$((20000 + RANDOM % 20000))
    "$bin" --dir "$d" -q serve --addr "127.0.0.1:$port" >/dev/null 2>&1 &
    pid=$!
    for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/info" && break; sleep 0.1; done
    out=$("$client" serve bench --url "http://127.0.0.1:$port" --clients 50 --duration "$dur" 2>/dev/null | tr '\n' ' ')
    rss=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
    ticks=$(awk '{print $14+$15}' "/proc/$pid/stat")
    posts=$(echo "$out" | grep -o '[0-9]* posts' | cut -d' ' -f1)
    kill "$pid"; wait "$pid" 2>/dev/null
    echo "$(basename "$bin") load=$(cut -d' ' -f1 /proc/loadavg) rss_kB=$rss server_cpu_us_per_post=$(( ticks * 1000000 / $(getconf CLK_TCK) / (posts > 0 ? posts : 1) )) :: $out" |
      sed -E 's/clients 50, [0-9.]+s: //; s/read latency.*SSE delivery +[0-9]+ events/SSE/; s/\(write sent.*//'
  done
done
