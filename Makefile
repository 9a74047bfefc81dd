# Every target builds .venv on first use, so a fresh clone needs only Python 3.11.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test bench lint clean

$(STAMP): pyproject.toml sdk/python/pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e sdk/python  # the bot SDK first: the arena depends on it
	$(BIN)/python -m pip install -q -e '.[dev,rl]'
	touch $(STAMP)

$(VENV)/.bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[dev,rl,bench]'
	touch $(VENV)/.bench

demo: $(STAMP)
	$(BIN)/arena demo

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist worksteal

bench: $(VENV)/.bench
	$(BIN)/python -m bench

# mypy checks what pyproject.toml's [tool.mypy] names: all our packages but the generated protocol code.
lint: $(STAMP)
	$(BIN)/ruff check arena workers bots tests bench sdk/python tools
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .pytest_cache
