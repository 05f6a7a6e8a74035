"""Analysis of a game, a match or a ``.mat`` record: every decision scored by the computer.

::

    from backgammon.analysis import analyze
    from backgammon.records import read_mat
    result = analyze(read_mat(open("match.mat").read()), level="expert")
    for player in result.players:
        print(player.name, player.pr, player.rating)

What is analysed (the same decisions GNU Backgammon's ``analyse match`` looks at):

* **checker play**: each roll with at least two distinct plays (an *unforced* move). The play
  made and the best play are scored at the same depth; the **loss** is the best play's equity
  minus the play made's.
* **cube decisions**: double or not on every turn where the player on roll could double (the
  cube centred or theirs, not the Crawford game, not a dead cube), and take or drop when
  doubled. The equities are no double / double-take / double-drop from
  :func:`backgammon.ai.cube.cube_equities` on the side on roll's pre-roll chances: first the
  1-ply chances (the mean over the 21 rolls of each roll's best play at 0-ply); a decision
  that counts (see below) is then scored on the level's own cube lookahead
  (:attr:`~backgammon.ai.levels.Level.cube_plies`: 2 plies at Hard and Expert, as the computer
  decides its own cube actions and as GNU Backgammon's 2-ply analysis scores cube decisions),
  and the take or drop that answers it on the same chances.
* **luck**: for each roll, the equity after the best play of the roll thrown minus the mean of
  that over all 21 rolls (the 30 non-doubles for the opening roll), the plays scored at 0-ply
  as GNU Backgammon's luck analysis does by default.

Units. Every equity in the results is in **EMG** (equivalent to money game: points of money
equity for a cube of 1); rates and totals for people are in **mEMG** (thousandths of EMG).
Money play: cubeless money equity divided by the cube's value. Match play: match-winning
chances (MWC, 0..1, from :func:`backgammon.ai.met.match_equity_table`) converted as GNU
Backgammon's ``mwc2eq`` does: with ``W`` and ``L`` the MWC after winning and after losing
the game at the cube's present value, ``EMG = (2 MWC - W - L) / (W - L)``, so a difference of
MWC is ``2 dMWC / (W - L)`` in EMG.

Marks (GNU Backgammon's defaults): a loss of at least 0.040 EMG is *doubtful*, 0.080 *bad*,
0.160 *very bad*. Rolls: luck of at least +0.3 EMG is *lucky*, +0.6 *very lucky*; -0.3 and
-0.6 the same for unlucky.

Per player: the chequer-play error rate (mEMG lost per unforced move), the cube error rate
(per cube decision counted: those where the player doubled, took or dropped, and those where
no double and double were within :data:`CLOSE_CUBE` of each other), the overall error rate
(both losses over both counts), and **PR**, eXtreme Gammon's Performance Rating:
``500 x (equity lost) / (decisions counted)``, with its rating word (world class below 5,
expert below 7.5, advanced below 12.5, intermediate below 17.5, casual below 22.5, then
beginner).

Search. Checker plays are ranked as the level plays (0-ply screen, 1-ply on the level's first
filter) and the play made is always scored at the same depth as the best. At expert (2-ply)
every decision where the play made is not the 1-ply best is searched 2-ply: the best few at
1-ply (the level's second filter) and the play made are rescored at 2-ply, so a blunder is
measured at the full depth, as GNU Backgammon's analysis measures the play made. A play made
that is the 1-ply best loses nothing and is not searched further. A 7-point match takes well
within a minute (``bench/analysis_speed.py``). With ``plies=3`` (GNU Backgammon's
"grandmaster" depth) a play made that is not the 2-ply best is rescored at 3 plies beside the
2-ply best few (:data:`DEEP_FILTER`): several times slower, and the nets' misjudgements weigh
less in each loss (``docs/performance.md``, "Analysis beside GNU Backgammon's").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import numpy as np

from backgammon.ai.choose import play_utility
from backgammon.ai.cube import CubeAction, CubeState, cube_equities, may_double
from backgammon.ai.features import ROLL_DICE, ROLL_WEIGHT
from backgammon.ai.levels import MASTER, Level, get_level
from backgammon.ai.met import MAX_AWAY, match_equity_table
from backgammon.ai.netsearch import (
    MoveFilter,
    NetEvaluator,
    Utility,
    preroll,
    rank,
    shared_net_evaluator,
)
from backgammon.core.game import Game, GameSettings, Phase
from backgammon.core.match import Match
from backgammon.core.moves import LegalPlays, legal_plays
from backgammon.core.notation import format_play
from backgammon.core.position import Position
from backgammon.core.types import WHITE, Color
from backgammon.records.mat import MatRecord, MatReplay, replay_mat

#: Loss marks (EMG), GNU Backgammon's defaults.
DOUBTFUL: Final = 0.040
BAD: Final = 0.080
VERY_BAD: Final = 0.160
#: Luck marks (EMG), GNU Backgammon's defaults.
LUCKY: Final = 0.3
VERY_LUCKY: Final = 0.6
#: A cube decision counts (in the cube error rate and PR) when the player doubled, took or
#: dropped, or when no double and double were within this many EMG of each other.
CLOSE_CUBE: Final = 0.16
#: PR bands: (below this PR, the word).
RATINGS: Final = ((5.0, "world class"), (7.5, "expert"), (12.5, "advanced"),
                  (17.5, "intermediate"), (22.5, "casual"))
#: How many ranked plays each checker decision keeps for review.
KEEP_PLAYS: Final = 5

Probs5 = tuple[float, float, float, float, float]
Progress = Callable[[int, int], None]


def mark(loss: float) -> str:
    """``""``, ``"doubtful"``, ``"bad"`` or ``"very bad"`` for a loss in EMG."""
    if loss >= VERY_BAD:
        return "very bad"
    if loss >= BAD:
        return "bad"
    if loss >= DOUBTFUL:
        return "doubtful"
    return ""


def luck_mark(luck: float) -> str:
    """``""``, ``"lucky"``, ``"very lucky"``, ``"unlucky"`` or ``"very unlucky"`` (EMG)."""
    if luck >= VERY_LUCKY:
        return "very lucky"
    if luck >= LUCKY:
        return "lucky"
    if luck <= -VERY_LUCKY:
        return "very unlucky"
    if luck <= -LUCKY:
        return "unlucky"
    return ""


def rating(pr: float) -> str:
    """The rating word for a PR (see :data:`RATINGS`)."""
    for below, word in RATINGS:
        if pr < below:
            return word
    return "beginner"


@dataclass(frozen=True)
class Alternative:
    """One ranked play of a checker decision: its notation, equity (EMG, the mover's view),
    its 5 probabilities after the play (win, win gammon, win bg, lose gammon, lose bg) and
    the ply that scored it."""

    play: str
    equity: float
    probs: Probs5
    ply: int


@dataclass(frozen=True)
class Decision:
    """One analysed decision.

    Attributes:
        game: the game's index in the match (0-based).
        turn: the index of the move-list line it made in that game's ``Game.history``.
        player: 0 (first player, White) or 1.
        kind: ``"move"``, ``"double"`` (double or not, before the roll) or ``"take"`` (take
            or drop).
        dice: the roll (``"move"``), else None.
        position_id: GNU Backgammon Position ID before the decision, the player on roll.
        played: what was done: the play's notation, ``"double"``/``"no double"``,
            ``"take"``/``"drop"``.
        best: the best choice in the same words (for a double: ``"double"``, ``"no double"``
            or ``"too good"``; the best answer ``"take"``/``"drop"`` is in ``response``).
        played_equity, best_equity: EMG, the player's view.
        loss: ``best_equity - played_equity`` (>= 0), EMG.
        mark: see :func:`mark`.
        luck: the roll's luck (EMG, ``"move"`` and unplayable rolls), else None.
        luck_mark: see :func:`luck_mark`.
        unforced: counts in the error rates (checker play: two or more plays; cube: actual or
            close).
        alternatives: checker play: the best plays (at most :data:`KEEP_PLAYS`), and the play
            made if it is not among them; cube: empty.
        equities: cube: ``{"no_double", "double_take", "double_drop"}`` in EMG, the doubler's
            view; else empty.
        response: cube: the right answer to a double (``"take"`` or ``"drop"``), else "".
        win: the first player's chances of winning the game before this decision (0..1).
    """

    game: int
    turn: int
    player: int
    kind: str
    dice: tuple[int, int] | None
    position_id: str
    played: str
    best: str
    played_equity: float
    best_equity: float
    loss: float
    mark: str
    luck: float | None
    luck_mark: str
    unforced: bool
    alternatives: tuple[Alternative, ...] = ()
    equities: dict[str, float] = field(default_factory=dict)
    response: str = ""
    win: float = 0.5

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every attribute, numbers rounded to 4 decimals."""
        return {
            "game": self.game, "turn": self.turn, "player": self.player, "kind": self.kind,
            "dice": list(self.dice) if self.dice else None, "position_id": self.position_id,
            "played": self.played, "best": self.best,
            "played_equity": _r(self.played_equity), "best_equity": _r(self.best_equity),
            "loss": _r(self.loss), "mark": self.mark,
            "luck": None if self.luck is None else _r(self.luck), "luck_mark": self.luck_mark,
            "unforced": self.unforced,
            "alternatives": [{"play": a.play, "equity": _r(a.equity),
                              "probs": [_r(p) for p in a.probs], "ply": a.ply}
                             for a in self.alternatives],
            "equities": {k: _r(v) for k, v in self.equities.items()},
            "response": self.response, "win": _r(self.win),
        }


@dataclass(frozen=True)
class PlayerSummary:
    """One player's figures over the games analysed (see the module's docstring).

    Attributes:
        name: the player's name.
        unforced_moves: checker decisions with two or more plays.
        cube_decisions: cube decisions counted.
        chequer_loss, cube_loss: equity lost, EMG.
        chequer_error_rate_memg, cube_error_rate_memg, error_rate_memg: mEMG per decision
            counted (0 when there is none).
        pr: 500 x equity lost / decisions counted.
        doubtful, bad, very_bad: marks over both kinds of decision.
        luck_emg: the sum of the luck of this player's rolls, EMG.
        lucky, unlucky: rolls marked lucky or very lucky / unlucky or very unlucky.
        rating: the word for ``pr``; None when the player made no decision counted (no PR
            to rate).
    """

    name: str
    unforced_moves: int
    cube_decisions: int
    chequer_loss: float
    cube_loss: float
    chequer_error_rate_memg: float
    cube_error_rate_memg: float
    error_rate_memg: float
    pr: float
    doubtful: int
    bad: int
    very_bad: int
    luck_emg: float
    lucky: int
    unlucky: int
    rating: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, the names of ``backgammon analyze --json``."""
        return {
            "name": self.name,
            # 4 decimals, so that a reader showing one (the page) rounds as the CLI does:
            # 4.9487 is 4.9 in both, where 2 decimals (4.95) would show 5.0
            "chequer_error_rate_memg": _r(self.chequer_error_rate_memg),
            "cube_error_rate_memg": _r(self.cube_error_rate_memg),
            "error_rate_memg": _r(self.error_rate_memg),
            "pr": _r(self.pr), "unforced_moves": self.unforced_moves,
            "cube_decisions": self.cube_decisions, "doubtful": self.doubtful,
            "bad": self.bad, "very_bad": self.very_bad, "luck_emg": round(self.luck_emg, 3),
            "lucky": self.lucky, "unlucky": self.unlucky, "rating": self.rating,
        }


@dataclass(frozen=True)
class GameAnalysis:
    """One game's decisions, in order, and each player's figures for the game.

    Attributes:
        index: the game's index in the match, from 0.
        score: ``(first, second)`` before the game.
        decisions: the decisions, in order.
        players: each player's figures for the game.
        winner: 0 (the first player) or 1 who won the game; None when it is unfinished.
        points: the points it won; None when it is unfinished.
        crawford: it is the Crawford game of a match.
    """

    index: int
    score: tuple[int, int]
    decisions: tuple[Decision, ...]
    players: tuple[PlayerSummary, PlayerSummary]
    winner: int | None = None
    points: int | None = None
    crawford: bool = False


@dataclass(frozen=True)
class Analysis:
    """The analysis of a match (a single game is a match of one game).

    Attributes:
        match_length: points to win; 0 for money play.
        names: the two players, first (White) then second.
        games: each game's analysis.
        players: each player's figures over all the games.
        level: the level's name; plies: its deepest ply.
    """

    match_length: int
    names: tuple[str, str]
    games: tuple[GameAnalysis, ...]
    players: tuple[PlayerSummary, PlayerSummary]
    level: str
    plies: int

    @property
    def decisions(self) -> list[Decision]:
        """Every decision of every game."""
        return [d for g in self.games for d in g.decisions]

    def to_dict(self) -> dict[str, Any]:
        """``{"match_length", "level", "plies", "players": [...], "games": [{"index",
        "score", "winner", "points", "crawford", "players", "decisions": [...]}]}`` (see
        :meth:`Decision.to_dict`,
        :meth:`PlayerSummary.to_dict`)."""
        return {
            "match_length": self.match_length, "level": self.level, "plies": self.plies,
            "players": [p.to_dict() for p in self.players],
            "games": [{"index": g.index, "score": list(g.score), "winner": g.winner,
                       "points": g.points, "crawford": g.crawford,
                       "players": [p.to_dict() for p in g.players],
                       "decisions": [d.to_dict() for d in g.decisions]} for g in self.games],
        }


def _r(x: float) -> float:
    return round(float(x), 4)


# --------------------------------------------------------------------------------------------
# Equity in EMG


@dataclass(frozen=True)
class EmgScale:
    """Turns a utility's values (money points for the cube, or MWC) into EMG:
    ``(value - offset) * factor``."""

    offset: float
    factor: float

    def emg(self, value: float) -> float:
        """``value`` in EMG."""
        return (value - self.offset) * self.factor


def emg_scale(cube: CubeState, color: Color) -> EmgScale:
    """EMG of ``color``'s utility values with ``cube`` (see the module's docstring)."""
    if not cube.is_match:
        return EmgScale(0.0, 1.0)  # cubeless money equity is already per cube of 1
    table = match_equity_table()
    a, b = cube.away(color)
    kind = "crawford" if cube.crawford else ("post" if cube.post_crawford() else "normal")
    win = table.after(a - cube.value, b, kind)
    lose = table.after(a, b - cube.value, kind)
    if win - lose <= 1e-9:
        return EmgScale(0.0, 0.0)  # nothing at stake (cannot happen in a live match game)
    return EmgScale((win + lose) / 2.0, 2.0 / (win - lose))


def cube_emg_scale(cube: CubeState, color: Color) -> EmgScale:
    """EMG of :func:`cube_equities` values: money equities are multiplied by the cube."""
    if not cube.is_match:
        return EmgScale(0.0, 1.0 / cube.value)
    return emg_scale(cube, color)


# --------------------------------------------------------------------------------------------
# The walk through a game


@dataclass(frozen=True)
class _Before:
    """What the analysis needs of a game's state before an event."""

    phase: Phase
    on_roll: Color | None
    turn_start: Position
    dice: tuple[int, int] | None
    cube_value: int
    cube_owner: Color | None


