"""Running GNU Backgammon (gnubg) as an outside reference in tests.

Tests that use it skip with a message when it is not installed: ``@needs_gnubg``. Debian puts
it in ``/usr/games``, which is not always on PATH.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest


def find_gnubg() -> str | None:
    """gnubg on PATH, or where Debian installs it."""
    found = shutil.which("gnubg")
    if found:
        return found
    fallback = Path("/usr/games/gnubg")
    return str(fallback) if fallback.exists() else None


needs_gnubg = pytest.mark.skipif(find_gnubg() is None,
                                 reason="GNU Backgammon (gnubg) is not installed")


def run_gnubg(commands: Sequence[str], workdir: Path, timeout: float = 120) -> str:
    """Run gnubg in text mode on ``commands`` (one a line) and return what it printed.

    gnubg gets ``workdir`` as its home, so no settings of the user's are read or written.
    """
    gnubg = find_gnubg()
    if gnubg is None:
        pytest.skip("GNU Backgammon (gnubg) is not installed")
    script = workdir / "gnubg-commands.txt"
    script.write_text("\n".join(commands) + "\n", encoding="utf-8")
    done = subprocess.run(
        [gnubg, "-t", "-q", "-c", str(script)],
        capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=workdir,
        env={"HOME": str(workdir), "PATH": "/usr/bin:/bin"},
    )
    return done.stdout.decode("utf-8", errors="replace") + done.stderr.decode(
        "utf-8", errors="replace")


def final_score(output: str) -> tuple[int, int]:
    """The score gnubg's ``show score`` printed last, (player 0, player 1)."""
    found = re.findall(r"The score \(after \d+ games?\) is: .+? (\d+), .+? (\d+)(?: \(|\.|\s*$)",
                       output, re.MULTILINE)
    assert found, f"gnubg printed no score:\n{output}"
    return (int(found[-1][0]), int(found[-1][1]))
