#!/bin/bash
# writers.sh DIR_OF_BINARIES N M
#
# N concurrent writer processes on one fresh board, M mutations each,
# cycling through the surfaces: bb post, bb agent send, agent-mail send,
# vybe task create. Before and after, the same mix runs in ONE writer
# process (M mutations, on a board of its own) to measure what a mutation
# costs in CPU (user+system of every process, bash included) without any
# contention. From that figure and the core count follows the bound: the
# throughput the machine could reach if concurrency cost nothing,
#   bound = cores / (CPU seconds per mutation, single writer)
# and the script prints the concurrent run's throughput as a ratio to it,
# with the number of failed mutations and the load average.
#
#   go build -o /tmp/w/ ./cmd/bb ./cmd/agent-mail ./cmd/vybe
#   testdata/bench/writers.sh /tmp/w 64 100
set -u
B=$1; N=$2; M=$3
cores=$(nproc)
top=$(mktemp -d)
trap 'rm -rf "$top"' EXIT

# phase NAME N M: a fresh board, N registered writers, N×M mutations.
# Prints "wall cpu errors" (seconds, seconds, count) on its last line.
phase() {
  local d=$top/$1 n=$2 m=$3
  mkdir -p "$d"
  "$B/bb" --dir "$d" init >/dev/null 2>&1
  local db=$d/.bb/blackboard.db
  local peers=$(( n > 1 ? n : 2 )) # a single writer still mails someone else
  for i in $(seq 0 $((peers-1))); do "$B/bb" --dir "$d" agent register --name "wr-$i" --role load >/dev/null 2>&1; done
  (
    export AGENT_MAIL_DB=$db VYBE_DB_PATH=$db
    w() {
      local i=$1 errs=0 to=wr-$(( ($1 + 1) % peers ))
      for j in $(seq 1 "$m"); do
        case $(( (i + j) % 4 )) in
          0) "$B/bb" --dir "$d" --as "wr-$i" post "load $i $j" ;;
          1) "$B/bb" --dir "$d" agent send --category INFO --bead bb-1 --from "wr-$i" --to "$to" --subject s --body "b $j" ;;
          2) "$B/agent-mail" send --from "p:wr-$i" --to "p:$to" --subject s --body "b $j" ;;
          3) "$B/vybe" --agent "wr-$i" task create --request-id "r$i-$j" --title "t $i $j" ;;
        esac >/dev/null 2>>"$d/err.$i" || errs=$((errs + 1))
      done
      echo "$errs" > "$d/errs.$i"
    }
    read -r _ u0 n0 s0 i0 w0 q0 x0 _ < /proc/stat
    t0=$(date +%s.%N)
    for i in $(seq 0 $((n-1))); do w "$i" & done
    wait
    t1=$(date +%s.%N)
    read -r _ u1 n1 s1 i1 w1 q1 x1 _ < /proc/stat
    # The machine's CPU over the phase (/proc/stat, all cores): busy and
    # idle seconds, to tell CPU left idle (writers asleep) from CPU taken
    # by other work on a shared machine.
    hz=$(getconf CLK_TCK)
    mbusy=$(echo "($u1 + $n1 + $s1 + $q1 + $x1 - $u0 - $n0 - $s0 - $q0 - $x0) / $hz" | bc -l)
    midle=$(echo "($i1 + $w1 - $i0 - $w0) / $hz" | bc -l)
    # CPU of every process this phase started (bash `times`, children
    # line; written to a file, as a pipe would run it in a new subshell).
    times > "$d/times"
    cpu=$(tail -1 "$d/times" | awk '{ for (k = 1; k <= 2; k++) { split($k, a, /[ms]/); s += a[1] * 60 + a[2] } print s }')
    errs=$(cat "$d"/errs.* | paste -sd+ | bc)
    grep -h "rror" "$d"/err.* 2>/dev/null | sort | uniq -c | head -5 >&2
    echo "$(echo "$t1 - $t0" | bc) $cpu $errs $mbusy $midle"
  )
}

read -r w1 c1 e1 < <(phase single-before 1 "$M" | tail -1)
read -r wn cn en mb mi < <(phase concurrent "$N" "$M" | tail -1)
load=$(cut -d' ' -f1 /proc/loadavg)
read -r w2 c2 e2 < <(phase single-after 1 "$M" | tail -1)
awk -v n="$N" -v m="$M" -v cores="$cores" -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" \
    -v wn="$wn" -v cn="$cn" -v en="$en" -v mb="$mb" -v mi="$mi" -v e1="$e1" -v e2="$e2" -v load="$load" 'BEGIN {
  cpu1 = (c1 + c2) / (2 * m)            # CPU s per mutation, one writer
  bound = cores / cpu1                  # mutations/s if concurrency were free
  tput = n * m / wn
  printf "single writer: %d mutations, CPU %.2f ms/mutation (before %.2f, after %.2f), wall %.2f ms/mutation, errors %d+%d\n", m, cpu1 * 1000, c1 / m * 1000, c2 / m * 1000, (w1 + w2) / (2 * m) * 1000, e1, e2
  printf "concurrent: N=%d M=%d wall=%.1f s mutations/s=%.1f errors=%d CPU %.2f ms/mutation (%.2fx single) load=%s\n", n, m, wn, tput, en, cn / (n * m) * 1000, cn / (n * m) / cpu1, load
  printf "bound (%d cores / single-writer CPU) = %.1f mutations/s; throughput / bound = %.2f\n", cores, bound, tput / bound
  # On a shared machine the writers get only part of the cores: the same
  # ratio against the CPU they did get (their CPU plus what stayed idle,
  # i.e. all but what other work took), which is the bound they could use.
  avail = cn + mi
  printf "machine during the run: %.0f%% busy (writers %.0f%%, other work %.0f%%), %.0f%% idle\n", mb / (mb + mi) * 100, cn / (mb + mi) * 100, (mb - cn) / (mb + mi) * 100, mi / (mb + mi) * 100
  printf "bound on the CPU the writers could use (%.1f of %.1f core-seconds) = %.1f mutations/s; throughput / that bound = %.2f\n", avail, mb + mi, avail / wn / cpu1, tput / (avail / wn / cpu1)
}'