def _before(game: Game) -> _Before:
    dice = game.dice
    return _Before(game.phase, game.on_roll, game.turn_start,
                   (dice[0], dice[1]) if dice is not None else None,
                   game.cube_value, game.cube_owner)


def _cube(settings: GameSettings, value: int, owner: Color | None) -> CubeState:
    return CubeState(value=value, owner=owner, match_length=settings.match_length,
                     score=settings.score, crawford=settings.crawford,
                     jacoby=settings.jacoby, beavers=settings.beavers,
                     gammons=settings.gammons)


def _player(color: Color) -> int:
    return 0 if color is WHITE else 1


def _roll_key(dice: Sequence[int]) -> tuple[int, int]:
    hi, lo = max(dice), min(dice)
    return (hi, lo)


_OPENING_WEIGHTS: Final = tuple(0.0 if d[0] == d[1] else w * 36.0 / 30.0
                                for d, w in zip(ROLL_DICE, ROLL_WEIGHT, strict=True))


@dataclass
class _PreRoll:
    """The side on roll's chances before it rolls and the value of each roll's best play."""

    probs: Probs5
    values: dict[tuple[int, int], float]
    mean: float
    opening_mean: float


#: At ``plies=3``: the 2-ply plays rescored at 3 plies beside the play made (the best, and the
#: second within 0.04 of it): the Master level's 3-ply filter. (Master also rescores its 2-ply
#: best and second when the play made is the best; the analysis then charges nothing.)
DEEP_FILTER: Final = MASTER.filters[2]
#: The plays rescored at each deeper ply when the level has no filter of its own for it.
_DEFAULT_FILTERS: Final = {2: MoveFilter(3, 0.05), 3: DEEP_FILTER}


