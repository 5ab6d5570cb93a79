#!/usr/bin/env bash
# `make real`'s MPI runs (issue 26): the cluster's algorithms on real MPI
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
# measured costs: a node's, the one-rank baseline's time per tree over its
# nodes per tree;
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
# (time_ns is per tree, the geometric mean; nodes are summed over the trees.)
node_ns=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "algorithm") a = i; if ($i == "time_ns") t = i; if ($i == "nodes") n = i; if ($i == "trees") k = i }; next }
  $a == "seq" && !done { printf "%d", $t * $k / $n + 0.5; done = 1 }' "$out")
"$bin/treegen" --model incremental --branching 5 --depth 5 --count 1 -o "$tmp/rt.jsonl"
mpirun -q --oversubscribe "${root[@]}" -np 2 "$bin/psearch" --mpi "$tmp/rt.jsonl" --algorithm master-slave --split-ply 5 -o "$tmp/rt.csv"
msg_ns=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "algorithm") a = i; if ($i == "time_ns") t = i; if ($i == "messages") m = i }; next }
  $a == "master-slave" { printf "%d", $t / $m / 2 + 0.5 }' "$tmp/rt.csv")
sim=${out%.csv}-sim.csv
"$bin/pabsim" --machine cluster "$trees" --procs "$ranks" --algorithm "$all" --node-ns "$node_ns" --send-ns "$msg_ns" --recv-ns "$msg_ns" --latency-ns 0 -o "$sim.tmp"
mv "$sim.tmp" "$sim"
echo "make real: MPI runs in $out; the simulated cluster's prediction ($node_ns ns a node, $msg_ns ns per send and per receive) in $sim" >&2
