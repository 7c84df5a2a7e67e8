#!/usr/bin/env bash
# --jobs speed-up and byte identity (issue 35), and the flat rings the rotation symmetry runs as
# a three-rank stand-in, as Markdown rows for docs/performance.md.
# Usage: bench/parallel_sweep.sh [BUILD_DIR] [JOBS]
# The machine's load changes the speed-up: the script prints `uptime` first.
set -euo pipefail
build=${1:-build}
jobs=${2:-2}
bin="$build/collsim"
sizes=$(seq -s, 100 100 5000 | sed 's/\([0-9]*\)/\1KiB/g')  # 100 KiB .. 5000 KiB
uptime
echo "| sweep | points | --jobs 1 | --jobs $jobs | speed-up | bytes |"
echo "|---|---|---|---|---|---|"
sweep() {  # label points args...
  local label=$1 points=$2
  shift 2
  local a b t1 t2
  a=$(mktemp) b=$(mktemp)
  t1=$( { /usr/bin/time -f %e "$bin" "$@" -j 1 >"$a"; } 2>&1 | tail -1)
  t2=$( { /usr/bin/time -f %e "$bin" "$@" -j "$jobs" >"$b"; } 2>&1 | tail -1)
  local same=identical
  cmp -s "$a" "$b" || same=DIFFERENT
  rm -f "$a" "$b"
  printf '| %s | %s | %s s | %s s | %.2fx | %s |\n' "$label" "$points" "$t1" "$t2" \
    "$(echo "$t1 / $t2" | bc -l)" "$same"
}
sweep "mesh:4x4 packet all-to-all, 2 algorithms x 50 sizes" 100 collective -t mesh:4x4 \
  -c all-to-all -a direct,ring -s "$sizes" -b packet --format csv -q
sweep "mesh:6x6 packet all-to-all (issue 35)" 8 collective -t mesh:6x6 -c all-to-all \
  -a direct,ring -s 1MiB,2MiB,4MiB,8MiB -b packet --format csv -q
echo
echo "| flat ring 64 MiB, 4 chunks, 100 GB/s, 700 ns | backend | simulated time | wall time | peak RSS |"
echo "|---|---|---|---|---|"
for n in 4096 16384; do
  for b in analytical flow; do
    out=$(mktemp) times=$(mktemp)
    /usr/bin/time -o "$times" -f "%e %M" "$bin" collective -t "switch:$n" \
      --link-bandwidth "100 GB/s" --link-latency "700 ns" -a ring -s 64MiB --chunks 4 -b "$b" \
      --format csv -q >"$out"
    read -r wall rss <"$times"
    printf '| switch:%s | %s | %.3f ms | %s s | %d MB |\n' "$n" "$b" \
      "$(echo "$(tail -1 "$out" | cut -d, -f9) / 1000000" | bc -l)" "$wall" "$((rss / 1024))"
    rm -f "$out" "$times"
  done
done
