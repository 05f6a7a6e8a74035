"""The online room's messages on the WebSocket, for every game: their shapes and their check.

Every frame is one JSON object (UTF-8, at most :data:`MAX_MESSAGE_BYTES`) with a ``"type"``
and an optional ``"ref"`` (an int or a short string the server echoes in its answer's
``ref``). A frame is checked whole before anything is done with it (:func:`parse_message`);
a bad one is answered with an ``error`` and changes nothing.

Player to server:

==========  ===========================================  =====================================
type        fields                                       what
==========  ===========================================  =====================================
``hello``   ``token``, ``patch`` (optional, a bool)          the first frame: the seat's token;
                                                         ``patch``: send me patches (below)
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
can check the dice; ``rematch``: true when a rematch began; ``server``: on the first view of a
connection only, the answer to its hello, :func:`server_info`), ``patch`` (the same, with
``patch`` instead of ``view``: see below), ``left`` (``side``: the other seat left the room
with ``leave``, :func:`left_message`; sent to the seat still there when it is connected),
``error`` (``code``, ``message``), ``pong`` is not used: the WebSocket's own pings keep a
connection alive.

**The hello's answer** is the connection's first view, with ``server``: ``{"started", "now"}``,
when this server process opened its door and when it sent this view (Unix seconds). A page
that connected before and reconnects learns from it whether the server restarted meanwhile
(``started`` later than the ``now`` of its last hello's answer): the room was kept across the
restart, and the page may say so.

**Patches.** A connection whose hello said ``"patch": true`` is sent its first view whole and
every later one as a ``patch`` frame: a JSON Patch (RFC 6902; only ``add``, ``replace`` and
``remove``, paths are JSON Pointers; an array that grew at its end, as a move list does, gets
its new items added at ``-``, any other changed array is replaced whole) that turns
the last view sent on this connection into the new one (:func:`view_patch`;
:func:`apply_patch` applies one). Frames on a connection arrive in order, so the client's last
view is the patch's base; a client that has no view yet when a patch comes (it cannot happen
with this server) opens a new connection, whose first view is whole again. A view is about
6 KB for backgammon (its move list grows with the game); a patch is the part that changed: a
dice round's commitment changes the room's round and the clock, not the game; a move, the
board, the dice and the move list's new line. Not JSON Merge
Patch (RFC 7386): a merge patch cannot set a member to null, and views hold nulls.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any, Final, Literal, NotRequired, TypedDict

from gametable.errors import ActionRefused
from gametable.fair import MAX_ROUND, check_commitment, check_secret

#: The largest frame a player may send, in bytes.
MAX_MESSAGE_BYTES: Final = 4096


class Hello(TypedDict):
    """``{"type": "hello", "token", "patch"?}``: the first frame of a connection
    (``patch``: true asks for ``patch`` frames after the first view)."""

    type: Literal["hello"]
    token: str
    patch: NotRequired[bool]
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


class ServerInfo(TypedDict):
    """A hello's answer's ``server``: when this server process opened its door (``started``)
    and when it answered (``now``), Unix seconds."""

    started: float
    now: float


class ViewMessage(TypedDict):
    """``{"type": "view", "view", "round"?, "rematch"?, "server"?, "ref"?}``."""

    type: Literal["view"]
    view: dict[str, Any]
    round: NotRequired[dict[str, Any]]
    rematch: NotRequired[bool]
    server: NotRequired[ServerInfo]
    ref: NotRequired[int | str]


class PatchOperation(TypedDict):
    """One operation of a JSON Patch (RFC 6902): ``add`` or ``replace`` with a ``value``, or
    ``remove``; ``path`` a JSON Pointer to an object member or an array item (``-``: after
    the last)."""

    op: Literal["add", "replace", "remove"]
    path: str
    value: NotRequired[Any]


class PatchMessage(TypedDict):
    """``{"type": "patch", "patch", "round"?, "rematch"?, "ref"?}``: a view as the changes
    from the last view sent on this connection (:func:`view_patch`)."""

    type: Literal["patch"]
    patch: list[PatchOperation]
    round: NotRequired[dict[str, Any]]
    rematch: NotRequired[bool]
    ref: NotRequired[int | str]


class LeftMessage(TypedDict):
    """``{"type": "left", "side"}``: the seat of ``side`` left the room (``leave``)."""

    type: Literal["left"]
    side: str


class ErrorMessage(TypedDict):
    """``{"type": "error", "code", "message", "ref"}``."""

    type: Literal["error"]
    code: str
    message: str
    ref: int | str | None


def error_message(error: ActionRefused, ref: int | str | None = None) -> ErrorMessage:
    """The ``error`` frame for a refusal."""
    return {"type": "error", "code": error.code, "message": str(error), "ref": ref}


def server_info(started: float, now: float) -> ServerInfo:
    """The ``server`` member of a hello's answer (its first view)."""
    return {"started": round(started, 3), "now": round(now, 3)}


