#!/usr/bin/env bash
# Integration test of the Slurm recipe (pipelines/slurm/): starts a one-node
# Slurm cluster of its own on this machine (a private slurm.conf, ports and
# spool directories, so it neither needs nor touches a system configuration),
# submits a pabsim run as a job array of 3 shards with a merge job that
# depends on it, waits, and compares the merged table byte for byte with the
# same run on one machine, and does the same for `make ura2014-slurm`
# (two job arrays and a summary job); with MPI_BIN (an MPI build's tools), also runs
# psearch --mpi over a 2-task allocation (pipelines/slurm/mpi.sbatch). Stops
# the daemons it started (by process id).
#
# Where the daemons cannot start (not root, Slurm or munge not installed, a
# daemon that exits), prints one line saying why and exits 0: a skip, not a
# pass. Run through `make test` (which installs slurm-wlm and munge where it
# can) or on its own: scripts/slurm-test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${BIN:-target/release}")
skip() { echo "slurm test skipped: $*" >&2; exit 0; }
fail() { echo "slurm test: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || skip "the daemons run as root here and this is user $(id -un)"
for c in slurmctld slurmd sbatch sinfo munged munge; do
  command -v "$c" >/dev/null || skip "$c is not installed (apt-get install slurm-wlm munge)"
done

tmp=$(mktemp -d /tmp/parab-slurm.XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
started() { # pid file -> pid, remembered for cleanup
  local f=$1
  for _ in $(seq 50); do [ -s "$f" ] && break; sleep 0.1; done
  [ -s "$f" ] || return 1
  pids+=("$(cat "$f")")
}

# munge: use a running munged if one answers, else start our own.
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  mkdir -p /run/munge /var/lib/munge /var/log/munge /etc/munge
  chown munge:munge /run/munge /var/lib/munge /var/log/munge 2>/dev/null || skip "no munge user"
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
    chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  fi
  rm -f /run/munge/munged.pid
  su -s /bin/sh munge -c /usr/sbin/munged 2>"$tmp/munged.err" || skip "munged does not start: $(head -c 200 "$tmp/munged.err" | tr '\n' ' ')"
  started /run/munge/munged.pid || skip "munged wrote no pid file"
  munge -n </dev/null | unmunge >/dev/null 2>&1 || skip "munged started but does not answer"
fi

# A private cluster: its own configuration, state, logs and ports.
host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/run"
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" <<CONF
ClusterName=parab$$
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=parab Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
why() { tail -n 3 "$tmp/log/$1.log" 2>/dev/null | tr '\n' ' ' | cut -c1-300; }
slurmctld -f "$SLURM_CONF" 2>/dev/null || skip "slurmctld does not start: $(why slurmctld)"
started "$tmp/run/slurmctld.pid" || skip "slurmctld does not start: $(why slurmctld)"
slurmd -f "$SLURM_CONF" 2>/dev/null || skip "slurmd does not start: $(why slurmd)"
started "$tmp/run/slurmd.pid" || skip "slurmd does not start: $(why slurmd)"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -qx idle && break
  sleep 0.5
done
sinfo -h -o %t 2>/dev/null | grep -qx idle || skip "the node did not become idle: $(why slurmd)"

# The run: 2 orderings x 4 trees at depth 4, p = 1 and 4, schemes a and b.
mkdir -p "$tmp/work"
"$BIN/treegen" --ordering 20,69,19 --ordering 32,79,5 --depth 4 --count 4 -o "$tmp/work/trees.jsonl"
args=(--procs 1,4 --scheme a,b)
"$BIN/pabsim" "$tmp/work/trees.jsonl" "${args[@]}" -o "$tmp/work/single.csv"
WAIT=1 BIN=$BIN pipelines/slurm/submit.sh 3 "$tmp/work/trees.jsonl" "$tmp/work/merged.csv" -- "${args[@]}" 2>"$tmp/submit.err" \
  || fail "the job array or its merge failed: $(tr '\n' ' ' < "$tmp/submit.err"; cat "$tmp"/work/merged.csv.shards/*.log 2>/dev/null | tail -n 5 | tr '\n' ' ')"
[ "$(ls "$tmp"/work/merged.csv.shards/shard-*-of-3.csv | wc -l)" = 3 ] || fail "want 3 shard files"
cmp "$tmp/work/single.csv" "$tmp/work/merged.csv" || fail "the merged table differs from the single-machine run"
echo "slurm test: 3 array tasks merged, identical to the single-machine run" >&2

# `make ura2014-slurm` (pipelines/slurm/ura2014.sh) on a tiny grid: the
# sequential and the parallel items as arrays of 2 tasks, then the summary,
# its tables byte for byte the single-machine run's.
ura=(GRID="5:6:3 20:4:2" COUNT=2 PROCS=4 EPSILON_PROCS=4)
env "${ura[@]}" BIN="$BIN" R="$tmp/work/ura-one" pipelines/ura2014.sh 2>"$tmp/ura-one.err" || fail "make ura2014 failed: $(tail -n 3 "$tmp/ura-one.err" | tr '\n' ' ')"
env "${ura[@]}" WAIT=1 BIN="$BIN" R="$tmp/work/ura-slurm" pipelines/slurm/ura2014.sh 2 2>"$tmp/ura.err" \
  || fail "the ura2014 arrays or their summary failed: $(tr '\n' ' ' < "$tmp/ura.err"; cat "$tmp"/work/ura-slurm/ura2014/slurm/*.log 2>/dev/null | tail -n 5 | tr '\n' ' ')"
for f in table1.csv table6.csv calibration.csv; do
  cmp "$tmp/work/ura-one/ura2014/$f" "$tmp/work/ura-slurm/ura2014/$f" || fail "ura2014 $f differs between the Slurm arrays and the single-machine run"
done
echo "slurm test: make ura2014 as two arrays of 2 tasks and a summary, identical to the single-machine run" >&2

# With an MPI build (MPI_BIN, which `make test` passes where Open MPI is
# installed): psearch --mpi over a 2-task allocation (pipelines/slurm/mpi.sbatch),
# its root values the simulated cluster's.
if [ -n "${MPI_BIN:-}" ]; then
  MPI_BIN=$(realpath "$MPI_BIN")
  [ -x "$MPI_BIN/psearch" ] || fail "MPI_BIN=$MPI_BIN has no psearch (cargo build --release --features mpi)"
  "$BIN/treegen" --model incremental --branching 5 --depth 7 --count 2 -o "$tmp/work/inc.jsonl"
  # The settings go by the environment (--export=ALL): a comma inside
  # --export=NAME=VALUE would split the value.
  BIN="$MPI_BIN" TREES="$tmp/work/inc.jsonl" OUT="$tmp/work/mpi.csv" PSEARCH_ARGS="--algorithm master-worker,even-split --per-tree" MPI_TIMEOUT=20 \
    sbatch --wait --ntasks=2 --export=ALL -o "$tmp/work/mpi.log" pipelines/slurm/mpi.sbatch >/dev/null 2>"$tmp/mpi.err" \
    || fail "the MPI job failed: $(tr '\n' ' ' < "$tmp/mpi.err"; tail -n 5 "$tmp/work/mpi.log" 2>/dev/null | tr '\n' ' ')"
  "$BIN/pabsim" "$tmp/work/inc.jsonl" --machine cluster --procs 1,2 --algorithm master-worker,even-split --per-tree -o "$tmp/work/sim.csv"
  # Columns 1 (tree), 7 (algorithm), 8 (procs), 10 (root value) of both tables.
  cut -d, -f1,7,8,10 "$tmp/work/mpi.csv" > "$tmp/work/mpi.values"
  cut -d, -f1,7,8,10 "$tmp/work/sim.csv" > "$tmp/work/sim.values"
  cmp -s "$tmp/work/mpi.values" "$tmp/work/sim.values" || fail "the MPI job's rows differ from the simulator's: $(diff "$tmp/work/sim.values" "$tmp/work/mpi.values" | head -n 5 | tr '\n' ' ')"
  grep -q ',mpi,' "$tmp/work/mpi.csv" || fail "the MPI job's rows are not marked mpi"
  echo "slurm test: psearch --mpi on a 2-task allocation, root values the simulator's" >&2
fi
exit 0
