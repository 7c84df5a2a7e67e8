#!/usr/bin/env bash
# The packet backend on contended traffic (issue 49): a full direct all-to-all of 2 MiB per NPU on
# torus:8x8, fattree:4x3 and dragonfly:9x4x2 (16 GB/s links of 0 ns: every router contends), each
# as simulated flit-hops per CPU second (user + sys; CPU time, not wall time, because the machine
# is shared). With --base BIN it runs a second binary (e.g. a build of an older commit) on the
# same cases, interleaved round by round so both see the same machine load, checks that both
# simulate the same time and prints the speed ratio. Markdown table for docs/performance.md.
# Usage: bench/packet_contended.sh [--base BIN] [--rounds N] [--pin CORE] [BIN] [-- extra flags]
#   BIN defaults to build/collsim; rounds to 3 (the table shows the median round).
set -euo pipefail
base="" rounds=3 pin="" bin="build/collsim"
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --pin) pin=$2; shift 2 ;;
    --) shift; break ;;
    *) bin=$1; shift ;;
  esac
done
extra=("$@")
cases=("torus:8x8" "fattree:4x3" "dragonfly:9x4x2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run BIN TOPOLOGY -> "sim_ns flit_hops cpu_s"
run() {
  local csv="$tmp/out.csv" times="$tmp/time"
  local pre=()
  [ -n "$pin" ] && pre=(taskset -c "$pin")
  "${pre[@]}" /usr/bin/time -o "$times" -f "%U %S" "$1" collective -t "$2" -c all-to-all \
    -a direct -s 2097152B --link-bandwidth "16 GB/s" --link-latency "0 ns" -b packet \
    --format csv -q "${extra[@]}" >"$csv"
  python3 - "$csv" "$times" <<'EOF'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
metrics = dict(kv.split("=") for kv in row["backend_metrics"].split(";"))
user, sys_ = open(sys.argv[2]).read().split()[:2]
print(row["time_ns"], int(float(metrics["flit_hops"])), float(user) + float(sys_))
EOF
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

if [ -n "$base" ]; then
  echo "| pattern | simulated time | flit-hops | base CPU s | new CPU s | base flit-hops/s | new flit-hops/s | speed ratio |"
  echo "|---|---|---|---|---|---|---|---|"
else
  echo "| pattern | simulated time | flit-hops | CPU s | flit-hops/s |"
  echo "|---|---|---|---|---|"
fi
for topo in "${cases[@]}"; do
  : >"$tmp/new" ; : >"$tmp/base"
  for ((r = 0; r < rounds; ++r)); do
    run "$bin" "$topo" >>"$tmp/new"
    [ -n "$base" ] && run "$base" "$topo" >>"$tmp/base"
  done
  read -r sim hops _ <"$tmp/new"
  cpu=$(awk '{print $3}' "$tmp/new" | median)
  rate=$(echo "$hops / $cpu / 1000000" | bc -l)
  if [ -n "$base" ]; then
    read -r bsim bhops _ <"$tmp/base"
    if [ "$bsim" != "$sim" ] || [ "$bhops" != "$hops" ]; then
      echo "note: $topo simulates differently: base $bsim ns $bhops flit-hops, new $sim ns $hops" >&2
    fi
    bcpu=$(awk '{print $3}' "$tmp/base" | median)
    brate=$(echo "$bhops / $bcpu / 1000000" | bc -l)
    printf '| %s | %.3f us | %.2f M | %.2f | %.2f | %.1f M | %.1f M | %.2fx |\n' "$topo" \
      "$(echo "$sim / 1000" | bc -l)" "$(echo "$hops / 1000000" | bc -l)" "$bcpu" "$cpu" \
      "$brate" "$rate" "$(echo "$rate / $brate" | bc -l)"
  else
    printf '| %s | %.3f us | %.2f M | %.2f | %.1f M |\n' "$topo" "$(echo "$sim / 1000" | bc -l)" \
      "$(echo "$hops / 1000000" | bc -l)" "$cpu" "$rate"
  fi
done
