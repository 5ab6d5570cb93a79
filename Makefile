# parab: reproduce Manohararajah (2001) end to end.
#   make all    every result under results/ (file targets: only what changed reruns)
#   make test   format check, clippy -D warnings, cargo doc -D warnings, all tests (release
#               mode); installs Chromium, Slurm and munge, Open MPI where it can (apt-get as
#               root), else
#               says in one line what it skipped; the MPI build is checked and tested in
#               target/mpi/ (`--features mpi`)
#   make sweep  the parameter search of the thesis (PROCS, SCHEMES, ORDERINGS narrow it)
#   make sweep-slurm  the parameter search as a Slurm job array (pipelines/slurm/)
#   make chapter6-control  schemes A and B whose PV nodes split at once (scheme C's PV rule)
#   make beyond-algorithms  the parallel search algorithms from 2 to 1,024 processors (not in all)
#   make ura2014  Ura et al.'s Tables 1 and 6 at the paper's size on the simulated cluster
#               (GRID=quick for smaller depths; SHARD=K/N STEP=..., or ura2014-slurm; not in all)
#   make eval-noise  the evaluation noise whose ordering accuracy is Ura et al.'s shogi trees'
#   make games  beyond the thesis: chess and Othello through every tool (results/games/)
#   make traces one small run of each machine as a trace (results/traces/; the report's
#               timelines; the real threads' one is this machine's timing)
#   make real   beyond the thesis: the parallel searches on this machine's threads beside
#               the simulator's prediction (results/real/; PROCS=1,2 here; redone on demand)
#   make bench  whole-command timings (see BENCHMARKS.md)
#   make clean  remove results/ and build outputs

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
.SECONDARY:

