"""The JSON the page gets: the shape of a game's state and of the computer's turn.

These typed dicts are the contract between :mod:`backgammon.services.session` (which builds
them) and the page (``server/static/js``), and they are the response schemas of the HTTP API
(FastAPI shows them at ``/docs``). ``typing_extensions.TypedDict`` is used because pydantic
needs it to read typed dicts on Python 3.11.

Places on the board are named the way the page names them: an int 1..24 is a point numbered
from White's side (the engine's 26-slot board, DESIGN.md), ``"bar"`` the mover's bar and
``"off"`` borne off. Colours are ``"white"`` and ``"black"``.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict

#: A side, as JSON.
ColorName = Literal["white", "black"]
#: A place a checker can stand on or move to: a point 1..24 (White's numbering), bar or off.
Place = int | Literal["bar", "off"]
#: Where the game stands: ``"opening"`` before the opening roll; ``"roll"`` when the side on
#: turn may double or roll; ``"move"`` with dice thrown; ``"cube"`` while a double waits for
#: take or drop; ``"resign"`` while the computer considers the person's resignation;
#: ``"game_over"`` between games of a match or session; ``"match_over"`` at the end.
Phase = Literal["opening", "roll", "move", "cube", "resign", "game_over", "match_over"]
#: The time controls a game may be played with (``"none"``: no clock).
TimeControlName = Literal["none", "bullet", "blitz", "rapid"]


class BoardJSON(TypedDict):
    """The checkers: ``points`` the engine's 26 signed slots (White positive; ``[25]`` White's
    bar, ``[0]`` Black's bar, negative), ``off`` the checkers borne off by each side."""

    points: list[int]
    off: dict[str, int]


#: One checker moved by one die. ``from``/``to`` are places (White's numbering, ``"bar"``,
#: ``"off"``); ``die`` the die used; ``hit`` whether it hit a blot; ``text`` the move in standard
#: notation from the mover's side (``"13/7*"``). (The functional form, since ``from`` is a
#: Python keyword.)
MoveJSON = TypedDict(
    "MoveJSON",
    {"from": Place, "to": Place, "die": int, "hit": bool, "text": str},
)


class DestinationJSON(TypedDict):
    """Where the chosen checker can go: ``to`` a place; ``hit`` whether it hits on arrival;
    ``moves`` the single moves that take it there (two or more when it passes through open
    points with several dice, in the order played)."""

    to: Place
    hit: bool
    moves: list[MoveJSON]


#: A checker that can move now (from ``from``) and every place it can reach.
LegalJSON = TypedDict(
    "LegalJSON",
    {"from": Place, "destinations": list[DestinationJSON]},
)


class CanJSON(TypedDict):
    """What the side to act may do now (the buttons the page shows)."""

    roll: bool
    double: bool
    take: bool
    drop: bool
    beaver: bool
    raccoon: bool
    undo: bool
    done: bool
    resign: bool
    next_game: bool
    rematch: bool


class CubeJSON(TypedDict):
    """The doubling cube: ``enabled`` False when the game is played without it; ``value`` 1, 2,
    4, ...; ``owner`` None while centred; ``offered_by`` the side whose double waits for an
    answer, else None."""

    enabled: bool
    value: int
    owner: ColorName | None
    offered_by: ColorName | None


class ScoreJSON(TypedDict):
    """Points won so far in this match or session (a single game counts too).

    ``length`` the match length in points, None for a single game or a money session;
    ``crawford`` True during the Crawford game; ``description`` a caption such as
    ``"Match to 5 · Crawford game"``.
    """

    white: int
    black: int
    length: int | None
    crawford: bool
    game_number: int
    description: str


class PlayerJSON(TypedDict):
    """A seat: its name as shown, and whether the computer plays it (and at which level)."""

    name: str
    computer: bool
    level: str | None


class SettingsJSON(TypedDict):
    """The settings the game was created with (as stored).

    ``mode`` ``"computer"`` or ``"pass_and_play"``; ``level`` the computer's level;
    ``human`` the human's side against the computer (None in pass & play); ``cube`` whether
    the doubling cube is used; ``gammons`` whether gammons and backgammons count; ``kind``
    ``"single"``, ``"match"`` or ``"money"``;
    ``length`` the match length in points (0 unless ``kind`` is ``"match"``);
    ``time_control`` ``"none"``, ``"bullet"``, ``"blitz"`` or ``"rapid"`` (the clock);
    ``jacoby`` and ``beavers`` the money-play rules.
    """

    mode: Literal["computer", "pass_and_play"]
    level: Literal["easy", "medium", "hard", "expert", "master"]
    human: ColorName | None
    cube: bool
    gammons: bool
    kind: Literal["single", "match", "money"]
    length: int
    time_control: TimeControlName
    jacoby: bool
    beavers: bool


class ClockJSON(TypedDict):
    """The game's clocks (the table's clock with :mod:`gametable.presence`), as of the answer.

    ``control`` the time control's name; ``reserve`` each side's time at the start of a game
    and ``increment`` what each completed turn adds, in seconds; ``remaining`` the seconds each
    side has left (never below 0); ``running`` the side whose clock counts down now, else None;
    ``paused`` the side to act whose clock is on hold (no page open, the page has not shown the
    computer's turn yet, or the computer is yet to think), else None; ``heartbeat`` the seconds
    between the page's presence checks (``POST /api/games/{id}/clock``); ``warning`` the
    seconds left below which the page shows the clock in the warning colour.
    """

    control: str
    reserve: float
    increment: float
    remaining: dict[str, float]
    running: ColorName | None
    paused: ColorName | None
    heartbeat: float
    warning: float


