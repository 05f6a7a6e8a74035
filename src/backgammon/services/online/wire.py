"""The online protocol's messages as types: one :class:`~typing.TypedDict` for each message a
page sends (client -> server) and each the server sends (server -> client), so that
``mypy --strict`` checks the keys where a message is built or read.

The protocol itself (who sends what, when, and what it means) is documented in
:mod:`backgammon.services.online.protocol`; these types are its tables written as code. They
are annotations only: the JSON on the wire is what the dicts hold, in the order they are built.

Client messages are the frames as a page writes them (secrets as hex, moves as
``[from, to, die]`` lists); :func:`~.protocol.parse_message` checks one and converts its fields
(:class:`~.protocol.ClientMessage`). Every client message may carry ``ref`` (echoed in an
``error`` about it). Every room event (sent to both seats through the room's broadcast) carries
``seq`` and, in a timed game, ``clock``; ``rolled``, ``move`` and ``undo`` also carry
``legal_moves`` and ``legal`` to the side that must move.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

__all__ = [
    "AbandonedEvent",
    "BareWire",
    "ClaimableEvent",
    "ClientWire",
    "ClockJSON",
    "ClockSyncMessage",
    "ClosedEvent",
    "ColorEvent",
    "CommitEvent",
    "CommitWire",
    "CubeEvent",
    "ErrorMessage",
    "ExplainReply",
    "ExplainWire",
    "ExportReply",
    "ExportWire",
    "ForfeitEvent",
    "GameOverEvent",
    "HelloWire",
    "MoveEvent",
    "MoveWire",
    "NewGameEvent",
    "NewMatchEvent",
    "NoticeMessage",
    "OpponentMessage",
    "PlayEvent",
    "PlayWire",
    "ReplyMessage",
    "ResignEvent",
    "ResignWire",
    "RevealEvent",
    "ReviewReply",
    "RolledEvent",
    "RoomEvent",
    "Score",
    "SecretEvent",
    "SecretWire",
    "ServerMessage",
    "SilenceEvent",
    "StateReply",
    "TimedActionWire",
    "TimeoutEvent",
    "UndoEvent",
    "WelcomeHead",
    "WireMove",
]

#: A single move on the wire: ``[from, to, die]`` in the mover's own numbering (bar 25, off 0).
WireMove: TypeAlias = list[int]
#: A colour's name: ``"white"`` or ``"black"``.
ColorName: TypeAlias = str
#: A resignation's level.
Level: TypeAlias = Literal["single", "gammon", "backgammon"]
#: A place of ``explain``: 1..24 in White's numbering, ``"bar"`` or ``"off"``.
Place: TypeAlias = int | Literal["bar", "off"]
#: The ``ref`` a page may add to any message (echoed in an error about it).
Ref: TypeAlias = int | str


# -- client -> server ------------------------------------------------------------------------


class _ClientBase(TypedDict):
    ref: NotRequired[Ref]


class HelloWire(_ClientBase):
    type: Literal["hello"]
    token: NotRequired[str]
    name: NotRequired[str]


class CommitWire(_ClientBase):
    type: Literal["commit"]
    round: int
    commitment: str


class SecretWire(_ClientBase):
    """``secret`` (the roller's opponent's secret in the clear) or ``reveal`` (a committed
    secret): 64 hex digits."""

    type: Literal["secret", "reveal"]
    round: int
    secret: str


class MoveWire(_ClientBase):
    type: Literal["move"]
    moves: list[WireMove]


class PlayWire(_ClientBase):
    type: Literal["play"]
    moves: list[WireMove]
    clock: NotRequired[float | None]


class TimedActionWire(_ClientBase):
    """An action that may carry the sender's clock reading (seconds)."""

    type: Literal["end_turn", "double", "take", "drop", "beaver", "raccoon", "accept",
                  "decline"]
    clock: NotRequired[float | None]


class ResignWire(_ClientBase):
    type: Literal["resign"]
    level: Level
    clock: NotRequired[float | None]


class ExportWire(_ClientBase):
    type: Literal["export"]
    game: NotRequired[int | None]


ExplainWire = TypedDict("ExplainWire", {  # "from" is a keyword: the functional form
    "type": Literal["explain"], "from": Place, "to": NotRequired[Place | None],
    "ref": NotRequired[Ref]})


class BareWire(_ClientBase):
    """A message with no fields."""

    type: Literal["undo", "claim", "next_game", "rematch", "state", "review", "leave"]


#: Any message a page sends.
ClientWire: TypeAlias = (HelloWire | CommitWire | SecretWire | MoveWire | PlayWire
                         | TimedActionWire | ResignWire | ExportWire | ExplainWire | BareWire)


# -- server -> client: the clock ---------------------------------------------------------------


class ClockJSON(TypedDict):
    """Both clocks: seconds left, the one running (null when none, or both in the opening
    round) and every side whose time is running."""

    white: float
    black: float
    running: ColorName | None
    waiting: list[ColorName]


# -- server -> client: room events (to both seats, numbered) -----------------------------------


class _EventBase(TypedDict):
    """What the room's broadcast adds to every event."""

    seq: NotRequired[int]
    clock: NotRequired[ClockJSON]
    legal_moves: NotRequired[list[WireMove]]
    legal: NotRequired[list[Any]]


