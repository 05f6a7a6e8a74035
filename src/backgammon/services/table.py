"""The table: what local play (:mod:`backgammon.services.session`) and backgammon at the
table's doors (:mod:`backgammon.adapter`: online rooms included) share about a game in
progress.

Both doors build the page's view of a game from the functions here, so the two flows speak the
same language: the same phase names, the same ``turn`` (the side on roll, also while a double
or a resignation waits for an answer; ``to_act`` is the side that must answer), the same cube
(shown in the Crawford game, where nobody may double), the same board, move list, last turn and
words (:mod:`backgammon.services.words`).

The policies both doors follow (one rule each, no fork):

* **Next game**: when a game of a match or money session ends, the next game starts when a
  player asks for it (``next_game``); a single game has no next game.
* **Rematch**: once the single game or the match is over, a new one with the same settings
  starts when every person at another screen has asked (a computer always agrees; two people
  at one screen ask once). :data:`REMATCH_SWAPS_SIDES` says whether the sides swap: online
  they do (the host played White), locally the person keeps the side chosen.
* **Resign**: a side may offer to resign in the roll or move phase of a game, at most once a
  turn (until the next roll or play: :func:`resign_refusal` reads it from the log, so it
  survives a reload or a restart); the opponent answers (the computer by its evaluation, a
  person at another screen with accept or decline; a person at the same screen has already
  agreed: the offer is accepted at once).

* **Clocks** (the same rules, each door's bookkeeping): every event records its own stretch
  (a roll the time before it, a play the time after it); only a completed turn earns the
  increment; the time before a roll that must pass is charged.

The rules behind these views are backgammon's, reached only through
:class:`~backgammon.core.game.Game` and :class:`~backgammon.core.match.Match`: a second game
(American checkers) will bring its own view pieces behind the same names. :class:`GameRules`
lists what the table asks of a game.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Collection, Sequence
from typing import Any, Final, Literal, Protocol, TypeVar, cast, runtime_checkable

from typing_extensions import TypedDict

from backgammon.core.errors import BackgammonError
from backgammon.core.game import Game, Phase, Turn
from backgammon.core.match import Match
from backgammon.core.moves import Move, Play
from backgammon.core.position import Position
from backgammon.core.types import BLACK, WHITE, Color
from backgammon.services.destinations import legal_json, move_json
from backgammon.services.review import pass_reason, players_words
from backgammon.services.state import (
    BoardJSON,
    CanJSON,
    ColorName,
    CubeJSON,
    HistoryJSON,
    LastTurnJSON,
    LegalJSON,
    MoveJSON,
    ResultJSON,
    ScoreJSON,
)
from backgammon.services.words import (
    KIND_NAMES,
    Names,
    result_text,
    score_text,
    status_text,
    turn_text,
    was,
)

_T = TypeVar("_T")

#: The view's phase names, for both doors (the page's ``data-phase``).
PHASES: Final = ("opening", "roll", "move", "cube", "resign", "game_over", "match_over")
#: Whether a rematch swaps the sides, by door: online the guest gets White; locally the person
#: keeps the side they chose.
REMATCH_SWAPS_SIDES: Final = {"local": False, "online": True}


def color_name(color: Color) -> ColorName:
    """``"white"`` or ``"black"``."""
    return "white" if color is WHITE else "black"


def phase_name(game: Game, session_over: bool) -> Literal[
        "opening", "roll", "move", "cube", "resign", "game_over", "match_over"]:
    """The view's phase: one of :data:`PHASES` (``"cube"`` while a double waits for its
    answer, ``"resign"`` while a resignation does; ``"match_over"`` once no further game can be
    played, ``"game_over"`` between games)."""
    phase = game.phase
    if phase is Phase.OVER:
        return "match_over" if session_over else "game_over"
    if phase is Phase.DOUBLE_OFFERED:
        return "cube"
    if phase is Phase.RESIGNATION_OFFERED:
        return "resign"
    if phase is Phase.OPENING:
        return "opening"
    if phase is Phase.ROLL:
        return "roll"
    return "move"


def phase_words(game: Game) -> str:
    """What the game waits for, in words, for a refusal: "the game is over", "the opening
    roll has not been thrown", "white is to roll", "black must answer the double", "black
    must answer the resignation", "white is moving"."""
    phase = game.phase
    if phase is Phase.OVER:
        return "the game is over"
    if phase is Phase.OPENING:
        return "the opening roll has not been thrown"
    if phase is Phase.ROLL:
        return f"{game.on_roll} is to roll"
    if phase is Phase.DOUBLE_OFFERED:
        return f"{game.turn} must answer the double"
    if phase is Phase.RESIGNATION_OFFERED:
        return f"{game.turn} must answer the resignation"
    return f"{game.on_roll} is moving"