class _Analyzer:
    def __init__(self, level: Level, evaluator: NetEvaluator) -> None:
        self.level = level
        self.ev = evaluator
        # the cube's lookahead: the level's own, but no deeper than one ply past its checker
        # play (so ``plies=0`` stays a quick 1-ply analysis)
        self.cube_plies = max(1, min(level.cube_plies, level.plies + 1))

    def cube_probs(self, position: Position, utility: Utility) -> Probs5:
        """The side on roll's chances for a cube decision that counts, on the level's deeper
        lookahead (:func:`preroll` with its cube filters; called when ``cube_plies`` > 1, the
        1-ply chances being the pre-roll's own)."""
        return _probs(preroll(position, self.ev, self.cube_plies, self.level.cube_filters,
                              utility))

    # -- pre-roll ------------------------------------------------------------------------

    def preroll(self, position: Position, utility: Utility) -> _PreRoll:
        board = position.own_points(position.turn)
        acc = np.zeros(5, dtype=np.float64)
        values: dict[tuple[int, int], float] = {}
        for roll, weight in zip(ROLL_DICE, ROLL_WEIGHT, strict=True):
            boards = legal_plays(position, roll).own_boards() or [board]
            p = self.ev.probs0(boards).astype(np.float64)
            scores = utility.of(p)
            best = int(np.argmax(scores))
            values[_roll_key(roll)] = float(scores[best])
            acc += weight * p[best]
        mean = sum(w * values[_roll_key(r)] for r, w in zip(ROLL_DICE, ROLL_WEIGHT,
                                                             strict=True))
        opening = sum(w * values[_roll_key(r)] for r, w in zip(ROLL_DICE, _OPENING_WEIGHTS,
                                                               strict=True))
        probs = (float(acc[0]), float(acc[1]), float(acc[2]), float(acc[3]), float(acc[4]))
        return _PreRoll(probs, values, mean, opening)

    # -- checker play --------------------------------------------------------------------

    def checker(
        self, legal: LegalPlays, played_board: tuple[int, ...], utility: Utility
    ) -> tuple[list[tuple[int, float, Probs5, int]], int]:
        """Every play ``(index, value, probs, ply)`` best first, and the played index; the
        played play scored at the depth of the best."""
        boards = legal.own_boards()
        played = boards.index(played_board)
        level = self.level
        first = min(level.plies, 1)
        ranked = [(r.index, r.value, r.probs, r.ply)
                  for r in rank(boards, self.ev, first, level.filters[:1], utility)]
        top_ply = ranked[0][3]
        found = next(r for r in ranked if r[0] == played)
        if found[3] < top_ply:
            ranked = self._rescore(ranked, [played], boards, top_ply, utility)
            found = next(r for r in ranked if r[0] == played)
        for ply in range(2, level.plies + 1):
            # a play made that is the best so far loses nothing and is searched no deeper
            if ranked[0][0] == played:
                break
            deeper = (level.filters[ply - 1] if len(level.filters) >= ply
                      else _DEFAULT_FILTERS[ply])
            top = [r for r in ranked if r[3] == ranked[0][3]]
            chosen = [top[i][0] for i in deeper.kept(np.asarray([r[1] for r in top]))]
            if played not in chosen:
                chosen.append(played)
            ranked = self._rescore(ranked, chosen, boards, ply, utility)
        return ranked, played

    def _rescore(
        self, ranked: list[tuple[int, float, Probs5, int]], indices: list[int],
        boards: Sequence[tuple[int, ...]], ply: int, utility: Utility,
    ) -> list[tuple[int, float, Probs5, int]]:
        """``ranked`` with ``indices`` scored at ``ply``, those at the deepest ply first."""
        found = self.ev.probs_many([boards[i] for i in indices], ply, utility)
        values = utility.of(found)
        new = {i: (i, float(v), _probs(p), ply)
               for i, v, p in zip(indices, values, found, strict=True)}
        rows = [new.get(r[0], r) for r in ranked]
        rows.sort(key=lambda r: (-r[3], -r[1]))
        return rows


