# Two commands do all the set-up:  `make run` (the default workflow) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
CORES ?= all

.PHONY: run test lint dry-run bench clean-results report

# What the rules need (requirements.txt); the tests, lint and benchmarks add requirements-dev.txt.
$(VENV)/.installed: requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed requirements-dev.txt
	$(BIN)/python -m pip install --quiet -r requirements-dev.txt
	touch $@

run: $(VENV)/.installed  ## the default workflow: every table and figure of config/config.yaml
	$(BIN)/snakemake --cores $(CORES) figures/

test: $(VENV)/.installed-dev  ## the test suite (CI runs exactly this, after make lint)
	$(BIN)/python -m pytest -q -rs tests

lint: $(VENV)/.installed-dev  ## snakemake --lint and snakefmt --check of the workflow
	$(BIN)/snakemake --lint
	$(BIN)/snakefmt --check Snakefile rules/

report: $(VENV)/.installed  ## report.html: every figure with its caption and provenance (builds what is missing first)
	$(BIN)/snakemake --cores $(CORES)
	$(BIN)/snakemake --report report.html

dry-run: $(VENV)/.installed
	$(BIN)/snakemake -n --cores $(CORES) figures/
	$(BIN)/snakemake -n --cores $(CORES) figures/ --configfile config/paper.yaml

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/bench_spine.py

clean-results:
	rm -rf results figures logs
