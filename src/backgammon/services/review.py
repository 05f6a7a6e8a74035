"""Review, hints, explanations and ``.mat`` records for the web game.

Everything here reads a :class:`~backgammon.core.match.Match` or a
:class:`~backgammon.core.game.Game` and changes nothing; the rules and the words for them come
from the engine (:mod:`backgammon.core.moves`, :mod:`backgammon.core.explain`) and the records
from :mod:`backgammon.records`.

* :func:`review_match`: one *frame* per line of the move list (each turn, each cube action, each
  result) and one for the start of each game: the board, dice and cube as they were, built from
  the games' event logs (``Game.history``), so a finished match is reviewed game by game.
* :func:`hints_for`: the single moves the engine allows now and the distinct ways to play the
  rest of the turn.
* :func:`explain_attempt`: why a checker cannot go where the person tried to put it (or cannot
  move at all), with the rule's source (:mod:`backgammon.services.rules`).
* :func:`pass_reason`: why a roll that could not be played passed.
* :func:`match_mat` and :func:`import_mat`: the ``.mat`` transcript of a session, and the review
  of an uploaded one.

Places are named as in :mod:`backgammon.services.state`: 1..24 in White's numbering, ``"bar"``,
``"off"``. Moves in texts are written in the mover's own numbering, as players write them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Final, NotRequired

from typing_extensions import TypedDict

from backgammon.core.errors import BackgammonError
from backgammon.core.explain import explain_move, explain_pass
from backgammon.core.game import Game, GameSettings, Phase, Turn
from backgammon.core.match import Match
from backgammon.core.moves import Move
from backgammon.core.notation import format_play
from backgammon.core.position import Position
from backgammon.core.types import BAR, BLACK, OFF, WHITE, Color
from backgammon.core.xgid import DEFAULT_MAX_CUBE, Xgid
from backgammon.records import MatRecord, ReadLimits, read_and_replay, record_from_match
from backgammon.services.destinations import move_json, own_point, turn_json
from backgammon.services.rules import rule_of
from backgammon.services.state import (
    BoardJSON,
    ColorName,
    CubeJSON,
    HistoryJSON,
    IdsJSON,
    MoveJSON,
    Place,
    SettingsJSON,
)
from backgammon.services.words import points_text, turn_text, was

#: The most rest-of-turn plays a hint lists (a double can have hundreds); ``plays_total`` counts
#: them all.
MAX_HINT_PLAYS: Final = 60


class NoSuchGameError(BackgammonError, LookupError):
    """A game number that the session does not have (``"this session has 2 games: ..."``)."""


class ScorePairJSON(TypedDict):
    """Points each side has won: ``{"white": 3, "black": 1}``."""

    white: int
    black: int


class FrameJSON(TypedDict):
    """One position of a review, as it was.

    ``game`` the game's number (1-based); ``kind`` ``"start"`` (the position before the
    opening roll), ``"play"`` (a roll and its play, or a roll that passed), ``"double"``,
    ``"take"``, ``"drop"``, ``"beaver"``, ``"resign"``, ``"accept"``, ``"decline"``,
    ``"timeout"``, ``"forfeit"`` or ``"result"``; ``color`` who acted (None for ``"start"``);
    ``text`` the line as the move list shows it; ``history_index`` the index of that line in
    the move list (None for the start of a single game, which has no line); ``board`` and
    ``pips`` after the action;
    ``dice`` the roll of a ``"play"`` frame (the opening roll for the first play); ``moves`` the
    play's moves, to mark on the board; ``cube`` the cube after the action (``offered_by`` set
    while a double waits for its answer); ``score`` the points won before this game, or after it
    on its ``"result"`` frame; ``decisions`` the decisions the line made, each as the XGID of
    the position where it was made (see :func:`frame_decisions`); ``gammons`` whether the
    game counts gammons and backgammons (an XGID cannot say, so its evaluation needs it);
    ``ids`` the Position ID, Match ID and XGID of the position shown (the side to act next on
    roll, no dice; a double waiting for its answer), None where they cannot be written.
    """

    game: int
    kind: str
    color: ColorName | None
    text: str
    history_index: int | None
    board: BoardJSON
    pips: dict[str, int]
    dice: list[int] | None
    moves: list[MoveJSON]
    cube: CubeJSON
    score: ScorePairJSON
    decisions: list[str]
    gammons: bool
    ids: NotRequired[IdsJSON | None]


class ReviewJSON(TypedDict):
    """A whole session or record to step through.

    ``title`` a caption (``"You vs Computer (Easy) · single game"``); ``names`` the players by
    colour; ``length`` the match length in points (0: a single game or money play);
    ``score`` the points won so far; ``history`` the move list (the same lines as
    :class:`~backgammon.services.state.GameState`'s ``history`` for a session); ``frames`` the
    positions in order; ``warnings`` what the ``.mat`` reader accepted but noted (empty for a
    session).
    """

    title: str
    names: dict[str, str]
    length: int
    score: ScorePairJSON
    history: list[HistoryJSON]
    frames: list[FrameJSON]
    warnings: list[str]


class HintsJSON(TypedDict):
    """What the engine allows now, for the hints panel.

    ``active`` True when a person has dice to play; ``dice_left`` the dice not used yet;
    ``moves`` the single legal moves now (the engine's ``legal_moves``), highest starting
    point first; ``plays`` the distinct ways to play the rest of the turn (distinct by the
    position they reach), in notation, at most :data:`MAX_HINT_PLAYS`; ``plays_total`` how many
    there are; ``text`` a sentence for the panel.
    """

    active: bool
    dice_left: list[int]
    moves: list[MoveJSON]
    plays: list[str]
    plays_total: int
    text: str


class ExplainJSON(TypedDict):
    """The answer to an attempted move (or pick-up): ``legal`` True when it is allowed;
    ``text`` the sentence to show (``"13/7: the 7-point is held by Black"``); ``reason`` the
    rule's words alone; ``rule`` the id of the rule on the rules page and ``source`` where it is
    published (None when the sentence names no rule)."""

    legal: bool
    text: str
    reason: str | None
    rule: str | None
    source: str | None


# --------------------------------------------------------------------------------------------
# Small pieces


def _name(color: Color) -> ColorName:
    return "white" if color is WHITE else "black"


def _title(color: Color) -> str:
    return "White" if color is WHITE else "Black"


def _board(position: Position) -> BoardJSON:
    return {"points": list(position.points),
            "off": {"white": position.off[0], "black": position.off[1]}}


def _pips(position: Position) -> dict[str, int]:
    return {"white": position.pip_count(WHITE), "black": position.pip_count(BLACK)}


def _own_point(place: Place, mover: Color) -> int | None:
    """A place of the page in the mover's numbering (bar 25, off 0); None for no such place."""
    if place == "bar":
        return BAR
    if place == "off":
        return OFF
    if isinstance(place, bool) or not isinstance(place, int) or not 1 <= place <= 24:
        return None
    return place if mover is WHITE else 25 - place


def pass_reason(turn: Turn) -> str | None:
    """Why the roll of ``turn`` could not be played (see
    :func:`~backgammon.core.explain.explain_pass`), in the roller's numbering; None when the
    turn is not a roll that passed."""
    if turn.action != "move" or turn.moves or turn.dice is None:
        return None
    try:
        return explain_pass(turn.position.with_turn(turn.color), turn.dice)
    except BackgammonError:  # pragma: no cover - a history's dice are always valid
        return None


def history_names(settings: SettingsJSON) -> tuple[str, str]:
    """The names the move list gives the sides, ``(white, black)``: ``"You"`` and
    ``"Computer"`` against the computer (as the live move list), else White and Black."""
    human = settings["human"]
    if settings["mode"] != "computer" or human is None:
        return ("White", "Black")
    return ("You", "Computer") if human == "white" else ("Computer", "You")


def player_names(settings: SettingsJSON) -> tuple[str, str]:
    """The players' names, ``(white, black)``: ``("You", "Computer (Easy)")`` against the
    computer, ``("White", "Black")`` in pass & play: :func:`history_names` with the level."""
    white, black = history_names(settings)
    if "Computer" not in (white, black):
        return (white, black)
    level = f"Computer ({settings['level'].capitalize()})"
    return (level, black) if white == "Computer" else (white, level)


# --------------------------------------------------------------------------------------------
# Review


def frame_decisions(game: Game) -> list[list[str]]:
    """The decisions each line of ``game``'s history made, one list per line, each decision
    the XGID of the position where it was made (the side to decide on roll, the cube, the
    score of the match), for the computer's evaluation:

    * a play (``"move"``): the roller's cube decision before the roll (an XGID without dice),
      when the game has the cube, is not the Crawford game, the roller's opponent does not own
      the cube, the roll is not the opening one and no double was offered this turn; then the
      play of the roll (an XGID with the dice);
    * a double: the doubler's cube decision before the roll;
    * a take, a drop or a beaver: the answer to the double (an XGID with the double pending);
      the answer to a beaver has none;
    * a resignation or a timeout by the roller after rolling: the play of that roll, left
      unplayed (an XGID with the dice); other resignations, their answers, timeouts: none.

    An XGID that cannot be written (a cube past the XGID's range) is left out.
    """
    settings = game.settings
    score = settings.score if settings.match_length else (0, 0)
    position = settings.start or Position.start(WHITE)
    cube = (settings.start_cube_value, settings.start_cube_owner)
    rolled = settings.start is not None  # no cube decision before the opening roll
    cube_turn = False  # a double was offered this turn
    beavered = False
    doubler: Color | None = None

    def xgid(color: Color, dice: tuple[int, int] | None = None, doubled: bool = False
             ) -> str | None:
        value, owner = cube
        try:
            return str(Xgid(position=position.with_turn(color), cube_value=value,
                            cube_owner=owner, cube_action="double" if doubled else None,
                            dice=None if dice is None else (max(dice), min(dice)),
                            score=score, match_length=settings.match_length,
                            crawford=settings.crawford, jacoby=settings.jacoby,
                            beavers=settings.beavers,
                            max_cube=max(DEFAULT_MAX_CUBE, value * 2)))
        except BackgammonError:
            return None

    lines: list[list[str]] = []
    for turn in game.history:
        found: list[str | None] = []
        if turn.action == "move":
            mine = cube[1] is None or cube[1] is turn.color
            if settings.cube and not settings.crawford and mine and rolled and not cube_turn:
                found.append(xgid(turn.color))
            if turn.dice is not None:
                found.append(xgid(turn.color, dice=turn.dice))
            rolled, cube_turn, beavered = True, False, False
        elif turn.action == "double":
            found.append(xgid(turn.color))
            doubler, cube_turn = turn.color, True
        elif turn.action in ("take", "drop", "beaver") and doubler is not None and not beavered:
            found.append(xgid(doubler, doubled=True))
            beavered = turn.action == "beaver"
        elif turn.action in ("resign", "timeout", "forfeit") and turn.dice is not None:
            found.append(xgid(turn.color, dice=turn.dice))  # the roll left unplayed
        lines.append([x for x in found if x is not None])
        position = turn.position
        if turn.action in ("move", "take", "beaver", "raccoon"):
            cube = (turn.cube_value, turn.cube_owner)
    return lines


def _frame_ids(frame: FrameJSON, position: Position, game: Game) -> IdsJSON | None:
    """The IDs of the position ``frame`` shows (:data:`FrameJSON` ``ids``): ``position``
    with the side that acts next on roll (White at the start of a game), the frame's cube, the
    score before the game; a double waiting for its answer is written as XGIDs write it (the
    doubler on roll, the cube action ``double``)."""
    settings = game.settings
    acted = frame["color"]
    offered = frame["kind"] in ("double", "beaver", "raccoon")
    if frame["kind"] == "start" or acted is None:
        to_act = WHITE
    elif offered:
        to_act = WHITE if acted == "white" else BLACK
    else:
        to_act = BLACK if acted == "white" else WHITE
    cube = frame["cube"]
    owner = None if cube["owner"] is None else (WHITE if cube["owner"] == "white" else BLACK)
    score = settings.score if settings.match_length else (0, 0)  # (the game's, at its start)
    try:
        xgid = Xgid(position=position.with_turn(to_act), cube_value=cube["value"],
                    cube_owner=owner,
                    cube_action="double" if offered else None,
                    score=score,
                    match_length=settings.match_length, crawford=settings.crawford,
                    jacoby=settings.jacoby, beavers=settings.beavers,
                    max_cube=max(DEFAULT_MAX_CUBE, cube["value"] * 2))
        try:
            match_id: str | None = xgid.match_id()
        except BackgammonError:
            match_id = None
        return {"position_id": xgid.position_id(), "match_id": match_id, "xgid": str(xgid)}
    except BackgammonError:
        return None


def review_match(match: Match, names: tuple[str, str] = ("White", "Black"), *,
                 title: str = "", claimed: bool = False) -> ReviewJSON:
    """Every position of ``match`` to step through, game by game.

    Args:
        match: the match (a single game and a money session are matches too); the turn being
            played (dice thrown, moves not yet ended) is not part of the review.
        names: the players' names, ``(white, black)``, for the move list's lines; with the
            default the lines are exactly those of the session's ``history``.
        title: the caption.
        claimed: the last game was claimed from a silent player (online play without a
            clock, which records the claim as a timeout of the silent side): its line says
            so, as the live move list does (``services.table.match_history``), not that time
            ran out.

    Returns:
        The :class:`ReviewJSON`: ``history`` the move list, ``frames`` its positions, each line
        of the move list having exactly one frame (``history_index``) and each game a
        ``"start"`` frame before its first line.
    """
    by_color = {WHITE: names[0], BLACK: names[1]}
    history: list[HistoryJSON] = []
    frames: list[FrameJSON] = []
    games = match.games
    several = len(games) > 1
    for number, game in enumerate(games, start=1):
        before = match.score_before(number - 1)
        score: ScorePairJSON = {"white": before[0], "black": before[1]}
        start = game.settings.start or Position.start(WHITE)
        enabled = game.settings.cube
        header: int | None = None
        if several:
            header = len(history)
            history.append({"game": number, "kind": "game", "color": None,
                            "text": f"Game {number} (score {before[0]}-{before[1]})"})
        frames.append({
            "game": number, "kind": "start", "color": None,
            "text": f"Game {number}: the starting position" if several
            else "The starting position",
            "history_index": header, "board": _board(start), "pips": _pips(start),
            "dice": None, "moves": [],
            "cube": {"enabled": enabled, "value": game.settings.start_cube_value,
                     "owner": None if game.settings.start_cube_owner is None
                     else _name(game.settings.start_cube_owner), "offered_by": None},
            "score": score, "decisions": [], "gammons": match.gammons,
        })
        frames[-1]["ids"] = _frame_ids(frames[-1], start, game)
        for turn, decisions in zip(game.history, frame_decisions(game), strict=True):
            kind = "play" if turn.action == "move" else turn.action
            text = turn_text(turn, names)
            if (claimed and turn.action == "timeout" and number == len(games)
                    and game.outcome is not None and game.outcome.kind == "timeout"):
                text = f"{was(by_color[turn.color])} silent too long: the game was claimed"
            offered = turn.action in ("double", "beaver", "raccoon")
            index = len(history)
            history.append({"game": number, "kind": kind, "color": _name(turn.color),
                            "text": text})
            frames.append({
                "game": number, "kind": kind, "color": _name(turn.color), "text": text,
                "history_index": index, "board": _board(turn.position),
                "pips": _pips(turn.position),
                "dice": list(turn.dice) if turn.dice is not None else None,
                "moves": [move_json(m, turn.color) for m in turn.moves],
                "cube": {"enabled": enabled, "value": turn.cube_value,
                         "owner": _name(turn.cube_owner) if turn.cube_owner else None,
                         "offered_by": _name(turn.color) if offered else None},
                "score": score, "decisions": decisions, "gammons": match.gammons,
            })
            frames[-1]["ids"] = _frame_ids(frames[-1], turn.position, game)
        outcome = game.outcome
        if outcome is not None:
            after = match.score_before(number)
            winner = by_color[outcome.winner]
            wins = 'win' if winner == 'You' else 'wins'
            text = f"{winner} {wins} {points_text(outcome.points)}"
            index = len(history)
            history.append({"game": number, "kind": "result", "color": _name(outcome.winner),
                            "text": text})
            final = game.position
            last_cube = frames[-1]["cube"]
            frames.append({
                "game": number, "kind": "result", "color": _name(outcome.winner), "text": text,
                "history_index": index, "board": _board(final), "pips": _pips(final),
                "dice": None, "moves": [],
                "cube": {**last_cube, "offered_by": None},
                "score": {"white": after[0], "black": after[1]}, "decisions": [],
                "gammons": match.gammons,
            })
            frames[-1]["ids"] = _frame_ids(frames[-1], final, game)
    white, black = match.score
    return {
        "title": title,
        "names": {"white": names[0], "black": names[1]},
        "length": match.length,
        "score": {"white": white, "black": black},
        "history": history,
        "frames": frames,
        "warnings": [],
    }


def session_title(settings: SettingsJSON, names: tuple[str, str]) -> str:
    """``"You vs Computer (Easy) · match to 5"``: the caption of a session's review."""
    kind = settings["kind"]
    if kind == "match":
        what = f"match to {settings['length']}"
    elif kind == "money":
        what = "money session"
    else:
        what = "single game"
    return f"{names[0]} vs {names[1]} · {what}"


# --------------------------------------------------------------------------------------------
# Hints


def _rest_of_turn(game: Game) -> list[list[Move]]:
    """The distinct ways to finish the turn from the moves made so far, one list of moves per
    resulting position, from the engine's legal plays (cached by the game).

    * Nothing played yet: the engine's legal plays themselves.
    * Two different dice and one played: the single legal moves of the die left.
    * A double partly played: the legal plays whose moves contain the moves made. With one die
      value each point has one way forward (``p -> p - d``, or off), so the moves of a play are
      fixed by the position it reaches: a play is reachable from the moves made exactly when
      it contains them. What remains is written highest point first, the hits recomputed.
    """
    played = list(game.played)
    if not played:
        return [list(play.moves) for play in game.legal_plays()]
    moves = game.legal_moves()
    if len(set(game.dice or ())) == 2:
        return [[move] for move in moves]
    if not moves:
        return []
    made = [(m.from_point, m.to_point) for m in played]
    rests: list[list[Move]] = []
    for play in game.legal_plays():
        steps = [(m.from_point, m.to_point, m.die) for m in play.moves]
        pairs = [(a, b) for a, b, _ in steps]
        for pair in made:
            if pair not in pairs:
                break
            del steps[pairs.index(pair)]
            pairs.remove(pair)
        else:
            rests.append(_with_hits(game.position, sorted(steps, reverse=True)))
    return rests


def _with_hits(position: Position, steps: Sequence[tuple[int, int, int]]) -> list[Move]:
    """``steps`` (from, to, die) made in order from ``position``, hit flags as they fall."""
    own = list(position.own_points(position.turn))
    moves = []
    for src, dst, die in steps:
        hit = dst != OFF and own[dst] == -1
        own[src] -= 1
        if dst != OFF:
            own[dst] = 1 if hit else own[dst] + 1
        moves.append(Move(src, dst, die, hit))
    return moves


def hints_for(game: Game, *, allowed: bool = True) -> HintsJSON:
    """The hints for the turn being played.

    Args:
        game: the game.
        allowed: False while the side to move is the computer's (nothing is offered then).

    Returns:
        The :class:`HintsJSON`; ``active`` False outside the ``MOVE`` phase or when not
        ``allowed``.
    """
    if not allowed or game.phase is not Phase.MOVE or game.on_roll is None:
        return {"active": False, "dice_left": [], "moves": [], "plays": [], "plays_total": 0,
                "text": "No dice to play now."}
    mover = game.on_roll
    moves = game.legal_moves()
    dice_left = list(game.dice_left)
    if not moves:
        return {"active": True, "dice_left": dice_left, "moves": [], "plays": [],
                "plays_total": 0, "text": "The play is complete: press Done (or Undo)."}
    paths = _rest_of_turn(game)
    plays = [format_play(path) for path in paths]
    dice_words = ", ".join(str(d) for d in sorted(dice_left, reverse=True))
    count = len(moves)
    text = (f"Dice left: {dice_words}. {count} move{'s' if count != 1 else ''} can be made now; "
            f"{len(plays)} way{'s' if len(plays) != 1 else ''} to play the rest of the turn.")
    return {"active": True, "dice_left": dice_left,
            "moves": [move_json(m, mover) for m in moves],
            "plays": plays[:MAX_HINT_PLAYS], "plays_total": len(plays), "text": text}


# --------------------------------------------------------------------------------------------
# Explanations


def _point_words(point: int) -> str:
    if point == BAR:
        return "the bar"
    return f"the {point}-point"


def _attempt_words(src: int | None, dst: int | None) -> str:
    def word(point: int | None, source: bool) -> str:
        if point is None:
            return "?"
        if point == BAR and source:
            return "bar"
        if point == OFF and not source:
            return "off"
        return str(point)

    if dst is None:
        return word(src, True)
    return f"{word(src, True)}/{word(dst, False)}"


def _refused(prefix: str, reason: str) -> ExplainJSON:
    rule = rule_of(reason)
    return {"legal": False, "text": f"{prefix}: {reason}" if prefix else reason,
            "reason": reason, "rule": rule.id if rule else None,
            "source": rule.source if rule else None}


def players_words(text: str, human: Color | None) -> str:
    """An engine sentence in the words of a game against the computer (``human`` the person's
    side; None: pass & play, left as it is): a side named by its colour becomes "you" or "the
    computer" (``"the 7-point is held by Black"`` -> ``"the 7-point is held by the
    computer"``)."""
    if human is None:
        return text
    names = {"White": "you" if human is WHITE else "the computer",
             "Black": "you" if human is BLACK else "the computer"}
    return re.sub(r"\bheld by (White|Black)\b", lambda m: f"held by {names[m.group(1)]}", text)


def explain_attempt(game: Game, from_place: Place, to_place: Place | None, *,
                    computer: Color | None = None) -> ExplainJSON:
    """Why a checker cannot go from ``from_place`` to ``to_place`` now, or (``to_place``
    None) why it cannot be picked up: :func:`_explain_attempt`, in the words of a game against
    the computer when ``computer`` is given (:func:`players_words`)."""
    result = _explain_attempt(game, from_place, to_place, computer=computer)
    if computer is not None:
        human = computer.opponent
        result["text"] = players_words(result["text"], human)
        if result["reason"] is not None:
            result["reason"] = players_words(result["reason"], human)
    return result


def explain_in_turn(start: Position, dice: Sequence[int],
                    moves: Sequence[tuple[Place, Place, int]], from_place: Place,
                    to_place: Place | None) -> ExplainJSON:
    """:func:`explain_attempt` for a turn being built away from the game (the shared table's
    online door, which takes whole plays: the page keeps the moves made so far): ``start``
    the position at the turn's start (its side on roll), ``dice`` the roll, ``moves`` the
    moves made so far (page places and the die of each, in the order made, as
    :func:`~backgammon.services.destinations.turn_json` takes them).

    Returns:
        The :class:`ExplainJSON`, the same answer as the local game's in that turn (the
        sides named by their colours); a roll that cannot be played is explained as the pass
        it is (:func:`~backgammon.core.explain.explain_pass`).

    Raises:
        ValueError: bad dice, a move that is not legal where it is made (the words of
            :func:`~backgammon.services.destinations.turn_json`), or a position whose game is
            over.
    """
    turn_json(start, dice, moves)  # the dice and every move checked, refused in words
    game = Game(GameSettings(start=start))
    game.roll(dice)
    if game.phase is not Phase.MOVE:  # the roll passed by itself: no checker can move
        return _refused("", explain_pass(start, dice) or "no move is possible with this roll")
    mover = start.turn
    for src, dst, die in moves:
        key = (own_point(src, mover, source=True), own_point(dst, mover, source=False), die)
        game.move(next(m for m in game.legal_moves()
                       if (m.from_point, m.to_point, m.die) == key))
    return explain_attempt(game, from_place, to_place)


def _explain_attempt(game: Game, from_place: Place, to_place: Place | None, *,
                     computer: Color | None = None) -> ExplainJSON:
    """Why a checker cannot go from ``from_place`` to ``to_place`` now, or (``to_place``
    None) why it cannot be picked up.

    The verdict is the engine's: a destination is refused exactly when
    :func:`~backgammon.core.explain.explain_move` gives a reason (so a destination several dice
    away through open points is legal), a pick-up exactly when no legal move starts there.

    Args:
        game: the game.
        from_place: where the checker is (1..24 White's numbering, ``"bar"``; ``"off"`` is
            refused with words).
        to_place: where the person tried to put it (1..24, ``"off"``; ``"bar"`` is refused
            with words), or None for a pick-up.
        computer: the computer's side, if any: its turns are not the person's to play.

    Returns:
        The :class:`ExplainJSON`; ``text`` starts with the attempt in the mover's notation
        (``"13/7: ..."``).
    """
    if game.phase is not Phase.MOVE or game.on_roll is None:
        if game.is_over:
            return _refused("", "the game is over")
        return _refused("", "there are no dice to play: roll first")
    mover = game.on_roll
    if computer is not None and mover is computer:
        return _refused("", "it is the computer's turn")
    src = _own_point(from_place, mover)
    dst = None if to_place is None else _own_point(to_place, mover)
    prefix = _attempt_words(src, dst)
    if src is None or src == OFF:
        return _refused("", "a checker borne off stays off" if from_place == "off"
                        else f"there is no point {from_place!r}")
    if to_place is not None and (dst is None or to_place == "bar"):
        return _refused(prefix.split("/")[0], "a checker never moves to the bar: only a hit "
                        "checker goes there" if to_place == "bar"
                        else f"there is no point {to_place!r}")
    start, left, played = game.turn_start, game.dice_left, game.played
    if dst is not None:
        reason = explain_move(start, left, played, src, dst)
        if reason is None:
            return {"legal": True, "text": f"{prefix} is a legal move", "reason": None,
                    "rule": None, "source": None}
        return _refused(prefix, reason)
    # A pick-up: legal when some legal move starts here.
    moves = game.legal_moves()
    if any(m.from_point == src for m in moves):
        options = ", ".join(str(m) for m in moves if m.from_point == src)
        return {"legal": True, "text": f"{prefix} can move: {options}", "reason": None,
                "rule": None, "source": None}
    own = game.position.own_points(mover)
    if own[src] <= 0:
        return _refused(prefix, f"you have no checker on {_point_words(src)}")
    if not moves:
        reason = explain_move(start, left, played, src, max(src - max(left, default=1), OFF))
        return _refused(prefix, reason or "no move is left this turn")
    if own[BAR] > 0 and src != BAR:
        return _refused(prefix, "a checker on the bar must enter first")
    reasons: dict[int, str] = {}
    for die in sorted(set(left), reverse=True):
        reason = explain_move(start, left, played, src, max(src - die, OFF))
        if reason is not None:
            reasons[die] = reason
    distinct = list(dict.fromkeys(reasons.values()))
    if len(distinct) == 1:
        return _refused(prefix, distinct[0])
    if not distinct:  # pragma: no cover - a checker that cannot move has a reason per die
        return _refused(prefix, "that checker cannot move now")
    joined = "; ".join(f"with the {die}, {reason}" for die, reason in reasons.items())
    result = _refused(prefix, joined)
    first = rule_of(distinct[0])
    result["rule"] = first.id if first else None
    result["source"] = first.source if first else None
    return result


# --------------------------------------------------------------------------------------------
# .mat records


def match_mat(match: Match, names: tuple[str, str], game: int | None = None) -> str:
    """The ``.mat`` transcript of a session (our writer, :mod:`backgammon.records.mat`).

    Args:
        match: the session's match; the turn being played is not written (only whole turns).
        names: the players, ``(white, black)``: White is the first player (left column).
        game: write only this game (1-based), with its match length and score; None for all.

    Returns:
        The transcript text (GNU Backgammon's layout), ending with a newline.

    Raises:
        NoSuchGameError: ``game`` is not one of the session's games.
        MatWriteError: a game that did not start from the standard position.
    """
    from backgammon.records import format_mat

    record = record_from_match(match)
    games = record.games
    if game is not None:
        if isinstance(game, bool) or not 1 <= game <= len(games):
            raise NoSuchGameError(
                f"this session has {len(games)} game{'s' if len(games) != 1 else ''}: "
                f"ask for game 1 to {len(games)}, not {game!r}"
            )
        games = (games[game - 1],)
    renamed = tuple(dataclasses.replace(g, names=names) for g in games)
    return format_mat(MatRecord(record.match_length, names, renamed, record.comments))


def import_mat(text: str, limits: ReadLimits | None = None) -> ReviewJSON:
    """Read a ``.mat`` transcript, replay it through the rules, and return its review.

    Args:
        text: the transcript.
        limits: how much of it to read at most (an upload); None: all of it.

    Returns:
        The :class:`ReviewJSON` of the record, names as written; ``warnings`` what the reader
        accepted but noted (each ``"line N: ..."``).

    Raises:
        MatParseError: text that is not a transcript (``.line``: where).
        MatReplayError: a play or cube action the rules forbid (``.line``: where).
        MatLimitError: a transcript past ``limits`` (``.line``: where reading stopped).
    """
    replay = read_and_replay(text, limits=limits)
    record = replay.record
    names = record.names
    length = record.match_length
    if length:
        what = f"{length}-point match"
    else:
        count = len(record.games)
        what = "money game" if count == 1 else f"money session, {count} games"
    review = review_match(replay.match, names, title=f"{names[0]} vs {names[1]} · {what}")
    review["warnings"] = list(replay.warnings)
    return review


__all__ = [
    "MAX_HINT_PLAYS",
    "ExplainJSON",
    "FrameJSON",
    "HintsJSON",
    "NoSuchGameError",
    "ReviewJSON",
    "explain_attempt",
    "explain_in_turn",
    "frame_decisions",
    "hints_for",
    "import_mat",
    "match_mat",
    "pass_reason",
    "player_names",
    "players_words",
    "review_match",
    "session_title",
]
