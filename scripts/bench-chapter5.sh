#!/usr/bin/env bash
# Whole-command timings of chapter 5 (trainset, nntrain, classify) for
# BENCHMARKS.md. Run through `make bench` or directly after `cargo build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=target/release
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ORDERINGS="32,79,5 20,69,19 32,66,66 32,33,33 32,0,0"

secs() { # secs cmd... : wall seconds of one run
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}'
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"

for o in $ORDERINGS; do
  $BIN/treegen --set tg2 --ordering "$o" --depth 4 -o "$tmp/tg2-${o//,/-}.jsonl"
  $BIN/treegen --set tg1 --ordering "$o" --depth 6 -o "$tmp/tg1-${o//,/-}.jsonl"
done
cat "$tmp"/tg1-*.jsonl > "$tmp/tg1-all.jsonl"

all_sets() { for o in $ORDERINGS; do $BIN/trainset "$tmp/tg2-${o//,/-}.jsonl" -o "$tmp/p-${o//,/-}.csv"; done; }
echo "trainset, five orderings (200 tg2 trees each, depth 4): $(secs all_sets) s"
echo "  patterns: $(for o in $ORDERINGS; do printf '%s %s  ' "$o" $(($(wc -l < "$tmp/p-${o//,/-}.csv") - 2)); done)"

echo "nntrain, five networks x ${ITERATIONS:=10000} iterations, $(nproc) threads: $(secs $BIN/nntrain --iterations "$ITERATIONS" --out-dir "$tmp/w" "$tmp"/p-*.csv) s"

weights=$(for o in $ORDERINGS; do echo --weights "$tmp/w/${o//,/-}.json"; done)
# shellcheck disable=SC2086
echo "classify, five orderings x 100 tg1 trees at depth 6, A + B (n=1..8) + C (m=0..50): $(secs $BIN/classify --n 1..8 --m 0..50 $weights "$tmp/tg1-all.jsonl") s"
echo "classify, same, scheme A only: $(secs $BIN/classify --scheme a "$tmp/tg1-all.jsonl") s"
