"""The rules page's worked examples: ``GET /api/rules/examples``.

Each example is a real position and roll with every legal play the engine allows
(:mod:`backgammon.services.rule_examples`); the rules page (``/rules``) draws them on small
boards.
"""

from __future__ import annotations

from fastapi import APIRouter

from backgammon.services.rule_examples import RuleExampleJSON, examples_json

router = APIRouter(tags=["rules"])


@router.get("/api/rules/examples")
async def rule_examples() -> list[RuleExampleJSON]:
    """The worked examples of the rules page: for each, its words, the position (White on
    roll, as a board and a Position ID), the roll and the engine's legal plays (``[]``: the
    roll cannot be played)."""
    return examples_json()


__all__ = ["router"]
