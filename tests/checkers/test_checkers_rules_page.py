"""The checkers rules page's worked examples (``checkers.adapter.RULE_EXAMPLES``): what each
caption says is what the engine finds in its position."""

from __future__ import annotations

from checkers.adapter import RULES
from checkers.game import FORTY_MOVE_PLIES


def test_each_example_is_what_its_caption_says() -> None:
    examples = {example["id"]: example for example in RULES.rule_examples()}
    assert list(examples) == ["mandatory-capture", "multi-jump", "crowning", "blocked",
                              "forty-moves"]
    capture = examples["mandatory-capture"]
    assert capture["turn"] == "black" and capture["legal"] == ["14x23"]
    assert capture["shown"] == {"path": [14, 23], "captures": [18]}
    assert "14x23 is the only legal move" in capture["caption"]
    jump = examples["multi-jump"]
    assert jump["legal"] == ["1x10x19x28"]
    assert jump["shown"] == {"path": [1, 10, 19, 28], "captures": [6, 15, 24]}
    crown = examples["crowning"]
    assert crown["legal"] == ["22x31"] and crown["shown"]["captures"] == [26]
    # ...though a king on 31 could jump 27:
    from checkers.moves import legal_moves
    from checkers.position import Position

    king = Position.from_fen("B:W27:BK31")
    assert [str(m) for m in legal_moves(king)] == ["31x24"]
    blocked = examples["blocked"]
    assert blocked["turn"] == "white" and blocked["legal"] == []
    assert blocked["outcome"] == "Black wins: White has no legal move"
    forty = examples["forty-moves"]
    assert forty["shown"] is None and forty["outcome"] is None
    assert FORTY_MOVE_PLIES == 80 and "40 moves (80 in all)" in forty["caption"]
    for example in examples.values():
        assert example["board"] and example["fen"].startswith(example["turn"][0].upper())