def board_json(position: Position) -> BoardJSON:
    """The checkers: the 26 signed slots and the checkers borne off."""
    return {"points": list(position.points),
            "off": {"white": position.off[0], "black": position.off[1]}}


def cube_json(game: Game) -> CubeJSON:
    """The cube as both doors show it: ``enabled`` whenever the game is played with the cube
    (the Crawford game too, where nobody may double: ``can`` says so), ``offered_by`` the
    doubler while a double waits for its answer (after a beaver, the beaver; after a raccoon,
    the raccooner: the side that does not answer)."""
    owner = game.cube_owner
    answering = game.turn if game.phase is Phase.DOUBLE_OFFERED else None
    offered = answering.opponent if answering is not None else None
    return {"enabled": game.settings.cube, "value": game.cube_value,
            "owner": color_name(owner) if owner is not None else None,
            "offered_by": color_name(offered) if offered is not None else None}


def on_roll(game: Game) -> Color:
    """The side on roll (White before the opening roll)."""
    color = game.on_roll
    return color if color is not None else WHITE


def played_json(game: Game) -> list[MoveJSON]:
    """The moves made so far this turn, as the page lists them."""
    return [move_json(m, on_roll(game)) for m in game.played]


def opening_json(game: Game) -> dict[str, int] | None:
    """The opening roll's dice while the first play is being made."""
    if game.phase is not Phase.MOVE or game.history:
        return None
    for event in reversed(game.events):
        if event["type"] == "opening_roll":
            return {"white": int(event["white"]), "black": int(event["black"])}
    return None


def last_turn_json(game: Game, human: Color | None = None) -> LastTurnJSON | None:
    """The last play of the game: the board marks where its checkers came from and went and
    keeps its dice until the next roll; a roll that could not be played says why (in the words
    of a game against the computer when ``human``, the person's side, is given). A game that
    ended with a resignation (or a timeout) after the player rolled shows that roll, unplayed."""
    for turn in reversed(game.history):
        if (turn.action in ("resign", "timeout", "forfeit") and turn.dice is not None
                and game.is_over):
            return {"color": color_name(turn.color), "moves": [], "dice": list(turn.dice),
                    "cannot_move": False, "reason": None}
        if turn.action == "move":
            passed = not turn.moves and turn.dice is not None
            why = pass_reason(turn) if passed else None
            return {"color": color_name(turn.color),
                    "moves": [move_json(m, turn.color) for m in turn.moves],
                    "dice": list(turn.dice) if turn.dice is not None else None,
                    "cannot_move": passed,
                    "reason": players_words(why, human) if why else None}
    return None


def forced_play_json(game: Game) -> list[MoveJSON] | None:
    """The moves of the roll's only legal play, at the start of a turn whose roll has exactly
    one (the page's auto-confirm plays it); None otherwise."""
    if game.phase is not Phase.MOVE or game.played:
        return None
    plays = game.legal_plays()
    if len(plays) != 1 or not plays[0].moves:
        return None
    mover = on_roll(game)
    return [move_json(m, mover) for m in plays[0].moves]


