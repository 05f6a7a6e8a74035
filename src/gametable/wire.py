"""The online room's messages on the WebSocket, for every game: their shapes and their check.

Every frame is one JSON object (UTF-8, at most :data:`MAX_MESSAGE_BYTES`) with a ``"type"``
and an optional ``"ref"`` (an int or a short string the server echoes in its answer's
``ref``). A frame is checked whole before anything is done with it (:func:`parse_message`);
a bad one is answered with an ``error`` and changes nothing.

Player to server:

==========  ===========================================  =====================================
type        fields                                       what
==========  ===========================================  =====================================
``hello``   ``token``                                    the first frame: the seat's token
``action``  ``action`` (the game's action JSON)          the same action as the HTTP door's
``commit``  ``round``, ``commitment`` (64 hex digits)    opens or joins a fair-random round
``secret``  ``round``, ``secret`` (64 hex digits)        the roller's opponent's secret
``reveal``  ``round``, ``secret``                        the committed secret
``claim``                                                claim the game of a gone opponent
``leave``                                                leave (a game in play is forfeited)
``rematch``                                              ask for a rematch (sides swap)
``state``                                                send me the view again
==========  ===========================================  =====================================

Server to player: ``view`` (``view``: the table's view from the player's side with the room's
part under ``view.room``; ``round``: a round just completed, both secrets in it, so the page
can check the dice; ``rematch``: true when a rematch began), ``error`` (``code``,
``message``), ``pong`` is not used: the WebSocket's own pings keep a connection alive.
"""

from __future__ import annotations

import json
from typing import Any, Final, Literal, NotRequired, TypedDict

from gametable.errors import ActionRefused
from gametable.fair import MAX_ROUND, check_commitment, check_secret

#: The largest frame a player may send, in bytes.
MAX_MESSAGE_BYTES: Final = 4096


class Hello(TypedDict):
    """``{"type": "hello", "token"}``: the first frame of a connection."""

    type: Literal["hello"]
    token: str
    ref: NotRequired[int | str]


class ActionMessage(TypedDict):
    """``{"type": "action", "action": {...}}``: a game action."""

    type: Literal["action"]
    action: dict[str, Any]
    ref: NotRequired[int | str]


class CommitMessage(TypedDict):
    """``{"type": "commit", "round", "commitment"}``."""

    type: Literal["commit"]
    round: int
    commitment: str
    ref: NotRequired[int | str]


class SecretMessage(TypedDict):
    """``{"type": "secret" | "reveal", "round", "secret"}`` (64 hex digits)."""

    type: Literal["secret", "reveal"]
    round: int
    secret: str
    ref: NotRequired[int | str]


class PlainMessage(TypedDict):
    """``{"type": "claim" | "leave" | "rematch" | "state"}``."""

    type: Literal["claim", "leave", "rematch", "state"]
    ref: NotRequired[int | str]


ClientMessage = Hello | ActionMessage | CommitMessage | SecretMessage | PlainMessage


class ViewMessage(TypedDict):
    """``{"type": "view", "view", "round"?, "rematch"?, "ref"?}``."""

    type: Literal["view"]
    view: dict[str, Any]
    round: NotRequired[dict[str, Any]]
    rematch: NotRequired[bool]
    ref: NotRequired[int | str]


class ErrorMessage(TypedDict):
    """``{"type": "error", "code", "message", "ref"}``."""

    type: Literal["error"]
    code: str
    message: str
    ref: int | str | None


def error_message(error: ActionRefused, ref: int | str | None = None) -> ErrorMessage:
    """The ``error`` frame for a refusal."""
    return {"type": "error", "code": error.code, "message": str(error), "ref": ref}


def _fail(message: str) -> ActionRefused:
    return ActionRefused("invalid_message", message)


def _ref(data: dict[str, Any]) -> int | str | None:
    ref = data.get("ref")
    if ref is None:
        return None
    if isinstance(ref, bool) or not isinstance(ref, int | str):
        raise _fail("ref is an int or a short string")
    if isinstance(ref, str) and len(ref) > 40:
        raise _fail("ref is at most 40 characters")
    if isinstance(ref, int) and not -(2**53) < ref < 2**53:
        raise _fail("ref is a safe integer")
    return ref


def _round(data: dict[str, Any]) -> int:
    number = data.get("round")
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < MAX_ROUND:
        raise _fail("round is an int from 0")
    return number


_FIELDS: Final[dict[str, frozenset[str]]] = {
    "hello": frozenset({"token"}),
    "action": frozenset({"action"}),
    "commit": frozenset({"round", "commitment"}),
    "secret": frozenset({"round", "secret"}),
    "reveal": frozenset({"round", "secret"}),
    "claim": frozenset(),
    "leave": frozenset(),
    "rematch": frozenset(),
    "state": frozenset(),
}


def parse_message(text: str | bytes) -> tuple[ClientMessage, int | str | None]:
    """Check one frame; returns the message and its ``ref``.

    Raises:
        ActionRefused: ``too_large`` over :data:`MAX_MESSAGE_BYTES`; ``invalid_message`` not
            a JSON object, an unknown type, a missing, unknown or mistyped field (the error's
            ``ref`` attribute holds the frame's ``ref`` when it could be read).
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ActionRefused("too_large", f"a frame is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise _fail("the frame is not JSON") from None
    if not isinstance(data, dict):
        raise _fail("the frame is not a JSON object")
    ref = _ref(data)
    try:
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise _fail(f"unknown message type {kind!r}: one of {', '.join(_FIELDS)}")
        unknown = sorted(set(data) - {"type", "ref"} - _FIELDS[kind])
        if unknown:
            raise _fail(f"{kind}: unexpected field(s) {', '.join(unknown)}")
        missing = sorted(_FIELDS[kind] - set(data))
        if missing:
            raise _fail(f"{kind}: missing field(s) {', '.join(missing)}")
        message: ClientMessage
        if kind == "hello":
            token = data["token"]
            if not isinstance(token, str) or not 8 <= len(token) <= 80:
                raise _fail("hello: token is 8 to 80 characters")
            message = {"type": "hello", "token": token}
        elif kind == "action":
            action = data["action"]
            if not isinstance(action, dict) or not isinstance(action.get("type"), str):
                raise _fail("action: an object with a type")
            message = {"type": "action", "action": action}
        elif kind == "commit":
            message = {
                "type": "commit",
                "round": _round(data),
                "commitment": check_commitment(data["commitment"]),
            }
        elif kind in ("secret", "reveal"):
            secret = data["secret"]
            check_secret(secret)
            message = {
                "type": "secret" if kind == "secret" else "reveal",
                "round": _round(data),
                "secret": str(secret).lower(),
            }
        else:
            plain: Literal["claim", "leave", "rematch", "state"] = kind  # type: ignore[assignment]
            message = {"type": plain}
    except ActionRefused as error:
        error.ref = ref
        raise
    return message, ref
