#!/usr/bin/env bash
# Beyond the thesis: the parallel search algorithms side by side on the
# simulated machine, from 2 to 1,024 processors (`docs/beyond.md`).
#
# 1. tune: for every ordering, each algorithm's parameters by a small sweep
#    at p = TUNE_PROCS on the first TUNE_TREES trees of depth 6 (queue locks):
#      dts     scheme A, m_A = 1..6
#      steal   scheme A, m_A = 1..6
#      active  scheme A (m_A = 1), minimum split depth 1..4 x split group 2, 4, 8, 16
#      pvsplit nothing to tune
#    The best speed-up wins (ties: the first, i.e. the smallest values);
#    `tuned.csv` states the choices.
# 2. run: every algorithm with its tuned parameters at every p in PROCS on the
#    first trees of depth 6 of the five orderings (COUNTS: how many of each;
#    the random ordering's trees are 8 times larger), and on the first
#    DEEP_TREES trees of (32, 79, 5) at depth 7; all with queue locks, and the
#    thesis's own machine (dts, test-and-set locks) beside them as `dts-tas`
#    up to p = TAS_MAX.
#    And DEPTH8_TREES trees of (32, 79, 5) at depth 8 (9.0 million nodes for
#    the first, sequentially) at p = PROCS8, queue locks only.
# 3. summary: one table, `results/beyond/algorithms.csv`.
#
# One output file per item; files that exist are skipped, so an interrupted
# run resumes where it stopped. SHARD=K/N runs every N-th item of step 2 only
# (every machine runs the small step 1 itself, with the same result); merge
# the machines' results/beyond directories, then run STEP=summary once.
set -euo pipefail
BIN=${BIN:-target/release}
R=${R:-results}
ORDERINGS=${ORDERINGS:-"32-79-5 20-69-19 32-66-66 32-33-33 32-0-0"}
PROCS=${PROCS:-"2 3 4 8 16 32 64 128 256 512 1024"}
COUNTS=${COUNTS:-"32-79-5:10 20-69-19:10 32-66-66:10 32-33-33:10 32-0-0:3"}
DEEP_TREES=${DEEP_TREES:-2}
TUNE_TREES=${TUNE_TREES:-5}
TAS_MAX=${TAS_MAX:-1024}
DEPTH8_TREES=${DEPTH8_TREES:-1}
PROCS8=${PROCS8:-"64 256 1024"}
TUNE_PROCS=${TUNE_PROCS:-64}
TOOL=beyond-algorithms
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_shard
check_step all items summary
check_dir R
check_tools treegen pabsim
check_words ORDERINGS 32-79-5 20-69-19 32-66-66 32-33-33 32-0-0
check_ints PROCS 1 1024
check_entries COUNTS '(32-79-5|20-69-19|32-66-66|32-33-33|32-0-0):(0|[1-9][0-9]{0,2})' "ordering:count entries (e.g. 32-0-0:3)"
check_int DEEP_TREES 0
check_int TUNE_TREES 1
check_int TAS_MAX 1 1024
check_int DEPTH8_TREES 0
check_ints PROCS8 1 1024
check_int TUNE_PROCS 1 1024
B=$R/beyond
mkdir -p "$B/trees" "$B/tune" "$B/run"

say() { echo "beyond-algorithms: $*" >&2; }

# Tree specs and their p = 1 baselines (cheap; every machine makes its own).
trees() { # ordering depth count -> file
  local f=$B/trees/tg1-$1-d$2-n$3.jsonl
  [[ -e $f ]] || "$BIN/treegen" --set tg1 --ordering "${1//-/,}" --depth "$2" --count "$3" -o "$f"
  echo "$f"
}
baseline() { # trees-file -> p = 1 per-tree file
  local f=${1%.jsonl}-p1.csv
  [[ -e $f ]] || "$BIN/pabsim" --procs 1 --per-tree "$1" -o "$f"
  echo "$f"
}

# The value of column $2 in the row of file $1 with the largest su.
best() {
  awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["su"] + 0 > top + 0 || !seen { top = $c["su"]; v = $c[want]; seen = 1 } END { print v }' "$1"
}

