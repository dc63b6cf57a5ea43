# The two commands of the README: `make demo` and `make test`.
# Both create .venv when missing and (re)install the package when pyproject.toml changes.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PYTEST_ARGS ?=
# test-min: a second venv with every dependency at its declared floor (.ci/constraints-min.txt)
VENV_MIN ?= .venv-min
PY_MIN   := $(VENV_MIN)/bin/python
MIN_WHEELS := numpy,scipy,numba,llvmlite,cvxpy,scikit-learn,pandas

.PHONY: demo test test-min test-slow bench results catalogue docs docs-clean clean help

help:
	@echo "make demo       set up .venv and run the end-to-end demo"
	@echo "make test       set up .venv with the test extra and run the test suite"
	@echo "make test-min   run the core tests with every dependency at its declared minimum"
	@echo "make test-slow  also run the slow tests (examples at --quick size, long checks)"
	@echo "make bench      run the benchmarks in benchmarks/"
	@echo "make results    rerun every example and rebuild examples/RESULTS.md whole (at most two"
	@echo "                hours on two cores; the wall time of the last run is in RESULTS.md)"
	@echo "make catalogue  rebuild sequences/ (resumable; about two hours on two cores)"
	@echo "make docs       build the documentation site into docs/_build/html (offline, warnings as errors;"
	@echo "                the gallery re-runs only the examples that changed)"
	@echo "make docs-clean remove the built site and the gallery's outputs (the next make docs runs all)"

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[examples]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[test,examples]"
	touch $@ $(VENV)/.installed-demo

demo: $(VENV)/.installed-demo
	$(PY) examples/demo.py

# every example at the recorded sizes (examples/run_all.py FULL_ARGS), from an emptied output folder
results: $(VENV)/.installed-demo
	$(PY) examples/run_all.py --fresh

test: $(VENV)/.installed-test
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

$(VENV_MIN)/.installed-min: pyproject.toml .ci/constraints-min.txt
	rm -rf $(VENV_MIN)
	$(PYTHON) -m venv $(VENV_MIN)
	$(PY_MIN) -m pip install --quiet --upgrade pip
	$(PY_MIN) -m pip install --quiet --only-binary $(MIN_WHEELS) -c .ci/constraints-min.txt -e ".[test]"
	touch $@

# QMC_ORFF_EXPECT_MIN makes tests/test_floors.py check that the floors are what is installed
test-min: $(VENV_MIN)/.installed-min
	QMC_ORFF_EXPECT_MIN=1 $(PY_MIN) -m pytest -m "not slow and not examples" -p no:cacheprovider \
		--ignore=tests/test_examples.py $(PYTEST_ARGS)

# --hypothesis-profile=slow: ten times the property cases of tests/test_properties.py, random
test-slow: $(VENV)/.installed-test
	$(PY) -m pytest --hypothesis-profile=slow $(PYTEST_ARGS)

$(VENV)/.installed-bench: pyproject.toml $(VENV)/.installed-test
	$(PY) -m pip install --quiet -e ".[test,examples,bench]"
	touch $@

bench: $(VENV)/.installed-bench
	for f in benchmarks/bench_*.py; do $(PY) $$f || exit 1; done

$(VENV)/.installed-docs: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[docs,examples]"
	touch $@

# Sphinx with warnings as errors (-W --keep-going lists them all before failing); no network:
# the intersphinx inventories are written from the installed packages (docs/_inventories.py),
# the gallery (docs/gallery/plot_*.py) uses bundled data only.
# `-E`: every page is read again, so that a warning of an unchanged page is never skipped.
# docs/auto_examples is kept: sphinx-gallery re-runs an example only when its md5 changed
# (the gallery is most of a build's time); `make docs-clean` removes it and every build output.
SPHINXOPTS ?= -W --keep-going -E -j 1
docs: $(VENV)/.installed-docs
	rm -rf docs/generated docs/api/generated docs/_build/html docs/sg_execution_times.rst
	MPLBACKEND=Agg $(PY) -m sphinx -b html $(SPHINXOPTS) docs docs/_build/html
	@! grep -rlE --include='*.html' '<(script|link)[^>]*(src|href)="(https?:)?//' docs/_build/html \
		|| { echo "make docs: the pages above load a script or style sheet from the network"; exit 1; }

docs-clean:
	rm -rf docs/_build docs/generated docs/api/generated docs/auto_examples \
		docs/sg_execution_times.rst docs/_cli

catalogue: $(VENV)/.installed-demo
	$(VENV)/bin/qmc-orff catalogue build --resume --dir sequences

clean:
	rm -rf $(VENV) $(VENV_MIN) build *.egg-info .pytest_cache docs/_build docs/generated docs/auto_examples \
		docs/api/generated
