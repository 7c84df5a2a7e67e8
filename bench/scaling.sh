#!/usr/bin/env bash
# Wall time and peak memory of whole collectives from 64 to 4096 NPUs, as a Markdown table for
# docs/performance.md. Usage: bench/scaling.sh [BUILD_DIR] [MAX_NPUS]
set -euo pipefail
build=${1:-build}
max=${2:-4096}
bin="$build/collsim"
echo "| job | NPUs | backend | simulated time | wall time | peak RSS |"
echo "|---|---|---|---|---|---|"
run() {  # label npus backend args...
  local label=$1 npus=$2 backend=$3
  shift 3
  local csv times
  csv=$(mktemp)
  times=$(mktemp)
  /usr/bin/time -o "$times" -f "%e %M" "$bin" collective --backend "$backend" --format csv \
    "$@" >"$csv"
  local sim wall rss
  sim=$(tail -1 "$csv" | cut -d, -f9)
  read -r wall rss <"$times"
  rm -f "$csv" "$times"
  printf '| %s | %s | %s | %.3f ms | %s s | %d MB |\n' "$label" "$npus" "$backend" \
    "$(echo "$sim / 1000000" | bc -l)" "$wall" "$((rss / 1024))"
}
for n in 64 256 1024 4096; do
  [ "$n" -le "$max" ] || continue
  for b in analytical queue flow; do
    run "ring 64 MB, 4 chunks, switch" "$n" "$b" --topology "switch:$n" \
      --link-bandwidth "50 GB/s" --link-latency "500 ns" --algorithms ring --sizes 64MB --chunks 4
  done
done
for b in analytical queue flow; do
  run "halving-doubling 64 MB, 4 chunks, switch" 1024 "$b" --topology switch:1024 \
    --link-bandwidth "50 GB/s" --link-latency "500 ns" --algorithms halving-doubling --sizes 64MB --chunks 4
  run "direct 64 MB, switch" 1024 "$b" --topology switch:1024 \
    --link-bandwidth "50 GB/s" --link-latency "500 ns" --algorithms direct --sizes 64MB
  run "halving-doubling 1 GiB, 64 chunks, hier:sw16xsw8xsw8 (flat)" 1024 "$b" \
    --topology hier:sw16xsw8xsw8 --link-bandwidth "25 GB/s" --link-latency "700 ns" \
    --algorithms halving-doubling --sizes 1GiB --chunks 64
done