class ClockCheckJSON(TypedDict):
    """The answer to the page's clock check: the game's ``version`` and ``phase`` (a new
    version means the page should read the state again: e.g. a side ran out of time) and the
    ``clock`` (None for an untimed game)."""

    version: int
    phase: Phase
    clock: ClockJSON | None


class HistoryJSON(TypedDict):
    """One line of the move list: ``kind`` ``"opening"``, ``"play"``, ``"double"``, ``"take"``,
    ``"drop"``, ``"resign"``, ``"result"`` or ``"game"``; ``color`` who did it (None for
    ``"game"`` headers); ``text`` the line as shown (``"White 31: 8/5 6/5"``)."""

    game: int
    kind: str
    color: ColorName | None
    text: str


class LastTurnJSON(TypedDict):
    """The previous turn of the game, highlighted on the board: who played, its moves, its
    dice (kept on the board until the next roll; None for a turn without a roll), and
    ``cannot_move`` when the roll could not be played (``reason`` then says why)."""

    color: ColorName
    moves: list[MoveJSON]
    dice: list[int] | None
    cannot_move: bool
    reason: str | None


class ResultJSON(TypedDict):
    """How the game (and maybe the match) ended.

    ``kind`` ``"single"``, ``"gammon"`` or ``"backgammon"``; ``points`` what the game scored
    (result x cube); ``reason`` ``"board"`` (borne off), ``"drop"``, ``"resign"``,
    ``"timeout"`` (the loser ran out of time) or ``"forfeit"`` (online: the loser left the
    match, or broke its dice reveal);
    ``match_over`` True when the match or single game is decided; ``title``/``text`` the
    words the page shows.
    """

    winner: ColorName
    kind: Literal["single", "gammon", "backgammon"]
    points: int
    reason: Literal["board", "drop", "resign", "timeout", "forfeit"]
    match_over: bool
    title: str
    text: str


class GameState(TypedDict):
    """Everything the page draws for a game.

    ``id`` the game's id; ``version`` the number of actions saved so far; ``viewer`` the side
    the board is drawn from; ``turn`` the side whose turn it is (None before the opening roll
    and after the game); ``to_act`` who must act now (differs from ``turn`` while a double
    waits for an answer); ``computer_to_act`` True when the page should ask for the computer's
    turn; ``dice`` the roll (None before rolling); ``dice_left`` the dice not yet used (four
    entries at most); ``opening`` the opening roll's two dice while they are shown;
    ``played`` the moves already made this turn; ``legal`` what can move now, from the server's
    rules; ``forced_play`` the moves of the roll's only legal play, at the start of a turn that
    has exactly one (None otherwise); ``pips`` the pip counts; ``message`` one sentence for
    the status line; ``clock``
    the clocks (None when the game is played without a time control); ``ids`` the position's
    GNU Backgammon Position ID and Match ID and its XGID, at the start of the turn (None when
    they cannot be written); ``seed`` the session's seed: the same seed gives the same dice
    (None for a session without one: saved before seeds, or played with fixed dice).
    """

    id: str
    version: int
    settings: SettingsJSON
    players: dict[str, PlayerJSON]
    viewer: ColorName
    phase: Phase
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
    forced_play: list[MoveJSON] | None
    can: CanJSON
    cube: CubeJSON
    score: ScoreJSON
    history: list[HistoryJSON]
    last_turn: LastTurnJSON | None
    result: ResultJSON | None
    message: str
    clock: ClockJSON | None
    ids: IdsJSON | None
    seed: int | None


class IdsJSON(TypedDict):
    """A position's IDs, ready to copy: GNU Backgammon's Position ID and Match ID (None when
    a Match ID cannot hold the state, as with a beaver pending) and eXtreme Gammon's XGID."""

    position_id: str
    match_id: str | None
    xgid: str


class RecentGameJSON(TypedDict):
    """One of a browser's unfinished games, for the page's list of games to resume: ``id``;
    ``updated_at`` when it was last played, seconds since the epoch; ``title`` who plays
    (``"You vs Computer (Easy)"``, ``"Pass & play"``); ``description`` the score's caption
    (``"Match to 5 points · game 2"``); ``score`` the points so far; ``turns`` the turns
    played in the current game; ``message`` the status line."""

    id: str
    updated_at: float
    title: str
    description: str
    score: dict[str, int]
    turns: int
    message: str


class StepJSON(TypedDict):
    """One frame of the computer's turn as the page plays it back: ``kind`` ``"roll"``,
    ``"move"``, ``"pass"``, ``"double"``, ``"take"``, ``"drop"``, ``"beaver"``,
    ``"raccoon"`` or ``"resign"``; ``color``
    who acted; ``text`` what happened in words; the board, dice and cube right after it."""

    kind: str
    color: ColorName
    text: str
    board: BoardJSON
    dice: list[int] | None
    dice_left: list[int]
    cube: CubeJSON


class ComputerTurnJSON(TypedDict):
    """The answer to ``POST /api/games/{id}/computer``: the steps; ``summary``, what the
    computer did in words (``"The computer takes: the cube is at 2, the computer owns it."``,
    ``"The computer plays 6-4: 24/18 13/9."``); then the state after them."""

    steps: list[StepJSON]
    summary: str
    state: GameState


__all__ = [
    "BoardJSON",
    "CanJSON",
    "ClockCheckJSON",
    "ClockJSON",
    "ColorName",
    "ComputerTurnJSON",
    "CubeJSON",
    "DestinationJSON",
    "GameState",
    "HistoryJSON",
    "LastTurnJSON",
    "LegalJSON",
    "MoveJSON",
    "Phase",
    "Place",
    "PlayerJSON",
    "RecentGameJSON",
    "ResultJSON",
    "ScoreJSON",
    "SettingsJSON",
    "StepJSON",
    "TimeControlName",
]
