#!/usr/bin/env bash
# Runs one pabsim run as a Slurm job array of N shards and a merge job that
# depends on it. Prints the two job ids; with WAIT=1 waits for the merge and
# returns its exit status.
#
#   pipelines/slurm/submit.sh N TREES OUT -- PABSIM_ARGS...
#   pipelines/slurm/submit.sh 8 results/trees/tg1-32-79-5-d6.jsonl results/ab.csv -- --procs 1,12,24,48 --scheme a,b
#
# Shards go to OUT.shards/ (a shared file system: every node must see BIN,
# TREES and OUT's directory). MERGE_ARGS=--per-tree keeps one row per tree;
# SBATCH_ARGS passes options to both sbatch calls (partition, time, account).
set -euo pipefail
cd "$(dirname "$0")/../.."
usage() { echo "usage: $0 N TREES OUT -- PABSIM_ARGS..." >&2; exit 2; }
[ $# -ge 4 ] && [ "$4" = -- ] || usage
n=$1 trees=$2 out=$3; shift 4
[[ $n =~ ^[1-9][0-9]*$ ]] || usage
BIN=$(realpath "${BIN:-target/release}")
trees=$(realpath "$trees")
mkdir -p "$(dirname "$out")"
out=$(realpath "$out")
dir=$out.shards
mkdir -p "$dir"
here=$(realpath pipelines/slurm)
wait_flag=()
[ "${WAIT:-0}" = 1 ] && wait_flag=(--wait)
# The jobs take their settings from this environment (--export=ALL): the
# options contain commas, which --export=NAME=VALUE lists cannot carry.
export BIN TREES=$trees PABSIM_ARGS="$*" DIR=$dir N=$n OUT=$out MERGE_ARGS=${MERGE_ARGS:-}
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL --array="1-$n" -o "$dir/slurm-%A_%a.log" "$here/shard.sbatch")
array=${array%%;*}
echo "array job $array: $n shards -> $dir" >&2
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL "${wait_flag[@]}" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  -o "$dir/slurm-merge-%j.log" "$here/merge.sbatch")
echo "merge job ${merge%%;*} (after $array) -> $out" >&2
