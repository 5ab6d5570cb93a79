#!/usr/bin/env bash
# Seed study of scheme C (docs/findings.md): how much of the difference from
# Table 5.4 is the network's random start. For every seed, trains the five
# networks on the chapter-5 training sets (one nntrain run) and scores scheme C
# alone (m = 0..50) on the 100 tg1 trees of each ordering at depth 6; prints one
# line per (seed, ordering) with the best m, then min / median / max per
# ordering against the thesis's best-m error.
#
#   make chapter5 && scripts/seed-study.sh [FIRST [LAST]]     # seeds 1..8 by default
#
# Needs the tree and training-set files of `make chapter5` under $R (results/).
# Writes $OUT (default $R/seed-study/): the networks per seed and best.csv.
# CPU: five networks take about 35 s per seed on two idle cores; run it with nice.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release}
R=${R:-results}
OUT=${OUT:-$R/seed-study}
first=${1:-1}
last=${2:-8}
ORDERINGS="32-79-5 20-69-19 32-66-66 32-33-33 32-0-0"
PUBLISHED=data/published/table-5.4-scheme-c.csv

sets=()
for o in $ORDERINGS; do
  for f in "$R/trainset/tg2-$o-d4.csv" "$R/trees/tg1-$o-d6.jsonl"; do
    [ -s "$f" ] || { echo "seed-study: $f is missing; run make chapter5 first" >&2; exit 1; }
  done
  sets+=("$R/trainset/tg2-$o-d4.csv")
done
mkdir -p "$OUT"
best=$OUT/best.csv
echo "seed,b,wa,wb,m,error,e_type" > "$best.tmp"
for s in $(seq "$first" "$last"); do
  "$BIN/nntrain" --seed "$s" --out-dir "$OUT/seed-$s" "${sets[@]}"
  for o in $ORDERINGS; do
    et=$(grep -o '"e_type": [0-9.e+-]*' "$OUT/seed-$s/$o.json" | awk '{print $2}')
    # classify's columns: b,wa,wb,depth,trees,scheme,param,...,error,scored,best.
    "$BIN/classify" "$R/trees/tg1-$o-d6.jsonl" --scheme c --m 0..50 --weights "$OUT/seed-$s/$o.json" |
      awk -F, -v s="$s" -v et="$et" '$NF == 1 { print s "," $1 "," $2 "," $3 "," $7 "," $12 "," et }' | tee -a "$best.tmp"
  done
done
mv "$best.tmp" "$best"

# min / median (the lower of the middle two for an even count) / max per ordering.
echo
echo "ordering,seeds,min,median,max,thesis,min_rel,median_rel,max_rel"
for o in $ORDERINGS; do
  IFS=- read -r b wa wb <<< "$o"
  thesis=$(awk -F, -v b="$b" -v wa="$wa" -v wb="$wb" '$1 == b && $2 == wa && $3 == wb { print $9 }' "$PUBLISHED")
  awk -F, -v b="$b" -v wa="$wa" -v wb="$wb" 'NR > 1 && $2 == b && $3 == wa && $4 == wb { print $6 }' "$best" | sort -n |
    awk -v o="($b,$wa,$wb)" -v t="$thesis" '{ v[NR] = $1 } END {
      med = v[int((NR + 1) / 2)]
      printf "\"%s\",%d,%d,%d,%d,%d,%+.1f%%,%+.1f%%,%+.1f%%\n", o, NR, v[1], med, v[NR], t, (v[1] / t - 1) * 100, (med / t - 1) * 100, (v[NR] / t - 1) * 100
    }'
done
