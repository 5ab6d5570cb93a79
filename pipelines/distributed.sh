#!/usr/bin/env bash
# Beyond shared memory: the sequential baseline and every
# algorithm of the simulated cluster (`docs/model.md` §9) on incremental
# random trees, at every process count of PROCS.
#
# 1. trees: COUNT trees of each (b, depth) of GRID (b = 5 and b = 20 at
#    depths a two-core machine affords; the paper's are 24 and 12).
# 2. run: one item per (tree group, process count): `pabsim --machine
#    cluster` with every algorithm of ALGORITHMS (default: every parallel
#    one of the registry, `pabsim --machine cluster --list-algorithms`), one row per algorithm
#    (geometric mean of times over the trees, as Ura et al.'s tables).
#    TOPOLOGIES (default flat) lists the simulated networks
#    (`docs/model.md` §9.1): each other than flat runs every count above 1
#    again with `--topology T` (and NET_ARGS, e.g. `--hop-ns 5000
#    --node-cores 4`, given to those runs only) into run-T/, its summary
#    distributed-T.csv beside distributed.csv (the baseline's rows are
#    flat's: it sends no message). Each topology costs about the flat run
#    again (BENCHMARKS.md), so the default runs flat alone.
# 3. factors: Ura et al.'s §5.2 leaf counts (`pabsim --machine cluster
#    --leaf-factors`), the sequential search made to behave like the
#    workers, with d − d′ fixed and d growing: FACTORS lists
#    family:b:depths:d−d′ (b is the position file for the games).
# 4. summary: `results/distributed/distributed.csv` (the baseline's row
#    once per tree group) and `results/distributed/factors.csv`.
#
# One output file per item; files that exist are skipped, so an interrupted
# run resumes where it stopped. SHARD=K/N runs every N-th item of step 2
# (every machine builds the trees itself, with the same result); merge the
# machines' results/distributed directories, then run STEP=summary once.
set -euo pipefail
BIN=${BIN:-target/release}
R=${R:-results}
GRID=${GRID:-"5:12 20:6"}
COUNT=${COUNT:-32}
PROCS=${PROCS:-"2 4 8 16 32 64 128 256 512 1024 1536 4096"}
FACTORS=${FACTORS:-"incremental:5:6,8,10,12:4 incremental:20:3,4,5,6:2 chess:data/positions/bratko-kopec.epd:3,4,5:2 othello:data/positions/othello-test.txt:4,5,6,7:3"}
TOPOLOGIES=${TOPOLOGIES:-flat}
NET_ARGS=${NET_ARGS:-}
TOOL=distributed
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_shard
check_step all items summary
check_dir R
check_tools treegen pabsim
check_entries GRID '[1-9][0-9]{0,3}:[1-9][0-9]{0,2}' "b:depth entries (e.g. 5:12)"
check_int COUNT 1
# P = 1 (the sequential baseline) is run anyway.
[[ " $PROCS " = *[[:space:]]1[[:space:]]* ]] && refuse PROCS "process counts from 2 to 4096 separated by spaces (P = 1, the baseline, is run anyway)"
check_ints PROCS 2 4096
[[ -z ${POLICIES:-} ]] || refuse POLICIES "unset: it is now ALGORITHMS"
# The registry's parallel algorithms unless ALGORITHMS names some; every name checked by pabsim now.
known=$("$BIN/pabsim" --machine cluster --list-algorithms)
ALGORITHMS=${ALGORITHMS:-$(paste -sd, - <<< "$known")}
[[ $ALGORITHMS =~ ^[a-z][a-z0-9+-]*(,[a-z][a-z0-9+-]*)*$ ]] || refuse ALGORITHMS "cluster algorithm names separated by commas (pabsim --machine cluster --list-algorithms)"
for a in ${ALGORITHMS//,/ }; do
  # YBWC's other sets of switches (ybwc+W…, ybwc-full-no-W) are pabsim's to check.
  grep -qx -- "$a" <<< "$known" || [[ $a = ybwc[+-]* ]] || refuse ALGORITHMS "names of pabsim --machine cluster --list-algorithms separated by commas (no $a)"
done
check_entries FACTORS '(incremental:[1-9][0-9]{0,3}|(chess|othello):[^:]+):[1-9][0-9]{0,2}(,[1-9][0-9]{0,2})*:[1-9][0-9]{0,2}' "family:b:depths:d−d′ entries (family incremental, chess or othello; b a position file for the games)"
for g in $FACTORS; do
  IFS=: read -r family b depths task <<< "$g"
  for depth in ${depths//,/ }; do
    ((task < depth)) || refuse FACTORS "family:b:depths:d−d′ entries with d−d′ below every depth"
  done
  [[ $family = incremental || -f $b ]] || refuse FACTORS "family:b:depths:d−d′ entries whose position files exist (no $b)"
done
check_words TOPOLOGIES flat hypercube fat-tree
B=$R/distributed
say() { echo "distributed: $*" >&2; }
# The rows but the sequential baseline's, found by the header's name.
without_seq() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "algorithm") c = i } NR == 1 || $c != "seq"'; }
# The factor item of FACTORS' family $1, b or position file $2, depth $3.
factor_file() { echo "$B/factors/$1-$(basename "$2" | sed 's/\..*//')-d$3.csv"; }

