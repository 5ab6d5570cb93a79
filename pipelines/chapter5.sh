#!/usr/bin/env bash
# Chapter 5 of the thesis as plain pipes: the same runs `make chapter5` makes,
# written for reading. Needs the tools on PATH (cargo install --path .) or
# BIN=target/release. Outputs go to OUT (default results/pipelines).
set -euo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-results/pipelines}
SEED=${SEED:-1}
TOOL=chapter5
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_dir OUT
check_int SEED 0
check_tools treegen trainset nntrain classify
mkdir -p "$OUT"
ORDERINGS="32,79,5 20,69,19 32,66,66 32,33,33 32,0,0"

# §5.3: training patterns from the 200 tg2 trees of each ordering at depth 4.
for o in $ORDERINGS; do
  "$BIN/treegen" --set tg2 --ordering "$o" --depth 4 | "$BIN/trainset" > "$OUT/trainset-${o//,/-}.csv"
done

# §5.4, Table 5.1: one 3-12-2 network per ordering, 10,000 iterations, eta 0.1,
# all five trained in parallel; weights and learning curves go to OUT/weights.
"$BIN/nntrain" --seed "$SEED" --out-dir "$OUT/weights" $(for o in $ORDERINGS; do echo "$OUT/trainset-${o//,/-}.csv"; done)
grep -H '"e_' "$OUT"/weights/*.json | paste - -

partial=("$OUT/classify.csv.tmp")
# §5.5, Tables 5.2-5.4: schemes A, B (n = 1..8), C (m = 0..50, the ordering's
# own network) on the 100 tg1 trees at depth 6; one search per tree for all.
for o in $ORDERINGS; do
  "$BIN/treegen" --set tg1 --ordering "$o" --depth 6 \
    | "$BIN/classify" --scheme a,b,c --n 1..8 --m 0..50 --weights "$OUT/weights/${o//,/-}.json"
done > "$OUT/classify.csv.tmp"
# One header for the five tables, and the best parameter of each scheme.
awk 'NR == 1 || !/^b,/' "$OUT/classify.csv.tmp" > "$OUT/classify.csv" && rm "$OUT/classify.csv.tmp"
partial=()
awk -F, 'NR > 1 && $NF == 1' "$OUT/classify.csv"
