#!/usr/bin/env bash
# Ura, Tsuruoka and Chikayama (2014) at the paper's size (`make ura2014`,
# docs/model.md §9.9): their Table 1 (sequential; master-worker with and
# without dynamic updates at P = 512 and 1,536) and Table 6 (the NegaScout
# master with and without ε-windows at P = 512) on COUNT incremental trees of
# each (b, d, d′) of GRID, one item per (tree, configuration).
#
# Steps (STEP; `all` runs them in turn):
#   seq       the sequential baseline of every tree, one item each, at 1 µs
#             per node (its time is its node count: it is rescaled below);
#   parallel  the calibration, then every parallel item. The cost per node
#             is the paper's own sequential time per leaf (its Table 1:
#             19,438.92 s for 790 × 10^6 leaves at b = 5, 7,321.58 s for
#             149 × 10^6 at b = 20) times OUR baseline's leaves per node at
#             that (b, d), summed over the group's sequential items, so that
#             our baseline spends the paper's time per leaf
#             (calibration.csv). The parallel rows never enter it;
#   summary   items.csv (one row per item), table1.csv and table6.csv in the
#             paper's columns, cost.csv (wall time and peak memory per
#             configuration, from each item's side file).
#
# Items are files: run/b<b>-d<d>-m<d′>/t<tree>-<configuration>.csv, written
# as .tmp and renamed, with its wall time and peak memory (/usr/bin/time) in
# the .time beside it; an interrupted item leaves nothing, a file that exists
# is skipped, so a rerun resumes. SHARD=K/N runs every N-th item of a step
# (each machine builds the same trees itself): run STEP=seq on every shard,
# gather the run/ directories, STEP=parallel on every shard, gather, then
# STEP=summary once (pipelines/slurm/ura2014.sh does this as Slurm arrays).
#
# GRID lists b:d:d′ (the paper's `full`, or `quick`: d = 16 … 22 for b = 5
# and 8, 10 for b = 20, d′ = d/2, with COUNT 2 unless given). PROCS and
# ALGORITHMS are Table 1's (any cluster algorithm may join them: d′ goes
# to the master-worker's only), EPSILON_PROCS and EPSILON Table 6's. ARGS is
# added to every pabsim run (e.g. `--tt-slots N`, a machine cost): one
# variable for any further flag. A change of ARGS, EPSILON or the trees
# needs a fresh R (or run/ removed): item names do not carry them. A larger
# COUNT keeps the items made (tree t is the same t-th tree of set tg1).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-target/release}
R=${R:-results}
GRID=${GRID:-full}
case $GRID in
  full) GRID="5:24:12 20:12:6" ;;
  quick)
    # What a two-core machine runs in under an hour: d = 16 … 22 (b = 5)
    # and 8, 10 (b = 20) on 2 trees; d = 24 is one tree's work of hours.
    GRID="5:16:8 5:18:9 5:20:10 5:22:11 20:8:4 20:10:5"
    COUNT=${COUNT:-2}
    ;;
esac
COUNT=${COUNT:-32}
PROCS=${PROCS:-"512 1536"}
ALGORITHMS=${ALGORITHMS:-"master-worker master-worker-noupdate"}
EPSILON_PROCS=${EPSILON_PROCS:-512}
EPSILON=${EPSILON:-200}
ARGS=${ARGS:-}
PUBLISHED=${PUBLISHED:-$here/data/published/ura2014/table-1.csv}
TOOL=ura2014
# shellcheck source=pipelines/lib.sh
source "$here/pipelines/lib.sh"
check_shard
check_step all seq parallel summary
check_dir R
check_tools treegen pabsim
check_entries GRID '[1-9][0-9]{0,3}:[1-9][0-9]{0,2}:[1-9][0-9]{0,2}' "full, quick or b:d:d′ entries (2 <= b, 1 <= d′ < d)"
for g in $GRID; do
  IFS=: read -r b d dm <<< "$g"
  ((b >= 2 && dm < d)) || refuse GRID "full, quick or b:d:d′ entries (2 <= b, 1 <= d′ < d) separated by spaces, each once"
done
check_int COUNT 1
check_ints PROCS 2 4096
check_entries ALGORITHMS '[a-z][a-z0-9-]*' "cluster algorithm names (pabsim --help)"
check_ints EPSILON_PROCS 2 4096
check_int EPSILON 1
check_file PUBLISHED
B=$R/ura2014
# The sequential items' cost per node, ns: their time is then their nodes in µs.
SEQ_NODE_NS=1000
say() { echo "ura2014: $*" >&2; }
die() { say "$*"; exit 1; }

# An item's partial files (`partial`, pipelines/lib.sh) are removed however
# the run ends.

