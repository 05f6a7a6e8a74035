"""Positions from real games: every roll of the ``.mat`` transcripts, with the play made.

Used by the speed benchmark (a fixed set of positions to time the computer on) and to measure
how often the computer's play agrees with GNU Backgammon's (``bench/ai_strength.py
--agreement``). The transcripts are the GNU Backgammon self-play matches of ``shared/mat/``
(``gnubg_selfplay_*.mat``), replayed through our rules by :mod:`backgammon.records.mat`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from backgammon.core.moves import legal_plays
from backgammon.core.position import Position
from backgammon.core.types import Roll


@dataclass(frozen=True)
class RealMove:
    """One roll of a real game.

    Attributes:
        position: the position before the roll, the roller to move.
        dice: the roll.
        result: the position after the play made (same side to move), or None when the roll
            could not be played.
        source: ``"file.mat game N"``, for people.
    """

    position: Position
    dice: Roll
    result: Position | None
    source: str


def real_moves(mat_dir: Path, pattern: str = "gnubg_selfplay_*.mat") -> list[RealMove]:
    """Every roll of the transcripts matching ``pattern`` in ``mat_dir``, in file order.

    Raises:
        FileNotFoundError: no transcript matches.
    """
    from backgammon.records.mat import read_and_replay

    files = sorted(mat_dir.glob(pattern))
    if not files:
        raise FileNotFoundError(f"no {pattern} in {mat_dir}")
    found: list[RealMove] = []
    for path in files:
        replay = read_and_replay(path.read_text(encoding="utf-8"))
        for number, game in enumerate(replay.match.games, start=1):
            history = game.history
            if not history:
                continue
            before: Position | None = None
            for turn in history:
                if turn.action == "move" and turn.dice is not None:
                    start = before.with_turn(turn.color) if before is not None else (
                        Position.start(turn.color)
                    )
                    result = turn.position.with_turn(turn.color) if turn.moves else None
                    found.append(RealMove(start, turn.dice, result, f"{path.name} game {number}"))
                before = turn.position
    return found


def sample_positions(moves: list[RealMove], count: int) -> list[RealMove]:
    """``count`` rolls with a real choice (two or more legal plays), evenly spaced through
    ``moves``: a fixed set, the same on every run."""
    choices = [m for m in moves if len(legal_plays(m.position, m.dice)) >= 2]
    if len(choices) <= count:
        return choices
    step = len(choices) / count
    return [choices[int(i * step)] for i in range(count)]


__all__ = ["RealMove", "real_moves", "sample_positions"]
