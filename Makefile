# collsim: two commands on a fresh Debian machine.
#   make run    installs missing Debian packages, builds (Release), runs examples/default.yaml
#   make test   the same set-up, then the whole test suite through CTest
# Other targets: build, golden (re-baseline golden outputs), fuzz (N generated cases beyond CI's
# sample), sanitize (ASan/UBSan build + tests and a fuzz sample;
# not the 1024-NPU Themis training validation, minutes under ASan, which `make test` runs),
# clang (build + tests with clang, oldest supported: clang++-14), bench (benchmarks), format, clean.

MAKEFLAGS  += --no-print-directory
BUILD      ?= build
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CLANG      ?= clang++-14
DEB_PACKAGES := cmake make g++ libcli11-dev nlohmann-json3-dev libyaml-cpp-dev libfmt-dev \
                libgtest-dev libgmock-dev libbenchmark-dev libabsl-dev protobuf-compiler libprotobuf-dev \
                pybind11-dev python3-dev python3-pytest python3-pandas python3-matplotlib \
                python3-pip python3-setuptools python3-wheel \
                libopenmpi-dev openmpi-bin

.PHONY: deps configure build run test golden sanitize clang bench format clean reproduce figures fuzz fuzz-load-check \
        reproduce-themis reproduce-wrht reproduce-multitree reproduce-switch-fc reproduce-ace \
        reproduce-nccl reproduce-llm reproduce-multipath reproduce-reduced

# Figures (docs/img) are drawn by tools/plot.py with Debian's matplotlib and pandas.
PYTHON ?= /usr/bin/python3
PLOT_PACKAGES := python3-matplotlib python3-pandas

deps:
	@command -v dpkg >/dev/null 2>&1 || { echo "collsim: not a Debian system; install: $(DEB_PACKAGES)" >&2; exit 1; }
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "collsim: installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "collsim: missing Debian packages:$$missing" >&2; \
	    echo "collsim: run as root, or: sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# `run` builds the binary only (the test suite and benchmarks are `make test`'s and `make bench`'s).
run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target collsim
	./$(BUILD)/collsim run examples/default.yaml
	./$(BUILD)/collsim train --workload resnet50 --topology torus:8x8 -a ring,hierarchical \
	  --overlap none,layer --no-layers

# After the suite, every skipped test is listed with the reason it gave (CTest names them only).
test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS); rc=$$?; \
	  $(PYTHON) tools/skip_reasons.py $(BUILD)/Testing/Temporary/LastTest.log; exit $$rc

# Rewrite tests/golden/*.txt from the current build (review the diff before committing).
golden: build
	COLLSIM_UPDATE_GOLDEN=1 ./$(BUILD)/collsim_tests --gtest_filter='*Golden*'

sanitize: deps
	@cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DCOLLSIM_SANITIZE=ON -DCOLLSIM_BENCH=OFF >/dev/null
	@cmake --build build-sanitize -j $(JOBS)
	@ctest --test-dir build-sanitize --output-on-failure -j $(JOBS) -E '^ThemisTrainingValidation'; rc=$$?; \
	  $(PYTHON) tools/skip_reasons.py build-sanitize/Testing/Temporary/LastTest.log; exit $$rc

# The fuzz tier beyond CI's fixed sample: N cases from SEED (tests/fuzz/fuzz.py; findings as JSON
# lines in $(BUILD)/fuzz-findings.jsonl). `make fuzz N=100000 SEED=7`.
N    ?= 10000
SEED ?= 2
fuzz: build
	$(PYTHON) tests/fuzz/fuzz.py --binary $(BUILD)/collsim --cases $(N) --seed $(SEED) --jobs $(JOBS) \
	  --log $(BUILD)/fuzz-findings.jsonl

# CI's fuzz sample (seed 1, 2000 cases) twice, alone and beside two `yes >/dev/null` CPU hogs:
# the outcome of every case must be the same (each case is bounded by CPU time, not seconds).
fuzz-load-check: build
	$(PYTHON) tests/fuzz/fuzz.py --binary $(BUILD)/collsim --cases 2000 --seed 1 --jobs 2 \
	  --outcomes $(BUILD)/fuzz-outcomes-idle.txt
	$(PYTHON) tests/fuzz/fuzz.py --binary $(BUILD)/collsim --cases 2000 --seed 1 --jobs 2 --hogs 2 \
	  --outcomes $(BUILD)/fuzz-outcomes-hogs.txt
	cmp $(BUILD)/fuzz-outcomes-idle.txt $(BUILD)/fuzz-outcomes-hogs.txt && echo "same outcomes idle and under load"

