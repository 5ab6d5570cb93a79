#!/usr/bin/env bash
# Beyond the thesis: the measurements of chapters 4-6 on real game trees,
# chess (the 24 Bratko-Kopec positions) and Othello (24 test positions), as
# plain pipes; `make games` runs it. Needs the tools on PATH or
# BIN=target/release. Outputs go to OUT (default results/games); a step
# whose output exists is skipped (rm the file to redo it). Depths: see the
# variables below (defaults: a few minutes on two cores).
set -euo pipefail
BIN=${BIN:-target/release}
OUT=${OUT:-results/games}
POS=${POS:-data/positions}
SEED=${SEED:-1}
ITERATIONS=${ITERATIONS:-10000}
CHESS_FBEST_DEPTH=${CHESS_FBEST_DEPTH:-7}   # f_best: Figure 4.5
CHESS_TRAIN_DEPTH=${CHESS_TRAIN_DEPTH:-4}   # training trees, as tg2 at depth 4
CHESS_TEST_DEPTH=${CHESS_TEST_DEPTH:-6}     # classification, as tg1 at depth 6
CHESS_SIM_DEPTH=${CHESS_SIM_DEPTH:-5}       # the simulated machine
OTHELLO_FBEST_DEPTH=${OTHELLO_FBEST_DEPTH:-8}
OTHELLO_TRAIN_DEPTH=${OTHELLO_TRAIN_DEPTH:-4}
OTHELLO_TEST_DEPTH=${OTHELLO_TEST_DEPTH:-6}
OTHELLO_SIM_DEPTH=${OTHELLO_SIM_DEPTH:-6}
TOOL=games
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_dir OUT
[[ -d $POS ]] || refuse POS "the directory of the position files"
check_int SEED 0
check_int ITERATIONS 1
for v in CHESS_FBEST_DEPTH CHESS_TRAIN_DEPTH CHESS_TEST_DEPTH CHESS_SIM_DEPTH OTHELLO_FBEST_DEPTH OTHELLO_TRAIN_DEPTH OTHELLO_TEST_DEPTH OTHELLO_SIM_DEPTH; do
  check_int "$v" 1 64
done
check_tools treegen fbest trainset nntrain classify pabsim
mkdir -p "$OUT"/{trees,fbest,fit,fitted,trainset,weights,classify,pabsim}

# Runs "$@" writing to $1's file only if it does not exist yet.
make_file() {
  local out=$1; shift
  [[ -e $out ]] && return 0
  echo "games: $out" >&2
  "$@" -o "$out"
}

trees() {   # trees GAME FILE DEPTH NAME
  make_file "$OUT/trees/$4.jsonl" "$BIN/treegen" --game "$1" --positions "$POS/$2" --depth "$3"
}

trees chess bratko-kopec.epd "$CHESS_FBEST_DEPTH" "chess-bk-d$CHESS_FBEST_DEPTH"
trees chess bratko-kopec.epd "$CHESS_TEST_DEPTH" "chess-bk-d$CHESS_TEST_DEPTH"
trees chess bratko-kopec.epd "$CHESS_SIM_DEPTH" "chess-bk-d$CHESS_SIM_DEPTH"
trees chess chess-train.epd "$CHESS_TRAIN_DEPTH" "chess-train-d$CHESS_TRAIN_DEPTH"
trees othello othello-test.txt "$OTHELLO_FBEST_DEPTH" "othello-test-d$OTHELLO_FBEST_DEPTH"
trees othello othello-test.txt "$OTHELLO_TEST_DEPTH" "othello-test-d$OTHELLO_TEST_DEPTH"
trees othello othello-test.txt "$OTHELLO_SIM_DEPTH" "othello-test-d$OTHELLO_SIM_DEPTH"
trees othello othello-train.txt "$OTHELLO_TRAIN_DEPTH" "othello-train-d$OTHELLO_TRAIN_DEPTH"

