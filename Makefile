# Benthic: `make run` starts the platform locally with a bot demo; `make test` runs the whole suite.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: venv run test chaos bench bench-engines bench-store bench-e2e bench-peer clean

venv: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -c constraints.txt -e '.[test]'
	touch $@

run: venv
	$(PY) -m benthic.cli run

# The unit tests (pure CPU, no servers) on both cores, then the rest in two workers, a test module at a time per
# worker, each worker with servers of its own (tests/servers.py: REDIS_URL and BENTHIC_ARCHIVE_URL are not shared).
test: venv
	$(PY) -m pytest -q -n 2 tests/unit
	$(PY) -m pytest -q -n 2 --dist loadfile --ignore=tests/unit

# The Redis Cluster failover test (also in `make test`) ten times in a row: a rare failure shows itself here.
chaos: venv
	for i in 1 2 3 4 5 6 7 8 9 10; do $(PY) -m pytest -q tests/e2e/test_cluster_failover.py || exit 1; done

# Benchmarks (not part of `make test`): JSON results in bench/results/.
bench: venv
	$(PY) -m pip install -q -c constraints.txt -e '.[test,bench]'
	$(PY) -m bench.run

bench-engines: venv
	$(PY) -m bench.engine_bench

bench-store: venv
	$(PY) -m bench.store_bench

bench-e2e: venv
	$(PY) -m bench.e2e_bench

# Server CPU per move, Benthic vs boardgame.io 0.50 in memory (npm ci's the pinned peer into bench/peer/).
bench-peer: venv
	$(PY) -m pip install -q -c constraints.txt -e '.[test,bench]'
	$(PY) -m bench.peer_bench

clean:
	rm -rf .run bench/results bench/peer/node_modules .pytest_cache .hypothesis
