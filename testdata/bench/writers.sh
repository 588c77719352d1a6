#!/bin/bash
# writers.sh DIR_OF_BINARIES N M
#
# N concurrent writer processes on one fresh board, M mutations each,
# cycling through the surfaces: bb post, bb agent send, agent-mail send,
# vybe task create. Prints wall time, mutations/s, the number of failed
# mutations and the CPU time of all processes (bash `times`, children
# line), from which CPU per mutation and the 2-core bound follow.
#
#   go build -o /tmp/w/ ./cmd/bb ./cmd/agent-mail ./cmd/vybe
#   testdata/bench/writers.sh /tmp/w 64 100
set -u
B=$1; N=$2; M=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
"$B/bb" --dir "$d" init >/dev/null 2>&1
db=$d/.bb/blackboard.db
export AGENT_MAIL_DB=$db VYBE_DB_PATH=$db
for i in $(seq 0 $((N-1))); do "$B/bb" --dir "$d" agent register --name "wr-$i" --role load >/dev/null 2>&1; done
w() {
  local i=$1 errs=0 to=wr-$(( ($1 + 1) % N ))
  for j in $(seq 1 "$M"); do
    case $(( (i + j) % 4 )) in
      0) "$B/bb" --dir "$d" --as "wr-$i" post "load $i $j" ;;
      1) "$B/bb" --dir "$d" agent send --category INFO --bead bb-1 --from "wr-$i" --to "$to" --subject s --body "b $j" ;;
      2) "$B/agent-mail" send --from "p:wr-$i" --to "p:$to" --subject s --body "b $j" ;;
      3) "$B/vybe" --agent "wr-$i" task create --request-id "r$i-$j" --title "t $i $j" ;;
    esac >/dev/null 2>>"$d/err.$i" || errs=$((errs + 1))
  done
  echo "$errs" > "$d/errs.$i"
}
t0=$(date +%s.%N)
for i in $(seq 0 $((N-1))); do w "$i" & done
wait
t1=$(date +%s.%N)
errs=$(cat "$d"/errs.* | paste -sd+ | bc)
echo "N=$N M=$M wall=$(echo "$t1 - $t0" | bc) s mutations/s=$(echo "$N*$M/($t1 - $t0)" | bc -l | cut -c1-6) errors=$errs load=$(cut -d' ' -f1 /proc/loadavg)"
grep -h "Error\|error" "$d"/err.* 2>/dev/null | sort | uniq -c | head -5
times
