#!/usr/bin/env bash
# Installs the game into .venv on a fresh machine and starts it: the server on localhost,
# and the page opened in your browser. Extra arguments go to `backgammon serve`
# (e.g. --port 8080, --host 0.0.0.0 to let a friend on your network join, --no-browser).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e .
exec .venv/bin/backgammon serve "$@"