def _probs(p: Any) -> Probs5:
    return (float(p[0]), float(p[1]), float(p[2]), float(p[3]), float(p[4]))


def _first_player_win(probs: Probs5, color: Color) -> float:
    return probs[0] if color is WHITE else 1.0 - probs[0]


def _count_steps(games: Sequence[Game]) -> int:
    return sum(1 for g in games for e in g.events
               if e["type"] in ("roll", "opening_roll", "double"))


def _analyze_game(
    analyzer: _Analyzer, game: Game, index: int, tick: Callable[[], None]
) -> list[Decision]:
    settings = game.settings
    decisions: list[Decision] = []
    pre: _PreRoll | None = None  # the side on roll's pre-roll figures, this turn
    # a double's cube, doubler, chances (at the depth that priced it) and the graph's winning
    # chance (the turn's pre-roll figure, as the double's own decision shows it), for the take
    pre_cube: tuple[CubeState, Color, Probs5, float] | None = None
    before = _before(Game(settings))
    luck: tuple[float, str] | None = None
    for state, _, event in Game.replay_steps(game.to_log()):
        kind = event["type"]
        turn_index = len(state.history) - 1
        if kind == "opening_roll" and state.dice is not None:
            mover = state.on_roll
            assert mover is not None
            start = state.turn_start
            cube = _cube(settings, state.cube_value, state.cube_owner)
            utility = play_utility(cube, mover)
            pre = analyzer.preroll(start, utility)
            scale = emg_scale(cube, mover)
            value = pre.values[_roll_key(state.dice)]
            lk = scale.emg(value) - scale.emg(pre.opening_mean)
            luck = (lk, luck_mark(lk))
            tick()
        elif kind in ("roll", "double") and before.phase is Phase.ROLL:
            mover = before.on_roll
            assert mover is not None
            cube = _cube(settings, before.cube_value, before.cube_owner)
            utility = play_utility(cube, mover)
            pre = analyzer.preroll(before.turn_start, utility)  # cached by the nets' boards
            win = _first_player_win(pre.probs, mover)
            available = settings.cube and may_double(cube, mover) == ""
            if available or kind == "double":
                turn = turn_index if kind == "double" else len(state.history)
                probs = pre.probs
                decision = _double_decision(probs, cube, mover, kind == "double", index, turn,
                                            before.turn_start, win)
                if decision.unforced and analyzer.cube_plies > 1:
                    probs = analyzer.cube_probs(before.turn_start, utility)
                    decision = _double_decision(probs, cube, mover, kind == "double", index,
                                                turn, before.turn_start, win)
                decisions.append(decision)
                pre_cube = (cube, mover, probs, win)
            if kind == "roll":
                scale = emg_scale(cube, mover)
                assert state.dice is not None
                value = pre.values[_roll_key(state.dice)]
                lk = scale.emg(value) - scale.emg(pre.mean)
                luck = (lk, luck_mark(lk))
            tick()
        elif kind in ("take", "drop", "beaver") and pre_cube is not None:
            cube, doubler, probs, win = pre_cube
            taker = doubler.opponent
            decisions.append(_take_decision(probs, cube, doubler, kind, index, turn_index,
                                            before.turn_start.with_turn(taker), win))
        elif kind in ("play", "pass") and before.dice is not None:
            mover = before.on_roll
            assert mover is not None
            cube = _cube(settings, before.cube_value, before.cube_owner)
            utility = play_utility(cube, mover)
            scale = emg_scale(cube, mover)
            legal = legal_plays(before.turn_start, before.dice)
            result = state.history[-1].position
            played_board = result.own_points(mover)
            lk, lk_mark = luck if luck is not None else (0.0, "")
            win = (_first_player_win(pre.probs, mover) if pre is not None else 0.5)
            decisions.append(_checker_decision(analyzer, legal, played_board, utility, scale,
                                               mover, before, index, turn_index, lk, lk_mark,
                                               win))
            luck = None
            pre_cube = None
        before = _before(state)
    return decisions