# Build and test with clang; clang++-14 is the oldest supported (it cannot, for one, capture a
# structured binding in a lambda).
clang: deps
	@cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=$(CLANG) >/dev/null
	@cmake --build build-clang -j $(JOBS)
	ctest --test-dir build-clang --output-on-failure -j $(JOBS)

# Paper reproductions at full size (minutes; not part of `make test`): CSV in results/, and the
# tables of docs/themis.md and docs/wrht.md rewritten from them (tools/*_tables.py).
# One paper: `make reproduce PAPER=themis` (themis, multitree, switch-fc, ace, wrht, nccl, llm,
# multipath);
# each target says its expected duration first (measured on 2 cores; the machine's load stretches them).
PAPERS := themis wrht switch-fc ace multitree nccl llm multipath
PAPER  ?= all
# Each paper's wall time goes to results/duration-PAPER.txt, and docs/fidelity.md (one row per
# claim of the five seed papers, tools/fidelity.py over results/ and docs/fidelity-claims.csv) is
# rewritten after any paper's run.
reproduce: build
	@case " $(PAPERS) all " in *" $(PAPER) "*) ;; \
	  *) echo "collsim: PAPER=$(PAPER): one of $(PAPERS) (or all)" >&2; exit 2;; esac
	@mkdir -p results
	@for p in $$(if [ "$(PAPER)" = all ]; then echo $(PAPERS); else echo $(PAPER); fi); do \
	  s=$$(date +%s); $(MAKE) reproduce-$$p || exit 1; \
	  echo "$$(( $$(date +%s) - s )) s" > results/duration-$$p.txt; \
	done
	$(PYTHON) tools/fidelity.py table --results results --binary ./$(BUILD)/collsim --doc docs/fidelity.md

