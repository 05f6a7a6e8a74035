"""GNU Backgammon as an outside judge of the computer's plays, for benches and tests only.

The PyPI ``gnubg`` package runs GNU Backgammon's engine in-process; it is never a runtime
dependency of ``backgammon`` (``pip install -e ".[dev]"`` brings it).

**The board.** ``gnubg`` takes a position as two tuples of 25 ints, ``(not on roll, on roll)``:
in each, index ``i`` (0..23) holds that side's checkers on its own point ``i + 1`` (counted
from its own side: its home board is 1..6) and index 24 its bar. The side on roll is the
*second* tuple, as in gnubg's C code (``anBoard[1]``) and as its Position ID encodes it (the
player not on roll first). :func:`gnubg_board` maps a :class:`~backgammon.Position`, its side
to move on roll; the tests check ``gnubg.positionid(gnubg_board(p)) == p.id()`` on thousands
of positions and that gnubg's own move generator, given our board, scores the same plays as
this module does from our resulting positions.

**Equities.** Cubeless money equity for the side that played, in points (1.0 = a single game):
``2 P(win) - 1 + P(win gammon) - P(lose gammon) + P(win bg) - P(lose bg)``, gammons including
backgammons, the same measure as :class:`backgammon.ai.RankedPlay`'s ``equity``. Losses are
reported in mEMG: thousandths of a point of that equity.

**Plies**, as GNU Backgammon counts them for a play: 0-ply is its neural net on the position
after the play (the opponent on roll); n-ply looks n plies further (its evaluation of that
position at n plies: the opponent's 21 rolls, its best reply, and so on). With ``prune`` gnubg
picks the replies inside the search with its pruning nets, as its own 2-ply ("World class")
analysis does; without, with the full net.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final, NamedTuple

import gnubg

from backgammon.ai.cube import CubeAction
from backgammon.core.moves import Play, legal_plays
from backgammon.core.position import Position, ResultKind

if TYPE_CHECKING:
    from backgammon.core.game import Game

#: gnubg's board: (side not on roll, side on roll), 25 ints each (points 1..24, then the bar).
GnubgBoard = tuple[tuple[int, ...], tuple[int, ...]]

#: Where the judge keeps gnubg's evaluations between runs (one file per setting).
DEFAULT_CACHE_DIR: Final = Path(__file__).resolve().parent / ".cache"


def gnubg_board(position: Position) -> GnubgBoard:
    """``position`` as gnubg's board, its side to move on roll (see the module docstring)."""
    own = position.own_points(position.turn)  # 26 slots: [1..24] the mover's points, [25] bar
    on_roll = (*(c if c > 0 else 0 for c in own[1:25]), own[25])
    # the opponent's point i+1 is the mover's point 24-i; own[0] is the opponent's bar (<= 0)
    other = (*(-own[24 - i] if own[24 - i] < 0 else 0 for i in range(24)), -own[0])
    return (other, on_roll)


def board_after(result: Position) -> GnubgBoard:
    """gnubg's board for the position after a play, the opponent of the mover on roll
    (``result`` is a :attr:`Play.result <backgammon.Play>`: the mover still to move)."""
    return gnubg_board(result.with_turn(result.turn.opponent))


def money_equity(probabilities: Sequence[float]) -> float:
    """Cubeless money equity in points from gnubg's first 5 outputs (win, win gammon, win
    backgammon, lose gammon, lose backgammon; gammons include backgammons)."""
    win, win_g, win_bg, lose_g, lose_bg = probabilities[:5]
    return 2.0 * win - 1.0 + win_g - lose_g + win_bg - lose_bg


def eval_context(plies: int, prune: bool = True) -> dict[str, object]:
    """gnubg's evaluation context: cubeless, ``plies`` deep, deterministic, no noise."""
    return gnubg.evalcontext(0, plies, 1, int(prune), 0.0)  # type: ignore[no-any-return]


#: Cube 1, centred, money: gnubg's default cube info.
_MONEY: Final = gnubg.cubeinfo()


class JudgedPlay(NamedTuple):
    """A legal play with gnubg's equity of it.

    Attributes:
        play: the play.
        equity: cubeless money equity after it for the side that played, in points.
    """

    play: Play
    equity: float


