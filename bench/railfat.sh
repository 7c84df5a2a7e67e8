#!/usr/bin/env bash
# The issue-34 runs on the 16,384-GPU two-plane rail-optimised fabric (docs/fabrics.md), as a
# Markdown table for docs/performance.md: the 1 GiB hierarchical all-reduce and an MoE all-to-all
# (DeepSeek-V3's 64-way expert parallelism: 256 groups of 8 nodes x 8 GPUs at once, 224 MiB sent
# per GPU), on the flow backend, one core. CPU time (user + sys), wall time and peak RSS.
# Usage: bench/railfat.sh [BUILD_DIR] [TOPOLOGY]
set -euo pipefail
build=${1:-build}
topo=${2:-railfat:2048x8:planes=2}
bin="$build/collsim"
nodes=${topo#railfat:}
nodes=${nodes%%x*}
gpus=${topo#railfat:*x}
gpus=${gpus%%:*}
ep=64
groups=""
for ((g = 0; g < nodes * gpus / ep; ++g)); do
  groups+="${groups:+;}$((g * ep))-$((g * ep + ep - 1))"
done
echo "| run | simulated time | CPU time | wall time | peak RSS |"
echo "|---|---|---|---|---|"
run() {  # label args...
  local label=$1
  shift
  local csv times
  csv=$(mktemp)
  times=$(mktemp)
  taskset -c 0 /usr/bin/time -o "$times" -f "%U %S %e %M" "$bin" collective --backend flow \
    --format csv --topology "$topo" "$@" >"$csv"
  local sim user sys wall rss
  sim=$(awk -F, 'NR > 1 && $6 != "ideal" {t = $9} END {print t}' "$csv")
  read -r user sys wall rss <"$times"
  rm -f "$csv" "$times"
  printf '| %s | %.3f ms | %.1f s | %s s | %d MB |\n' "$label" \
    "$(echo "$sim / 1000000" | bc -l)" "$(echo "$user + $sys" | bc -l)" "$wall" "$((rss / 1024))"
}
run "all-reduce 1 GiB, hierarchical" -c all-reduce -a hierarchical -s 1GiB
run "MoE all-to-all 224 MiB per GPU, EP $ep, direct" -c all-to-all -a direct -s 224MiB \
  --group "npus:$groups"
