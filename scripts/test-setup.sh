#!/usr/bin/env bash
# What `make test` needs beyond a Rust toolchain: headless Chromium (the
# report's browser check), Slurm with munge (the cluster recipe's test) and
# Open MPI with libclang (the MPI transport's build, `--features mpi`, and
# its tests).
# Installs what is missing with apt-get where it can (as root on Debian or
# Ubuntu); what it cannot install is skipped, and it says so in one line.
# Writes the skips as environment settings (PARAB_SKIP_BROWSER=1,
# PARAB_SKIP_SLURM=1, PARAB_SKIP_MPI=1) to the file given as $1, which
# `make test` passes on.
set -uo pipefail
env_file=${1:?usage: $0 ENV_FILE}
mkdir -p "$(dirname "$env_file")"
: > "$env_file"
have() { command -v "$1" >/dev/null 2>&1; }
browser() { have chromium || have chromium-browser || have google-chrome; }
slurm() { have slurmctld && have slurmd && have sbatch && have munged; }
# rsmpi finds Open MPI through `mpicc -showme`; its bindgen needs libclang.
libclang() { compgen -G '/usr/lib/llvm-*/lib/libclang*.so*' >/dev/null || compgen -G '/usr/lib/*/libclang*.so*' >/dev/null; }
mpi() { have mpicc && have mpirun && libclang; }

need=()
browser || need+=(chromium)
slurm || need+=(slurm-wlm munge)
mpi || need+=(libopenmpi-dev openmpi-bin libclang-dev clang)
why=""
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    why="not root, so apt-get cannot install ${need[*]}"
  elif ! have apt-get; then
    why="no apt-get to install ${need[*]}"
  else
    log=$(dirname "$env_file")/test-setup-apt.log
    # Said whether or not stderr is a terminal: apt is quiet for a minute or two.
    echo "make test: installing ${need[*]} with apt-get (a minute or two; log in $log)" >&2
    if ! { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}"; } >"$log" 2>&1; then
      why="apt-get install ${need[*]} failed (see $log)"
    fi
  fi
fi

skipped=()
if ! browser; then
  echo PARAB_SKIP_BROWSER=1 >> "$env_file"
  skipped+=("the browser check")
fi
if ! slurm; then
  echo PARAB_SKIP_SLURM=1 >> "$env_file"
  skipped+=("the Slurm test")
fi
if ! mpi; then
  echo PARAB_SKIP_MPI=1 >> "$env_file"
  skipped+=("the MPI build and tests")
fi
if [ ${#skipped[@]} -gt 0 ]; then
  list=${skipped[0]}
  for ((i = 1; i < ${#skipped[@]}; i++)); do
    if [ $i = $((${#skipped[@]} - 1)) ]; then list="$list and ${skipped[$i]}"; else list="$list, ${skipped[$i]}"; fi
  done
  echo "make test: skipping $list: ${why:-not installed}" >&2
fi
exit 0