def _double_decision(probs: Probs5, cube: CubeState, mover: Color, doubled: bool, game: int,
                     turn: int, position: Position, win: float) -> Decision:
    eq = cube_equities(probs, cube, mover)
    sc = cube_emg_scale(cube, mover)
    nd, dt, dp = sc.emg(eq.no_double), sc.emg(eq.double_take), sc.emg(eq.double_drop)
    double = min(dt, dp)
    if double > nd:
        best = "double"
    elif dt > dp:
        best = "too good"
    else:
        best = "no double"
    best_eq = max(nd, double)
    played_eq = double if doubled else nd
    loss = max(0.0, best_eq - played_eq)
    counted = doubled or abs(double - nd) < CLOSE_CUBE or best == "double"
    return Decision(
        game=game, turn=turn, player=_player(mover), kind="double", dice=None,
        position_id=position.id(), played="double" if doubled else "no double", best=best,
        played_equity=played_eq, best_equity=best_eq, loss=loss,
        mark=mark(loss) if counted else "", luck=None, luck_mark="", unforced=counted,
        equities={"no_double": nd, "double_take": dt, "double_drop": dp},
        response=str(CubeAction.DROP if dt > dp else CubeAction.TAKE), win=win,
    )


def _take_decision(probs: Probs5, cube: CubeState, doubler: Color, answer: str, game: int,
                   turn: int, position: Position, win: float) -> Decision:
    taker = doubler.opponent
    eq = cube_equities(probs, cube, doubler)
    sc = cube_emg_scale(cube, doubler)
    # the taker's EMG is the doubler's turned round (zero-sum, the same scale)
    take, drop = -sc.emg(eq.double_take), -sc.emg(eq.double_drop)
    best = "take" if take >= drop else "drop"
    played = "drop" if answer == "drop" else "take"
    best_eq = max(take, drop)
    played_eq = drop if played == "drop" else take
    loss = max(0.0, best_eq - played_eq)
    return Decision(
        game=game, turn=turn, player=_player(taker), kind="take", dice=None,
        position_id=position.id(), played=played, best=best, played_equity=played_eq,
        best_equity=best_eq, loss=loss, mark=mark(loss), luck=None, luck_mark="",
        unforced=True, equities={"take": take, "drop": drop}, win=win,
    )


