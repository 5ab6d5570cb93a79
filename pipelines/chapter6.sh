#!/usr/bin/env bash
# Chapter 6 of the thesis as plain pipes: the runs `make chapter6` makes,
# written for reading. Needs the tools on PATH (cargo install --path .) or
# BIN=target/release, and for scheme C one network per ordering in WEIGHTS
# (default results/weights/B-WA-WB.json, made by nntrain). Outputs go to OUT
# (default results/pipelines).
set -euo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-results/pipelines}
WEIGHTS=${WEIGHTS:-results/weights}
TOOL=chapter6
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_dir OUT
[[ -n $WEIGHTS && ! -f $WEIGHTS ]] || refuse WEIGHTS "a directory of networks (B-WA-WB.json)"
check_tools treegen pabsim
mkdir -p "$OUT"

for o in 32,79,5 20,69,19 32,66,66 32,33,33 32,0,0; do
  key=${o//,/-}
  "$BIN/treegen" --set tg1 --ordering "$o" --depth 6 > "$OUT/tg1-$key-d6.jsonl"
  # Table 6.3: t_1 and n_1 on one processor, per tree (the baseline of SU, SO, CSS).
  "$BIN/pabsim" --procs 1 --per-tree "$OUT/tg1-$key-d6.jsonl" > "$OUT/p1-$key.csv"
  # Tables 6.4-6.8: schemes A and B at 12, 24, 48 processors, the thesis's parameters.
  "$BIN/pabsim" --procs 12,24,48 --scheme a,b --thesis-params --baseline "$OUT/p1-$key.csv" \
    "$OUT/tg1-$key-d6.jsonl" > "$OUT/ab-$key.csv"
  # ... and scheme C with the network trained on this ordering.
  if [[ -e $WEIGHTS/$key.json ]]; then
    "$BIN/pabsim" --procs 12,24,48 --scheme c --thesis-params --weights "$WEIGHTS/$key.json" \
      --baseline "$OUT/p1-$key.csv" "$OUT/tg1-$key-d6.jsonl" > "$OUT/c-$key.csv"
  else
    echo "chapter6: no $WEIGHTS/$key.json; scheme C skipped for $o" >&2
  fi
done
