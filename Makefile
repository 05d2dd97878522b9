# Parlour: `make demo` runs the main job, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test bench soak clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m bots_sdk demo

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadfile

bench: $(STAMP)
	$(PY) bench/engines.py

# Long runs (thousands of random games) never run in CI.
soak: $(STAMP)
	PARLOUR_SOAK=1 $(PY) -m pytest -n 2 --dist loadfile -m soak tests

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
