#!/usr/bin/env bash
# Ura, Tsuruoka and Chikayama (2014) at the paper's size (`make ura2014`,
# docs/model.md §9.9): their Table 1 (sequential; master-worker with and
# without dynamic updates at P = 512 and 1,536) and Table 6 (the NegaScout
# master with and without ε-windows at P = 512) on COUNT incremental trees of
# each (b, d, d′) of GRID, one item per (tree, configuration).
#
# Steps (STEP; `all` runs them in turn):
#   seq       the sequential baseline of every tree, one item each, at 1 µs
#             per node (its time is its node count: it is rescaled below);
#   parallel  the calibration, then every parallel item. The cost per node
#             is the paper's own sequential time per leaf (its Table 1:
#             19,438.92 s for 790 × 10^6 leaves at b = 5, 7,321.58 s for
#             149 × 10^6 at b = 20) times OUR baseline's leaves per node at
#             that (b, d), summed over the group's sequential items, so that
#             our baseline spends the paper's time per leaf
#             (calibration.csv). The parallel rows never enter it;
#   summary   items.csv (one row per item), table1.csv and table6.csv in the
#             paper's columns, cost.csv (wall time and peak memory per
#             configuration, from each item's side file).
#
# Items are files: run/b<b>-d<d>-m<d′>[-noise-<x>]/t<tree>-<configuration>.csv, written
# as .tmp and renamed, with its wall time and peak memory (/usr/bin/time) in
# the .time beside it; an interrupted item leaves nothing, a file that exists
# is skipped, so a rerun resumes. SHARD=K/N runs every N-th item of a step
# (each machine builds the same trees itself): run STEP=seq on every shard,
# gather the run/ directories, STEP=parallel on every shard, gather, then
# STEP=summary once (pipelines/slurm/ura2014.sh does this as Slurm arrays).
#
# GRID lists b:d:d′ or b:d:d′:NOISE, a family of trees whose static
# evaluation is noisy (treegen --eval-noise NOISE: `shogi` or a step,
# docs/model.md §7.8). `full` is the paper's two sizes on the synthetic
# trees and on the shogi-like ones; `sample` the same on COUNT 4 trees
# unless given, every configuration, a few CPU-hours; `quick`: d = 16 … 22
# for b = 5 and 8, 10 for b = 20, d′ = d/2, with COUNT 2 unless given;
# `scaled`: the paper's experiment at a thirty-second of its machine, both
# families at b = 5, d = 20, d′ = 10 and b = 20, d = 10, d′ = 5 (about a
# 25th and a 20th of the paper's sequential leaves) on P = 16 and 48 (PROCS
# unless given), so each process has about the paper's leaves to search,
# COUNT 4 unless given, no Table 6 (EPSILON_PROCS empty unless given).
# PROCS and
# ALGORITHMS are Table 1's (any cluster algorithm may join them: d′ goes
# to the master-worker's only), EPSILON_PROCS (empty: none) and EPSILON Table 6's. ARGS is
# added to every pabsim run (e.g. `--tt-slots N`, a machine cost): one
# variable for any further flag. A change of ARGS, EPSILON or the trees
# needs a fresh R (or run/ removed): item names do not carry them. A larger
# COUNT keeps the items made (tree t is the same t-th tree of set tg1).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-target/release}
R=${R:-results}
GRID=${GRID:-full}
case $GRID in
  full) GRID="5:24:12 20:12:6 5:24:12:shogi 20:12:6:shogi" ;;
  sample)
    # The paper's own size on a few trees (BENCHMARKS.md: its cost per
    # item); a larger COUNT later adds trees and keeps the items made.
    # Tables of 2^18 entries unless ARGS says otherwise: with the default
    # 2^14 the sequential search of a d = 24 tree loses half its table's
    # help (1,245 × 10^6 leaves against 812 × 10^6; the paper's had 10^9
    # entries), and every speed-up over it is inflated (docs/findings.md).
    GRID="5:24:12 20:12:6 5:24:12:shogi 20:12:6:shogi"
    COUNT=${COUNT:-4}
    ARGS=${ARGS-"--tt-slots 262144"}
    ;;
  quick)
    # What a two-core machine runs in under an hour: d = 16 … 22 (b = 5)
    # and 8, 10 (b = 20) on 2 trees; d = 24 is one tree's work of hours.
    GRID="5:16:8 5:18:9 5:20:10 5:22:11 20:8:4 20:10:5"
    COUNT=${COUNT:-2}
    ;;
  scaled)
    # The paper's headline (its Fig. 7) where a cluster is not at hand:
    # trees a 25th (b = 5) and a 20th (b = 20) of its sequential leaves,
    # machines a 32nd of its P, tables of 2^18 entries as `sample`'s.
    GRID="5:20:10 20:10:5 5:20:10:shogi 20:10:5:shogi"
    COUNT=${COUNT:-4}
    PROCS=${PROCS:-"16 48"}
    EPSILON_PROCS=${EPSILON_PROCS-}
    ARGS=${ARGS-"--tt-slots 262144"}
    ;;
