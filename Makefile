# Parlour: `make demo` runs the main job, `make test` lints and runs every test. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.base
STAMP := $(VENV)/.installed
PROTOS := $(wildcard protos/parlour/v1/*.proto)
GENERATED := parlour/v1/referee_pb2.py

.PHONY: demo lint test bench soak protos clean settings-doc

$(BASE):
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet 'grpcio-tools>=1.60'
	touch $(BASE)

# The Python code of the protobuf contract, generated from protos/ (never committed).
$(GENERATED): $(BASE) $(PROTOS)
	rm -rf parlour
	$(PY) -m grpc_tools.protoc -Iprotos --python_out=. --grpc_python_out=. --pyi_out=. $(PROTOS)
	touch parlour/__init__.py parlour/v1/__init__.py

protos: $(GENERATED)

# The fifth game, Kuhn poker, is a package of its own (examples/kuhn-poker): installed beside Parlour,
# found by its entry point like any game installed from outside.
$(STAMP): $(GENERATED) pyproject.toml examples/kuhn-poker/pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pip install --quiet -e examples/kuhn-poker
	touch $(STAMP)

# The JavaScript example bot's packages (the tests run it against a real referee).
JSDEPS := examples/js-bot/node_modules/.package-lock.json
$(JSDEPS): examples/js-bot/package-lock.json
	cd examples/js-bot && npm ci --silent --no-audit --no-fund

# Debian's chromium for the browser tests (Playwright drives it; no browser is ever downloaded).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	command -v apt-get >/dev/null && (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) \
	  || echo "chromium is missing: the browser tests will be skipped"

# The whole platform on this machine: SQLite, a private Redis, a referee, a worker, beat and the
# site on http://127.0.0.1:8000 (Ctrl-C stops everything).
demo: $(STAMP)
	$(PY) -m arena demo

# The linter first (ruff, configured in pyproject.toml): a finding fails the target before any test runs.
lint: $(STAMP)
	$(PY) -m ruff check .

test: lint $(JSDEPS) $(CHROMIUM)
	$(PY) -m pytest -n 2 --dist loadfile --durations=10

# Each bench prints its results and writes them into its own section of docs/benchmarks.md.
bench: $(STAMP)
	$(PY) bench/engines.py --record
	$(PY) bench/bots.py --record
	$(PY) bench/referee.py --record
	$(PY) bench/arena.py --record
	$(PY) bench/web.py --record
	$(PY) bench/sandbox.py --record

# Long runs (thousands of random games) never run in CI.
soak: $(STAMP)
	PARLOUR_SOAK=1 $(PY) -m pytest -n 2 --dist loadfile -m soak tests
	PARLOUR_SOAK=1 $(PY) -m pytest tests/test_arena_e2e.py -k ladder  # 200 ladder matches

clean:
	rm -rf $(VENV) parlour .pytest_cache build *.egg-info

# docs/settings.md, from the settings' declarations (tests/test_settings.py checks it is current).
settings-doc: $(STAMP)
	$(PY) -m parlour_site.settings_doc > docs/settings.md