# ---- the grid ---------------------------------------------------------------------
group() { echo "b$1-d$2-m$3"; }
tree_file() { echo "$B/trees/b$1-d$2-n$COUNT.jsonl"; }
# The parallel configurations, one a line: name procs algorithm epsilon
# (Table 1's, then Table 6's; Table 6's plain master-worker is Table 1's
# item, run once).
configs() {
  local p a
  {
    for p in $PROCS; do for a in $ALGORITHMS; do echo "$a-p$p $p $a -"; done; done
    for p in $EPSILON_PROCS; do
      echo "master-worker-p$p $p master-worker -"
      echo "master-worker-negascout-e$EPSILON-p$p $p master-worker-negascout $EPSILON"
    done
  } | awk '!seen[$1]++'
}

# Runs one item: pabsim on line LINE of TREES into FILE, its wall time,
# CPU time and peak memory into FILE's .time; skipped when FILE exists.
item() {
  local f=$1 trees=$2 line=$3 time=${1%.csv}.time
  shift 3
  [[ -e $f ]] && return 0
  say "$f"
  partial=("$f.tmp" "$time.tmp")
  if [[ -x /usr/bin/time ]]; then
    sed -n "${line}p" "$trees" | /usr/bin/time -f '%e,%U,%S,%M' -o "$time.tmp" "$BIN/pabsim" --machine cluster --per-tree --threads 1 "$@" -o "$f.tmp"
  else
    sed -n "${line}p" "$trees" | "$BIN/pabsim" --machine cluster --per-tree --threads 1 "$@" -o "$f.tmp"
    echo ",,," > "$time.tmp"
  fi
  # The time first: an item counts as done once its CSV exists.
  mv "$time.tmp" "$time"
  mv "$f.tmp" "$f"
  partial=()
}

# An awk program's prologue: column numbers by header name (`c["leaves"]`).
AWK_COLS='FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }'

# Writes calibration.csv for every group of GRID whose sequential items are
# all there; with `strict`, a group with items missing is an error.
calibrate() {
  local strict=$1 g b d dm t missing f out=$B/calibration.csv.$$.tmp
  partial=("$out")
  echo "b,d,d_prime,trees,leaves,nodes,paper_ns_per_leaf,node_ns" > "$out"
  for g in $GRID; do
    IFS=: read -r b d dm <<< "$g"
    missing=0
    files=()
    for t in $(seq 1 "$COUNT"); do
      f=$B/run/$(group "$b" "$d" "$dm")/t$(printf %02d "$t")-seq.csv
      if [[ -e $f ]]; then files+=("$f"); else missing=$((missing + 1)); fi
    done
    if ((missing > 0)); then
      [[ $strict = strict ]] && die "b = $b, d = $d: $missing of $COUNT sequential items missing (run STEP=seq on every shard first, and gather their run/ directories)"
      continue
    fi
    awk -F, -v b="$b" -v d="$d" -v dm="$dm" -v trees="$COUNT" -v published="$PUBLISHED" "$AWK_COLS"'
      { leaves += $c["leaves"]; nodes += $c["nodes"] }
      END {
        # The paper'"'"'s sequential row of this b: seconds and millions of leaves.
        while ((getline line < published) > 0) {
          n = split(line, f, ",")
          if (++r == 1) { for (i = 1; i <= n; i++) p[f[i]] = i; continue }
          if (f[p["b"]] == b && f[p["method"]] == "sequential") per_leaf = f[p["search_time_s"]] * 1e9 / (f[p["leaves_millions"]] * 1e6)
        }
        if (per_leaf == "") { print "ura2014: no sequential row for b = " b " in " published > "/dev/stderr"; exit 1 }
        if (nodes == 0) { print "ura2014: b = " b ", d = " d ": the sequential items searched no node" > "/dev/stderr"; exit 1 }
        ns = int(per_leaf * leaves / nodes + 0.5)
        printf "%s,%s,%s,%d,%d,%d,%.3f,%d\n", b, d, dm, trees, leaves, nodes, per_leaf, (ns < 1 ? 1 : ns)
      }' "${files[@]}" >> "$out"
  done
  mv "$out" "$B/calibration.csv"
  partial=()
}
node_ns() { awk -F, -v b="$1" -v d="$2" -v dm="$3" '$1 == b && $2 == d && $3 == dm { print $8 }' "$B/calibration.csv"; }

mkdir -p "$B/trees" "$B/run"
if [[ $STEP = all || $STEP = seq || $STEP = parallel ]]; then
  for g in $GRID; do
    IFS=: read -r b d dm <<< "$g"
    t=$(tree_file "$b" "$d")
    if [[ ! -e $t ]]; then
      partial=("$t.$$.tmp")
      "$BIN/treegen" --model incremental --branching "$b" --depth "$d" --count "$COUNT" -o "$t.$$.tmp"
      mv "$t.$$.tmp" "$t"
      partial=()
    fi
    mkdir -p "$B/run/$(group "$b" "$d" "$dm")"
  done