esac
COUNT=${COUNT:-32}
PROCS=${PROCS:-"512 1536"}
ALGORITHMS=${ALGORITHMS:-"master-worker master-worker-noupdate"}
EPSILON_PROCS=${EPSILON_PROCS-512}
EPSILON=${EPSILON:-200}
ARGS=${ARGS:-}
PUBLISHED=${PUBLISHED:-$here/data/published/ura2014/table-1.csv}
TOOL=ura2014
# shellcheck source=pipelines/lib.sh
source "$here/pipelines/lib.sh"
check_shard
check_step all seq parallel summary
check_dir R
check_tools treegen pabsim
# b and d within treegen's bounds (b <= 4096, d <= 64).
grid_what="full, sample, quick, scaled or b:d:d′[:NOISE] entries (2 <= b <= 4096, 1 <= d′ < d <= 64, NOISE shogi or a step 1 .. 65536)"
check_entries GRID '[1-9][0-9]{0,3}:[1-9][0-9]{0,2}:[1-9][0-9]{0,2}(:(shogi|[1-9][0-9]{0,4}))?' "$grid_what"
for g in $GRID; do
  IFS=: read -r b d dm x <<< "$g"
  ((b >= 2 && b <= 4096 && dm < d && d <= 64)) || refuse GRID "$grid_what separated by spaces, each once"
  [[ -z $x || $x = shogi || $x -le 65536 ]] || refuse GRID "$grid_what separated by spaces, each once"
  # The shogi law is the tree generator's (b = 5 and 20 only): it says why not.
  [[ $x != shogi || $b = 5 || $b = 20 ]] || refuse GRID "$grid_what; NOISE shogi is calibrated at b = 5 and b = 20 only (docs/model.md §7.8)"
