# Everything needs only python3 on a fresh machine: the first target run creates .venv.
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: install test lint typecheck unit image-check demo lock lock-upgrade docs diagrams bench bench-quick clean

# The versions CI, the image and every developer use: requirements-dev.lock (hashes checked) and the
# build backend of requirements-build.lock, then the project itself without dependencies.
$(STAMP): pyproject.toml requirements-dev.lock requirements-build.lock
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r requirements-dev.lock -r requirements-build.lock
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

## The lock files: `make lock` after changing pyproject.toml's dependencies (the other pins stay),
## `make lock-upgrade` to move every pin to the newest release pyproject.toml allows. Both for
## Python 3.11 on any platform, with the hashes of every file; requirements-build.lock pins the build
## backend pyproject.toml names (the image and `make install` build the project with it).
LOCK := $(BIN)/uv pip compile --universal --python-version 3.11 --generate-hashes \
	--custom-compile-command "make lock" --quiet $(UPGRADE)
BUILD_REQUIRES := $(BIN)/python -c \
	'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")'

lock: $(STAMP)
	$(LOCK) pyproject.toml -o requirements.lock
	$(LOCK) pyproject.toml --extra dev -o requirements-dev.lock
	$(BUILD_REQUIRES) | $(LOCK) - -o requirements-build.lock

lock-upgrade:
	$(MAKE) lock UPGRADE=--upgrade

## docs/isp-operations.md from the client's catalog (a test fails when it is stale).
docs: $(STAMP)
	$(BIN)/python -m bot.operations_doc > docs/isp-operations.md

## docs/flows/: a Mermaid state diagram per flow, from its steps (a test fails when one is stale).
diagrams: $(STAMP)
	$(BIN)/python -m flows.diagrams

lint: $(STAMP)
	$(BIN)/ruff check bot flows tests bench docker .ci/image_check.py
	$(BIN)/hadolint Dockerfile
	$(BIN)/check-jsonschema --builtin-schema vendor.compose-spec compose.yaml

typecheck: $(STAMP)
	$(BIN)/mypy

# More workers than cores: a third of a worker's time goes waiting (subprocesses, servers, the bot's
# own pauses, PostgreSQL), so two workers on two cores left them idle that long. Measured on two cores
# (docs/development.md): -n 2 22.8 min; -n 4 17.1 (before the servers stopped promptly); -n 3 14.7 and
# 14.8 after. One more than the cores, not -n 4: on a loaded machine -n 4 made a test bounded by real
# time (test_fair_admission) fail. `make unit WORKERS=n` for another count.
WORKERS ?= $(shell python3 -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')

unit: $(STAMP)
	$(BIN)/pytest -n $(WORKERS)

## The README's test command: lint, types, then the whole suite.
test: lint typecheck unit

## The image built with the Dockerfile and run as an operator would, compose.yaml included, on a Docker
## daemon of its own (root, Debian's packages; a few minutes). .ci/image_check.py says what it checks.
image-check: $(STAMP)
	$(BIN)/python .ci/image_check.py

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
	$(BIN)/python -m bench.notice_round --subscribers 10000 --people 50
	$(BIN)/python -m bench.notice_round --channel whatsapp --subscribers 10000 --people 50 --rate 80
	$(BIN)/python -m bench.whatsapp_surge --within 400
	$(BIN)/python -m bench.whatsapp_intake
	$(BIN)/python -m bench.mirror_drain
	$(BIN)/python -m bench.acs_turn
	$(BIN)/python -m bench.memory
	$(BIN)/python -m bench.intent_matching --compare
	$(BIN)/python -m bench.answer_reading
	$(BIN)/python -m bench.long_messages
	$(BIN)/python -m bench.cli_help
	$(BIN)/python -m bench.receipt_reading

## The same at small sizes, a few minutes in all: to try a change, not to quote (see bench/RESULTS.md).
bench-quick: $(BENCH_STAMP)
	$(BIN)/python -m bench.overhead --updates 500 --chats 50
	$(BIN)/python -m bench.outage_surge --subscribers 500 --seconds 5
	$(BIN)/python -m bench.telegram_surge --subscribers 200 --seconds 10
	$(BIN)/python -m bench.notice_round --subscribers 300 --people 10 --within 300
	$(BIN)/python -m bench.notice_round --channel whatsapp --subscribers 400 --people 10 --rate 80 --within 300
	$(BIN)/python -m bench.whatsapp_surge --subscribers 500 --rate 80 --within 120
	$(BIN)/python -m bench.whatsapp_intake --messages 2000 --within 120
	$(BIN)/python -m bench.mirror_drain --entries 2000 --backlog 500 --outage-seconds 5
	$(BIN)/python -m bench.memory --chats 5000 --conversations 1000 --sample 100
	$(BIN)/python -m bench.intent_matching --rounds 3
	$(BIN)/python -m bench.answer_reading --rounds 1
	$(BIN)/python -m bench.long_messages --rounds 3
	$(BIN)/python -m bench.cli_help --runs 3
	$(BIN)/python -m bench.acs_turn --rounds 5
	$(BIN)/python -m bench.receipt_reading --count 20

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
