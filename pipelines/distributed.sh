#!/usr/bin/env bash
# Beyond shared memory (issue 25): the sequential baseline and every
# algorithm of the simulated cluster (`docs/model.md` §9) on incremental
# random trees, at every process count of PROCS.
#
# 1. trees: COUNT trees of each (b, depth) of GRID (b = 5 and b = 20 at
#    depths a two-core machine affords; the paper's are 24 and 12).
# 2. run: one item per (tree group, process count): `pabsim --machine
#    cluster` with every algorithm of POLICIES, one row per algorithm
#    (geometric mean of times over the trees, as Ura et al.'s tables).
# 3. summary: one table, `results/distributed/distributed.csv` (the
#    baseline's row once per tree group).
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
POLICIES=${POLICIES:-even-split,master-slave,master-worker,master-worker-noupdate,master-worker-share,master-worker-negascout,ybwc}
SHARD=${SHARD:-1/1}
STEP=${STEP:-all}
k=${SHARD%/*}; n=${SHARD#*/}
B=$R/distributed
say() { echo "distributed: $*" >&2; }

mkdir -p "$B/trees" "$B/run"
if [[ $STEP != summary ]]; then
  i=0
  for g in $GRID; do
    IFS=: read -r b depth <<< "$g"
    t=$B/trees/b$b-d$depth-n$COUNT.jsonl
    if [[ ! -e $t ]]; then
      "$BIN/treegen" --model incremental --branching "$b" --depth "$depth" --count "$COUNT" -o "$t.tmp"
      mv "$t.tmp" "$t"
    fi
    for p in 1 $PROCS; do
      i=$((i + 1))
      (( (i - 1) % n == k - 1 )) || continue
      f=$B/run/b$b-d$depth-n$COUNT-p$p.csv
      [[ -e $f ]] && continue
      say "$f"
      if [[ $p = 1 ]]; then
        "$BIN/pabsim" --machine cluster --procs 1 "$t" -o "$f"
      else
        # The baseline's row is in the p = 1 file.
        "$BIN/pabsim" --machine cluster --procs 1,"$p" --policy "$POLICIES" "$t" | awk -F, 'NR == 1 || $7 != "seq"' > "$f.tmp"
        mv "$f.tmp" "$f"
      fi
    done
  done
fi

# ---- 3. summary: everything finished so far, in one table ----------------------
[[ $STEP = items ]] && exit 0
find "$B/run" -name '*.csv' | sort -V | { read -r first || exit 0; { cat "$first"; while read -r f; do tail -n +2 "$f"; done; }; } > "$B/distributed.csv.tmp"
mv "$B/distributed.csv.tmp" "$B/distributed.csv"
say "$B/distributed.csv"