mkdir -p "$B/trees" "$B/run" "$B/factors"
for top in $TOPOLOGIES; do
  [[ $top = flat ]] || mkdir -p "$B/run-$top"
done
if [[ $STEP != summary ]]; then
  i=0
  for g in $GRID; do
    IFS=: read -r b depth <<< "$g"
    t=$B/trees/b$b-d$depth-n$COUNT.jsonl
    if [[ ! -e $t ]]; then
      partial=("$t.$$.tmp")
      "$BIN/treegen" --model incremental --branching "$b" --depth "$depth" --count "$COUNT" -o "$t.$$.tmp"
      mv "$t.$$.tmp" "$t"
      partial=()
    fi
    for p in 1 $PROCS; do
      i=$((i + 1))
      mine "$i" || continue
      f=$B/run/b$b-d$depth-n$COUNT-p$p.csv
      [[ -e $f ]] && continue
      say "$f"
      if [[ $p = 1 ]]; then
        "$BIN/pabsim" --machine cluster --procs 1 "$t" -o "$f"
      else
        # The baseline's row is in the p = 1 file.
        partial=("$f.tmp")
        "$BIN/pabsim" --machine cluster --procs 1,"$p" --algorithm "$ALGORITHMS" "$t" | without_seq > "$f.tmp"
        mv "$f.tmp" "$f"
        partial=()
      fi
    done
    for top in $TOPOLOGIES; do
      [[ $top = flat ]] && continue
      for p in $PROCS; do
        i=$((i + 1))
        mine "$i" || continue
        f=$B/run-$top/b$b-d$depth-n$COUNT-p$p.csv
        [[ -e $f ]] && continue
        say "$f"
        partial=("$f.tmp")
        # shellcheck disable=SC2086 # NET_ARGS is a list of options
        "$BIN/pabsim" --machine cluster --procs 1,"$p" --algorithm "$ALGORITHMS" --topology "$top" $NET_ARGS "$t" | without_seq > "$f.tmp"
        mv "$f.tmp" "$f"
        partial=()
      done
    done
  done
  for g in $FACTORS; do
    IFS=: read -r family b depths task <<< "$g"
    for depth in ${depths//,/ }; do
      i=$((i + 1))
      mine "$i" || continue
      f=$(factor_file "$family" "$b" "$depth")
      [[ -e $f ]] && continue
      say "$f"
      if [[ $family = incremental ]]; then
        trees=(--model incremental --branching "$b" --count "$COUNT")
      else
        trees=(--game "$family" --positions "$b")
      fi
      partial=("$f.tmp")
      "$BIN/treegen" "${trees[@]}" --depth "$depth" | "$BIN/pabsim" --machine cluster --leaf-factors --master-depth $((depth - task)) -o "$f.tmp"
      mv "$f.tmp" "$f"
      partial=()
    done
  done
fi

# ---- 4. summary: everything finished so far, in one table ----------------------
[[ $STEP = items ]] && exit 0
partial=("$B/distributed.csv.tmp")
find "$B/run" -name '*.csv' | sort -V | { read -r first || exit 0; { cat "$first"; while read -r f; do tail -n +2 "$f"; done; }; } > "$B/distributed.csv.tmp"
mv "$B/distributed.csv.tmp" "$B/distributed.csv"
partial=()
say "$B/distributed.csv"
# Each other topology: its rows after the baseline's (the p = 1 files).
for top in $TOPOLOGIES; do
  [[ $top = flat ]] && continue
  partial=("$B/distributed-$top.csv.tmp")
  { find "$B/run" -name '*-p1.csv' | sort -V; find "$B/run-$top" -name '*.csv' | sort -V; } |
    { read -r first || exit 0; { cat "$first"; while read -r f; do tail -n +2 "$f"; done; }; } > "$B/distributed-$top.csv.tmp"
  mv "$B/distributed-$top.csv.tmp" "$B/distributed-$top.csv"
  partial=()
  say "$B/distributed-$top.csv"
done
# Factor rows in FACTORS' order.
partial=("$B/factors.csv.tmp")
{
  echo model,b,depth,master_depth,share_depth,trees,leaves,leaves_unshared,leaves_partial,leaves_full_window
  for g in $FACTORS; do
    IFS=: read -r family b depths task <<< "$g"
    for depth in ${depths//,/ }; do
      f=$(factor_file "$family" "$b" "$depth")
      [[ -e $f ]] && tail -n +2 "$f"
    done
  done
} > "$B/factors.csv.tmp"
mv "$B/factors.csv.tmp" "$B/factors.csv"
partial=()
say "$B/factors.csv"