def history_json(games: Sequence[Game], names: tuple[str, str] = ("White", "Black")
                 ) -> list[HistoryJSON]:
    """The move list of a match: a heading per game when there are several, each turn in
    words (``"White 3-1: 8/5 6/5"``), each result. ``names`` are (White's, Black's)."""
    entries: list[HistoryJSON] = []
    several = len(games) > 1
    white = black = 0
    for number, game in enumerate(games, start=1):
        entries.extend(_game_lines(game, number, several, (white, black), names))
        outcome = game.outcome
        if outcome is not None:
            if outcome.winner is WHITE:
                white += outcome.points
            else:
                black += outcome.points
    return entries


class _KeptLines:
    """The move-list lines of a match's first ``count`` games, all over (a game over no
    longer changes), as made for ``several`` and ``names``; their JSON text, and the score
    after them."""

    def __init__(self, several: bool, names: tuple[str, str]) -> None:
        self.several = several
        self.names = names
        self.count = 0
        self.entries: list[HistoryJSON] = []
        self.text = ""  # the entries' JSON, comma-separated, without the brackets
        self.score = (0, 0)


#: The kept lines of each match (by the match; forgotten with it).
_KEPT: weakref.WeakKeyDictionary[Match, _KeptLines] = weakref.WeakKeyDictionary()
_KEPT_LOCK = threading.Lock()


def match_history(match: Match, names: tuple[str, str] = ("White", "Black"), *,
                  claimed: bool = False, text: bool = True) -> tuple[list[HistoryJSON], str]:
    """:func:`history_json` of ``match``'s games and its JSON text, made from the games not
    yet over only: the lines of the games over are kept with the match, so that a long
    session's move list costs its current game, not its history, at each view.

    ``claimed``: the last game was claimed from a silent player (online play without a
    clock, which records it as a timeout): its line says so, not that time ran out.
    ``text`` False: the lines only (the text is ``""``), for a view that is encoded whole
    later: the current game's lines are not encoded twice."""
    entries, encoded = _match_history(match, names, text)
    if claimed:
        for index in range(len(entries) - 1, -1, -1):
            entry = entries[index]
            if entry["kind"] == "timeout":
                name = names[0] if entry["color"] == "white" else names[1]
                entries[index] = {**entry,
                                  "text": f"{was(name)} silent too long: the game was claimed"}
                encoded = json.dumps(entries, separators=(",", ":")) if text else ""
                break
            if entry["kind"] == "game":
                break
    return entries, encoded


def _match_history(match: Match, names: tuple[str, str],
                   want_text: bool = True) -> tuple[list[HistoryJSON], str]:
    """:func:`match_history` as the games' own lines say it."""
    games = match.games
    several = len(games) > 1
    with _KEPT_LOCK:
        kept = _KEPT.get(match)
        if kept is None or kept.several != several or kept.names != names or (
                kept.count > len(games)):
            kept = _KEPT[match] = _KeptLines(several, names)
        while kept.count < len(games) and games[kept.count].is_over:
            game = games[kept.count]
            lines = _game_lines(game, kept.count + 1, several, kept.score, names)
            text = ",".join(json.dumps(line, separators=(",", ":")) for line in lines)
            kept.entries.extend(lines)
            kept.text = f"{kept.text},{text}" if kept.text and text else kept.text or text
            outcome = game.outcome
            assert outcome is not None
            white, black = kept.score
            kept.score = ((white + outcome.points, black) if outcome.winner is WHITE
                          else (white, black + outcome.points))
            kept.count += 1
        entries, text, score, count = list(kept.entries), kept.text, kept.score, kept.count
    rest: list[HistoryJSON] = []
    for number in range(count + 1, len(games) + 1):  # (only the current game, in play)
        rest.extend(_current_lines(games[number - 1], number, several, score, names))
    if not want_text:
        return entries + rest, ""
    if rest:
        more = ",".join(json.dumps(line, separators=(",", ":")) for line in rest)
        text = f"{text},{more}" if text else more
    return entries + rest, f"[{text}]"


