VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: venv test
venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

test: venv
	$(PY) -m pytest -q