def left_message(side: str) -> LeftMessage:
    """The ``left`` frame the other seat is sent when ``side`` leaves the room."""
    return {"type": "left", "side": side}


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


#: Fields a message may leave out.
_OPTIONAL: Final[dict[str, frozenset[str]]] = {"hello": frozenset({"patch"})}


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose every key is given once (JSON lets the last of two win: a frame
    that reads one way to one program and another way to us is refused)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _DuplicateKey(key[:40])
        data[key] = value
    return data


def parse_message(text: str | bytes) -> tuple[ClientMessage, int | str | None]:
    """Check one frame; returns the message and its ``ref``.

    Raises:
        ActionRefused: ``too_large`` over :data:`MAX_MESSAGE_BYTES`; ``invalid_message`` not
            a JSON object, a field given twice, an unknown type, a missing, unknown or
            mistyped field (the error's ``ref`` attribute holds the frame's ``ref`` when it
            could be read).
    """
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE_BYTES:
        raise ActionRefused("too_large", f"a frame is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as duplicate:
        error = _fail(f"the frame gives the field {duplicate.key!r} twice")
        with contextlib.suppress(ValueError, RecursionError, ActionRefused):  # (its ref)
            again = json.loads(text)
            if isinstance(again, dict):
                error.ref = _ref(again)
        raise error from None
    except (ValueError, RecursionError):
        raise _fail("the frame is not JSON") from None
    if not isinstance(data, dict):
        raise _fail("the frame is not a JSON object")
    ref = _ref(data)
    try:
        kind = data.get("type")
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise _fail(f"unknown message type {kind!r}: one of {', '.join(_FIELDS)}")
        allowed = _FIELDS[kind] | _OPTIONAL.get(kind, frozenset())
        unknown = sorted(set(data) - {"type", "ref"} - allowed)
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
            patch = data.get("patch", False)
            if not isinstance(patch, bool):
                raise _fail("hello: patch is true or false")
            message = {"type": "hello", "token": token}
            if patch:
                message["patch"] = True
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


# ---------------------------------------------------------------- patches


#: A member's value where the member is missing.
_ABSENT: Final = object()


def _pointer_token(key: str) -> str:
    if "~" in key or "/" in key:
        return key.replace("~", "~0").replace("/", "~1")
    return key


def view_patch(old: dict[str, Any], new: dict[str, Any]) -> list[PatchOperation]:
    """The JSON Patch (RFC 6902) that turns ``old`` into ``new``: members that are the same
    object or equal are skipped, objects that differ are compared member by member, an array
    that only grew at its end (a move list), perhaps with its last item changed, gets that
    item's changes and ``add`` of each new item at ``/-``; anything else is replaced whole
    when it differs. ``[]`` when they are equal. :func:`apply_patch` of it to ``old`` gives a
    document equal to ``new``."""
    operations: list[PatchOperation] = []
    _diff(old, new, "", operations)
    return operations


def _diff(old: dict[str, Any], new: dict[str, Any], path: str,
          operations: list[PatchOperation]) -> None:
    for key, value in new.items():
        before = old.get(key, _ABSENT)
        if before is value or (type(before) is type(value) and before == value):
            continue  # (equal objects are compared whole, in C, not member by member)
        where = f"{path}/{_pointer_token(key)}"
        if before is _ABSENT:
            operations.append({"op": "add", "path": where, "value": value})
        elif isinstance(before, dict) and isinstance(value, dict):
            _diff(before, value, where, operations)
        elif not (isinstance(before, list) and isinstance(value, list)
                  and _grown(before, value, where, operations)):  # fmt: skip
            operations.append({"op": "replace", "path": where, "value": value})
    for key in old:
        if key not in new:
            operations.append({"op": "remove", "path": f"{path}/{_pointer_token(key)}"})


def _grown(old: list[Any], new: list[Any], path: str,
           operations: list[PatchOperation]) -> bool:
    """The operations that turn ``old`` into ``new`` where ``new`` is ``old`` with items
    added at its end, its last item perhaps changed; False (nothing added) otherwise."""
    count = len(old)
    if count == 0 or len(new) < count:
        return False
    if old != new[:count]:
        if old[:-1] != new[: count - 1]:
            return False
        last, now = old[-1], new[count - 1]
        where = f"{path}/{count - 1}"
        if isinstance(last, dict) and isinstance(now, dict):
            _diff(last, now, where, operations)
        else:
            operations.append({"op": "replace", "path": where, "value": now})
    for item in new[count:]:
        operations.append({"op": "add", "path": f"{path}/-", "value": item})
    return True


def _pointer(path: object) -> list[str]:
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"not a JSON Pointer to a member: {path!r}")
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _index(items: list[Any], token: str, *, end: bool = False) -> int:
    """An array index of a pointer (``-``: past the end, with ``end``)."""
    if end and token == "-":
        return len(items)
    if not token.isdigit() or (token != "0" and token.startswith("0")) \
            or int(token) >= len(items) + (1 if end else 0):  # fmt: skip
        raise ValueError(f"no item {token!r} in an array of {len(items)}")
    return int(token)