fi

# ---- 1. the sequential items --------------------------------------------------------
if [[ $STEP = all || $STEP = seq ]]; then
  i=0
  for g in $GRID; do
    IFS=: read -r b d dm <<< "$g"
    for t in $(seq 1 "$COUNT"); do
      i=$((i + 1))
      mine "$i" || continue
      # shellcheck disable=SC2086 # ARGS is a list of options
      item "$B/run/$(group "$b" "$d" "$dm")/t$(printf %02d "$t")-seq.csv" "$(tree_file "$b" "$d")" "$t" --procs 1 --node-ns "$SEQ_NODE_NS" $ARGS
    done
  done
fi

# ---- 2. calibration and the parallel items ------------------------------------------
if [[ $STEP = all || $STEP = parallel ]]; then
  calibrate strict
  i=0
  for g in $GRID; do
    IFS=: read -r b d dm <<< "$g"
    ns=$(node_ns "$b" "$d" "$dm")
    for t in $(seq 1 "$COUNT"); do
      while read -r name p a e; do
        i=$((i + 1))
        mine "$i" || continue
        eps=()
        [[ $e = - ]] || eps=(--epsilon "$e")
        # d′ is the master-worker's: another algorithm of ALGORITHMS (ybwc,
        # fox, …) runs with its own defaults beside it.
        master=()
        [[ $a = master-worker* ]] && master=(--master-depth "$dm")
        # shellcheck disable=SC2086 # ARGS is a list of options
        item "$B/run/$(group "$b" "$d" "$dm")/t$(printf %02d "$t")-$name.csv" "$(tree_file "$b" "$d")" "$t" \
          --procs "$p" --algorithm "$a" "${master[@]}" --node-ns "$ns" "${eps[@]}" $ARGS
      done < <(configs)
    done
  done
fi

