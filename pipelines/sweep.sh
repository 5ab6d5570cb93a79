#!/usr/bin/env bash
# The parameter search of `docs/model.md` §6 for pabsim: for every ordering and
# p = 12, 24, 48, scheme A with m_A = 1..10, scheme B with m_B = 1..10, scheme C
# with m_Ca = -14..2 (each file sweeps m_Cc = 0..4). One output file per item;
# files that exist are skipped, so an interrupted sweep resumes where it
# stopped. SHARD=K/N runs every N-th item only (split the sweep over machines);
# PROCS, ORDERINGS and SCHEMES narrow it (e.g. PROCS=48 for the largest machine
# only, SCHEMES=c for scheme C only).
# Scheme C items need results/weights/B-WA-WB.json (nntrain); without it they
# are reported and skipped.
set -euo pipefail
BIN=${BIN:-target/release}
R=${R:-results}
ORDERINGS=${ORDERINGS:-"32-79-5 20-69-19 32-66-66 32-33-33 32-0-0"}
PROCS=${PROCS:-"12 24 48"}
SCHEMES=${SCHEMES:-"a b c"}
# STEP=items runs the items only, STEP=summary writes the summary only (a Slurm
# array's tasks and its final job, pipelines/slurm/sweep.sh); default both.
TOOL=sweep
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_shard
check_step all items summary
check_dir R
check_tools pabsim
check_words ORDERINGS 32-79-5 20-69-19 32-66-66 32-33-33 32-0-0
check_ints PROCS 1 1024
check_words SCHEMES a b c
i=0
[ "$STEP" = summary ] && ORDERINGS=""
for o in $ORDERINGS; do
  trees=$R/trees/tg1-$o-d6.jsonl
  base=$R/pabsim/tg1-$o-d6-p1.csv
  out=$R/sweep/$o
  mkdir -p "$out"
  for p in $PROCS; do
    items=()
    for v in $(seq 1 10); do items+=("a $v" "b $v"); done
    for v in $(seq -14 2); do items+=("c $v"); done
    for it in "${items[@]}"; do
      [[ " $SCHEMES " == *" ${it%% *} "* ]] || continue
      i=$((i + 1))
      mine "$i" || continue
      set -- $it
      f=$out/p$p-$1-$2.csv
      [[ -e $f ]] && continue
      case $1 in
        a) args=(--scheme a --m-a "$2") ;;
        b) args=(--scheme b --m-b "$2") ;;
        c) w=$R/weights/$o.json
           if [[ ! -e $w ]]; then echo "sweep: no $w (run nntrain first); skipping scheme c" >&2; continue; fi
           args=(--scheme c --weights "$w" --m-ca "$2" --m-cc 0..4) ;;
      esac
      echo "sweep: $f" >&2
      "$BIN/pabsim" --procs "$p" "${args[@]}" --baseline "$base" "$trees" -o "$f"
    done
  done
done
# One table of everything finished so far.
[ "$STEP" = items ] && exit 0
mkdir -p "$R/sweep"
partial=("$R/sweep/summary.csv.tmp")
find "$R/sweep" -name 'p*.csv' | sort | { read -r first || exit 0; { cat "$first"; while read -r f; do tail -n +2 "$f"; done; } ; } > "$R/sweep/summary.csv.tmp"
mv "$R/sweep/summary.csv.tmp" "$R/sweep/summary.csv"
partial=()