class _CurrentLines:
    """The lines of a game in play as made last: for its state (``key``), and each turn's
    line with the turn it was made from (a turn played does not change: its line is made
    once, as long as the game's number and the names stay)."""

    __slots__ = ("key", "lines", "turns")

    def __init__(self, key: tuple[Any, ...], lines: list[HistoryJSON],
                 turns: list[tuple[Turn, HistoryJSON]]) -> None:
        self.key = key
        self.lines = lines
        self.turns = turns


#: The current game's lines, kept until its log grows (by the game; forgotten with it).
_CURRENT: weakref.WeakKeyDictionary[Game, _CurrentLines] = weakref.WeakKeyDictionary()


def _current_lines(game: Game, number: int, several: bool, score: tuple[int, int],
                   names: tuple[str, str]) -> list[HistoryJSON]:
    """:func:`_game_lines` of a game in play, made again only when its log has grown (every
    view of every seat reads them), and then only the new turns' lines."""
    key = (game.event_count, number, several, score, names)
    with _KEPT_LOCK:
        kept = _CURRENT.get(game)
    if kept is not None and kept.key == key:
        return list(kept.lines)
    same = kept is not None and (kept.key[1], kept.key[4]) == (number, names)
    made = kept.turns if kept is not None and same else []
    turns: list[tuple[Turn, HistoryJSON]] = []
    lines = _game_lines(game, number, several, score, names, made, turns)
    with _KEPT_LOCK:
        _CURRENT[game] = _CurrentLines(key, lines, turns)
    return list(lines)


def _game_lines(game: Game, number: int, several: bool, score: tuple[int, int],
                names: tuple[str, str], made: Sequence[tuple[Turn, HistoryJSON]] = (),
                turns: list[tuple[Turn, HistoryJSON]] | None = None) -> list[HistoryJSON]:
    """One game's lines of :func:`history_json` (``score``: the points won before it).
    ``made``: lines made before for the same game, number and names, each with its turn
    (reused while the history still holds the last of those turns where it was: a game's
    history only grows); ``turns`` receives each turn's line so."""
    entries: list[HistoryJSON] = []
    if several:
        entries.append({"game": number, "kind": "game", "color": None,
                        "text": f"Game {number} (score {score[0]}-{score[1]})"})
    history = game.history
    kept = len(made)
    if not (0 < kept <= len(history) and made[-1][0] is history[kept - 1]):
        kept = 0  # (a game's history only grows: its last turn kept tells the rest)
    entries.extend(line for _, line in made[:kept])
    if turns is not None:
        turns.extend(made[:kept])
    for turn in history[kept:]:
        kind = "play" if turn.action == "move" else turn.action
        line: HistoryJSON = {"game": number, "kind": kind, "color": color_name(turn.color),
                             "text": turn_text(turn, names)}
        entries.append(line)
        if turns is not None:
            turns.append((turn, line))
    outcome = game.outcome
    if outcome is not None:
        points = outcome.points
        name = names[0] if outcome.winner is WHITE else names[1]
        wins = "win" if name == "You" else "wins"
        entries.append({
            "game": number, "kind": "result", "color": color_name(outcome.winner),
            "text": f"{name} {wins} {points} point{'s' if points != 1 else ''}",
        })
    return entries


def resign_refusal(game: Game, color: Color) -> str | None:
    """Why ``color`` may not offer to resign now under the one-offer-a-turn policy, or None.

    A turn here runs from one roll (or the opening roll, or the end of a play) to the next:
    an offer declined cannot be sent again before the dice are thrown again or the turn
    passes, so resigning cannot be used to stop play. Read from the game's log, so it holds
    across reloads and restarts."""
    name = color_name(color)
    for event in reversed(game.events):
        if event["type"] in ("roll", "opening_roll", "play", "pass"):
            return None
        if event["type"] == "resign" and event.get("color") == name:
            return "an offer to resign was made this turn already (one offer a turn)"
    return None


