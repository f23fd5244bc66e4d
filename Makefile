# Two commands do all the set-up:  `make run` (the default workflow) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CORES ?= all

.PHONY: run test dry-run bench clean-results report

$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

run: $(VENV)/.installed  ## the default workflow: every table and figure of config/config.yaml
	$(BIN)/snakemake --cores $(CORES) figures/

test: $(VENV)/.installed  ## the test suite (CI runs exactly this)
	$(BIN)/python -m pytest -q -rs tests

report: $(VENV)/.installed  ## report.html: every figure with its caption and provenance (builds what is missing first)
	$(BIN)/snakemake --cores $(CORES)
	$(BIN)/snakemake --report report.html

dry-run: $(VENV)/.installed
	$(BIN)/snakemake -n --cores $(CORES) figures/
	$(BIN)/snakemake -n --cores $(CORES) figures/ --configfile config/paper.yaml

bench: $(VENV)/.installed
	$(BIN)/python benchmarks/bench_spine.py

clean-results:
	rm -rf results figures logs