class Judge:
    """gnubg's equities of plays at a fixed depth, cached by the position after the play.

    Args:
        plies: gnubg's plies for a play (0, 1 or 2; see the module docstring).
        prune: let gnubg's pruning nets pick replies inside the search (its standard 2-ply).
        cache_path: a file keeping the evaluations between runs (one line per position:
            its gnubg Position ID, the opponent on roll, and the mover's equity); None keeps
            them in memory only. Each new evaluation is appended at once, so an interrupted
            run loses nothing.
    """

    def __init__(self, plies: int = 2, prune: bool = True, cache_path: Path | None = None):
        if plies < 0:
            raise ValueError(f"plies must be >= 0, got {plies}")
        self.plies = plies
        self.prune = prune
        self.context = eval_context(plies, prune)
        self.cache_path = cache_path
        self.cache: dict[str, float] = {}
        self.evaluations = 0  # how many positions gnubg evaluated (cache misses)
        if cache_path is not None and cache_path.exists():
            with cache_path.open(encoding="ascii") as handle:
                for line in handle:
                    parts = line.split()
                    if len(parts) == 2:
                        self.cache[parts[0]] = float(parts[1])

    @classmethod
    def with_disk_cache(cls, plies: int = 2, prune: bool = True,
                        directory: Path = DEFAULT_CACHE_DIR) -> Judge:
        """A judge whose cache file, in ``directory``, is named after the gnubg version and
        the setting (e.g. ``gnubg-1.1.0a16-2ply-prune.txt``)."""
        directory.mkdir(parents=True, exist_ok=True)
        name = f"gnubg-{gnubg.__version__}-{plies}ply-{'prune' if prune else 'full'}.txt"
        return cls(plies, prune, directory / name)

    def describe(self) -> str:
        """The setting in words, e.g. ``"gnubg 1.1.0a16, 2-ply (pruning), cubeless money"``."""
        how = "" if self.plies == 0 else (" (pruning)" if self.prune else " (full)")
        return f"gnubg {gnubg.__version__}, {self.plies}-ply{how}, cubeless money"

    def equity_after(self, result: Position) -> float:
        """The mover's cubeless money equity, in points, after a play ending in ``result``
        (the mover still to move in ``result``); +1/+2/+3 when the play wins the game."""
        board = board_after(result)
        key = gnubg.positionid(board)
        found = self.cache.get(key)
        if found is None:
            # gnubg answers for the side on roll, the mover's opponent
            found = -money_equity(gnubg.evaluate(board, _MONEY, self.context))
            self.cache[key] = found
            self.evaluations += 1
            if self.cache_path is not None:
                with self.cache_path.open("a", encoding="ascii") as handle:
                    handle.write(f"{key} {found!r}\n")
        return found

    def judge(self, plays: Iterable[Play]) -> list[JudgedPlay]:
        """``plays`` with gnubg's equities, best first (ties in the given order)."""
        judged = [JudgedPlay(play, self.equity_after(play.result)) for play in plays]
        judged.sort(key=lambda j: -j.equity)
        return judged

    def rank(self, position: Position, dice: Sequence[int]) -> list[JudgedPlay]:
        """Every legal play of ``dice`` in ``position``, best first by gnubg."""
        return self.judge(legal_plays(position, dice))

    def pre_roll_equity(self, position: Position) -> float:
        """Cubeless money equity of the side to move in ``position`` before it rolls, in
        points (not cached)."""
        return money_equity(gnubg.evaluate(gnubg_board(position), _MONEY, self.context))


class GnubgPlayer:
    """GNU Backgammon at 0-ply with Gaussian noise, seated through the
    :class:`~backgammon.ai.Player` protocol (cubeless: it never doubles, always takes).

    Each play: gnubg's equities of every legal play at ``plies``, plus ``N(0, noise)`` points
    drawn from ``rng`` for each play in legal order; the play with the highest sum is made.
    ``noise=0.04`` is about gnubg's "intermediate" level; 0 plays gnubg's best.

    Args:
        noise: the standard deviation of the noise, in points of equity.
        rng: the noise's generator (seeded by the caller for reproducible games).
        plies: gnubg's depth for each play (0 by default).
    """

    def __init__(self, noise: float = 0.0, rng: random.Random | None = None, plies: int = 0):
        self.noise = noise
        self.rng = rng if rng is not None else random.Random()
        self.judge = Judge(plies, prune=True)

    def __repr__(self) -> str:
        return f"GnubgPlayer(noise={self.noise}, plies={self.judge.plies})"

    def play(self, position: Position, dice: Sequence[int]) -> Play:
        """The play for ``dice`` in ``position``; the empty play when it cannot be played."""
        return self._pick(legal_plays(position, dice), position)

    def _pick(self, legal: Sequence[Play], position: Position) -> Play:
        if not legal:
            return Play(position, (), position)
        if len(legal) == 1:
            return legal[0]
        best = legal[0]
        best_score = float("-inf")
        for play in legal:
            score = self.judge.equity_after(play.result)
            if self.noise > 0:
                score += self.rng.gauss(0.0, self.noise)
            if score > best_score:
                best, best_score = play, score
        return best

    # -- the Player protocol, and what selfplay.play_game asks besides --------------------------

    def choose_play(self, game: Game) -> Play:
        """The play for the dice thrown in ``game``."""
        return self._pick(game.legal_plays(), game.turn_start)

    def cube_action(self, game: Game) -> CubeAction:
        """Never doubles; takes every double (the benches play cubeless)."""
        from backgammon.core.game import Phase

        return CubeAction.TAKE if game.phase is Phase.DOUBLE_OFFERED else CubeAction.NO_DOUBLE

    def resign_action(self, game: Game) -> ResultKind | None:
        """Never resigns."""
        return None

    def accept_resign(self, game: Game) -> bool:
        """Accept when the points offered are at least gnubg's cubeless equity of playing on
        (the resigner on roll, before its roll)."""
        offer = game.resignation
        if offer is None:
            return False
        resigner, kind = offer
        theirs = self.judge.pre_roll_equity(game.turn_start.with_turn(resigner))
        return int(kind) * game.cube_value >= -theirs


__all__ = [
    "DEFAULT_CACHE_DIR",
    "GnubgBoard",
    "GnubgPlayer",
    "Judge",
    "JudgedPlay",
    "board_after",
    "eval_context",
    "gnubg_board",
    "money_equity",
]