@runtime_checkable
class GameRules(Protocol):
    """What the table needs of a game's rules: the interface backgammon's
    :class:`~backgammon.core.game.Game` implements, and American checkers will.

    The table reads whose turn it is and what has happened (the event log, the turns), asks
    for the legal moves, and drives the actions; it never decides a rule. A refused action
    raises a :class:`~backgammon.core.errors.BackgammonError` and changes nothing.
    """

    @property
    def phase(self) -> Phase: ...

    @property
    def on_roll(self) -> Color | None: ...

    @property
    def turn(self) -> Color | None: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def events(self) -> tuple[dict[str, Any], ...]: ...

    @property
    def history(self) -> tuple[Turn, ...]: ...

    def legal_moves(self) -> list[Move]: ...

    def move(self, move: Move | str) -> Move: ...

    def undo(self) -> Move: ...

    def end_turn(self, *, seconds: float | None = None) -> Play: ...

    def to_log(self) -> dict[str, Any]: ...


def make_moves(game: GameRules, moves: Sequence[Move]) -> list[Move]:
    """One gesture (a checker moved by one or several dice), for both doors: every move made,
    or none. A refused step takes back the steps before it and raises the engine's error.

    Returns:
        The moves as made (hits marked).

    Raises:
        BackgammonError: a move the rules refuse now; the game is as it was.
    """
    made: list[Move] = []
    try:
        for move in moves:
            made.append(game.move(move))
    except BackgammonError:
        for _ in made:
            game.undo()
        raise
    return made


def rematch_ready(asked: Collection[object], remote: Collection[object]) -> bool:
    """The rematch policy: a new match starts once every person at another screen (``remote``:
    their seats) has asked for it (``asked``). The computer always agrees, and people at one
    screen ask once: with no remote seat, the first request starts it."""
    return all(seat in asked for seat in remote)


def rematch_sides(door: str, white: _T, black: _T) -> tuple[_T, _T]:
    """Who plays (White, Black) in the rematch: swapped where :data:`REMATCH_SWAPS_SIDES` says
    so for ``door`` (``"local"`` or ``"online"``)."""
    return (black, white) if REMATCH_SWAPS_SIDES[door] else (white, black)


def passed_turn(game: Game) -> Turn | None:
    """The last turn when it was a roll that could not be played (and nothing came after)."""
    history = game.history
    if history and history[-1].action == "move" and not history[-1].moves:
        return history[-1]
    return None


def score_json(match: Match, kind: str) -> ScoreJSON:
    """The scoreboard: points so far, the match length, the Crawford flag and the caption."""
    white, black = match.score
    game = match.current
    number = len(match.games)
    length = match.length if kind == "match" else None
    return {"white": white, "black": black, "length": length,
            "crawford": game.settings.crawford, "game_number": number,
            "description": score_text(kind, match.length, number,
                                      crawford=game.settings.crawford, cube=match.cube,
                                      gammons=match.gammons)}


def _score_names(names: Names) -> tuple[str, str]:
    """The players as a score names them: against the computer "You" and "Computer", else
    the colours."""
    if names.computer is not None:
        return names.label(WHITE), names.label(BLACK)
    return "White", "Black"


