# Everything needs only python3 on a fresh machine: the first target run creates .venv.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install test lint typecheck unit demo bench bench-quick clean

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
# The echo bots the overhead benchmark compares with: aiogram comes with the `bench` extra.
BENCH_STAMP := $(VENV)/.bench-stamp
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $(BENCH_STAMP)

bench: $(BENCH_STAMP)
	$(BIN)/python -m bench.overhead
	$(BIN)/python -m bench.outage_surge
	$(BIN)/python -m bench.telegram_surge
	$(BIN)/python -m bench.mirror_drain
	$(BIN)/python -m bench.memory

## The same at small sizes, a few minutes in all: to try a change, not to quote (see bench/RESULTS.md).
bench-quick: $(BENCH_STAMP)
	$(BIN)/python -m bench.overhead --updates 500 --chats 50
	$(BIN)/python -m bench.outage_surge --subscribers 500 --seconds 5
	$(BIN)/python -m bench.telegram_surge --subscribers 200 --seconds 10
	$(BIN)/python -m bench.mirror_drain --entries 2000 --backlog 500 --outage-seconds 5
	$(BIN)/python -m bench.memory --chats 5000 --conversations 1000 --sample 100

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