if [[ $STEP != summary ]]; then
  # ---- 1. tune ---------------------------------------------------------------
  partial=("$B/tuned.csv.tmp")
  echo "ordering,policy,m_a,min_split_depth,split_group,su" > "$B/tuned.csv.tmp"
  for o in $ORDERINGS; do
    t=$(trees "$o" 6 "$TUNE_TREES"); base=$(baseline "$t")
    d=$B/tune/$o-n$TUNE_TREES-p$TUNE_PROCS; mkdir -p "$d"
    run() { local f=$d/$1.csv; shift; [[ -e $f ]] || { say "tune $f"; "$BIN/pabsim" --procs "$TUNE_PROCS" --lock queue "$@" --baseline "$base" "$t" -o "$f"; }; }
    run dts --algorithm dts --scheme a --m-a 1..6
    run steal --algorithm steal --scheme a --m-a 1..6
    for g in 2 4 8 16; do run "active-g$g" --algorithm active --scheme a --m-a 1 --min-split-depth 1..4 --split-group "$g"; done
    { head -1 "$d/active-g2.csv"; for g in 2 4 8 16; do tail -n +2 "$d/active-g$g.csv"; done; } > "$d/active.csv"
    for pol in dts steal active; do
      f=$d/$pol.csv
      echo "$o,$pol,$(best "$f" m_a),$(best "$f" min_split_depth),$(best "$f" split_group),$(best "$f" su)" >> "$B/tuned.csv.tmp"
    done
  done
  mv "$B/tuned.csv.tmp" "$B/tuned.csv"
  partial=()
  tuned() { awk -F, -v o="$1" -v p="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $1 == o && $2 == p { print $c[col] }' "$B/tuned.csv"; }

  # ---- 2. run ----------------------------------------------------------------
  i=0
  count_of() { local c; for c in $COUNTS; do [[ ${c%:*} = "$1" ]] && { echo "${c#*:}"; return; }; done; echo 10; }
  for od in $(for o in $ORDERINGS; do echo "$o:6:$(count_of "$o")"; done) "32-79-5:7:$DEEP_TREES" "32-79-5:8:$DEPTH8_TREES"; do
    IFS=: read -r o depth count <<< "$od"
    [[ $count -gt 0 ]] || continue
    case " $ORDERINGS " in *" $o "*) ;; *) continue ;; esac
    t=$(trees "$o" "$depth" "$count")
    d=$B/run/$o-d$depth-n$count; mkdir -p "$d"
    procs=$PROCS; [[ $depth = 8 ]] && procs=$PROCS8
    for p in $procs; do
      for line in dts-tas dts pvsplit steal active; do
        i=$((i + 1))
        mine "$i" || continue
        f=$d/p$p-$line.csv
        [[ -e $f ]] && continue
        [[ $line = dts-tas && ( $p -gt $TAS_MAX || $depth = 8 ) ]] && continue
        case $line in
          dts-tas) args=(--algorithm dts --scheme a --m-a "$(tuned "$o" dts m_a)" --lock tas) ;;
          dts) args=(--algorithm dts --scheme a --m-a "$(tuned "$o" dts m_a)" --lock queue) ;;
          pvsplit) args=(--algorithm pvsplit --lock queue) ;;
          steal) args=(--algorithm steal --scheme a --m-a "$(tuned "$o" steal m_a)" --lock queue) ;;
          active) args=(--algorithm active --scheme a --m-a 1 --min-split-depth "$(tuned "$o" active min_split_depth)" \
                          --split-group "$(tuned "$o" active split_group)" --lock queue) ;;
        esac
        say "$f"
        "$BIN/pabsim" --procs "$p" "${args[@]}" --baseline "$(baseline "$t")" "$t" -o "$f"
      done
    done
  done
fi

# ---- 3. summary: everything finished so far, in one table ----------------------
[[ $STEP = items ]] && exit 0
partial=("$B/algorithms.csv.tmp")
find "$B/run" -name 'p*.csv' | sort -V | { read -r first || exit 0; { cat "$first"; while read -r f; do tail -n +2 "$f"; done; }; } > "$B/algorithms.csv.tmp"
mv "$B/algorithms.csv.tmp" "$B/algorithms.csv"
partial=()
say "$(($(wc -l < "$B/algorithms.csv") - 1)) rows -> $B/algorithms.csv"
