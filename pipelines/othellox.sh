#!/usr/bin/env bash
# OthelloX's grid on the simulated cluster (`docs/model.md` §9):
# its message-passing algorithms — PV splitting, YBWC with and without the
# helpful master, even split and master-slave at the root — and Fox et
# al.'s hash-table-guided master/slave beside them, on Othello boards of
# every size OthelloX measured, at several depths, on every simulated
# network.
#
# 1. positions: COUNT positions for each board of BOARDS, reached by seeded
#    random play (PLIES plies) from the board's usual starting square
#    (`positions --game othello --board N`).
# 2. run: one item per (board, depth, topology): `pabsim --machine cluster
#    --topology T` with every algorithm of ALGORITHMS at P = 1 and every
#    count of PROCS, one row per (algorithm, P) over the board's positions
#    (geometric mean of times, as every cluster table). NET_ARGS (e.g.
#    `--hop-ns 5000 --node-cores 4`) is given to the runs off the flat
#    network.
#    One more item, when ALGORITHMS has pv-split: OthelloX's Table 3
#    setting, the PV split on the 24 shipped 8 × 8 test
#    positions at depth 5, P = 1 … 64, one row per position and P
#    (`--per-tree`: the report's means and deviations over the positions).
# 3. summary: `results/othellox/othellox.csv`, every item's rows in the
#    order of the grid, and `results/othellox/pv-split-table3.csv`.
#
# One output file per item; files that exist are skipped, so an interrupted
# run resumes where it stopped. SHARD=K/N runs every N-th item (every machine
# writes the same position files itself); merge the machines'
# results/othellox/run directories, then run STEP=summary once.
set -euo pipefail
BIN=${BIN:-target/release}
R=${R:-results}
BOARDS=${BOARDS:-"6 8 10 12"}
DEPTHS=${DEPTHS:-"5 6 7 8"}
COUNT=${COUNT:-4}
SEED=${SEED:-1}
PLIES=${PLIES:-8..12}
PROCS=${PROCS:-"2 4 8 16 32 64 128 256"}
ALGORITHMS=${ALGORITHMS:-pv-split,ybwc,ybwc-full-no-helpful,ybwc-full,even-split,master-slave,fox}
TOPOLOGIES=${TOPOLOGIES:-"flat hypercube fat-tree"}
NET_ARGS=${NET_ARGS:-}
TOOL=othellox
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_shard
check_step all items summary
check_dir R
check_tools positions treegen pabsim
check_words BOARDS 6 8 10 12
check_ints DEPTHS 1 64
check_int COUNT 1
check_int SEED 0
# positions --plies: V or LO..HI with LO <= HI, at most 1000.
plies_what="a number of plies or a range of them, LO..HI with LO <= HI <= 1000 (e.g. 8..12)"
[[ $PLIES =~ ^(0|[1-9][0-9]{0,3})(\.\.(0|[1-9][0-9]{0,3}))?$ ]] || refuse PLIES "$plies_what"
((BASH_REMATCH[1] <= ${BASH_REMATCH[3]:-${BASH_REMATCH[1]}} && ${BASH_REMATCH[3]:-${BASH_REMATCH[1]}} <= 1000)) || refuse PLIES "$plies_what"
# P = 1 (the sequential baseline) is run anyway.
[[ " $PROCS " = *[[:space:]]1[[:space:]]* ]] && refuse PROCS "process counts from 2 to 4096 separated by spaces (P = 1, the baseline, is run anyway)"
check_ints PROCS 2 4096
check_algorithms ALGORITHMS ,
check_words TOPOLOGIES flat hypercube fat-tree
B=$R/othellox
say() { echo "othellox: $*" >&2; }
item() { echo "$B/run/board$1-d$2-$3.csv"; }
# OthelloX's Table 3 item: the shipped test positions, wherever it runs from.
TABLE3_POSITIONS=$(dirname "$0")/../data/positions/othello-test.txt

mkdir -p "$B/positions" "$B/run"
procs=1,${PROCS// /,}
if [[ $STEP != summary ]]; then
  i=0
  for board in $BOARDS; do
    pos=$B/positions/board$board-n$COUNT-s$SEED.txt
    if [[ ! -e $pos ]]; then
      "$BIN/positions" --game othello --board "$board" --count "$COUNT" --seed "$SEED" --plies "$PLIES" -o "$pos"
    fi
    for depth in $DEPTHS; do
      for top in $TOPOLOGIES; do
        i=$((i + 1))
        mine "$i" || continue
        f=$(item "$board" "$depth" "$top")
        [[ -e $f ]] && continue
        say "$f"
        net=(--topology "$top")
        if [[ $top != flat ]]; then
          # shellcheck disable=SC2206 # NET_ARGS is a list of options
          net+=($NET_ARGS)
        fi
        partial=("$f.tmp")
        "$BIN/treegen" --game othello --positions "$pos" --depth "$depth" |
          "$BIN/pabsim" --machine cluster --procs "$procs" --algorithm "$ALGORITHMS" "${net[@]}" -o "$f.tmp"
        mv "$f.tmp" "$f"
        partial=()
      done
    done
  done
  i=$((i + 1))
  f=$B/run/pv-split-table3.csv
  if [[ ,$ALGORITHMS, = *,pv-split,* ]] && mine "$i" && [[ ! -e $f ]]; then
    say "$f"
    partial=("$f.tmp")
    "$BIN/treegen" --game othello --positions "$TABLE3_POSITIONS" --depth 5 |
      "$BIN/pabsim" --machine cluster --procs 1,2,4,8,16,32,64 --algorithm pv-split --per-tree -o "$f.tmp"
    mv "$f.tmp" "$f"
    partial=()
  fi
fi

# ---- 3. summary: everything finished so far, in the grid's order -----------------
[[ $STEP = items ]] && exit 0
partial=("$B/othellox.csv.tmp")
{
  head=
  for board in $BOARDS; do
    for depth in $DEPTHS; do
      for top in $TOPOLOGIES; do
        f=$(item "$board" "$depth" "$top")
        [[ -e $f ]] || continue
        if [[ -z $head ]]; then
          head=1
          cat "$f"
        else
          tail -n +2 "$f"
        fi
      done
    done
  done
} > "$B/othellox.csv.tmp"
mv "$B/othellox.csv.tmp" "$B/othellox.csv"
partial=()
if [[ -e $B/run/pv-split-table3.csv ]]; then
  partial=("$B/pv-split-table3.csv.tmp")
  cp "$B/run/pv-split-table3.csv" "$B/pv-split-table3.csv.tmp"
  mv "$B/pv-split-table3.csv.tmp" "$B/pv-split-table3.csv"
  partial=()
fi
say "$B/othellox.csv"