CARGO ?= cargo
BIN := target/release
R := results
SRC := $(shell find src -name '*.rs') Cargo.toml Cargo.lock $(wildcard data/*.txt)
POSITIONS := $(wildcard data/positions/*.epd data/positions/*.txt)
# The report is a crate of its own (polars, plotters): the pipeline tools build without it.
REPORT_SRC := $(shell find report/src -name '*.rs') report/Cargo.toml $(wildcard assets/fonts/*)
# The thesis's five orderings, as file-name keys b-wa-wb.
ORDERINGS := 32-79-5 20-69-19 32-66-66 32-33-33 32-0-0
comma := ,
ord = $(subst -,$(comma),$(1))

.PHONY: all chapter4 test test-setup slurm-test bench clean build

# ---- the two entry points: `make all` and `make test` -----------------------------
# `make all`: every crate downloaded and the pipeline tools built first (a download
# or build failure of the tools shows before the simulations, not after them); then
# the chapters, the real games, the simulated traces, the report's build and, where
# Open MPI is installed, the MPI tools' build, JOBS at a time (default: every core; each
# tool also uses every core, so the jobs fill each other's tails and the builds' serial
# stretches); then alone, because they time this machine, the real processors' runs and
# the real threads' trace; last the report
# (their sections below). It ends by saying where the page is.
REAL := $(R)/real/psearch.csv
REAL_MPI := $(R)/real/mpi.csv
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
all: fetch $(BIN)/.built
	@$(MAKE) --no-print-directory -j$(JOBS) --output-sync=line $(BIN)/.built-report chapter4 chapter5 chapter6 games $(TRACES) $(MPI_TOOLS)
	@$(MAKE) --no-print-directory $(REAL) $(REAL_MPI) $(TRACE_REAL) report
	@echo "make all: done; the report is $(CURDIR)/$(R)/report/index.html"

# `make test`: what its tests need set up (test-setup), the MPI build's checks and
# tests (mpi-test), the Slurm recipe (slurm-test) and the smoke run (smoke), then
# the format check, clippy, the docs, every test and the examples. The format check
# names the files of the cluster's algorithms and of the shared-memory policies:
# their registries declare their modules in a macro, which rustfmt does not follow.
TEST_ENV := target/test-skips.env
test: test-setup mpi-test slurm-test smoke
	$(CARGO) fmt --all --check -- src/cluster/algorithms/*.rs src/policy/*.rs
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps -p parab
	env $$(cat $(TEST_ENV)) $(CARGO) test --release --workspace 2>&1 | tee target/test.log
	$(CARGO) run --release --example small_game
	$(CARGO) run --release --example work_stealing
	$(BIN)/treegen --set tg1 --ordering 20,69,19 --depth 5 --count 10 -o target/straightforward.jsonl
	$(CARGO) run --release --example straightforward -- target/straightforward.jsonl
	@awk '/^test result:/ { p += $$4; f += $$6 } END { printf "tests: %d passed, %d failed\n", p, f }' target/test.log $(wildcard target/test-mpi.log)

# ---- build ----------------------------------------------------------------------------
# The tools and the report are built with one resolution of the workspace's crate
# graph (`--workspace`): the report's dependencies turn on features of some of the
# tools' (memchr's, serde's, num-traits' among them), and resolved apart the library and
# many of its dependencies are compiled twice (BENCHMARKS.md). `--bin` keeps the
# tools' build from compiling the report's crates (polars, plotters). Each stamp has its own
# sources: a change to the report alone reruns no chapter.
TOOLS := $(basename $(notdir $(wildcard src/bin/*.rs)))
.PHONY: fetch
fetch:
	$(CARGO) fetch --locked
build: $(BIN)/.built $(BIN)/.built-report
$(BIN)/.built: $(SRC)
	$(CARGO) build --release --workspace $(addprefix --bin ,$(TOOLS))
	@touch $@
$(BIN)/.built-report: $(SRC) $(REPORT_SRC)
	$(CARGO) build --release --workspace --bins
	@touch $@

# ---- trees (thesis §4.2): one JSON line per tree --------------------------------
$(R)/trees/tg1-%-d6.jsonl: $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --set tg1 --ordering $(call ord,$*) --depth 6 -o $@
$(R)/trees/tg1-%-d7.jsonl: $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --set tg1 --ordering $(call ord,$*) --depth 7 -o $@
$(R)/trees/tg2-%-d4.jsonl: $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --set tg2 --ordering $(call ord,$*) --depth 4 -o $@

# ---- chapter 4: move-ordering statistics ------------------------------------------
CH4 := $(R)/fbest/tg1-32-79-5-d7.csv $(R)/fbest/tg1-32-79-5-d7-per-tree.csv \
       $(R)/fbest/analytic.csv $(R)/fbest/rajahx.csv \
       $(foreach o,$(ORDERINGS),$(R)/nodes/tg1-$(o)-d6.csv)
chapter4: $(CH4)

$(R)/fbest/tg1-%.csv: $(R)/trees/tg1-%.jsonl
	@mkdir -p $(@D)
	$(BIN)/fbest $< -o $@
$(R)/fbest/tg1-%-per-tree.csv: $(R)/trees/tg1-%.jsonl
	@mkdir -p $(@D)
	$(BIN)/fbest --per-tree $< -o $@
$(R)/nodes/tg1-%-d6.csv: $(R)/trees/tg1-%-d6.jsonl
	@mkdir -p $(@D)
	$(BIN)/fbest --per-tree $< -o $@
$(R)/fbest/analytic.csv: $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/fbest --analytic $(foreach o,$(ORDERINGS),--ordering $(call ord,$(o))) -o $@
$(R)/fbest/rajahx.csv: data/rajahx-fbest.csv $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/fbest --rajahx $< -o $@

# ---- chapter 5: training sets, networks, node classification (thesis §5.3-5.5) -----
# One training set per ordering from the 200 tg2 trees at depth 4; one network
# per ordering (all five trained in parallel by one nntrain run); schemes A,
# B (n = 1..8) and C (m = 0..50, the ordering's own network) on the 100 tg1
# trees at depth 6.
.PHONY: chapter5
NN_SEED ?= 1
NN_ITERATIONS ?= 10000
CH5_SETS := $(foreach o,$(ORDERINGS),$(R)/trainset/tg2-$(o)-d4.csv)
CH5_NETS := $(foreach o,$(ORDERINGS),$(R)/weights/$(o).json)
CH5_CURVES := $(foreach o,$(ORDERINGS),$(R)/weights/$(o)-curve.csv)
CH5_CLASSIFY := $(foreach o,$(ORDERINGS),$(R)/classify/tg1-$(o)-d6.csv)
CH5 := $(CH5_SETS) $(CH5_NETS) $(CH5_CURVES) $(CH5_CLASSIFY)
chapter5: $(CH5)

$(R)/trainset/tg2-%-d4.csv: $(R)/trees/tg2-%-d4.jsonl
	@mkdir -p $(@D)
	$(BIN)/trainset $< -o $@
$(CH5_NETS) $(CH5_CURVES) &: $(CH5_SETS) $(BIN)/.built
	@mkdir -p $(R)/weights
	$(BIN)/nntrain --seed $(NN_SEED) --iterations $(NN_ITERATIONS) --out-dir $(R)/weights $(CH5_SETS)
$(R)/classify/tg1-%-d6.csv: $(R)/trees/tg1-%-d6.jsonl $(R)/weights/%.json
	@mkdir -p $(@D)
	$(BIN)/classify $< --scheme a,b,c --n 1..8 --m 0..50 --weights $(R)/weights/$*.json -o $@
# ---- chapter 6: the simulated multiprocessor (pabsim) -------------------------------
# Per ordering: the p = 1 run per tree (Table 6.3, and the baseline of SU/SO/CSS),
# schemes A and B at p = 12, 24, 48 with the thesis's parameters, and scheme C with
# the network of that ordering, results/weights/B-WA-WB.json (made by nntrain).
CH6 := $(foreach o,$(ORDERINGS),$(R)/pabsim/tg1-$(o)-d6-p1.csv $(R)/pabsim/tg1-$(o)-d6-ab.csv $(R)/pabsim/tg1-$(o)-d6-c.csv)
.PHONY: chapter6 sweep
chapter6: $(R)/chapter6.csv

$(R)/pabsim/tg1-%-d6-p1.csv: $(R)/trees/tg1-%-d6.jsonl
	@mkdir -p $(@D)
	$(BIN)/pabsim --procs 1 --per-tree $< -o $@
$(R)/pabsim/tg1-%-d6-ab.csv: $(R)/trees/tg1-%-d6.jsonl $(R)/pabsim/tg1-%-d6-p1.csv
	$(BIN)/pabsim --procs 12,24,48 --scheme a,b --thesis-params --baseline $(word 2,$^) $< -o $@
$(R)/pabsim/tg1-%-d6-c.csv: $(R)/trees/tg1-%-d6.jsonl $(R)/pabsim/tg1-%-d6-p1.csv $(R)/weights/%.json
	$(BIN)/pabsim --procs 12,24,48 --scheme c --thesis-params --weights $(word 3,$^) --baseline $(word 2,$^) $< -o $@
# All configurations of all orderings in one table (p = 1 rows summed per ordering).
$(R)/chapter6.csv: $(CH6)
	{ for o in $(ORDERINGS); do $(BIN)/pabsim --merge $(R)/pabsim/tg1-$$o-d6-p1.csv; done | awk 'NR == 1 || !/^item,/'; \
	  for f in $(filter-out %-p1.csv,$^); do tail -n +2 $$f; done; } > $@.tmp && mv $@.tmp $@

# The parameter search of `docs/model.md` §6 (m_A, m_B in 1..10, m_Ca in -14..2, m_Cc in
# 0..4 at p = 12, 24, 48): one file per (ordering, p, scheme, value); a rerun skips
# the files that exist. SHARD=K/N does every N-th file (split over machines);
# PROCS=48, SCHEMES=c, ORDERINGS=20-69-19 narrow it.
sweep: $(foreach o,$(ORDERINGS),$(R)/pabsim/tg1-$(o)-d6-p1.csv)
	BIN=$(BIN) R=$(R) ORDERINGS="$(ORDERINGS)" pipelines/sweep.sh

# The control for scheme C's PV rule (docs/findings.md): schemes A and B
# with the thesis's parameters at p = 24 and 48, but their PV nodes may split before their first
# move has finished (--pv-wait 0), as scheme C's do under §6.5's literal rule.
CONTROL := $(foreach o,$(ORDERINGS),$(R)/control/tg1-$(o)-d6-pv0.csv)
.PHONY: chapter6-control
chapter6-control: $(CONTROL)
$(R)/control/tg1-%-d6-pv0.csv: $(R)/trees/tg1-%-d6.jsonl $(R)/pabsim/tg1-%-d6-p1.csv
	@mkdir -p $(@D)
	$(BIN)/pabsim --procs 24,48 --scheme a,b --thesis-params --pv-wait 0 --baseline $(word 2,$^) $< -o $@

# The same parameter search on a Slurm cluster: a job array of SLURM_TASKS
# tasks, task K running SHARD=K/SLURM_TASKS of pipelines/sweep.sh, and a job
# that writes the summary once every task succeeded (--dependency=afterok).
# Run from a directory every node sees; SBATCH_ARGS passes partition, time, ...
SLURM_TASKS ?= 16
.PHONY: sweep-slurm
sweep-slurm: $(foreach o,$(ORDERINGS),$(R)/pabsim/tg1-$(o)-d6-p1.csv)
	BIN=$(BIN) R=$(R) ORDERINGS="$(ORDERINGS)" pipelines/slurm/sweep.sh $(SLURM_TASKS)

# ---- beyond the thesis: real game trees ---------------------------------------------
# Chess (the 24 Bratko-Kopec positions) and Othello through every tool: f_best and
# the fitted ordering, training sets and networks, schemes A/B/C, the simulated
# machine at p = 12, 24, 48 (pipelines/beyond-games.sh; about 2 minutes on two
# cores). The whole set is redone when a tool or a position file changes.
GAMES := $(R)/games/.done
.PHONY: games
games: $(GAMES)
$(GAMES): $(BIN)/.built $(POSITIONS) data/rajahx-fbest.csv pipelines/beyond-games.sh
	rm -rf $(R)/games
	BIN=$(BIN) OUT=$(R)/games pipelines/beyond-games.sh
	@touch $@

# ---- beyond the thesis: real processors --------------------------------------------
# psearch runs the parallel searches on this machine's threads and pabsim predicts them,
# on the same trees ((32, 79, 5) at depth 7), processor counts and algorithms; psearch
# with --node-cost NODE_COST ns of busy work per node (an engine's node), each row the
# median of REPEAT runs; bare.csv is the one-thread search without busy work (the
# host's own cost per node). PROCS must hold 1 (the baseline of SU and SO); rows record
# the host's load and free cores, and counts above the free cores are marked
# oversubscribed. The recipe is the same on any
# machine: `make real PROCS=1,2,4,8,16,32,64`. In `make all` (about a minute here,
# BENCHMARKS.md) when its results are missing or the tools changed; `make real` redoes it.
# With Open MPI installed, also the cluster's algorithms on MPI_RANKS real MPI ranks
# (mpi.csv, scripts/real-mpi.sh); without it one line says they are skipped.
REAL_TREES ?= 3
NODE_COST ?= 1000
REPEAT ?= 1
REAL_ALGORITHMS := dts,pvsplit,steal,active
# REAL and REAL_MPI (the two outputs) are defined with `all:` at the top.
.PHONY: real
real: $(BIN)/.built
	@rm -f $(REAL) $(REAL_MPI)
	@$(MAKE) --no-print-directory $(REAL) $(REAL_MPI)
$(REAL): PROCS ?= 1,2
$(REAL): $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --set tg1 --ordering 32,79,5 --depth 7 --count $(REAL_TREES) -o $(@D)/trees.jsonl
	$(BIN)/pabsim $(@D)/trees.jsonl --procs $(PROCS) --algorithm $(REAL_ALGORITHMS) -o $(@D)/pabsim.csv
	$(BIN)/psearch $(@D)/trees.jsonl --threads 1 --repeat $(REPEAT) -o $(@D)/bare.csv
	$(BIN)/psearch $(@D)/trees.jsonl --threads $(PROCS) --algorithm $(REAL_ALGORITHMS),lazy-smp --node-cost $(NODE_COST) --repeat $(REPEAT) -o $@
MPI_RANKS ?= 1,2,4,8
$(REAL_MPI): $(REAL)
	@CARGO=$(CARGO) scripts/real-mpi.sh $(@D)/trees.jsonl $@ $(MPI_RANKS)
# The MPI tools alone (target/mpi/; nothing without Open MPI): `make all` builds them
# while the chapters run, so that the MPI runs find them built.
MPI_TOOLS := target/mpi/.built-tools
$(MPI_TOOLS): $(SRC)
	@CARGO=$(CARGO) scripts/real-mpi.sh --build
	@mkdir -p $(@D) && touch $@

# ---- timelines: one small run of each machine as a trace ----------------------------
# The report draws each as a timeline (report/src/timeline.rs). Sizes chosen so each
# trace is a few MB and made in seconds: scheme C at p = 48 on one (20, 69, 19) tree
# of depth 4 (4.3 MB; (32, 79, 5) at depth 4 is 15 MB), the master-worker at P = 64
# on one incremental tree of b = 5, depth 12 (2.3 MB). Both simulated, so deterministic,
# and made with the chapters. The real threads' trace (dts at p = 2 on one (32, 79, 5)
# tree of depth 7, NODE_COST ns a node; a few kB, 4 s) times this machine: it is made in
# `make all` after the simulations, with the real runs, and the report draws it only
# when it is there. `make traces` makes all three.
TRACES := $(R)/traces/scheme-c-p48.json $(R)/traces/master-worker-p64.json
TRACE_REAL := $(R)/traces/threads-p2.json
.PHONY: traces
traces: $(TRACES) $(TRACE_REAL)
$(R)/traces/scheme-c-p48.json: $(R)/weights/20-69-19.json $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --set tg1 --ordering 20,69,19 --depth 4 --count 1 -o $(@D)/scheme-c-tree.jsonl
	$(BIN)/pabsim $(@D)/scheme-c-tree.jsonl --procs 48 --scheme c --thesis-params --weights $< --trace $@ -o $(@D)/scheme-c-p48.csv
$(R)/traces/master-worker-p64.json: $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --model incremental --branching 5 --depth 12 --count 1 -o $(@D)/master-worker-tree.jsonl
	$(BIN)/pabsim --machine cluster $(@D)/master-worker-tree.jsonl --procs 64 --algorithm master-worker --trace $@ -o $(@D)/master-worker-p64.csv
$(TRACE_REAL): $(BIN)/.built
	@mkdir -p $(@D)
	$(BIN)/treegen --set tg1 --ordering 32,79,5 --depth 7 --count 1 -o $(@D)/threads-tree.jsonl
	$(BIN)/psearch $(@D)/threads-tree.jsonl --threads 2 --algorithm dts --node-cost $(NODE_COST) --trace $@ -o $(@D)/threads-p2.csv

# ---- report: every table and figure, ours beside the published ----------------------
# The page depends on every stage's outputs ($$(CH5), $$(CH6) expand once the whole
# Makefile is read, so later sections may define them); `make report-now` renders
# whatever exists without running any stage.
.PHONY: report report-now
report: $(R)/report/index.html
.SECONDEXPANSION:
$(R)/report/index.html: $$(CH4) $$(CH5) $$(CH6) $$(GAMES) $$(wildcard data/published/*.csv) $$(wildcard $(R)/beyond/algorithms.csv) $$(wildcard $(R)/ura2014/table1.csv data/published/ura2014/*.csv data/reference/ura2014/*.csv data/reference/ura2014/*/*.csv) $$(wildcard $(R)/othellox/othellox.csv $(R)/othellox/pv-split-table3.csv data/published/othellox/*.csv) $$(REAL) $$(TRACES) $$(wildcard $(TRACE_REAL)) $(BIN)/.built-report
	$(BIN)/report --results $(R) --published data/published
report-now: $(BIN)/.built-report
	$(BIN)/report --results $(R) --published data/published

# ---- beyond the thesis: the parallel search algorithms from 2 to 1,024 processors -------
# (pipelines/beyond-algorithms.sh; not part of `make all`: see BENCHMARKS.md for its
# cost). Split over N machines: `make beyond-algorithms SHARD=K/N STEP=items` on machine
# K (each also runs the small tuning sweep itself, with the same result), copy every
# machine's results/beyond/run into one, then `make beyond-algorithms STEP=summary`
# and `make report`.
SHARD ?= 1/1
STEP ?= all
.PHONY: beyond-algorithms
beyond-algorithms: $(BIN)/.built
	BIN=$(BIN) R=$(R) SHARD=$(SHARD) STEP=$(STEP) pipelines/beyond-algorithms.sh

# ---- beyond shared memory: the message-passing cluster -------------------------------
# The sequential baseline and every cluster algorithm at P = 2 .. 1,536 and 4,096 on
# 32 incremental trees each of b = 5 (depth 12) and b = 20 (depth 6)
# (pipelines/distributed.sh; not part of `make all`; BENCHMARKS.md gives its cost).
# Split over N machines: `make distributed SHARD=K/N STEP=items` on machine K, copy
# every machine's results/distributed/run into one, then `make distributed STEP=summary`.
# TOPOLOGIES="flat hypercube fat-tree" (NET_ARGS: their --hop-ns, --node-cores) runs
# the other simulated networks too, each about the flat run's cost again.
.PHONY: distributed
distributed: $(BIN)/.built
	BIN=$(BIN) R=$(R) SHARD=$(SHARD) STEP=$(STEP) pipelines/distributed.sh

# ---- OthelloX's grid on the simulated cluster --------------------------------------
# PV split, YBWC (plain, without and with the helpful master), even split, master-slave
# and Fox et al.'s master/slave at P = 2 .. 256 on Othello boards 6, 8, 10, 12 at depths
# 5 .. 8, on the flat, hypercube and fat-tree networks (pipelines/othellox.sh; not part
# of `make all`; BENCHMARKS.md gives its cost). BOARDS, DEPTHS, COUNT, PROCS, ALGORITHMS,
# TOPOLOGIES and NET_ARGS narrow or widen it; SHARD=K/N STEP=items splits it over
# machines, then copy every machine's results/othellox/run into one and run
# `make othellox STEP=summary`.
.PHONY: othellox
othellox: $(BIN)/.built
	BIN=$(BIN) R=$(R) SHARD=$(SHARD) STEP=$(STEP) pipelines/othellox.sh

# ---- Ura et al. (2014) at the paper's size: their Table 1 and Table 6 ---------------
# 32 incremental trees each of b = 5, d = 24, d′ = 12 and b = 20, d = 12, d′ = 6,
# synthetic and with the shogi-like evaluation noise (GRID's b:d:d′:shogi): the
# sequential baseline, the master-worker with and without updates at P = 512 and
# 1,536, the NegaScout master with ε = 200 and without at P = 512; one item (file)
# per (tree, configuration), the per-node cost calibrated from the paper's own
# sequential row (pipelines/ura2014.sh, docs/model.md §9.9; not part of `make all`).
# `make ura2014 GRID=quick` runs d = 16 … 22 (b = 5) and 8, 10 (b = 20) on 2 trees;
# `GRID=sample` the paper's two sizes on 4 trees (COUNT sets how many);
# GRID, COUNT, PROCS, ALGORITHMS, EPSILON_PROCS, EPSILON and ARGS (flags for every
# run) set the rest. Split over N machines: `make ura2014 SHARD=K/N STEP=seq` on
# every machine, gather results/ura2014/run, `STEP=parallel` likewise, then
# `make ura2014 STEP=summary`. As Slurm arrays of SLURM_TASKS tasks (sequential,
# parallel, then the summary, each after the last succeeded):
# `make ura2014-slurm SLURM_TASKS=64 GRID=quick SBATCH_ARGS="--mem=8G"`.
.PHONY: ura2014 ura2014-slurm
ura2014: $(BIN)/.built
	BIN=$(BIN) R=$(R) SHARD=$(SHARD) STEP=$(STEP) pipelines/ura2014.sh
ura2014-slurm: $(BIN)/.built
	BIN=$(BIN) R=$(R) pipelines/slurm/ura2014.sh $(SLURM_TASKS)

# The evaluation noise of `treegen --eval-noise shogi`: the step (at persistence
# 794/1000, an error halving every three plies) whose ordering accuracy is Ura et
# al.'s shogi trees' (82.3% at b = 5, 14 -> 16; 66.7% at b = 20, 6 -> 8), found on
# seed set tg2 (all 200 trees at b = 5, 100 at b = 20) and checked on tg1
# (pipelines/eval-noise.sh, docs/model.md §7.8; results/eval-noise/; about 95
# CPU-minutes, of which b = 5's 63; not part of `make all`).
.PHONY: eval-noise
eval-noise: $(BIN)/.built
	BIN=$(BIN) R=$(R) STEP=$(STEP) pipelines/eval-noise.sh

# ---- quality gates: what `make test` runs before its checks -------------------------
# It sets up what its tests need (scripts/test-setup.sh).
test-setup:
	@scripts/test-setup.sh $(TEST_ENV)
# The MPI transport: its build (`--features mpi`, in a target directory of
# its own so that the default build is not rebuilt), clippy for it, its unit tests and
# tests/mpi.rs under mpirun (skipped where Open MPI is missing, said by test-setup).
MPI_TARGET := target/mpi
.PHONY: mpi-test
mpi-test: test-setup
	@if grep -q PARAB_SKIP_MPI $(TEST_ENV); then rm -f target/test-mpi.log; else \
	  CARGO_TARGET_DIR=$(MPI_TARGET) $(CARGO) clippy --release -p parab --all-targets --features mpi -- -D warnings && \
	  CARGO_TARGET_DIR=$(MPI_TARGET) $(CARGO) test --release -p parab --features mpi --lib cluster::exec::mpi 2>&1 | tee target/test-mpi.log && \
	  CARGO_TARGET_DIR=$(MPI_TARGET) $(CARGO) test --release -p parab --features mpi --test mpi 2>&1 | tee -a target/test-mpi.log && \
	  CARGO_TARGET_DIR=$(MPI_TARGET) $(CARGO) build --release -p parab --features mpi --example work_stealing && \
	  mpirun -q --oversubscribe $$([ "$$(id -u)" = 0 ] && echo --allow-run-as-root) -np 3 $(MPI_TARGET)/release/examples/work_stealing --mpi; fi
# The Slurm recipe on a one-node cluster of its own (skipped where Slurm is missing);
# with the MPI build (mpi-test made it), psearch --mpi over an allocation too.
slurm-test: test-setup $(BIN)/.built mpi-test
	@if grep -q PARAB_SKIP_SLURM $(TEST_ENV); then :; \
	elif grep -q PARAB_SKIP_MPI $(TEST_ENV); then BIN=$(BIN) scripts/slurm-test.sh; \
	else BIN=$(BIN) MPI_BIN=$(MPI_TARGET)/release scripts/slurm-test.sh; fi

# The whole chain on a tiny configuration in a temporary directory (part of `make test`).
.PHONY: smoke
smoke: $(BIN)/.built $(BIN)/.built-report
	scripts/smoke.sh

bench: $(BIN)/.built
	scripts/bench.sh

clean:
	rm -rf $(R)
	$(CARGO) clean
