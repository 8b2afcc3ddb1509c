# Two entry points for a fresh machine: `make run` and `make test`. Everything else is a helper for them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: run test lint bench screenshots clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/gemini-tui $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check gemini_tui app core tools cli styles tests bench screenshots

test: $(STAMP) lint
	$(BIN)/pytest -q $(PYTEST_ARGS)

bench: $(STAMP)
	$(BIN)/python -m bench

screenshots: $(STAMP)
	$(BIN)/python -m screenshots.make

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