# ---- 3. summary: everything finished so far ------------------------------------------
[[ $STEP = all || $STEP = summary ]] || exit 0
calibrate lenient
# items.csv: one row per item, sequential times at the calibrated cost.
out=$B/items.csv.$$.tmp
partial=("$out")
echo "b,d,d_prime,tree,algorithm,procs,epsilon,time_ns,leaves,nodes,startup_idle_ns,other_idle_ns,wall_s,cpu_s,max_rss_kb" > "$out"
for g in $GRID; do
  IFS=: read -r b d dm <<< "$g"
  ns=$(node_ns "$b" "$d" "$dm")
  [[ -n $ns ]] || { say "b = $b, d = $d: sequential items missing, left out of the summary"; continue; }
  dir=$B/run/$(group "$b" "$d" "$dm")
  while read -r name p a e; do
    for f in $(find "$dir" -regextype posix-extended -regex ".*/t[0-9]+-$name\.csv" | sort -V); do
      tree=${f##*/t}
      awk -F, -v b="$b" -v d="$d" -v dm="$dm" -v tree="${tree%%-*}" -v e="${e/-/}" -v ns="$ns" -v seq_ns="$SEQ_NODE_NS" -v item="$f" '
        # The side file first (one line, no header), then the item.
        FILENAME ~ /\.time$/ { split($0, tm, ","); next }
        '"$AWK_COLS"'
        {
          time = $c["time_ns"]
          if ($c["algorithm"] == "seq") {
            # The baseline ran at seq_ns per node: its time must be its
            # nodes times that, and is its nodes times the calibrated cost.
            if (time + 0 != $c["nodes"] * seq_ns) { print "ura2014: " item ": time " time " is not nodes x " seq_ns " ns" > "/dev/stderr"; exit 1 }
            time = $c["nodes"] * ns
          }
          row = sprintf("%s,%s,%s,%d,%s,%s,%s,%.2f,%s,%s,%s,%s", b, d, dm, tree, $c["algorithm"], $c["procs"], e, time, $c["leaves"], $c["nodes"], $c["startup_idle_ns"], $c["other_idle_ns"])
        }
        END { if (row != "") printf "%s,%s,%.2f,%s\n", row, tm[1], tm[2] + tm[3], tm[4] }' "${f%.csv}.time" "$f" >> "$out"
    done
  done < <(echo "seq 1 seq -"; configs)
done
mv "$out" "$B/items.csv"

# One summary row: the items of group (b, d, d′) and configuration
# (algorithm, procs, epsilon; `-` none), over the trees that also have their
# sequential item: search time as the geometric mean over the trees (s),
# speed-up (the baseline's geometric mean over this one's), leaves (mean per
# tree, millions) and their ratio to the baseline's, idle times per process
# (mean over trees, s).
summary_row() {
  awk -F, -v key="$1" -v alg="$2" -v procs="$3" -v eps="$4" -v method="$5" -v cols="$6" "$AWK_COLS"'
    {
      k = $c["b"] "," $c["d"] "," $c["d_prime"]
      if (k != key) next
      if ($c["algorithm"] == "seq") { st[$c["tree"]] = $c["time_ns"]; sl[$c["tree"]] = $c["leaves"] }
      if ($c["algorithm"] != alg || $c["procs"] != procs || $c["epsilon"] != (eps == "-" ? "" : eps)) next
      tr[++m] = $c["tree"]; pt[m] = $c["time_ns"]; pl[m] = $c["leaves"]; su[m] = $c["startup_idle_ns"]; ot[m] = $c["other_idle_ns"]
    }
    END {
      for (j = 1; j <= m; j++) {
        if (!(tr[j] in st)) continue
        nt++; ls += log(st[tr[j]]); lp += log(pt[j]); lvs += sl[tr[j]]; lvp += pl[j]; ss += su[j]; so += ot[j]
      }
      if (nt == 0) exit
      e = (cols == "table6" ? "," (eps == "-" ? "" : eps) : "")
      if (alg == "seq") { sp = exp(ls / nt); printf "%s,1,%s%s,%.6f,1.000,%.6f,,,%s,%d,1.0000\n", key, method, e, sp / 1e9, lvs / nt / 1e6, alg, nt; exit }
      tp = exp(lp / nt)
      printf "%s,%s,%s%s,%.6f,%.3f,%.6f,%.6f,%.6f,%s,%d,%.4f\n", key, procs, method, e, tp / 1e9, exp(ls / nt) / tp, lvp / nt / 1e6, ss / nt / 1e9, so / nt / 1e9, alg, nt, lvp / lvs
    }' "$B/items.csv"
}
method1() {
  case $1 in
    master-worker) echo "with updates" ;;
    master-worker-noupdate) echo "without updates" ;;
    master-worker-share) echo "with share" ;;
    *) echo "$1" ;;
  esac
}
t1=$B/table1.csv.$$.tmp t6=$B/table6.csv.$$.tmp
partial=("$t1" "$t6")
echo "b,d,d_prime,procs,method,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s,algorithm,trees,leaf_ratio" > "$t1"
echo "b,d,d_prime,procs,method,epsilon,search_time_s,speedup,leaves_millions,startup_idle_s,other_idle_s,algorithm,trees,leaf_ratio" > "$t6"
for g in $GRID; do
  IFS=: read -r b d dm <<< "$g"
  key=$b,$d,$dm
  summary_row "$key" seq 1 - sequential table1 >> "$t1"
  for p in $PROCS; do
    for a in $ALGORITHMS; do summary_row "$key" "$a" "$p" - "$(method1 "$a")" table1 >> "$t1"; done
  done
  for p in $EPSILON_PROCS; do
    summary_row "$key" master-worker "$p" - "without epsilon-windows" table6 >> "$t6"
    summary_row "$key" master-worker-negascout "$p" "$EPSILON" "with epsilon-windows" table6 >> "$t6"
  done
done
mv "$t1" "$B/table1.csv"
mv "$t6" "$B/table6.csv"
partial=()
say "$B/table1.csv, $B/table6.csv"

partial=("$B/cost.csv.$$.tmp")
# cost.csv: per configuration, the items' wall and CPU time (user + system)
# and the largest peak memory (resident set), then the whole grid.
awk -F, "$AWK_COLS"'
  {
    k = $c["b"] "," $c["d"] "," $c["d_prime"] "," $c["algorithm"] "," $c["procs"] "," $c["epsilon"]
    if (!(k in n)) order[++m] = k
    n[k]++; w[k] += $c["wall_s"]; u[k] += $c["cpu_s"]; if ($c["max_rss_kb"] + 0 > r[k]) r[k] = $c["max_rss_kb"] + 0
    N++; W += $c["wall_s"]; U += $c["cpu_s"]; if ($c["max_rss_kb"] + 0 > RR) RR = $c["max_rss_kb"] + 0
  }
  END {
    print "b,d,d_prime,algorithm,procs,epsilon,items,wall_s,cpu_s,cpu_hours,max_rss_mb"
    for (j = 1; j <= m; j++) { k = order[j]; printf "%s,%d,%.2f,%.2f,%.4f,%.1f\n", k, n[k], w[k], u[k], u[k] / 3600, r[k] / 1024 }
    printf "all,,,,,,%d,%.2f,%.2f,%.4f,%.1f\n", N, W, U, U / 3600, RR / 1024
  }' "$B/items.csv" > "$B/cost.csv.$$.tmp"
mv "$B/cost.csv.$$.tmp" "$B/cost.csv"
partial=()
say "$B/cost.csv"