def result_json(match: Match, kind: str, names: Names, session_over: bool, *,
                abandoned_after: float | None = None,
                forfeit: str | None = None) -> ResultJSON | None:
    """The result box of the game just ended (None while it goes on)."""
    game = match.current
    outcome = game.outcome
    if outcome is None:
        return None
    winner = outcome.winner
    result_kind = cast(Literal["single", "gammon", "backgammon"],
                       KIND_NAMES[int(outcome.result_kind)])
    reason = cast(Literal["board", "drop", "resign", "timeout", "forfeit"],
                  outcome.kind if outcome.kind in ("drop", "resign", "timeout", "forfeit")
                  else "board")
    title = names.wins(winner)
    text = result_text(names, winner=winner, loser=outcome.loser, kind=result_kind,
                       reason=reason, points=outcome.points, gammons=game.settings.gammons,
                       abandoned_after=abandoned_after, forfeit=forfeit)
    white, black = match.score
    if kind == "match":
        if session_over:  # the match won: the winner's score first
            title += " the match"
            won, lost = (white, black) if winner is WHITE else (black, white)
            text += f" {names.wins(winner)} the match {won}-{lost}."
        else:  # each score beside its player's name: "1-2" alone reads either way
            white_name, black_name = _score_names(names)
            text += (f" Score in a match to {match.length}: {white_name} {white}, "
                     f"{black_name} {black}.")
    elif kind == "money":
        white_name, black_name = _score_names(names)
        text += f" Running total: {white_name} {white}, {black_name} {black}."
    return {"winner": color_name(winner), "kind": result_kind, "points": outcome.points,
            "reason": reason, "match_over": session_over, "title": title, "text": text}


