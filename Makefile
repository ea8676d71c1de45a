# Two commands set up and run everything on a fresh machine: `make demo`, `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Tests and the demo read the reference data beside the checkout unless told otherwise.
export ACCEPTABILITY_DATA_DIR ?= $(abspath ../shared/data)

.PHONY: install demo test lint bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# The CPU build of torch first: an unpinned torch pulls gigabytes of CUDA wheels.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/acceptability demo

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	$(VENV)/bin/pytest -q -n 2

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build *.egg-info