class CommitEvent(_EventBase):
    type: Literal["commit"]
    round: int
    color: ColorName
    commitment: str


class SecretEvent(_EventBase):
    type: Literal["secret"]
    round: int
    color: ColorName
    secret: str


class RevealEvent(_EventBase):
    type: Literal["reveal"]
    round: int
    color: ColorName
    secret: str


class RolledEvent(_EventBase):
    type: Literal["rolled"]
    round: int
    opening: bool
    color: ColorName | None
    dice: list[int]
    secrets: dict[ColorName, str]
    tie: bool
    passed: bool
    turn: ColorName | None


class MoveEvent(_EventBase):
    type: Literal["move"]
    color: ColorName
    moves: list[WireMove]
    hits: list[bool]


class UndoEvent(_EventBase):
    type: Literal["undo"]
    color: ColorName
    move: WireMove


class PlayEvent(_EventBase):
    type: Literal["play"]
    color: ColorName
    moves: list[WireMove]
    seconds: float | None


class ColorEvent(_EventBase):
    """An event that names only the side: an answer to a double or a resignation, or a
    request for a rematch."""

    type: Literal["take", "drop", "accept", "decline", "rematch"]
    color: ColorName


class CubeEvent(_EventBase):
    """A double (the value offered), a beaver or a raccoon (the cube's new value)."""

    type: Literal["double", "beaver", "raccoon"]
    color: ColorName
    cube: int


class ResignEvent(_EventBase):
    type: Literal["resign"]
    color: ColorName
    level: Level


class TimeoutEvent(_EventBase):
    type: Literal["timeout"]
    color: ColorName


class SilenceEvent(_EventBase):
    type: Literal["silence"]
    color: ColorName
    seconds: float
    claimable_in: float


class ClaimableEvent(_EventBase):
    type: Literal["claimable"]
    color: ColorName
    seconds: float


class AbandonedEvent(_EventBase):
    type: Literal["abandoned"]
    color: ColorName
    seconds: float


class ForfeitEvent(_EventBase):
    type: Literal["forfeit"]
    color: ColorName
    reason: str
    points: int
    message: str


class Score(TypedDict):
    white: int
    black: int


class GameOverEvent(_EventBase):
    type: Literal["game_over"]
    game: int
    outcome: dict[str, Any]
    score: Score
    match_over: bool
    text: str
    log: dict[str, Any]


class NewGameEvent(_EventBase):
    type: Literal["new_game"]
    game: int
    score: Score
    crawford: bool


class NewMatchEvent(_EventBase):
    """The rematch begins: the seats' colours (each seat is sent its own as ``you``)."""

    type: Literal["new_match"]
    colors: dict[str, ColorName]
    you: NotRequired[ColorName]


class ClosedEvent(_EventBase):
    type: Literal["closed"]
    reason: str


#: Any event the room broadcasts to both seats.
RoomEvent: TypeAlias = (CommitEvent | SecretEvent | RevealEvent | RolledEvent | MoveEvent
                        | UndoEvent | PlayEvent | ColorEvent | CubeEvent | ResignEvent
                        | TimeoutEvent | SilenceEvent | ClaimableEvent | AbandonedEvent
                        | ForfeitEvent | GameOverEvent | NewGameEvent | NewMatchEvent
                        | ClosedEvent)


# -- server -> client: to one seat ---------------------------------------------------------------


class OpponentMessage(TypedDict):
    type: Literal["opponent"]
    status: Literal["joined", "disconnected", "reconnected", "left"]
    name: str
    message: str


class ClockSyncMessage(TypedDict):
    """The sender's clock reading was off: the server's reading and the difference."""

    type: Literal["clock_sync"]
    reported: float
    server: float
    drift: float


class NoticeMessage(TypedDict):
    """The room's store warns (its log is nearly full) or failed to save an action."""

    type: Literal["notice"]
    code: str
    message: str
    storage: NotRequired[dict[str, Any]]


class _ReplyBase(TypedDict):
    ref: NotRequired[Ref]


class StateReply(_ReplyBase):
    type: Literal["state"]
    state: dict[str, Any]


class ReviewReply(_ReplyBase):
    type: Literal["review"]
    review: dict[str, Any]


class ExportReply(_ReplyBase):
    type: Literal["export"]
    game: int | None
    text: str
    filename: str


class ExplainReply(_ReplyBase):
    type: Literal["explain"]
    explain: dict[str, Any]


#: An answer to one read (with the request's ``ref``).
ReplyMessage: TypeAlias = StateReply | ReviewReply | ExportReply | ExplainReply


class ErrorMessage(TypedDict):
    """A refused message: its code, why in words, and its ``ref`` when it had one."""

    type: Literal["error"]
    code: str
    message: str
    ref: NotRequired[Ref]


class WelcomeHead(TypedDict):
    """``welcome`` without its ``state``, which the door appends as JSON text made already."""

    type: Literal["welcome"]
    seat: str
    color: ColorName
    token: str
    code: str
    settings: dict[str, Any]
    restarted: bool


#: Any message the server sends to a page.
ServerMessage: TypeAlias = (RoomEvent | OpponentMessage | ClockSyncMessage | NoticeMessage
                            | ReplyMessage | ErrorMessage | WelcomeHead)