def _checker_decision(analyzer: _Analyzer, legal: LegalPlays, played_board: tuple[int, ...],
                      utility: Utility, scale: EmgScale, mover: Color, before: _Before,
                      game: int, turn: int, lk: float, lk_mark: str, win: float) -> Decision:
    position = before.turn_start
    assert before.dice is not None
    dice = before.dice
    if len(legal) < 2:
        text = str(legal[0]) if len(legal) else ""
        return Decision(game=game, turn=turn, player=_player(mover), kind="move", dice=dice,
                        position_id=position.id(), played=text, best=text, played_equity=0.0,
                        best_equity=0.0, loss=0.0, mark="", luck=lk, luck_mark=lk_mark,
                        unforced=False, win=win)
    ranked, played = analyzer.checker(legal, played_board, utility)
    best = ranked[0]
    found = next(r for r in ranked if r[0] == played)
    best_eq, played_eq = scale.emg(best[1]), scale.emg(found[1])
    loss = max(0.0, best_eq - played_eq)
    keep = ranked[:KEEP_PLAYS]
    if found not in keep:
        keep.append(found)
    alternatives = tuple(Alternative(_text(legal, r[0]), scale.emg(r[1]), r[2], r[3])
                         for r in keep)
    return Decision(
        game=game, turn=turn, player=_player(mover), kind="move", dice=dice,
        position_id=position.id(), played=_text(legal, played), best=_text(legal, best[0]),
        played_equity=played_eq, best_equity=best_eq, loss=loss, mark=mark(loss), luck=lk,
        luck_mark=lk_mark, unforced=True, alternatives=alternatives, win=win,
    )


