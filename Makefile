# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast bench screenshots clean

# Reinstall only when pyproject.toml changed since the last install. `make demo` shows pip's own
# progress while it installs (a target's variable holds for what it builds first); the others are quiet.
PIP_QUIET := --quiet
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install $(PIP_QUIET) --upgrade pip
	$(BIN)/python -m pip install $(PIP_QUIET) -e ".[test]"
	touch $(STAMP)

demo: PIP_QUIET :=
demo: $(STAMP)
	$(BIN)/scim-tui --demo

# Three workers on two cores: an app test waits on its screen for a part of its time, and another
# worker uses the core meanwhile; worksteal hands the slow tests left at the end to an idle worker.
PYTEST := $(BIN)/python -m pytest -n 3 --dist worksteal

# What every change must keep: the lint rules, the formatting, the layer contracts (pyproject.toml,
# [tool.importlinter]), the types of src/ ([tool.mypy]), then the tests.
LINT := $(BIN)/ruff check src tests bench scripts && $(BIN)/ruff format --check --quiet src tests bench scripts && $(BIN)/lint-imports --no-cache && $(BIN)/mypy

test: $(STAMP)
	$(LINT)
	$(PYTEST) $(PYTEST_ARGS)

# The edit-test loop: every test but those marked slow (CONTRIBUTING.md, "Tests").
test-fast: $(STAMP)
	$(LINT)
	$(PYTEST) -m "not slow" $(PYTEST_ARGS)

# The benchmark is not part of `make test`. scim2-tester, the peer it compares against,
# is installed here only.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet scim2-tester
	$(BIN)/python bench/engine_bench.py
	$(BIN)/python bench/app_bench.py
	$(BIN)/python bench/start_bench.py

# Regenerate the README's SVG screenshots from the real app.
screenshots: $(STAMP)
	$(BIN)/python scripts/screenshots.py

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache
