# Every target sets itself up: a fresh clone needs only python3 (>= 3.11) and make.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: venv install refsdk refcore test test-pure test-wheel test-dist lint types format bench bench-e2e bench-scale bench-wire demo clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# non-editable install: the tests import the built package (with its compiled modules)
$(STAMP): $(PY) pyproject.toml setup.py $(shell find band_sdk_core band -name '*.py' -o -name '*.pxd' -o -name '*.pyx' 2>/dev/null) $(wildcard band/devserver/static/*)
	$(PY) -m pip install --quiet ".[dev]"
	@touch $(STAMP)

venv: $(PY)
install: $(STAMP)

# The official band-sdk 6.0.1 and band-mcp 2.2.7, in a scratch venv outside the repository: the
# compatibility peers of the local platform's tests. `make test` creates it when it is missing, so a
# fresh clone runs every test (under CI an unexpected skip fails, tests/conftest.py).
REFSDK ?= $(or $(TMPDIR),/tmp)/band-refsdk-venv
REFSDK_STAMP := $(REFSDK)/.band-refsdk-6.0.1
$(REFSDK_STAMP):
	$(PYTHON) -m venv $(REFSDK)
	$(REFSDK)/bin/python -m pip install --quiet "band-sdk==6.0.1" "band-mcp==2.2.7"
	$(REFSDK)/bin/python -c "import band, band_mcp"
	@touch $@
refsdk: $(REFSDK_STAMP)

# The reference core band-sdk-core 6.1.1, in a scratch venv outside the repository: the peer of
# the differential tests in tests/refcore and of bench/compare.py --against. `make test` creates it.
REFCORE ?= $(or $(TMPDIR),/tmp)/band-refcore-venv
REFCORE_STAMP := $(REFCORE)/.band-sdk-core-6.1.1
$(REFCORE_STAMP):
	$(PYTHON) -m venv $(REFCORE)
	$(REFCORE)/bin/python -m pip install --quiet "band-sdk-core==6.1.1"
	$(REFCORE)/bin/python -Ic "import band_sdk_core"
	@touch $@
refcore: $(REFCORE_STAMP)

# two pytest-xdist workers (TEST_WORKERS=0 runs in one process): most tests wait on sockets
TEST_WORKERS ?= 2
test: $(STAMP) $(REFSDK_STAMP) $(REFCORE_STAMP)
	BAND_REFSDK_PYTHON=$(REFSDK)/bin/python BAND_REFCORE_PYTHON=$(REFCORE)/bin/python \
		BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 \
		$(PY) -Im pytest tests -q -p no:cacheprovider -n $(TEST_WORKERS)
	BAND_SDK_CORE_NO_EXTENSIONS=1 $(PY) -Im pytest tests/core -q -p no:cacheprovider -m "not compiled" -n $(TEST_WORKERS)

# what each platform gets (tests/packaging/run.sh): the sdist without a compiler installs pure Python,
# the cp312-abi3 wheel built on 3.12 passes tests/core on 3.13, the py3-none-any wheel passes too
test-dist: $(STAMP)
	PY=$(PY) bash tests/packaging/run.sh

test-pure: $(STAMP)
	BAND_SDK_CORE_NO_EXTENSIONS=1 $(PY) -Im pytest tests -q -p no:cacheprovider -m "not compiled"

# the wheel users get: build it, install it alone into a scratch venv, run the core tests against
# it with no fallback allowed (the wheel CI does the same through cibuildwheel)
WHEEL_TEST := build/wheel-test
test-wheel: $(PY)
	rm -rf $(WHEEL_TEST)
	BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 $(PY) -m pip wheel . --no-deps --quiet -w $(WHEEL_TEST)/dist
	$(PYTHON) -m venv $(WHEEL_TEST)/venv
	$(WHEEL_TEST)/venv/bin/pip install --quiet --no-deps $(WHEEL_TEST)/dist/*.whl
	$(WHEEL_TEST)/venv/bin/pip install --quiet pytest hypothesis
	cd $(WHEEL_TEST) && BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 venv/bin/python -Im pytest \
		$(CURDIR)/tests/core -q -p no:cacheprovider

lint: $(STAMP)
	$(PY) -m ruff check band_sdk_core band tests bench
	$(PY) -m ruff format --check band_sdk_core band tests bench
	PATH=$(VENV)/bin:$$PATH $(VENV)/bin/cython-lint $(wildcard band_sdk_core/*.pyx band_sdk_core/*.pxd)
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

format: $(STAMP)
	$(PY) -m ruff format band_sdk_core band tests bench
	$(PY) -m ruff check --fix band_sdk_core band tests bench

types: $(STAMP)
	$(PY) -m mypy

# pytest-benchmark JSON, then compare.py's side-by-side ratios, both under bench/results/ with one
# <commit>-<time> stem (read by bench/dashboard.py); BENCH_ARGS go to compare.py (e.g. --against PY)
BENCH_RESULTS ?= bench/results
BENCH_PYTEST_ARGS ?= --benchmark-max-time=0.2 --benchmark-min-time=0.0001 --benchmark-min-rounds=5 --benchmark-disable-gc
bench: $(STAMP)
	@mkdir -p $(BENCH_RESULTS)
	@stem=$(BENCH_RESULTS)/$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)-$$(date -u +%Y%m%dT%H%M%SZ); \
	set -x; \
	BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 $(PY) -Im pytest bench -q -p no:cacheprovider \
		$(BENCH_PYTEST_ARGS) --benchmark-json=$$stem.json && \
	$(PY) bench/compare.py --json $$stem.compare.json $(BENCH_ARGS)

# end to end through band dev over real sockets (not part of `make test`): ours (compiled and
# pure core) and, when that interpreter exists, the official band-sdk side by side; E2E_ARGS e.g.
# "--agents 4 --rooms 10 --messages 20 --json e2e.json"
E2E_AGAINST ?= $(wildcard $(REFSDK)/bin/python)
E2E_ARGS ?=
bench-e2e: $(STAMP)
	$(PY) bench/e2e/run.py $(if $(E2E_AGAINST),--against $(E2E_AGAINST)) $(E2E_ARGS)

# frame decoding, json.loads against the wire model's msgspec decoder (not part of `make bench`,
# whose suite is band_sdk_core's operations against compare.py): compare the two rows' ratio
bench-wire: $(STAMP)
	$(PY) -Im pytest bench/wire_bench.py -q -p no:cacheprovider --benchmark-columns=min,median,ops

# one agent in many rooms through band dev (not part of `make test`): subscribe time, msgs/s, a
# reconnect storm (band dev killed and restarted), RSS per room, lost/duplicated answers; ours and,
# when that interpreter exists, the official band-sdk; SCALE_ARGS e.g. "--rooms 100 --json s.json"
SCALE_ARGS ?=
bench-scale: $(STAMP)
	$(PY) bench/scale/run.py $(if $(E2E_AGAINST),--against $(E2E_AGAINST)) $(SCALE_ARGS)

# band demo: local platform, an SDK agent, a room, a mention, the reply (DEMO_ARGS: --acp, --keep)
demo: $(STAMP)
	$(VENV)/bin/band demo $(DEMO_ARGS)

clean:
	rm -rf build dist *.egg-info $(VENV) band_sdk_core/*.c band_sdk_core/*.so
