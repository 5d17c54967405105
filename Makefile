# Two entry points for users: `make demo` and `make test`. Each creates/refreshes .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test bench train install clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/nerts-referee demo

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# Detector training lives in its own environment (ultralytics pulls torch; the runtime never does).
train:
	$(MAKE) -C models train

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis out