def _text(legal: LegalPlays, index: int) -> str:
    return format_play(legal[index].moves)


# --------------------------------------------------------------------------------------------
# Figures


def summarize(decisions: Sequence[Decision], player: int, name: str) -> PlayerSummary:
    """One player's :class:`PlayerSummary` over ``decisions``."""
    mine = [d for d in decisions if d.player == player]
    moves = [d for d in mine if d.kind == "move" and d.unforced]
    cubes = [d for d in mine if d.kind != "move" and d.unforced]
    chequer = sum(d.loss for d in moves)
    cube = sum(d.loss for d in cubes)
    n = len(moves) + len(cubes)
    pr = 500.0 * (chequer + cube) / n if n else 0.0
    lucks = [d.luck for d in mine if d.luck is not None]
    counted = moves + cubes
    return PlayerSummary(
        name=name, unforced_moves=len(moves), cube_decisions=len(cubes),
        chequer_loss=chequer, cube_loss=cube,
        chequer_error_rate_memg=1000.0 * chequer / len(moves) if moves else 0.0,
        cube_error_rate_memg=1000.0 * cube / len(cubes) if cubes else 0.0,
        error_rate_memg=1000.0 * (chequer + cube) / n if n else 0.0, pr=pr,
        doubtful=sum(d.mark == "doubtful" for d in counted),
        bad=sum(d.mark == "bad" for d in counted),
        very_bad=sum(d.mark == "very bad" for d in counted),
        luck_emg=float(sum(lucks)),
        lucky=sum(d.luck_mark in ("lucky", "very lucky") for d in mine),
        unlucky=sum(d.luck_mark in ("unlucky", "very unlucky") for d in mine),
        rating=rating(pr) if n else None,
    )


# --------------------------------------------------------------------------------------------
# The entry point

Record = Game | Match | MatRecord | MatReplay


def _games_of(record: Record) -> tuple[list[Game], tuple[str, str], int]:
    if isinstance(record, MatRecord):
        record = replay_mat(record)
    if isinstance(record, MatReplay):
        return list(record.match.games), record.record.names, record.match.length
    if isinstance(record, Match):
        return list(record.games), record.names, record.length
    if isinstance(record, Game):
        return [record], ("White", "Black"), record.settings.match_length
    raise TypeError(f"analyze needs a Game, a Match, a MatRecord or a MatReplay, got "
                    f"{type(record).__name__}")


