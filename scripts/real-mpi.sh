#!/usr/bin/env bash
# `make real`'s MPI runs: the cluster's algorithms on real MPI
# ranks, `psearch --mpi` under `mpirun -np N` for each N of RANKS (1: the
# sequential baseline alone), on the trees of `make real`, into one table
# (each count's rows begin with its own baseline; `host_load` and
# `free_cores` say how busy the host was, `oversubscribed` where ranks
# outnumbered the free cores). Builds the MPI tools in target/mpi/
# (`--features mpi`; quick when `make test` has built them).
#
# Where Open MPI or libclang is missing it prints one line and writes
# nothing: `make all` never needs MPI.
#
# Beside them (OUT with -sim before .csv): the simulated cluster's
# prediction for the same trees, algorithms and counts, with this host's
# measured costs: a leaf's and any other node's, from the
# one-rank baseline on the trees and on the same trees one ply deeper,
# each run three times after the jobs and its median time kept (a search
# of odd depth has far more leaves among its nodes than one of even depth,
# 0.92 against 0.69 on (32, 79, 5) trees, so the two runs separate the
# costs: each run's time per tree is its leaves at one cost and its other
# nodes at the other); one cost per node, the baseline's time over its
# nodes, where the trees have no depth to change or the two runs' leaf
# shares lie within 0.1 of each other;
# a wake-up's, each job's own measurement of a look for messages that finds
# none (its rows' wake_ns), each rank count predicted with its own;
# a message's, a quarter of a measured round trip (master-slave split at
# the leaves' ply of one small tree on 2 ranks, so a task is a leaf: a
# round trip is two sends and two receives; latency 0 on one host).
#
# Usage: scripts/real-mpi.sh TREES OUT RANKS    (RANKS e.g. 1,2,4,8)
#        scripts/real-mpi.sh --build             (the MPI tools only; silent without Open MPI)
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: $0 TREES OUT RANKS, or $0 --build"
have() { command -v "$1" >/dev/null 2>&1; }
libclang() { compgen -G '/usr/lib/llvm-*/lib/libclang*.so*' >/dev/null || compgen -G '/usr/lib/*/libclang*.so*' >/dev/null; }
mpi() { have mpicc && have mpirun && libclang; }
build() { CARGO_TARGET_DIR=target/mpi ${CARGO:-cargo} build --release -p parab --features mpi --bins; }
if [ "${1:-}" = --build ]; then
  [ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
  if mpi; then build; fi
  exit 0
fi
trees=${1:?$usage} out=${2:?$usage} ranks=${3:?$usage}
if ! mpi; then
  echo "make real: skipping the MPI runs: Open MPI or libclang is not installed (apt-get install libopenmpi-dev openmpi-bin libclang-dev clang)" >&2
  exit 0
fi
build
bin=target/mpi/release
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
all=even-split,master-slave,master-worker,master-worker-noupdate,master-worker-share,master-worker-negascout,ybwc,ybwc-full,pv-split,fox
tmp=$(mktemp -d /tmp/parab-real-mpi.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
first=1
for n in ${ranks//,/ }; do
  if [ "$n" = 1 ]; then policies=seq; else policies=$all; fi
  mpirun -q --oversubscribe "${root[@]}" -np "$n" "$bin/psearch" --mpi "$trees" --algorithm "$policies" -o "$tmp/$n.csv"
  if [ $first = 1 ]; then cat "$tmp/$n.csv"; else tail -n +2 "$tmp/$n.csv"; fi >> "$tmp/all.csv"
  first=0
done
mv "$tmp/all.csv" "$out"

# ---- the prediction -----------------------------------------------------------
# (time_ns is per tree, the geometric mean; nodes and leaves are summed over
# the trees.) The baseline one ply deeper: each tree's "depth" plus one (not
# shallower: a run of a few ms per tree is dominated by its first tree's
# cold caches, and measures 20-60% more per node than a longer run of the
# same leaf share).
awk '{ if (!match($0, /"depth":[0-9]+/)) exit 1; d = substr($0, RSTART + 8, RLENGTH - 8) + 1
  print substr($0, 1, RSTART - 1) "\"depth\":" d substr($0, RSTART + RLENGTH) }' "$trees" > "$tmp/deeper.jsonl" && deeper=1 || deeper=0
# The columns COLUMN... of FILE's first row of ALGORITHM (of any algorithm
# where it is empty), by the header's names: cols FILE ALGORITHM COLUMN...
cols() { awk -F, -v alg="$2" -v want="${*:3}" 'NR == 1 { n = split(want, w, " "); for (i = 1; i <= NF; i++) c[$i] = i; next }
  alg == "" || $c["algorithm"] == alg { for (j = 1; j <= n; j++) printf "%s%s", $c[w[j]], (j < n ? " " : "\n"); exit }' "$1"; }
# The baseline's time per tree, and its leaves and other nodes per tree:
# seq_row CSV...: the median time of the files' (the same trees, so the same
# leaves and nodes; the median, not the least, as the jobs' times are single
# runs).
seq_row() { for f in "$@"; do cols "$f" seq time_ns leaves nodes trees; done | sort -n | awk '{ t[NR] = $1; l = $2 / $4; o = ($3 - $2) / $4 } END { print t[int((NR + 1) / 2)], l, o }'; }
# The baseline's three runs on TREES into PREFIX-1.csv .. PREFIX-3.csv.
seq_runs() { mpirun -q --oversubscribe "${root[@]}" -np 1 "$bin/psearch" --mpi "$1" --algorithm seq -o "$2-$3.csv"; }
# The baseline measured after the jobs, three times, and its median time
# kept (once the first job's baseline, run on a host idle for minutes, gave
# 6.6 ns a leaf and 55.8 ns any other node against the usual 9 and 29.5);
# one ply deeper too, alternately, so that both depths meet an equally warm
# host.
for i in 1 2 3; do
  seq_runs "$trees" "$tmp/cal" "$i"
  [ $deeper = 0 ] || seq_runs "$tmp/deeper.jsonl" "$tmp/deeper" "$i"
done
if [ $deeper = 1 ]; then
  read -r costs why < <({ seq_row "$tmp"/cal-[123].csv; seq_row "$tmp"/deeper-[123].csv; } | awk 'NR == 1 { t1 = $1; l1 = $2; o1 = $3 } NR == 2 { t2 = $1; l2 = $2; o2 = $3 }
    END { one = sprintf("%.3f", t1 / (l1 + o1))
      if (l1 + o1 == 0 || l2 + o2 == 0 || (l1 / (l1 + o1) - l2 / (l2 + o2)) ^ 2 < 0.01) { print one, "the_leaf_shares_are_too_close"; exit }
      det = l1 * o2 - l2 * o1; leaf = (t1 * o2 - t2 * o1) / det; other = (l1 * t2 - l2 * t1) / det
      if (leaf < 0.5 || other < 0.5) { print one, "a_fitted_cost_is_below_0.5_ns"; exit }
      printf "%.3f,%.3f ok\n", leaf, other }')
else
  read -r costs why < <(seq_row "$tmp"/cal-[123].csv | awk '{ printf "%.3f no_depth_in_the_trees\n", $1 / ($2 + $3) }')
fi
if [ "$why" = ok ]; then
  leaf_ns=${costs%,*} node_ns=${costs#*,}
  cost_opts=(--leaf-ns "$leaf_ns" --node-ns "$node_ns")
  cost_words="$leaf_ns ns a leaf, $node_ns ns any other node"
else
  cost_opts=(--node-ns "$costs")
  cost_words="$costs ns a node (one cost: ${why//_/ })"
fi
"$bin/treegen" --model incremental --branching 5 --depth 5 --count 1 -o "$tmp/rt.jsonl"
mpirun -q --oversubscribe "${root[@]}" -np 2 "$bin/psearch" --mpi "$tmp/rt.jsonl" --algorithm master-slave --split-ply 5 -o "$tmp/rt.csv"
msg_ns=$(cols "$tmp/rt.csv" master-slave time_ns messages | awk '{ printf "%d", $1 / $2 / 2 + 0.5 }')
# A wake-up's cost: each job's own measurement of a look for messages that
# finds none (its rows' wake_ns; an Open MPI probe costs more with more peers),
# so each rank count is predicted with its own, and the rows joined in
# pabsim's order (the baseline, then each count's algorithms).
job_wake() { cols "$tmp/$1.csv" "" wake_ns | awk '{ print $1 + 0 }'; }
sim=${out%.csv}-sim.csv
rm -f "$sim.tmp"
first=1 wakes=""
for n in ${ranks//,/ }; do
  wake_ns=$(job_wake "$n")
  if [ "$n" = 1 ]; then policies=seq; else policies=$all; wakes+="${wakes:+, }$wake_ns ns at $n"; fi
  "$bin/pabsim" --machine cluster "$trees" --procs "$n" --algorithm "$policies" "${cost_opts[@]}" --wake-ns "$wake_ns" --send-ns "$msg_ns" --recv-ns "$msg_ns" --latency-ns 0 -o "$tmp/sim-$n.csv"
  if [ $first = 1 ]; then cat "$tmp/sim-$n.csv"; else tail -n +2 "$tmp/sim-$n.csv"; fi >> "$sim.tmp"
  first=0
done
mv "$sim.tmp" "$sim"
echo "make real: MPI runs in $out; the simulated cluster's prediction ($cost_words, $msg_ns ns per send and per receive, a wake-up ${wakes:-not at all}) in $sim" >&2
