#!/usr/bin/env bash
# pabsim speed: simulated node visits per second of CPU time on one core
# (user time, --threads 1), at 1, 12 and 48 processors, on the first 20 tg1
# trees of two orderings at depth 6. Usage: scripts/bench-pabsim.sh [BIN]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg)"
for o in 20,69,19 32,79,5; do
  "$BIN/treegen" --set tg1 --ordering "$o" --depth 6 --count 20 -o "$tmp/t.jsonl"
  for p in 1 12 48; do
    /usr/bin/time -f "%U %e" -o "$tmp/time" "$BIN/pabsim" --threads 1 --procs "$p" --scheme a "$tmp/t.jsonl" -o "$tmp/out.csv"
    read -r user wall < "$tmp/time"
    nodes=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "np_nodes") c = i } NR == 2 { print $c }' "$tmp/out.csv")
    echo "pabsim ($o) 20 trees, p = $p: $nodes nodes, ${user} s user (${wall} s wall), $(awk -v n="$nodes" -v s="$user" 'BEGIN { printf "%.2f", n / s / 1e6 }') M nodes/s per core"
  done
done
