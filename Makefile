# make check: lint, types and the whole test suite (CI runs the suite through .ci/run). make bench: the long runs,
# which print figures instead of asserting on time. Both use DATABASE_URL / REDIS_URL when
# set (CI sets them: PostgreSQL and Redis), else SQLite and Kombu's filesystem broker.
PY := .venv/bin/python

.PHONY: check lint types test test-hardening bench bench-faults bench-load smoke

check: lint types test

lint:
	.venv/bin/ruff check .

types:
	.venv/bin/mypy

test:
	./scripts/test.sh -q -p no:cacheprovider

test-hardening:
	./scripts/test.sh -q -p no:cacheprovider tests/hardening

bench: bench-faults bench-load

bench-faults:
	$(PY) bench/fault_recovery.py

bench-load:
	$(PY) bench/load_ladder.py

# The deployment smoke test (Docker with Compose v2; minutes): make smoke SMOKE_ARGS=--offline
smoke:
	deploy/smoke.sh $(SMOKE_ARGS)
