#!/usr/bin/env bash
# Smoke run: the whole chain on a tiny configuration (4 trees per ordering,
# depth 3) in a temporary directory, then checks that every output exists and
# parses. Run through `make smoke` (part of `make test`). Quiet unless stderr
# is a terminal or something fails. KEEP=DIR keeps the outputs in DIR
# (scripts/identical.sh compares two builds' outputs that way).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=${KEEP:-$tmp/results}
ORDERINGS="32-79-5 20-69-19 32-66-66 32-33-33 32-0-0"
say() { if [ -t 2 ]; then printf 'smoke: %s\n' "$*" >&2; fi; }
fail() { printf 'smoke: %s\n' "$*" >&2; exit 1; }

# ---- the chain ---------------------------------------------------------------------
mkdir -p "$R/trees" "$R/fbest" "$R/nodes"
say "trees and node counts"
for o in $ORDERINGS; do
  "$BIN/treegen" --set tg1 --ordering "${o//-/,}" --depth 3 --count 4 -o "$R/trees/tg1-$o-d3.jsonl"
  "$BIN/fbest" --per-tree "$R/trees/tg1-$o-d3.jsonl" -o "$R/nodes/tg1-$o-d3.csv"
done
say "f_best, analytic, chess"
"$BIN/fbest" "$R/trees/tg1-32-79-5-d3.jsonl" -o "$R/fbest/tg1-32-79-5-d3.csv"
"$BIN/fbest" --analytic $(for o in $ORDERINGS; do printf -- '--ordering %s ' "${o//-/,}"; done) -o "$R/fbest/analytic.csv"
"$BIN/fbest" --rajahx data/rajahx-fbest.csv -o "$R/fbest/rajahx.csv"
say "chapter 5: training sets, networks, classification"
mkdir -p "$R/trainset" "$R/weights" "$R/classify" "$R/pabsim"
for o in $ORDERINGS; do
  "$BIN/treegen" --set tg2 --ordering "${o//-/,}" --depth 3 --count 8 | "$BIN/trainset" -o "$R/trainset/tg2-$o-d3.csv"
done
"$BIN/nntrain" --seed 1 --iterations 20 --out-dir "$R/weights" $(for o in $ORDERINGS; do printf '%s ' "$R/trainset/tg2-$o-d3.csv"; done)
for o in $ORDERINGS; do
  # classify loads and validates the network: a weights file that does not parse fails here.
  "$BIN/classify" "$R/trees/tg1-$o-d3.jsonl" --scheme a,b,c --n 1..3 --m 0..50 --weights "$R/weights/$o.json" -o "$R/classify/tg1-$o-d3.csv"
done
say "chapter 6: the simulated machine"
for o in $ORDERINGS; do
  t=$R/trees/tg1-$o-d3.jsonl
  "$BIN/pabsim" --procs 1 --per-tree "$t" -o "$R/pabsim/tg1-$o-d3-p1.csv"
  "$BIN/pabsim" --procs 4,8 --scheme a,b,c --weights "$R/weights/$o.json" --baseline "$R/pabsim/tg1-$o-d3-p1.csv" "$t" -o "$R/pabsim/tg1-$o-d3-abc.csv"
done
say "real games: chess and Othello through every tool"
G=$R/games
mkdir -p "$G"/{fbest,fit,fitted,classify,pabsim,weights}
for g in chess othello; do
  if [ $g = chess ]; then test=data/positions/bratko-kopec.epd; else test=data/positions/othello-test.txt; fi
  "$BIN/treegen" --game $g --positions $test --depth 3 --count 4 -o "$tmp/$g-test.jsonl"
  "$BIN/fbest" "$tmp/$g-test.jsonl" -o "$G/fbest/$g-test-d3.csv"
  "$BIN/fbest" --per-tree "$tmp/$g-test.jsonl" -o "$G/fbest/$g-test-d3-per-tree.csv"
  "$BIN/fbest" --fit "$G/fbest/$g-test-d3.csv" --fit-trees 1 --fit-depth 2 -o "$G/fit/$g-test-d3.csv"
  "$BIN/positions" --game $g --count 8 --seed 1 --plies 8..16 | "$BIN/treegen" --game $g --positions - --depth 3 | "$BIN/trainset" -o "$tmp/$g-p.csv"
  "$BIN/nntrain" --seed 1 --iterations 20 "$tmp/$g-p.csv" -o "$G/weights/$g.json"
  "$BIN/classify" "$tmp/$g-test.jsonl" --scheme a,b,c --n 1..3 --weights "$G/weights/$g.json" -o "$G/classify/$g-test-d3.csv"
  "$BIN/pabsim" --procs 1 --per-tree "$tmp/$g-test.jsonl" -o "$G/pabsim/$g-test-d3-p1.csv"
  "$BIN/pabsim" --procs 4 --scheme a,b,c --weights "$G/weights/$g.json" --baseline "$G/pabsim/$g-test-d3-p1.csv" "$tmp/$g-test.jsonl" -o "$G/pabsim/$g-test-d3-abc.csv"
