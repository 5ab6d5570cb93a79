# parab: reproduce Manohararajah (2001) end to end.
#   make all    every result under results/ (file targets: only what changed reruns)
#   make test   format check, clippy -D warnings, all tests (release mode)
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
# The thesis's five orderings, as file-name keys b-wa-wb.
ORDERINGS := 32-79-5 20-69-19 32-66-66 32-33-33 32-0-0
comma := ,
ord = $(subst -,$(comma),$(1))

.PHONY: all chapter4 test bench clean build

all: chapter4

build: $(BIN)/.built
$(BIN)/.built: $(SRC)
	$(CARGO) build --release --bins
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

# ---- quality gates ------------------------------------------------------------------
test:
	$(CARGO) fmt --check
	$(CARGO) clippy --release --all-targets -- -D warnings
	$(CARGO) test --release

bench: $(BIN)/.built
	scripts/bench.sh

clean:
	rm -rf $(R)
	$(CARGO) clean

# ---- report (issue 5): every table and figure, ours beside the published ------------
# The page depends on every stage's outputs ($$(CH5), $$(CH6) expand once the whole
# Makefile is read, so later sections may define them); `make report-now` renders
# whatever exists without running any stage.
.PHONY: report report-now smoke
all: report
report: $(R)/report/index.html
.SECONDEXPANSION:
$(R)/report/index.html: $(BIN)/.built $$(CH4) $$(CH5) $$(CH6) $$(wildcard data/published/*.csv)
	$(BIN)/report --results $(R) --published data/published
report-now: $(BIN)/.built
	$(BIN)/report --results $(R) --published data/published

# The whole chain on a tiny configuration in a temporary directory (part of `make test`).
smoke: $(BIN)/.built
	scripts/smoke.sh
test: smoke