# Chapter 4: f_best and p_best of our programs (Figure 4.5 beside the
# thesis's chess program and the (32, 79, 5) trees), and the exponential
# ordering that fits each curve best (analytic and searched; the thesis's
# chess program fitted the same way, for comparison).
for t in "chess-bk-d$CHESS_FBEST_DEPTH" "othello-test-d$OTHELLO_FBEST_DEPTH"; do
  make_file "$OUT/fbest/$t.csv" "$BIN/fbest" "$OUT/trees/$t.jsonl"
  make_file "$OUT/fbest/$t-per-tree.csv" "$BIN/fbest" --per-tree "$OUT/trees/$t.jsonl"
  make_file "$OUT/fit/$t.csv" "$BIN/fbest" --fit "$OUT/fbest/$t.csv"
done
make_file "$OUT/fbest/rajahx.csv" "$BIN/fbest" --rajahx data/rajahx-fbest.csv
make_file "$OUT/fit/rajahx.csv" "$BIN/fbest" --fit "$OUT/fbest/rajahx.csv"
# The artificial trees of the searched fit to our chess curve, searched at the
# chess depth: the fourth curve of Figure 4.5.
fitted=$(awk -F, '$2 == "searched" { print $6 "," $7 "," $8 }' "$OUT/fit/chess-bk-d$CHESS_FBEST_DEPTH.csv")
if [[ ! -e $OUT/fitted/chess.csv ]]; then
  echo "games: $OUT/fitted/chess.csv (ordering $fitted)" >&2
  "$BIN/treegen" --set tg1 --ordering "$fitted" --depth "$CHESS_FBEST_DEPTH" | "$BIN/fbest" -o "$OUT/fitted/chess.csv"
fi

# Chapter 5: training patterns from the training positions, one network per
# game (both trained in parallel), schemes A, B (n = 1..8), C (m = 0..50) on
# the test positions.
make_file "$OUT/trainset/chess.csv" "$BIN/trainset" "$OUT/trees/chess-train-d$CHESS_TRAIN_DEPTH.jsonl"
make_file "$OUT/trainset/othello.csv" "$BIN/trainset" "$OUT/trees/othello-train-d$OTHELLO_TRAIN_DEPTH.jsonl"
if [[ ! -e $OUT/weights/chess.json || ! -e $OUT/weights/othello.json ]]; then
  echo "games: $OUT/weights" >&2
  "$BIN/nntrain" --seed "$SEED" --iterations "$ITERATIONS" --out-dir "$OUT/weights" "$OUT/trainset/chess.csv" "$OUT/trainset/othello.csv"
fi
make_file "$OUT/classify/chess-bk-d$CHESS_TEST_DEPTH.csv" "$BIN/classify" "$OUT/trees/chess-bk-d$CHESS_TEST_DEPTH.jsonl" \
  --scheme a,b,c --n 1..8 --m 0..50 --weights "$OUT/weights/chess.json"
make_file "$OUT/classify/othello-test-d$OTHELLO_TEST_DEPTH.csv" "$BIN/classify" "$OUT/trees/othello-test-d$OTHELLO_TEST_DEPTH.jsonl" \
  --scheme a,b,c --n 1..8 --m 0..50 --weights "$OUT/weights/othello.json"

# Chapter 6: the simulated machine, p = 1 per position (the baseline), then
# schemes A, B, C at p = 12, 24, 48 with the default parameters (m_A = 2,
# m_B = 1, m_Ca = m_Cc = 0) and scheme C's width at the best m of the
# classification.
best_m() { awk -F, 'NR > 1 && $4 == "c" && $NF == 1 { print $5 }' "$1"; }
for g in chess othello; do
  if [[ $g == chess ]]; then t="chess-bk-d$CHESS_SIM_DEPTH"; c="$OUT/classify/chess-bk-d$CHESS_TEST_DEPTH.csv"
  else t="othello-test-d$OTHELLO_SIM_DEPTH"; c="$OUT/classify/othello-test-d$OTHELLO_TEST_DEPTH.csv"; fi
  make_file "$OUT/pabsim/$t-p1.csv" "$BIN/pabsim" --procs 1 --per-tree "$OUT/trees/$t.jsonl"
  make_file "$OUT/pabsim/$t-abc.csv" "$BIN/pabsim" --procs 12,24,48 --scheme a,b,c --weights "$OUT/weights/$g.json" \
    --cut-width "$(best_m "$c")" --baseline "$OUT/pabsim/$t-p1.csv" "$OUT/trees/$t.jsonl"
done
echo "games: done ($OUT)" >&2
