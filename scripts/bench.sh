#!/usr/bin/env bash
# Whole-command timings for BENCHMARKS.md (chapters 4, 5 and the simulator).
# Run through `make bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best_of() { # best_of N cmd... : the fastest wall time of N runs, in seconds
  local n=$1; shift
  local best=
  for _ in $(seq "$n"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
    best=$(echo "$t0 $t1 ${best:-1e9}" | awk '{d=$2-$1; print (d<$3)?d:$3}')
  done
  echo "$best"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"

# Table 4.4 workload: the 100 tg1 trees of (32,79,5) at depth 7.
$BIN/treegen --set tg1 --ordering 32,79,5 --depth 7 -o "$tmp/d7.jsonl"
nodes=$($BIN/fbest --per-tree "$tmp/d7.jsonl" | awk -F, 'NR>1{s+=$7} END{print s}')
for t in 1 $(nproc); do
  s=$(best_of 3 $BIN/fbest --threads "$t" "$tmp/d7.jsonl")
  echo "fbest tg1 (32,79,5) depth 7, $nodes nodes, $t thread(s): ${s} s, $(awk -v n="$nodes" -v s="$s" 'BEGIN{printf "%.1f", n/s/1e6}') M nodes/s"
done
scripts/bench-chapter5.sh
scripts/bench-pabsim.sh
