#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh machine, then runs it all:
# the package with its [dev] extras in .venv (and its [bench] extras where they install),
# Debian's chromium for the browser tests, gnubg as an outside reference and redis-server for
# the online rooms that several server processes share (tests/gametable/test_redis_rooms.py
# starts its own on a free port) and openssl for a test certificate (all when apt-get is
# available and we are root), then ruff,
# mypy --strict on all of src, and pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian installs gnubg in /usr/games, which is not always on PATH.
export PATH="$PATH:/usr/games"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  missing=()
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  command -v gnubg >/dev/null 2>&1 || missing+=(gnubg)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[dev]"
# GNU Backgammon's Python package, the outside judge of the benches and of the tests that
# compare the computer with it: where it does not install (no wheel for this platform), those
# tests skip saying so and the benches print our figures alone.
.venv/bin/python -m pip install --quiet -e ".[bench]" 2>/dev/null \
  || echo "gnubg (PyPI) not installed: the tests against it will skip"

.venv/bin/ruff check .
.venv/bin/mypy   # strict, on all of src (see [tool.mypy] in pyproject.toml)
# One worker process per core (pytest-xdist); a test file stays on one worker, so its
# module-wide server and browser are started once. PYTEST_WORKERS=0 runs in this process.
.venv/bin/python -m pytest -n "${PYTEST_WORKERS:-auto}" --dist loadfile "$@"