def check_length(length: int) -> None:
    """Refuse a match the analysis cannot score: ``length`` points (0 for money play) past
    :data:`~backgammon.ai.met.MAX_AWAY` (64), the reach of its match equity table.

    Raises:
        ValueError: ``length`` is past the table, in words.
    """
    if length > MAX_AWAY:
        raise ValueError(f"a match to {length} points: the analysis covers matches up to "
                         f"{MAX_AWAY} points (its match equity table)")


def record_size(record: Record) -> tuple[int, int]:
    """``(match length, turns)`` of ``record``: the turns are what ``progress`` counts (each
    roll and double), for a caller that bounds the work before it starts. Pass a
    ``MatReplay`` rather than a ``MatRecord`` to avoid replaying it here.

    Raises:
        MatReplayError: a ``MatRecord`` whose moves the rules refuse.
        TypeError: ``record`` is not a record :func:`analyze` takes.
    """
    games, _, length = _games_of(record)
    return length, _count_steps(games)


def analyze(
    record: Record,
    level: Level | str = "expert",
    progress: Progress | None = None,
    *,
    plies: int | None = None,
    evaluator: NetEvaluator | None = None,
    names: tuple[str, str] | None = None,
) -> Analysis:
    """Analyse every decision of a game, a match or a ``.mat`` record.

    Args:
        record: a :class:`~backgammon.core.game.Game` (finished or not), a
            :class:`~backgammon.core.match.Match`, a :class:`~backgammon.records.MatRecord`
            (replayed first) or a :class:`~backgammon.records.MatReplay`.
        level: the net level whose search scores the plays (default ``"expert"``).
        progress: called as ``progress(done, total)`` after each turn (``done`` rises from
            1 to ``total``, turns counted as rolls and doubles).
        plies: override the level's deepest ply (0, 1, 2 or 3: see the module's "Search").
        evaluator: the nets and caches (default the process-wide one).
        names: the players' names (default the record's).

    Returns:
        The :class:`Analysis`.

    Raises:
        MatReplayError: a ``MatRecord`` whose moves the rules refuse (with its line).
        ValueError: an unknown level, a classic level, plies outside 0..3, ``names`` that
            are not two names, or a match longer than :data:`~backgammon.ai.met.MAX_AWAY`
            (64) points.
        TypeError: ``record`` is none of the above.
    """
    chosen = get_level(level)
    if chosen.evaluation != "net":
        raise ValueError(f"analysis needs a net level (easy, medium, hard, expert, master), "
                         f"not {chosen.name!r}")
    if plies is not None:
        if plies not in (0, 1, 2, 3):
            raise ValueError(f"plies must be 0, 1, 2 or 3, got {plies!r}")
        chosen = replace(chosen, plies=plies)
    chosen = replace(chosen, noise=0.0)
    if names is not None and (isinstance(names, str) or len(names) != 2
                              or not all(isinstance(name, str) for name in names)):
        raise ValueError(f"names are the two players' names, (white, black), got {names!r}")
    games, record_names, length = _games_of(record)
    check_length(length)
    names = names or record_names
    analyzer = _Analyzer(chosen, evaluator or shared_net_evaluator())
    total = max(1, _count_steps(games))
    done = 0

    def tick() -> None:
        nonlocal done
        done = min(done + 1, total)
        if progress is not None:
            progress(done, total)

    out: list[GameAnalysis] = []
    for index, game in enumerate(games):
        decisions = _analyze_game(analyzer, game, index, tick)
        players = (summarize(decisions, 0, names[0]), summarize(decisions, 1, names[1]))
        outcome = game.outcome
        out.append(GameAnalysis(
            index, game.settings.score, tuple(decisions), players,
            winner=None if outcome is None else (0 if outcome.winner is WHITE else 1),
            points=None if outcome is None else outcome.points,
            crawford=game.settings.crawford))
    if progress is not None and done < total:
        progress(total, total)
    every = [d for g in out for d in g.decisions]
    summary = (summarize(every, 0, names[0]), summarize(every, 1, names[1]))
    return Analysis(length, names, tuple(out), summary, chosen.name, chosen.plies)


__all__ = [
    "BAD",
    "CLOSE_CUBE",
    "DOUBTFUL",
    "RATINGS",
    "VERY_BAD",
    "Alternative",
    "Analysis",
    "Decision",
    "EmgScale",
    "GameAnalysis",
    "PlayerSummary",
    "analyze",
    "check_length",
    "cube_emg_scale",
    "emg_scale",
    "luck_mark",
    "mark",
    "rating",
    "record_size",
    "summarize",
]
