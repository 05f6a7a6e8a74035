"""The README's "One table for both games" example runs as written and does what its comments
say (a checkers table against the computer, a backgammon play built checker by checker)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_table_example_runs_as_written() -> None:
    text = README.read_text(encoding="utf-8")
    start = text.index("One table for both games")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block is not None
    names: dict[str, Any] = {}
    exec(compile(block.group(1), "README.md", "exec"), names)  # our own README
    assert names["table"].view("black")["to_act"] == ["black"]
    match = names["match"]
    assert match.view("white")["state"]["history"][-1]["text"] == "Black 5-2: 24/22 13/8"
    assert names["record"]["game"] == "backgammon"
    assert names["again"].to_record() == names["record"]