# The reduced tier (CI, `.ci/run`): every seed paper at reduced size (tests/reduced/PAPER/*.yaml,
# seconds each), its result rows compared with the committed tables tests/reduced/PAPER.csv;
# any drift fails. UPDATE=1 rewrites the tables instead (review and commit them with the reason).
REDUCED_PAPERS := multitree themis wrht switch-fc ace
reproduce-reduced:
	@case " $(REDUCED_PAPERS) all " in *" $(PAPER) "*) ;; \
	  *) echo "collsim: PAPER=$(PAPER): one of $(REDUCED_PAPERS) (or all)" >&2; exit 2;; esac
	@test -x ./$(BUILD)/collsim || { echo "collsim: build first (make build)" >&2; exit 2; }
	@rm -rf $(BUILD)/reduced && mkdir -p $(BUILD)/reduced
	@for p in $$(if [ "$(PAPER)" = all ]; then echo $(REDUCED_PAPERS); else echo $(PAPER); fi); do \
	  s=$$(date +%s); \
	  for f in tests/reduced/$$p/*.yaml; do \
	    ./$(BUILD)/collsim run $$f --format csv -q --output $(BUILD)/reduced/$$p-$$(basename $$f .yaml).csv \
	      || exit 1; \
	  done; \
	  echo "collsim: reduced $$p: $$(( $$(date +%s) - s )) s"; \
	done
	@$(PYTHON) tools/fidelity.py reduced --results $(BUILD)/reduced --tables tests/reduced \
	  --paper $(PAPER) $(if $(UPDATE),--update,)

# Runs each scenario of a folder into results/PREFIX-NAME.csv (PREFIX may be empty).
define run_scenarios
	@mkdir -p results
	@for f in $(1); do \
	  echo "collsim: $$f"; \
	  ./$(BUILD)/collsim run $$f --format csv --output results/$(2)$$(basename $$f .yaml).csv $(3) \
	    || exit 1; \
	done
endef

reproduce-themis:
	@echo "collsim: Themis: about 35 min (Figs. 8-12; the Fig. 12 training runs most of it)"
	@mkdir -p results
	@for f in examples/themis/*.yaml; do \
	  echo "collsim: $$f"; \
	  ./$(BUILD)/collsim run $$f --format csv --output results/$$(basename $$f .yaml).csv \
	    --activity results/$$(basename $$f .yaml)-activity.csv || exit 1; \
	done
	$(call run_scenarios,examples/training/themis-fig12.yaml,,)
	$(PYTHON) tools/themis_tables.py results docs/themis.md

reproduce-wrht:
	@echo "collsim: WRHT: about 5-25 min (Fig. 2; the striped Rings at 1024 nodes most of it)"
	$(call run_scenarios,examples/wrht/*.yaml,,)
	$(PYTHON) tools/wrht_tables.py results docs/wrht.md

reproduce-multitree:
	@echo "collsim: MultiTree: about 1-1.5 h (the packet-level Fig. 9 and Fig. 10 sweeps)"
	$(call run_scenarios,examples/multitree/*.yaml,,)
	$(call run_scenarios,examples/multitree/fig10/*.yaml,fig10-,)
	$(call run_scenarios,examples/training/multitree-fig11.yaml,,)
	$(PYTHON) tools/multitree_tables.py --binary ./$(BUILD)/collsim --results results --doc docs/multitree.md

reproduce-switch-fc:
	@echo "collsim: switch-fc: a few minutes (Figs. 9-11)"
	$(call run_scenarios,examples/switch-fc/*.yaml,switch-fc-,)
	@$(PYTHON) tools/switch_fc_tables.py --collsim ./$(BUILD)/collsim --doc docs/switch-fc.md

reproduce-ace:
	@echo "collsim: ACE: about 5-20 min (Figs. 9-17)"
	$(call run_scenarios,examples/ace/*.yaml,ace-,)
	@$(PYTHON) tools/ace_tables.py results docs/ace.md

# NCCL on GPU systems (docs/nccl.md): the measured H100 log compared row by row when it is beside
# the checkout (NCCL_LOG), and the presets' sweeps, in results/nccl-*.txt.
SHARED_DIR := shared
NCCL_DATA := $(abspath ..)/$(SHARED_DIR)/data/nccl-tests
NCCL_LOG ?= $(NCCL_DATA)/h100-sxm-8gpu-nccl-2.29.2.log
reproduce-nccl:
	@echo "collsim: NCCL: a second (closed-form model)"
	@mkdir -p results
	@if [ -f "$(NCCL_LOG)" ]; then ./$(BUILD)/collsim validate nccl "$(NCCL_LOG)" \
	  | tee results/nccl-validate-h100.txt | grep '^# [a-z_]*:'; \
	else echo "collsim: no NCCL_LOG ($(NCCL_LOG)): validation skipped"; fi
	@for s in "h100 -g 8" "h100 -g 4" "h100 --nodes 2 -g 8" "h100 --nodes 10 -g 8" "a100 -g 8" \
	    "a100 --nodes 10 -g 8" "h200 -g 8" "gb200 -g 4" "gb200 -g 72"; do \
	  for b in all_reduce_perf all_gather_perf reduce_scatter_perf alltoall_perf sendrecv_perf; do \
	    ./$(BUILD)/collsim nccl-tests $$b --system $$s -b 1K -e 16G -f 2 -d double || exit 1; \
	  done > "results/nccl-$$(echo $$s | tr -d ' -').txt"; \
	  echo "collsim: results/nccl-$$(echo $$s | tr -d ' -').txt"; \
	done

# docs/llm.md "Validation": Narayanan et al. SC'21 Table 1, Korthikanti et al. Table 5, Llama 3
# (examples/llm/validation.csv), one CSV row per config, and the table rewritten from them.
reproduce-llm:
	@echo "collsim: LLM validation (SC'21 Table 1, Korthikanti Table 5, Llama 3): under a minute"
	@mkdir -p results
	./$(BUILD)/collsim llm $$(tail -n +2 examples/llm/validation.csv | cut -d, -f1) --format csv -q \
	  --output results/llm-validation.csv
	$(PYTHON) tools/llm_tables.py examples/llm/validation.csv results/llm-validation.csv docs/llm.md

# ECMP hash collisions and spraying on a fat tree (docs/multipath.md): CSVs in results/ and the
# figures docs/img/multipath-ecmp-{flow,packet}.png (when matplotlib and pandas are installed).
reproduce-multipath:
	@echo "collsim: multipath (ECMP collisions, spraying): a few seconds"
	$(call run_scenarios,examples/multipath/*.yaml,multipath-,)
	@if $(PYTHON) -c 'import matplotlib, pandas' 2>/dev/null; then \
	  mkdir -p docs/img; \
	  for b in flow packet; do \
	    $(PYTHON) tools/plot.py bars results/multipath-ecmp-collisions-$$b.csv docs/img/multipath-ecmp-$$b.png \
	      --x group --y algbw_GBps --hue backend --facet concurrent --ylabel "pair all-reduce algbw (GB/s)" \
	      --title "fattree:4x2, $$b backend: 8 pairs at once; jobs[0] pairs i<->i+4, jobs[1] same-position pairs" \
	      || exit 1; \
	  done; \
	else echo "collsim: no matplotlib/pandas: figures skipped (make figures installs them)"; fi

# Plots in docs/img from the CSVs of `make reproduce` (installs matplotlib and pandas if missing).
figures:
	@missing=""; for p in $(PLOT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else echo "collsim: missing Debian packages:$$missing (sudo apt-get install$$missing)" >&2; exit 1; fi; \
	fi
	@test -f results/fig8-table2.csv || { echo "collsim: run make reproduce first" >&2; exit 1; }
	@mkdir -p docs/img
	$(PYTHON) tools/plot.py activity results/fig9-activity-activity.csv docs/img/themis-fig9-activity.png \
	  --title "Themis Fig. 9: 1 GB all-reduce on 3D-SW_SW_SW_homo (analytical, 100 us windows)"
	$(PYTHON) tools/plot.py bars results/fig8-table2-flow.csv docs/img/themis-fig11-utilization.png \
	  --x size_MB --y bw_utilization_pct --facet platform --ylabel "avg BW util. %" \
	  --filter 'algorithm!=ideal' \
	  --title "Themis Fig. 11: average BW utilization (flow, 4 chunk-stages per dimension)" \
	  --paper-line 'baseline avg 56.31%=56.31' --paper-line 'Themis+FIFO avg 87.67%=87.67' --paper-line 'Themis+SCF avg 95.14%=95.14'
	$(PYTHON) tools/plot.py bars results/fig8-table2-flow.csv docs/img/themis-fig8-time.png \
	  --x size_MB --y time_ms --facet platform --ylabel "time (ms)" \
	  --title "Themis Fig. 8: all-reduce time on the Table 2 platforms (flow, 4 chunk-stages per dimension)" \
	  --paper 'Figs. 8 and 11 give averages over these 24 cases: Themis+FIFO 1.58x and Themis+SCF 1.72x faster than baseline; collsim per case in docs/themis.md'
	$(PYTHON) tools/plot.py stacked results/multitree-fig11.csv docs/img/multitree-fig11-training.png \
	  --x workload --y compute_ms,exposed_ms --hue run --filter layer=total --ylabel "ms per iteration" \
	  --title "MultiTree Fig. 11 setting: one data-parallel iteration on the 8x8 torus (flow)" \
	  --paper 'MultiTree all-reduce 2.20x faster than Ring and 1.51x faster than 2D-Ring (mean over the models, no overlap)'
	$(PYTHON) tools/plot.py stacked results/themis-fig12.csv docs/img/themis-fig12-training.png \
	  --x platform --y compute_ms,exposed_ms --hue run --facet workload --filter layer=total \
	  --ylabel "ms per iteration" --title "Themis Fig. 12: training iterations on the Table 2 platforms (flow)" \
	  --paper 'Sec. 6.4: Themis+SCF 1.25x faster iterations than baseline on average, 1.53x at most'
	$(PYTHON) tools/plot.py lines results/fig10-chunks.csv,results/fig10-chunks-flow.csv docs/img/themis-fig10-chunks.png \
	  --x chunks --y bw_utilization_pct --facet platform --logx --ylabel "avg BW util. %" \
	  --filter 'algorithm!=ideal' --title "Themis Fig. 10: 100 MB all-reduce, 4..512 chunks" \
	  --paper 'the baseline stays flat with the number of chunks (Fig. 10); 97.7% baseline utilization at 1 GB (Fig. 4)'
	$(PYTHON) tools/plot.py lines results/fig9-grids.csv,results/fig9-switched.csv,results/fig9-bigraph.csv docs/img/multitree-fig9.png \
	  --x size_MB --y algbw_GBps --hue algorithm --facet platform --logx --ylabel "all-reduce bandwidth (GB/s)" \
	  --title "MultiTree Fig. 9 setting on the flow backend (16 GB/s, 150 ns links)" \
	  --paper 'Fig. 9 is given as plots; its claims at 64 MiB: MultiTree equals Ring on fat-trees and BiGraphs, HDRM also fully utilizes the BiGraphs (collsim: docs/multitree.md)'
	$(PYTHON) tools/plot.py lines $$(ls results/fig10-torus-*.csv | tr '\n' ',' | sed 's/,$$//') docs/img/multitree-fig10.png \
	  --x npus --y time_ms --hue algorithm --ylabel "all-reduce time (ms)" \
	  --title "MultiTree Fig. 10: 375 KiB per NPU on K x K tori (packet, 4 schedule-table NIs, MBFC)" \
	  --paper 'at 256 NPUs MultiTreeMsg is 3.0x faster than Ring and 1.4x faster than 2D-Ring, MultiTree 6% slower than MultiTreeMsg'
	$(PYTHON) tools/plot.py bars results/switch-fc-fig9.csv docs/img/switch-fc-fig9.png \
	  --x platform --y time_us --hue algorithm --facet collective --filter 'algorithm!=ideal' \
	  --ylabel "time (us)" --title "switch-fc Fig. 9: 1 MiB on one package, k local switches vs the ring (flow)" \
	  --paper 'Sec. V-A: largest reductions over the ring: all-to-all 73.59% (4 NPUs), 93.11% (8); all-reduce 65.82% (4), 75.89% (8)'
	$(PYTHON) tools/plot.py stacked results/switch-fc-fig11.csv docs/img/switch-fc-fig11.png \
	  --x platform --y compute_ms,exposed_ms --hue run --facet workload --filter layer=total \
	  --ylabel "ms per iteration" --title "switch-fc Fig. 11: two iterations, swfc vs hierarchical torus (flow)" \
	  --paper 'Sec. V-B: swfc iterations 1.16x-2.68x faster: DLRM hybrid 2.68x (8 NPUs), MLP model parallel 1.22x (4), 1.41x (8)'
	$(PYTHON) tools/plot.py bars results/ace-fig9.csv docs/img/ace-fig9.png \
	  --x platform --y time_us --hue endpoint --facet size_MB --filter 'algorithm!=ideal' \
	  --ylabel "time (us)" --title "ACE Fig. 9: all-reduce on L x V x H tori, baseline / ACE / ideal endpoints (flow)" \
	  --paper 'Sec. 6 gives averages over these tori and sizes: ACE 1.51x faster than baseline, ideal 1.43x faster than ACE (collsim: docs/ace.md)'
	$(PYTHON) tools/plot.py lines results/fig2-optical.csv,results/fig2-electrical.csv docs/img/wrht-fig2.png \
	  --x npus --y time_ms --hue series --facet size_MB --logx --logy --ylabel "all-reduce time (ms)" \
	  --title "WRHT Fig. 2: gradient all-reduce vs nodes" \
	  --paper 'WRHT cuts communication time by 91.86% against the optical Ring and by 75.76% against the electrical (averages, Abstract and Sec. 4)'
	$(PYTHON) tools/plot.py lines results/fig2-wavelengths.csv,results/fig2-wavelengths-electrical.csv docs/img/wrht-wavelengths.png \
	  --x wavelengths --y time_ms --hue series --facet size_MB --logx --logy --ylabel "all-reduce time (ms)" \
	  --title "WRHT: 1024 nodes vs wavelengths"

bench: build
	./$(BUILD)/collsim_bench

format:
	clang-format -i $$(git ls-files '*.cpp' '*.hpp')

clean:
	rm -rf $(BUILD) build-sanitize build-clang