def describe(match: Match, *, kind: str, names: Names, mine: bool, session_over: bool,
             computer_to_act: bool = False, to_act: Color | None = None,
             resign: bool | None = None, legal: list[LegalJSON] | None = None,
             history_names: tuple[str, str] | None = None,
             abandoned_after: float | None = None, forfeit: str | None = None,
             shared: dict[str, Any] | None = None) -> TableView:
    """The view of a game in progress, the same shape for both doors.

    Args:
        match: the match (its current game is shown).
        kind: ``"single"``, ``"match"`` or ``"money"``.
        names: how the sentences name the sides (the viewer's point of view).
        mine: whether the viewer may act now (the side to act is the viewer's, nothing else
            is pending).
        session_over: no further game can be played.
        computer_to_act: the computer is to act next (local play).
        to_act: who acts before the opening roll (local play: the person), else ``game.turn``.
        resign: whether the viewer may offer to resign now (default: ``mine`` in the roll or
            move phase); the one-offer-a-turn policy applies in any case.
        legal: the board's legal list, when the caller keeps it (default: made here).
        history_names: the names the move list gives (White's, Black's); default
            ``names``' labels ("You" and "Computer" against the computer).
        abandoned_after: the silence after which the game was claimed as abandoned (online).
        forfeit: why the loser forfeited the match, in words (online), or None.
        shared: the parts of the view that do not depend on the viewer (the board, the
            dice, the cube, the score, the move list, the last turn: made once a state, for
            both seats), kept here by a caller that shows one state of the match to several
            viewers with the same ``kind``, ``session_over``, ``history_names``,
            ``abandoned_after`` and computer (``names.computer``): an empty dict for each
            new state. The views made with it share those parts: read-only.

    Returns:
        ``phase``, ``turn``, ``to_act``, ``computer_to_act``, ``board``, ``pips``, ``dice``,
        ``dice_left``, ``opening``, ``played``, ``legal``, ``can``, ``cube``, ``score``,
        ``history``, ``last_turn``, ``result``, ``message``.
    """
    game = match.current
    over = game.is_over
    phase = game.phase
    # the person's side in a game against the computer: the rules' sentences say "you" and
    # "the computer" (review.players_words); None keeps the colours
    human = names.computer.opponent if names.computer is not None else None
    acting = to_act if phase is Phase.OPENING else game.turn
    common = None if shared is None else shared.get("parts")
    if common is None:
        if history_names is None:
            history_names = (names.label(WHITE), names.label(BLACK))
        common = {
            "legal_now": bool(game.legal_moves()) if phase is Phase.MOVE else False,
            "board": board_json(game.position),
            "pips": {"white": game.position.pip_count(WHITE),
                     "black": game.position.pip_count(BLACK)},
            "dice": list(game.dice) if phase is Phase.MOVE and game.dice else None,
            "dice_left": list(game.dice_left),
            "opening": opening_json(game),
            "played": played_json(game),
            "cube": cube_json(game),
            "score": score_json(match, kind),
            "history": match_history(match, history_names,
                                     claimed=abandoned_after is not None, text=False)[0],
            "last_turn": last_turn_json(game, human),
        }
        if shared is not None:
            shared["parts"] = common
    legal_now = bool(common["legal_now"])
    viewer = names.me if names.me is not None else game.on_roll
    may_resign = (mine and phase in (Phase.ROLL, Phase.MOVE)) if resign is None else resign
    if may_resign and viewer is not None and resign_refusal(game, viewer) is not None:
        may_resign = False
    can: CanJSON = {
        "roll": mine and phase in (Phase.OPENING, Phase.ROLL),
        "double": mine and phase is Phase.ROLL and game.can_double(),
        "take": mine and phase is Phase.DOUBLE_OFFERED,
        "drop": mine and phase is Phase.DOUBLE_OFFERED,
        "beaver": mine and game.can_beaver(),
        "raccoon": mine and game.can_raccoon(),
        "undo": mine and phase is Phase.MOVE and bool(game.played),
        "done": mine and phase is Phase.MOVE and not legal_now,
        "resign": may_resign,
        "next_game": over and not session_over,
        "rematch": session_over,
    }
    on = game.on_roll
    opening = common["opening"]
    result = result_json(match, kind, names, session_over, abandoned_after=abandoned_after,
                         forfeit=forfeit)
    if result is not None:
        message = result["text"]
    else:
        passed = passed_turn(game)
        why = pass_reason(passed) if passed is not None and passed.dice is not None else None
        message = status_text(
            game, names, legal_now=legal_now, opening=opening,
            passed=None if passed is None or passed.dice is None
            else (passed.color, passed.dice, players_words(why, human) if why else why))
    if legal is None:
        legal = legal_json(game) if phase is Phase.MOVE and mine else []
    return {
        "phase": phase_name(game, session_over),
        "turn": color_name(on) if on is not None and not over else None,
        "to_act": color_name(acting) if acting is not None and not over else None,
        "computer_to_act": computer_to_act,
        "board": common["board"],
        "pips": common["pips"],
        "dice": common["dice"],
        "dice_left": common["dice_left"],
        "opening": opening,
        "played": common["played"],
        "legal": legal if phase is Phase.MOVE and mine else [],
        "can": can,
        "cube": common["cube"],
        "score": common["score"],
        "history": common["history"],
        "last_turn": common["last_turn"],
        "forced_play": forced_play_json(game) if mine else None,
        "result": result,
        "message": message,
    }


class TableView(TypedDict):
    """The view both doors share (:func:`describe`); local play adds its session's fields
    (:class:`~backgammon.services.state.GameState`), online play its room's."""

    phase: str
    turn: ColorName | None
    to_act: ColorName | None
    computer_to_act: bool
    board: BoardJSON
    pips: dict[str, int]
    dice: list[int] | None
    dice_left: list[int]
    opening: dict[str, int] | None
    played: list[MoveJSON]
    legal: list[LegalJSON]
    can: CanJSON
    cube: CubeJSON
    score: ScoreJSON
    history: list[HistoryJSON]
    last_turn: LastTurnJSON | None
    forced_play: list[MoveJSON] | None
    result: ResultJSON | None
    message: str


__all__ = [
    "PHASES",
    "REMATCH_SWAPS_SIDES",
    "TableView",
    "board_json",
    "color_name",
    "cube_json",
    "describe",
    "forced_play_json",
    "history_json",
    "last_turn_json",
    "on_roll",
    "opening_json",
    "passed_turn",
    "phase_name",
    "phase_words",
    "played_json",
    "resign_refusal",
    "result_json",
    "score_json",
]
