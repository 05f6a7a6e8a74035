"""Shared test helpers: where the reference data of ``shared/`` lives.

The data sits next to the repository (``../shared`` from its root), or wherever the environment
variable ``BACKGAMMON_SHARED`` points. Tests that need it skip, saying so, when it is absent.
Other test modules may ``from conftest import shared_path, read_jsonl``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import Phase, settings

# Hypothesis's "explain" phase imports libcst, whose warnings our warnings-as-errors setting
# turns into an INTERNALERROR that hides the real failure; keep the current profile (the "ci"
# one on CI: derandomized) and drop only that phase.
settings.register_profile(
    "backgammon",
    parent=settings.default,
    phases=tuple(phase for phase in Phase if phase is not Phase.explain),
)
settings.load_profile("backgammon")

#: The benchmark scripts' directory (not a package: its modules import each other by name).
BENCH_DIR = Path(__file__).resolve().parents[1] / "bench"

#: Environment variable naming the shared directory (the one holding ``oracle/`` and ``mat/``).
SHARED_ENV = "BACKGAMMON_SHARED"


def find_shared_dir() -> Path | None:
    """The shared directory, or None if it is not there.

    ``$BACKGAMMON_SHARED`` wins when set; otherwise ``shared/`` beside the repository root.
    """
    env = os.environ.get(SHARED_ENV)
    candidate = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared"
    return candidate if candidate.is_dir() else None


def shared_path(*parts: str) -> Path:
    """A path inside the shared directory; skips the calling test if it does not exist."""
    base = find_shared_dir()
    if base is None:
        pytest.skip(
            "reference data not found: put it at ../shared beside the repository "
            f"or set {SHARED_ENV} to its directory"
        )
    path = base.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not found: {path} is missing")
    return path


def bench_module(name: str) -> ModuleType:
    """Import ``bench/<name>.py`` (e.g. ``bench_module("gnubg_judge")``), once per session."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a file holding one a line (blank lines ignored)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared directory (``oracle/``, ``mat/``); the test is skipped when it is absent."""
    return shared_path()
