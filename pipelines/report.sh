#!/usr/bin/env bash
# The report as a plain command: one page from whatever results exist, the
# same `make report-now` runs. Needs the tools on PATH or BIN=target/release.
# RESULTS (default results) is read; the page goes to RESULTS/report/index.html,
# the figures to RESULTS/figures/. DATE (default today) is printed on the page.
set -euo pipefail
BIN=${BIN:-target/release}
RESULTS=${RESULTS:-results}
TOOL=report
# shellcheck source=pipelines/lib.sh
source "$(dirname "$0")/lib.sh"
check_dir RESULTS
check_tools report
args=(--results "$RESULTS" --published data/published)
if [ -n "${DATE:-}" ]; then args+=(--date "$DATE"); fi
"$BIN/report" "${args[@]}"
echo "open $RESULTS/report/index.html"
