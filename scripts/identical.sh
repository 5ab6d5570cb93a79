#!/usr/bin/env bash
# Compares the outputs of two builds byte for byte: the check of every
# restructuring ("outputs byte-identical"). Usage:
#
#   scripts/identical.sh OLD_BIN NEW_BIN
#
# OLD_BIN and NEW_BIN are directories holding the tools (e.g. a copy of
# target/release made before the change, and target/release). Both run the
# whole smoke chain (every tool, artificial trees, chess and Othello, the
# report) and the engine's comparison set (every policy, both locks, both
# interleavings, scheme A and B sweeps to p = 256) and incremental trees
# with and without evaluation noise; then every file is
# compared with `cmp`. Prints one line per differing file and exits 1 if any.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 OLD_BIN NEW_BIN" >&2; exit 2; }
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

outputs() { # BIN DIR
  local bin=$1 out=$2
  mkdir -p "$out/engine"
  BIN=$bin KEEP=$out/smoke scripts/smoke.sh
  local e=$out/engine
  "$bin/treegen" --set tg1 --ordering 20,69,19 --depth 6 --count 10 -o "$e/t1.jsonl"
  "$bin/pabsim" --procs 1,2,3,12,48 --scheme a,b --per-tree --threads 2 "$e/t1.jsonl" -o "$e/ab.csv"
  "$bin/treegen" --set tg1 --ordering 32,79,5 --depth 5 --count 3 -o "$e/t2.jsonl"
  "$bin/pabsim" --policy dts,pvsplit,steal,active --procs 2,64,256 --m-a 1 --per-tree --threads 2 "$e/t2.jsonl" -o "$e/policies.csv"
  "$bin/pabsim" --policy dts,pvsplit,steal,active --procs 2,64,256 --m-a 1 --per-tree --threads 2 --lock queue "$e/t2.jsonl" -o "$e/queue.csv"
  "$bin/pabsim" --policy dts,pvsplit,steal,active --procs 2,64,256 --m-a 1 --per-tree --threads 2 --interleave state "$e/t2.jsonl" -o "$e/state.csv"
  "$bin/pabsim" --procs 2,8 --scheme a,b --m-a 1..3 --m-b 1..2 --pv-wait 0..1 --split-walk level "$e/t2.jsonl" -o "$e/grid.csv"
  "$bin/pabsim" --procs 1,8 --scheme c --m-ca -2..0 --m-cc 0..1 --cut-width 9..10 --weights "$out/smoke/weights/32-79-5.json" "$e/t2.jsonl" -o "$e/c.csv"
  # Incremental trees without noise and with independent errors (their
  # own move lists and node layout), through the search, the cluster and
  # the ordering measures.
  local x
  for x in 0 300; do
    "$bin/treegen" --model incremental --branching 5 --depth 11 --count 4 --eval-noise "$x" -o "$e/inc$x.jsonl"
    "$bin/fbest" --per-tree "$e/inc$x.jsonl" -o "$e/inc$x-fbest.csv"
    "$bin/fbest" --accuracy 5 "$e/inc$x.jsonl" -o "$e/inc$x-accuracy.csv"
    "$bin/pabsim" --machine cluster --procs 1,8,64 --algorithm master-worker,master-worker-noupdate,ybwc,fox,pv-split --per-tree --threads 1 "$e/inc$x.jsonl" -o "$e/inc$x-cluster.csv"
  done
}
# Both builds write into the same directory (the report names its inputs'
# paths), moved aside after each run.
outputs "$old" "$tmp/run" && mv "$tmp/run" "$tmp/old"
outputs "$new" "$tmp/run" && mv "$tmp/run" "$tmp/new"
bad=0
while IFS= read -r f; do
  if ! cmp -s "$tmp/old/$f" "$tmp/new/$f"; then echo "differs: $f"; bad=1; fi
done < <(cd "$tmp/old" && find . -type f | sort)
[ "$(cd "$tmp/old" && find . -type f | wc -l)" -eq "$(cd "$tmp/new" && find . -type f | wc -l)" ] || { echo "the builds wrote different sets of files"; bad=1; }
[ $bad -eq 0 ] && echo "identical: $(cd "$tmp/old" && find . -type f | wc -l) files"
exit $bad