def apply_patch(document: dict[str, Any], operations: object) -> dict[str, Any]:
    """``document`` with the JSON Patch ``operations`` (``add``, ``replace`` and ``remove``,
    as :func:`view_patch` makes them) applied, as a new document: ``document`` itself is
    left as it was (the objects and arrays on each operation's path are copied; the rest is
    shared).

    Raises:
        ValueError: an operation this module does not make (an unknown ``op``, a path
            through something that is neither an object nor an array, ``replace`` or
            ``remove`` of a member or item that is not there).
    """
    if not isinstance(operations, list):
        raise ValueError("a patch is a list of operations")
    root = dict(document)
    copied = {id(root)}
    for operation in operations:
        if not isinstance(operation, dict):
            raise ValueError("an operation is an object")
        keys = _pointer(operation.get("path"))
        parent: dict[str, Any] | list[Any] = root
        for key in keys[:-1]:
            at: str | int = key if isinstance(parent, dict) else _index(parent, key)
            child = parent.get(key) if isinstance(parent, dict) else parent[int(at)]
            if not isinstance(child, dict | list):
                raise ValueError(f"{operation.get('path')!r} goes through a non-container")
            if id(child) not in copied:  # copied once, the first time it is changed
                child = dict(child) if isinstance(child, dict) else list(child)
                copied.add(id(child))
                if isinstance(parent, dict):
                    parent[key] = child
                else:
                    parent[int(at)] = child
            parent = child
        last, kind = keys[-1], operation.get("op")
        if kind not in ("add", "replace", "remove") or (kind != "remove"
                                                         and "value" not in operation):
            raise ValueError(f"unknown operation {kind!r}")
        if isinstance(parent, dict):
            if kind != "add" and last not in parent:
                raise ValueError(f"{kind} of {operation.get('path')!r}: no such member")
            if kind == "remove":
                del parent[last]
            else:
                parent[last] = operation["value"]
        else:
            index = _index(parent, last, end=kind == "add")
            if kind == "remove":
                del parent[index]
            elif kind == "replace":
                parent[index] = operation["value"]
            else:
                parent.insert(index, operation["value"])
    return root
