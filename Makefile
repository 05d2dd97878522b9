# Parlour: `make demo` runs the main job, `make test` runs every test. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
BASE := $(VENV)/.base
STAMP := $(VENV)/.installed
PROTOS := $(wildcard protos/parlour/v1/*.proto)
GENERATED := parlour/v1/referee_pb2.py

.PHONY: demo test bench soak protos clean

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

$(STAMP): $(GENERATED) pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The JavaScript example bot's packages (the tests run it against a real referee).
JSDEPS := examples/js-bot/node_modules/.package-lock.json
$(JSDEPS): examples/js-bot/package-lock.json
	cd examples/js-bot && npm ci --silent --no-audit --no-fund

demo: $(STAMP)
	$(PY) -m bots_sdk demo

test: $(STAMP) $(JSDEPS)
	$(PY) -m pytest -n 2 --dist loadfile

bench: $(STAMP)
	$(PY) bench/engines.py
	$(PY) bench/referee.py

# Long runs (thousands of random games) never run in CI.
soak: $(STAMP)
	PARLOUR_SOAK=1 $(PY) -m pytest -n 2 --dist loadfile -m soak tests

clean:
	rm -rf $(VENV) parlour .pytest_cache build *.egg-info
