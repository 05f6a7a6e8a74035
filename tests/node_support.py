"""Running the page's ES modules under Node, for the tests of the parts that decide without a
browser (``tests/server/test_*_js.py``).

A test writes a harness (an ES module that stands in for what it needs of the browser, imports
the modules it is given as ``process.argv[2:]`` and prints one JSON line last) and calls
:func:`run_node`. :data:`STORE_JS` is the browser's ``localStorage`` / ``sessionStorage`` stood
in for, a class ``Store`` a harness may start with. Tests that need Node are skipped, with a
reason, where it is not installed (``needs_node``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from backgammon.server.app import STATIC_DIR

NODE = shutil.which("node")
#: ``pytestmark = needs_node`` in a module of Node tests.
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

#: A ``Store`` class with the Web Storage methods the page uses.
STORE_JS = """
class Store {
  constructor() { this.m = new Map(); }
  get length() { return this.m.size; }
  key(i) { return [...this.m.keys()][i] ?? null; }
  getItem(k) { return this.m.has(k) ? this.m.get(k) : null; }
  setItem(k, v) { this.m.set(k, String(v)); }
  removeItem(k) { this.m.delete(k); }
}
"""


def run_node(folder: Path, harness: str, *modules: str) -> dict[str, Any]:
    """Run ``harness`` (the text of an ES module) with Node, given the file URLs of the page's
    ``modules`` (names under ``static/js``) as its arguments; returns the JSON object of the
    last line it printed.

    Raises:
        AssertionError: Node is missing, or the harness failed (its standard error shown).
    """
    assert NODE is not None, "node is not installed"
    path = folder / "harness.mjs"
    path.write_text(harness, encoding="utf-8")
    urls = [(STATIC_DIR / "js" / name).as_uri() for name in modules]
    done = subprocess.run([NODE, str(path), *urls], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return out
