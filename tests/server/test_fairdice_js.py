"""The browser's commit-reveal dice (static/js/fairdice.js) give the Python test vectors.

Runs the ES module under Node.js when it is installed (the browser test of online play checks
the same in Chromium); skips with a message otherwise.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from backgammon.core.dice import commitment, dice_from_secrets

MODULE = (
    Path(__file__).resolve().parents[2] / "src/backgammon/server/static/js/fairdice.js"
)

CASES = [
    (bytes(32), bytes([1]) * 32, 0),
    (bytes(32), bytes([1]) * 32, 1),
    (bytes([1]) * 32, bytes(32), 2),
    (bytes([44]) * 32, bytes(32), 0),  # skips a 0xFF byte
    (bytes([28]) * 32, bytes(32), 82),  # skips three bytes >= 252
    (bytes(range(32)), bytes(range(32, 64)), 2**40 + 7),
]


def test_javascript_dice_match_python() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the browser test covers fairdice.js")
    script = f"""
import {{ diceFromSecrets, commitment, fromHex }} from {json.dumps(MODULE.as_uri())};
const cases = {json.dumps([[a.hex(), b.hex(), n] for a, b, n in CASES])};
const out = cases.map(([a, b, n]) => [diceFromSecrets(fromHex(a), fromHex(b), n),
                                       commitment(fromHex(a))]);
console.log(JSON.stringify(out));
"""
    result = subprocess.run(
        [node, "--input-type=module", "-e", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    got = json.loads(result.stdout)
    expected = [[list(dice_from_secrets(a, b, n)), commitment(a)] for a, b, n in CASES]
    assert got == expected
    assert got[0][0] == [4, 3]