done
# Tree t is the t-th seed of set tg1, which holds 100.
check_int COUNT 1 100
check_ints PROCS 2 4096
check_algorithms ALGORITHMS " "
# Empty: no Table 6 items.
[[ -z ${EPSILON_PROCS//[[:space:]]/} ]] || check_ints EPSILON_PROCS 2 4096
check_int EPSILON 1
check_file PUBLISHED
B=$R/ura2014
# The sequential items' cost per node, ns: their time is then their nodes in µs.
SEQ_NODE_NS=1000
say() { echo "ura2014: $*" >&2; }
die() { say "$*"; exit 1; }

# An item's partial files (`partial`, pipelines/lib.sh) are removed however
# the run ends.

# ---- the grid ---------------------------------------------------------------------
group() { echo "b$1-d$2-m$3${4:+-noise-$4}"; }
tree_file() { echo "$B/trees/b$1-d$2-n$COUNT${3:+-noise-$3}.jsonl"; }
# pabsim's --ura2014 STEP (the configurations, the calibration and the
# tables are computed there: parab::formats::ura2014) with the grid's
# lists as its options. Table 1's configurations are PROCS × ALGORITHMS:
# none without either.
commas() { local IFS=,; echo "$*"; }
ura() {
  local opts=(--count "$COUNT" --published "$PUBLISHED" --node-ns "$SEQ_NODE_NS" --epsilon "$EPSILON")
  # shellcheck disable=SC2086 # the lists are words
  {
    [[ -z ${GRID// /} ]] || opts+=(--grid "$(commas $GRID)")
    [[ -z ${PROCS// /} || -z ${ALGORITHMS// /} ]] || opts+=(--procs "$(commas $PROCS)" --algorithm "$(commas $ALGORITHMS)")
    [[ -z ${EPSILON_PROCS// /} ]] || opts+=(--epsilon-procs "$(commas $EPSILON_PROCS)")
  }
  "$BIN/pabsim" --ura2014 "$@" "${opts[@]}"
}
# The parallel configurations, one a line: name procs algorithm epsilon
# (Table 1's, then Table 6's; Table 6's plain master-worker is Table 1's
# item, run once).
configs() { ura configs; }

# Runs one item: pabsim on line LINE of TREES into FILE, its wall time,
# CPU time and peak memory into FILE's .time; skipped when FILE exists.
item() {
  local f=$1 trees=$2 line=$3 time=${1%.csv}.time
  shift 3
  # Done once it holds its row: an empty or header-only file (a hand-edited
  # or truncated item) is run again.
  [[ -e $f ]] && (($(wc -l < "$f") >= 2)) && return 0
  say "$f"
  partial=("$f.tmp" "$time.tmp")
  if [[ -x /usr/bin/time ]]; then
    sed -n "${line}p" "$trees" | /usr/bin/time -f '%e,%U,%S,%M' -o "$time.tmp" "$BIN/pabsim" --machine cluster --per-tree --threads 1 "$@" -o "$f.tmp"
  else
    sed -n "${line}p" "$trees" | "$BIN/pabsim" --machine cluster --per-tree --threads 1 "$@" -o "$f.tmp"
    echo ",,," > "$time.tmp"
  fi
  # The time first: an item counts as done once its CSV exists.
  mv "$time.tmp" "$time"
  mv "$f.tmp" "$f"
  partial=()
}

# Writes calibration.csv; every group of GRID must have all its sequential
# items (the parallel items run at its cost per node).
calibrate() {
  local g b d dm x t missing
  for g in $GRID; do
    IFS=: read -r b d dm x <<< "$g"
    missing=0
    for t in $(seq 1 "$COUNT"); do
      [[ -e $B/run/$(group "$b" "$d" "$dm" "$x")/t$(printf %02d "$t")-seq.csv ]] || missing=$((missing + 1))
    done
    ((missing == 0)) || die "b = $b, d = $d${x:+, noise $x}: $missing of $COUNT sequential items missing (run STEP=seq on every shard first, and gather their run/ directories)"
  done
  ura calibration "$B"
}
# The cost per node of group (b, d, d′, noise), ns, from calibration.csv.
node_ns() {
  local b d dm ns x
  while IFS=, read -r b d dm _ _ _ _ ns x; do
    if [[ $b,$d,$dm,$x = "$1,$2,$3,$4" ]]; then echo "$ns"; fi
  done < "$B/calibration.csv"
}

mkdir -p "$B/trees" "$B/run"
if [[ $STEP = all || $STEP = seq || $STEP = parallel ]]; then
  for g in $GRID; do
    IFS=: read -r b d dm x <<< "$g"
    t=$(tree_file "$b" "$d" "$x")
    if [[ ! -e $t ]]; then
      partial=("$t.$$.tmp")
      "$BIN/treegen" --model incremental --branching "$b" --depth "$d" --count "$COUNT" --eval-noise "${x:-0}" -o "$t.$$.tmp"
      mv "$t.$$.tmp" "$t"
      partial=()
    fi
    mkdir -p "$B/run/$(group "$b" "$d" "$dm" "$x")"
  done
fi

# ---- 1. the sequential items --------------------------------------------------------
if [[ $STEP = all || $STEP = seq ]]; then
  i=0
  for g in $GRID; do
    IFS=: read -r b d dm x <<< "$g"
    for t in $(seq 1 "$COUNT"); do
      i=$((i + 1))
      mine "$i" || continue
      # shellcheck disable=SC2086 # ARGS is a list of options
      item "$B/run/$(group "$b" "$d" "$dm" "$x")/t$(printf %02d "$t")-seq.csv" "$(tree_file "$b" "$d" "$x")" "$t" --procs 1 --node-ns "$SEQ_NODE_NS" $ARGS
    done
  done
fi

# ---- 2. calibration and the parallel items ------------------------------------------
if [[ $STEP = all || $STEP = parallel ]]; then
  calibrate
  # Listed once, before the loop: a pabsim that cannot list them stops the step.
  cfgs=$(configs)
  i=0
  for g in $GRID; do
    IFS=: read -r b d dm x <<< "$g"
    ns=$(node_ns "$b" "$d" "$dm" "$x")
    for t in $(seq 1 "$COUNT"); do
      while read -r name p a e; do
        [[ -n $name ]] || continue
        i=$((i + 1))
        mine "$i" || continue
        eps=()
        [[ $e = - ]] || eps=(--epsilon "$e")
        # d′ is the master-worker's: another algorithm of ALGORITHMS (ybwc,
        # fox, …) runs with its own defaults beside it.
        master=()
        [[ $a = master-worker* ]] && master=(--master-depth "$dm")
        # A tree's items share its sequential baseline (searched by the
        # first, read by the others): the same rows, half the work.
        tn=$B/run/$(group "$b" "$d" "$dm" "$x")/t$(printf %02d "$t")
        # shellcheck disable=SC2086 # ARGS is a list of options
        item "$tn-$name.csv" "$(tree_file "$b" "$d" "$x")" "$t" \
          --procs "$p" --algorithm "$a" "${master[@]}" --node-ns "$ns" "${eps[@]}" --baseline-cache "$tn-baseline.json" $ARGS
      done <<< "$cfgs"
    done
  done
fi

# ---- 3. summary: everything finished so far ------------------------------------------
# calibration.csv; items.csv, one row per item, sequential times at the
# calibrated cost; table1.csv and table6.csv, per group and configuration
# over the trees that also have their sequential item: search time as the
# geometric mean over the trees (s), speed-up (the baseline's geometric mean
# over this one's), leaves (mean per tree, millions) and their ratio to the
# baseline's, idle times per process (mean over trees, s); cost.csv, per
# configuration the items' wall and CPU time (user + system) and the largest
# peak memory (resident set), then the whole grid.
[[ $STEP = all || $STEP = summary ]] || exit 0
ura summary "$B"
say "$B/table1.csv, $B/table6.csv"
say "$B/cost.csv"
