# Everything needs only python3 on a fresh machine: the first target run creates .venv.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install test lint typecheck unit demo bench clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check bot flows tests bench

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP)
	$(BIN)/pytest

## The README's test command: lint, types, then the whole suite.
test: lint typecheck unit

## Try the bot in this terminal, against the embedded sandbox ISP.
demo: $(STAMP)
	$(BIN)/ispbot demo

## Benchmarks: one JSON line per figure (see bench/ and the README).
bench: $(STAMP)
	$(BIN)/python -m bench.bot_throughput

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
