#!/usr/bin/env bash
# What a `make` run is made of: make's shell for every recipe line, which
# runs the line as the Makefile's own shell would (bash with its
# .SHELLFLAGS) and appends the line's wall, user and system seconds and
# peak memory to the file RECIPE_TIMES, one tab-separated row a line:
#
#   wall_s  user_s  sys_s  max_rss_kb  command
#
# User and system time include every process the line waited for (a
# cargo build's compilers, a pipeline's tools). A line that runs a
# sub-make is a row of its own and contains the sub-make's rows: sum the
# rows that are not sub-makes for the whole. Usage (BENCHMARKS.md, "A
# fresh clone's first make all"):
#
#   RECIPE_TIMES=$PWD/times.tsv /usr/bin/time make all SHELL=$PWD/scripts/recipe-times.sh
#
# Needs GNU time (/usr/bin/time); make passes this script the Makefile's
# .SHELLFLAGS and the line.
set -u
if [[ -z ${RECIPE_TIMES:-} ]]; then
  echo "recipe-times.sh: RECIPE_TIMES is not set: give the file the rows go to (RECIPE_TIMES=\$PWD/times.tsv)" >&2
  exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
  echo "recipe-times.sh: /usr/bin/time (GNU time) is missing: install it (Debian: apt-get install time)" >&2
  exit 2
fi
# The command in one line: tabs and newlines of a recipe become spaces.
line=${*//$'\n'/ }
line=${line//$'\t'/ }
exec /usr/bin/time -a -o "$RECIPE_TIMES" -f "%e	%U	%S	%M	${line//%/%%}" /bin/bash "$@"
