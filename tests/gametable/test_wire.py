"""The rooms' frames (gametable.wire): every message checked whole, hostile ones refused with
what was wrong."""

from __future__ import annotations

import json

import pytest

from gametable.errors import ActionRefused
from gametable.wire import MAX_MESSAGE_BYTES, parse_message

HEX = "ab" * 32


def test_good_frames_parse_to_their_typed_shape() -> None:
    assert parse_message('{"type":"hello","token":"abcdefghij"}') == (
        {"type": "hello", "token": "abcdefghij"}, None)  # fmt: skip
    assert parse_message(
        json.dumps({"type": "action", "action": {"type": "move", "path": [11, 15]}, "ref": 4})
    ) == ({"type": "action", "action": {"type": "move", "path": [11, 15]}}, 4)
    assert parse_message(json.dumps({"type": "commit", "round": 3, "commitment": HEX})) == (
        {"type": "commit", "round": 3, "commitment": HEX}, None)  # fmt: skip
    assert parse_message(json.dumps({"type": "reveal", "round": 0, "secret": HEX.upper()}))[0] == {
        "type": "reveal",
        "round": 0,
        "secret": HEX,
    }
    assert parse_message('{"type":"claim","ref":"x"}') == ({"type": "claim"}, "x")


@pytest.mark.parametrize(
    ("frame", "code", "words"),
    [
        ("not json", "invalid_message", "not JSON"),
        ("[1, 2]", "invalid_message", "not a JSON object"),
        ('{"type": "fly"}', "invalid_message", "unknown message type 'fly'"),
        ('{"type": "hello"}', "invalid_message", "missing field(s) token"),
        ('{"type": "hello", "token": "abcdefghij", "x": 1}', "invalid_message", "unexpected"),
        ('{"type": "hello", "token": "short"}', "invalid_message", "8 to 80"),
        ('{"type": "action", "action": []}', "invalid_message", "an object with a type"),
        ('{"type": "commit", "round": -1, "commitment": "' + HEX + '"}', "invalid_message",
         "round is an int"),
        ('{"type": "commit", "round": true, "commitment": "' + HEX + '"}', "invalid_message",
         "round is an int"),
        ('{"type": "commit", "round": 1, "commitment": "' + HEX.upper() + '"}',
         "invalid_message", "64 lowercase hex"),
        ('{"type": "secret", "round": 1, "secret": "xyz"}', "invalid_message", "64 hex digits"),
        ('{"type": "state", "ref": {"a": 1}}', "invalid_message", "ref is an int"),
        # the last of two keys would win: a frame read one way here, another elsewhere
        ('{"type": "state", "type": "leave"}', "invalid_message", "gives the field 'type' twice"),
        ('{"type": "action", "action": {"type": "roll", "type": "resign"}}', "invalid_message",
         "gives the field 'type' twice"),
        ("[" * 100_000, "too_large", "at most"),
        ('{"type": "state", "pad": "' + "x" * MAX_MESSAGE_BYTES + '"}', "too_large", "at most"),
    ],
)  # fmt: skip
def test_bad_frames_are_refused_with_what_was_wrong(frame: str, code: str, words: str) -> None:
    with pytest.raises(ActionRefused) as caught:
        parse_message(frame)
    assert caught.value.code == code
    assert words in str(caught.value)


def test_a_refusal_keeps_the_frames_ref() -> None:
    with pytest.raises(ActionRefused) as caught:
        parse_message('{"type": "fly", "ref": 12}')
    assert caught.value.ref == 12


def test_a_frame_giving_a_field_twice_keeps_its_ref() -> None:
    with pytest.raises(ActionRefused) as caught:
        parse_message('{"type": "state", "type": "leave", "ref": 7}')
    assert caught.value.code == "invalid_message" and caught.value.ref == 7
