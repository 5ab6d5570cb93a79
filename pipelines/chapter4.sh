#!/usr/bin/env bash
# Chapter 4 of the thesis as plain pipes: the same runs `make chapter4` makes,
# written for reading. Needs the tools on PATH (cargo install --path .) or
# BIN=target/release. Outputs go to OUT (default results/pipelines).
set -euo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-results/pipelines}
TOOL=chapter4
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_dir OUT
check_tools treegen fbest
mkdir -p "$OUT"

# Table 4.4: f_best and p_best on the 100 tg1 trees of (32,79,5) at depth 7.
"$BIN/treegen" --set tg1 --ordering 32,79,5 --depth 7 | "$BIN/fbest" > "$OUT/table-4.4.csv"

# Tables 4.1-4.3 / Figure 4.5: the chess program's statistics in the same columns.
"$BIN/fbest" --rajahx data/rajahx-fbest.csv > "$OUT/rajahx.csv"

# Table 4.5 and Figure 4.6: analytic p_n of the five orderings.
"$BIN/fbest" --analytic --ordering 32,79,5 --ordering 20,69,19 --ordering 32,66,66 \
  --ordering 32,33,33 --ordering 32,0,0 > "$OUT/analytic.csv"

# Table 6.3's n_1: nodes examined on the 100 tg1 trees of each ordering at depth 6.
for o in 32,79,5 20,69,19 32,66,66 32,33,33 32,0,0; do
  printf '%s: ' "$o"
  "$BIN/treegen" --set tg1 --ordering "$o" --depth 6 | "$BIN/fbest" --per-tree \
    | awk -F, 'NR > 1 { n += $7 } END { print n " nodes" }'
done
