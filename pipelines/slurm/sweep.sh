#!/usr/bin/env bash
# `make sweep-slurm`: the parameter search (pipelines/sweep.sh) as a Slurm job
# array of N tasks, task K running SHARD=K/N (each item is one output file, so
# tasks never write the same file and a resubmitted array skips what exists),
# and a summary job that starts only when every task succeeded.
#
#   pipelines/slurm/sweep.sh N        (BIN, R, ORDERINGS, PROCS as for sweep.sh;
#                                      SBATCH_ARGS for partition, time, account)
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:?usage: $0 TASKS}
export BIN=$(realpath "${BIN:-target/release}") R=$(realpath "${R:-results}") ORDERINGS=${ORDERINGS:-"32-79-5 20-69-19 32-66-66 32-33-33 32-0-0"} PROCS=${PROCS:-"12 24 48"}
mkdir -p "$R/sweep"
# shellcheck disable=SC2016,SC2086 # expanded by the task's shell, not here
array=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL --array="1-$n" --job-name=parab-sweep -o "$R/sweep/slurm-%A_%a.log" \
  --wrap 'STEP=items SHARD=$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT pipelines/sweep.sh')
array=${array%%;*}
# shellcheck disable=SC2086
summary=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name=parab-sweep-summary \
  -o "$R/sweep/slurm-summary-%j.log" --wrap 'STEP=summary pipelines/sweep.sh')
echo "sweep: array job $array ($n tasks), summary job ${summary%%;*} -> $R/sweep/summary.csv" >&2