done
"$BIN/treegen" --set tg1 --ordering 39,90,24 --depth 3 --count 4 | "$BIN/fbest" -o "$G/fitted/chess.csv"

say "report"
if ! SOURCE_DATE_EPOCH=0 "$BIN/report" --results "$R" --published data/published 2>"$tmp/report.err"; then
  cat "$tmp/report.err" >&2
  fail "report failed"
fi

# ---- checks ------------------------------------------------------------------------
check_csv() { # header present, at least one row, every row as wide as the header
  [ -s "$1" ] || fail "missing or empty: $1"
  awk -F, 'NR==1{n=NF; if (n<2) exit 1; next} NF!=n{print FILENAME":"NR": "NF" fields, header has "n; bad=1} END{if (NR<2 || bad) exit 1}' "$1" || fail "does not parse: $1"
}
check_jsonl() {
  [ -s "$1" ] || fail "missing or empty: $1"
  awk '!/^\{.*\}$/{print FILENAME":"NR; bad=1} END{exit bad}' "$1" || fail "does not parse: $1"
}
for o in $ORDERINGS; do
  check_jsonl "$R/trees/tg1-$o-d3.jsonl"
  check_csv "$R/nodes/tg1-$o-d3.csv"
done
for f in tg1-32-79-5-d3 analytic rajahx; do check_csv "$R/fbest/$f.csv"; done
for o in $ORDERINGS; do
  check_csv "$R/trainset/tg2-$o-d3.csv"
  check_csv "$R/weights/$o-curve.csv"
  grep -q '"format": *"parab-nn-weights"' "$R/weights/$o.json" || fail "not a weights file: $R/weights/$o.json"
  check_csv "$R/classify/tg1-$o-d3.csv"
  [ "$(grep -c ',1$' "$R/classify/tg1-$o-d3.csv")" -eq 3 ] || fail "want one best row per scheme: $R/classify/tg1-$o-d3.csv"
  check_csv "$R/pabsim/tg1-$o-d3-p1.csv"
  check_csv "$R/pabsim/tg1-$o-d3-abc.csv"
  # Three schemes at two machine sizes, each with its speed-up against p = 1.
  [ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "su") c = i; next } $c != "" { n++ } END { print n + 0 }' "$R/pabsim/tg1-$o-d3-abc.csv")" -eq 6 ] \
    || fail "want 6 rows with a speed-up: $R/pabsim/tg1-$o-d3-abc.csv"
done
html=$R/report/index.html
[ -s "$html" ] || fail "missing: $html"
tail -n 1 "$html" | grep -qx '</html>' || fail "truncated: $html"
for f in "$G"/*/*.csv; do check_csv "$f"; done
for id in tables-4-1-4-3 table-4-4 table-4-5 figure-4-6 table-5-1 table-5-2 table-5-3 table-5-4 figures-5-4-5-5 table-6-3 tables-6-4-6-8 time-per-state games; do
  grep -q "<section id=\"$id\">" "$html" || fail "section $id missing from $html"
done
n_md=0
for f in "$R"/report/*.md; do
  [ -s "$f" ] || fail "empty: $f"
  grep -q '^| ' "$f" || fail "no table in $f"
  n_md=$((n_md + 1))
done
[ "$(grep -c '<table id=' "$html")" -eq "$n_md" ] || fail "$n_md Markdown tables but $(grep -c '<table id=' "$html") tables in the page"
grep -q 'our chess program (depth 3)' "$R/figures/figure-4-5.svg" || fail "Figure 4.5 lacks our chess curve"
# Findings print counts with thousands separators: no run of five
# or more digits outside decimals in a finding.
if grep '^<li>' "$html" | grep -v 'href' | grep -qE '(^|[^.0-9])[0-9]{5,}'; then
  fail "a finding prints a number without thousands separators: $(grep '^<li>' "$html" | grep -v href | grep -E '(^|[^.0-9])[0-9]{5,}' | head -1)"
fi
for t in games-pbest games-fit games-classify games-pabsim; do [ -s "$R/report/$t.md" ] || fail "missing table $t"; done
for fig in figure-4-5 figure-4-6; do
  svg=$R/figures/$fig.svg png=$R/figures/$fig.png
  head -c 200 "$svg" | grep -q '<svg' || fail "not an SVG: $svg"
  tail -c 20 "$svg" | grep -q '</svg>' || fail "truncated: $svg"
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "not a PNG: $png"
done
say "ok: $(find "$R" -type f | wc -l) files"
