#!/usr/bin/env bash
# `make ura2014-slurm`: Ura et al.'s Tables 1 and 6 at the paper's size
# (pipelines/ura2014.sh) as Slurm job arrays of N tasks: the sequential
# items (task K runs STEP=seq SHARD=K/N), then, once every one succeeded,
# the parallel items (STEP=parallel, each task working out the same
# calibration from the sequential items), then the summary. Each item is
# one output file, so tasks never write the same file and a resubmission
# skips what exists.
#
#   pipelines/slurm/ura2014.sh N      (BIN, R, GRID, COUNT, PROCS, ARGS, ... as
#                                      for ura2014.sh; SBATCH_ARGS for partition,
#                                      time, account, --mem; WAIT=1 waits for
#                                      the summary and returns its status)
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:?usage: $0 TASKS}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "ura2014-slurm: TASKS must be a positive number, not $n" >&2; exit 2; }
# Nothing is made without Slurm to submit to.
command -v sbatch > /dev/null || { echo "ura2014-slurm: sbatch not found: run this on a Slurm login node (pipelines/ura2014.sh runs the same items on one machine)" >&2; exit 2; }
BIN=$(realpath "${BIN:-target/release}")
R=$(realpath "${R:-results}")
export BIN R
mkdir -p "$R/ura2014"
log=$R/ura2014/slurm
mkdir -p "$log"
# shellcheck disable=SC2016,SC2086 # expanded by the task's shell, not here
seq_job=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL --array="1-$n" --cpus-per-task=1 --job-name=parab-ura2014-seq -o "$log/seq-%A_%a.log" \
  --wrap 'STEP=seq SHARD=$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT pipelines/ura2014.sh')
seq_job=${seq_job%%;*}
# shellcheck disable=SC2016,SC2086
par_job=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL --array="1-$n" --cpus-per-task=1 --dependency="afterok:$seq_job" --kill-on-invalid-dep=yes \
  --job-name=parab-ura2014-parallel -o "$log/parallel-%A_%a.log" \
  --wrap 'STEP=parallel SHARD=$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT pipelines/ura2014.sh')
par_job=${par_job%%;*}
wait_flag=()
[ "${WAIT:-0}" = 1 ] && wait_flag=(--wait)
# shellcheck disable=SC2086
summary=$(sbatch --parsable ${SBATCH_ARGS:-} --export=ALL "${wait_flag[@]}" --dependency="afterok:$par_job" --kill-on-invalid-dep=yes --job-name=parab-ura2014-summary \
  -o "$log/summary-%j.log" --wrap 'STEP=summary pipelines/ura2014.sh')
echo "ura2014: sequential array $seq_job, parallel array $par_job ($n tasks each), summary job ${summary%%;*} -> $R/ura2014/table1.csv, table6.csv" >&2
