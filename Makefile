# One task runner: `make test`, `make lint`, `make bench`.
VENV ?= .venv
PY := $(VENV)/bin/python

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q -e '.[test,semantic]' ruff mypy

.PHONY: test lint bench demo
test: $(PY)
	$(PY) -m pytest

lint: $(PY)
	$(PY) -m ruff check pipeline tests benchmarks demo memory_test.py
	$(PY) -m ruff format --check pipeline tests benchmarks demo memory_test.py
	$(PY) -m mypy pipeline

demo: $(PY)
	$(PY) demo/seed_demos.py

bench: $(PY)
	$(PY) benchmarks/turn_overhead.py
