"""Games in chosen states, for tests of review, hints and explanations.

The web game starts every game from the opening position with random dice, so a test that
needs, say, a player bearing off with one checker still outside finds one: seeded random games
(the engine plays random legal plays) are searched until a turn shows the situation, and the
match stops there with the dice thrown. :func:`session_record` turns a match into the record
the game store saves, so the real server opens it like any saved game.

Every situation is found through the engine (``legal_moves``, ``explain_move``), never drawn by
hand, so it is always a position that real play reaches.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from backgammon.core.dice import Dice
from backgammon.core.explain import explain_move
from backgammon.core.game import Game, Phase
from backgammon.core.match import Match
from backgammon.core.types import BAR, OFF, WHITE, Color

#: The kinds of refused attempt a person can make, and a phrase of the engine's sentence.
ATTEMPT_PHRASES = {
    "open-point": "is held by",
    "bar": "a checker on the bar must enter first",
    "dice": "no die shows",
    "bear-off": "bearing off needs all 15 checkers home",
    "bear-off-higher": "only when no checker stands higher",
    "both-dice": "you must use both dice",
    "larger-die": "when only one die can be played it must be the larger",
    "blocked": "the way is blocked",
}


def play_random_turn(game: Game, rng: random.Random, *, double: float = 0.0) -> None:
    """Advance ``game`` by one action: the opening roll, a roll (or, with probability
    ``double``, a double and its answer: taken four times in five), or a random legal play."""
    if game.phase is Phase.OPENING:
        game.roll()
    elif game.phase is Phase.ROLL:
        if double and game.can_double() and rng.random() < double:
            game.double()
            if rng.random() < 0.8:
                game.take()
            else:
                game.drop()
        else:
            game.roll()
    elif game.phase is Phase.MOVE:
        plays = list(game.legal_plays())
        if plays:
            game.play(rng.choice(plays))
        else:  # pragma: no cover - a roll that cannot be played passes by itself
            game.end_turn()
    else:  # pragma: no cover - random games never resign
        raise AssertionError(f"unexpected phase {game.phase}")


def random_match(seed: int, *, games: int = 1, length: int = 0, cube: bool = False,
                 double: float = 0.0, gammons: bool = True) -> Match:
    """A match of ``games`` finished games (fewer when a match length is reached), played
    with random legal plays; the dice and choices come from ``seed``."""
    rng = random.Random(seed)
    match = Match(length, cube=cube, gammons=gammons,
                  dice=Dice(random.Random(seed * 7919 + 1)))
    for number in range(games):
        if number:
            if match.is_over:
                break
            match.new_game()
        game = match.current
        while not game.is_over:
            play_random_turn(game, rng, double=double)
    return match


@dataclass(frozen=True)
class Attempt:
    """A refused attempt in a game about to be played.

    Attributes:
        match: the match, its current game in the ``MOVE`` phase with nothing played yet.
        kind: one of :data:`ATTEMPT_PHRASES`.
        mover: the side to move.
        src: where the checker is, mover's numbering (bar 25).
        dst: where the person tries to put it (off 0), or None for a pick-up.
        reason: the engine's sentence for it.
        seed: the seed of the random game it was found in (``find_attempt(kind,
            first_seed=seed, seeds=1)`` finds it again at once).
    """

    match: Match
    kind: str
    mover: Color
    src: int
    dst: int | None
    reason: str
    seed: int

    def place(self, point: int | None, *, source: bool) -> str | None:
        """A point of the mover's numbering as the page names it (White's numbering, "bar",
        "off")."""
        if point is None:
            return None
        if source and point == BAR:
            return "bar"
        if not source and point == OFF:
            return "off"
        return str(point if self.mover is WHITE else 25 - point)

    @property
    def from_place(self) -> str:
        place = self.place(self.src, source=True)
        assert place is not None
        return place

    @property
    def to_place(self) -> str | None:
        return self.place(self.dst, source=False)


def _candidates(game: Game, kind: str) -> Iterator[tuple[int, int | None]]:
    """(src, dst) pairs worth trying for ``kind`` in the game's current turn: ``src`` a checker
    the page lets the person pick up, ``dst`` a place that is not one too (a click there
    would pick that checker up instead)."""
    sources = {m.from_point for m in game.legal_moves()}
    for src, dst in _places(game, kind):
        if dst not in sources:
            yield src, dst


def _places(game: Game, kind: str) -> Iterator[tuple[int, int | None]]:
    start = game.turn_start
    own = start.own_points(start.turn)
    dice = sorted(set(game.dice_left), reverse=True)
    sources = sorted({m.from_point for m in game.legal_moves()}, reverse=True)
    if kind == "bar":
        if own[BAR] > 0 and sources:
            yield from ((p, None) for p in range(24, 0, -1) if own[p] > 0)
        return
    for src in sources:
        if kind in ("bear-off", "bear-off-higher"):
            if src <= 6:
                yield src, OFF
        elif kind == "dice":
            yield from ((src, src - k) for k in range(1, 7)
                        if k not in game.dice_left and src - k >= 1 and own[src - k] >= -1)
        elif kind == "blocked":
            # Only a double can start a checker on a way that is blocked further on: with two
            # different dice, a checker that can move at all has an open way through.
            if len(dice) == 1:
                steps = len(game.dice_left)
                yield from ((src, src - k * dice[0]) for k in range(2, steps + 1)
                            if src - k * dice[0] >= 1)
        else:
            yield from ((src, src - d) for d in dice if src - d >= 1)


def find_attempt(kind: str, *, first_seed: int = 1, seeds: int = 400) -> Attempt:
    """The first turn of a seeded random game where an attempt of ``kind`` is refused with
    the engine's sentence for it; the match is left at that turn (dice thrown).

    Raises:
        LookupError: none in ``seeds`` games.
    """
    phrase = ATTEMPT_PHRASES[kind]
    for seed in range(first_seed, first_seed + seeds):
        rng = random.Random(seed)
        match = Match(0, cube=False, dice=Dice(random.Random(seed * 7919 + 1)))
        game = match.current
        while not game.is_over:
            if game.phase is Phase.MOVE and game.legal_moves():
                for src, dst in _candidates(game, kind):
                    reason = _explain(game, src, dst)
                    if reason is not None and phrase in reason:
                        mover = game.on_roll
                        assert mover is not None
                        return Attempt(match, kind, mover, src, dst, reason, seed)
            play_random_turn(game, rng)
    raise LookupError(f"no {kind!r} attempt in {seeds} random games")


def _explain(game: Game, src: int, dst: int | None) -> str | None:
    if dst is not None:
        return explain_move(game.turn_start, game.dice_left, game.played, src, dst)
    own = game.turn_start.own_points(game.turn_start.turn)
    if own[BAR] > 0 and src != BAR:
        return "a checker on the bar must enter first"
    return None


def find_turn(test: Callable[[Game], bool], *, first_seed: int = 1, seeds: int = 400,
              cube: bool = False) -> Match:
    """The first state of a seeded random game (after any action) where ``test(game)``
    holds; the match is left there.

    Raises:
        LookupError: none in ``seeds`` games.
    """
    for seed in range(first_seed, first_seed + seeds):
        rng = random.Random(seed)
        match = Match(0, cube=cube, dice=Dice(random.Random(seed * 7919 + 1)))
        game = match.current
        while not game.is_over:
            play_random_turn(game, rng)
            if test(game):
                return match
    raise LookupError(f"no such turn in {seeds} random games")


def session_record(match: Match, *, kind: str = "single", mode: str = "pass_and_play",
                   human: str | None = None, level: str = "easy") -> dict[str, Any]:
    """The record :class:`~gametable.game_store.GameStore` saves for a session holding
    ``match`` (see :mod:`backgammon.services.session`)."""
    settings = {"mode": mode, "level": level, "human": human, "cube": match.cube,
                "kind": kind, "length": match.length, "gammons": match.gammons}
    return {"settings": settings, "log": match.to_log(), "version": 1}


__all__ = [
    "ATTEMPT_PHRASES",
    "Attempt",
    "find_attempt",
    "find_turn",
    "play_random_turn",
    "random_match",
    "session_record",
]


#: A money position with beavers where the computer's cube decision is "no double, beaver":
#: White (on roll) bears off from its 6- and 5-points, Black from its 2-point: White wins
#: 36.3% (the exact bear-off table), a double's take is worth -1.01 to White.
BEAVER_XGID = "XGID=-----AA----------------b--:0:0:1:00:0:0:2:0:10"
#: The same position as the page's position editor sends it (``setup`` of ``POST /api/games``).
BEAVER_SETUP: dict[str, object] = {
    "board": {"points": [0, 0, 0, 0, 0, 1, 1] + [0] * 16 + [-2, 0, 0],
              "off": {"white": 13, "black": 13}},
    "turn": "white", "dice": None, "cube": {"value": 1, "owner": None}, "doubled": False,
    "match_length": 0, "score": {"white": 0, "black": 0}, "crawford": False,
    "jacoby": False, "beavers": True}

#: A two-turn 3-point match in the ``.mat`` text format: Ann plays 31, Bob 64, Ann doubles
#: and Bob drops (for the analysis, replay and records tests).
SMALL_MAT = """ 3 point match

 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5                 64: 24/18 13/9
  2)  Doubles => 2                Drops
      Wins 1 point
"""

#: A money position with beavers where the doubler should raccoon a beaver: White (on roll)
#: and Black each bear off from their 6- and 5-points; White wins 77.2% (the exact bear-off
#: table) and doubles (double/take +0.92 to White, a take for Black). A beaver is a mistake,
#: and White's answer to it is a raccoon (worth 4 x 0.92 = 3.69 to White, against 1.84 for
#: taking the beaver), which Black takes (3.69 is less than the 4 a drop would cost).
RACCOON_XGID = "XGID=-----AA------------aa-----:0:0:1:00:0:0:2:0:10"
#: The same position as the page's position editor sends it (``setup`` of ``POST /api/games``).
RACCOON_SETUP: dict[str, object] = {
    "board": {"points": [0, 0, 0, 0, 0, 1, 1] + [0] * 12 + [-1, -1] + [0] * 5,
              "off": {"white": 13, "black": 13}},
    "turn": "white", "dice": None, "cube": {"value": 1, "owner": None}, "doubled": False,
    "match_length": 0, "score": {"white": 0, "black": 0}, "crawford": False,
    "jacoby": False, "beavers": True}
