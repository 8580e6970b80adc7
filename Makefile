# One entry point for every check. `make help` lists them with how long each takes on the
# two-core machine CI uses. Every target runs the workspace's own interpreter (.venv), so
# run `make sync` once after cloning (scripts/test does it for you).

PY := .venv/bin/python
P ?=

.DEFAULT_GOAL := help
.PHONY: help sync lint format typecheck imports pins check test test-quick test-package \
        readmes mutate bench demo build

help:  ## list the checks (this page)
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

sync:  ## install every package, extra and dev tool from the lock (~1 min the first time)
	python -m uv sync --all-packages --all-extras --locked

lint:  ## ruff lint and format check (~1 s)
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

format:  ## apply ruff's formatting and safe fixes (~1 s)
	.venv/bin/ruff format .
	.venv/bin/ruff check --fix .

typecheck:  ## mypy --strict over every package (~10 s with mypy's cache, 1-2 min the first time)
	$(PY) scripts/typecheck.py

imports:  ## the import boundaries between packages (~1 s)
	$(PY) scripts/lint_imports.py

pins:  ## every internal pin equals the pinned package's version (~1 s)
	$(PY) scripts/check_pins.py

check: lint typecheck imports pins  ## every static check, no tests (~15 s with mypy's cache, ~2 min the first time)

test:  ## what CI runs: static checks, the whole suite with coverage, each package alone (~16 min)
	bash scripts/test

test-quick:  ## the whole suite once, stop at the first failure, no coverage (~6 min)
	$(PY) -m pytest -q -p no:randomly -x

test-package:  ## one package's tests in an environment holding only it: make test-package P=akgentic-tool-planning (~0.5-3 min)
	@test -n "$(P)" || (echo "name the package: make test-package P=akgentic-tool-planning" && exit 2)
	$(PY) scripts/test_package.py $(P)

readmes:  ## run every python block of every README, one test per block (~40 s)
	$(PY) -m pytest tests-integration/test_readme_blocks.py -q -p no:randomly

mutate:  ## mutation testing of one package, not in CI: make mutate P=akgentic-llm [J=4] (~10-40 min)
	@test -n "$(P)" || (echo "name the package: make mutate P=akgentic-llm" && exit 2)
	$(PY) scripts/mutate.py $(P) --survivors $(if $(J),--jobs=$(J))

bench:  ## every package's benchmark, one table of medians and ratios (~10 min)
	$(PY) scripts/bench.py

demo:  ## a small team at work on a scripted model: no key, no network (~20 s)
	$(PY) scripts/demo.py

build:  ## build every distribution's sdist and wheel into dist/ (~1 min)
	$(PY) scripts/build_all.py
