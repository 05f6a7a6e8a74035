"""Fair-random rounds (gametable.fair): the steps in order, the shared secret, refusals."""

from __future__ import annotations

import hashlib

import pytest

from gametable.errors import ActionRefused
from gametable.fair import BrokenRevealError, FairRound, commitment_of
from gametable.seam import SharedSecret

R = bytes(range(32))
OPP = bytes(range(32, 64))


def test_a_commitment_is_sha256_in_hex() -> None:
    assert commitment_of(R) == hashlib.sha256(R).hexdigest()
    assert commitment_of(bytes(32)) == (
        "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    )


def test_a_roll_round_commit_then_secret_then_reveal() -> None:
    round_ = FairRound(7, "black", {"type": "roll"})
    assert round_.awaiting() == {"black"} and round_.expects("black") == "commit"
    assert round_.step("black", "commit", commitment_of(R)) is None
    assert round_.awaiting() == {"white"} and round_.expects("white") == "secret"
    assert round_.step("white", "secret", OPP.hex()) is None
    assert round_.expects("black") == "reveal"
    assert round_.step("black", "reveal", R.hex()) == SharedSecret(R, OPP, 7)


def test_a_round_both_play_gives_whites_secret_first() -> None:
    round_ = FairRound(0, None, {"type": "roll"})
    assert round_.awaiting() == {"white", "black"}
    round_.step("black", "commit", commitment_of(OPP))
    assert round_.awaiting() == {"white"}  # reveals only once both commitments are in
    with pytest.raises(ActionRefused, match="waits for white's commit"):
        round_.step("black", "reveal", OPP.hex())
    round_.step("white", "commit", commitment_of(R))
    round_.step("black", "reveal", OPP.hex())
    assert round_.step("white", "reveal", R.hex()) == SharedSecret(R, OPP, 0)


def test_out_of_turn_steps_and_bad_values_change_nothing() -> None:
    round_ = FairRound(3, "white", {"type": "roll"})
    round_.step("white", "commit", commitment_of(R))
    for side, kind, value, code in [
        ("white", "reveal", R.hex(), "not_your_turn"),  # the opponent's secret comes first
        ("black", "commit", commitment_of(OPP), "not_your_turn"),
        ("black", "secret", "zz" * 32, "invalid_message"),
        ("black", "secret", OPP.hex()[:-2], "invalid_message"),
    ]:
        with pytest.raises(ActionRefused) as caught:
            round_.step(side, kind, value)  # type: ignore[arg-type]
        assert caught.value.code == code
    assert round_.secrets == {} and round_.awaiting() == {"black"}


def test_a_reveal_that_breaks_its_commitment_names_the_cheat() -> None:
    round_ = FairRound(1, "white", {"type": "roll"})
    round_.step("white", "commit", commitment_of(R))
    round_.step("black", "secret", OPP.hex())
    with pytest.raises(BrokenRevealError) as caught:
        round_.step("white", "reveal", OPP.hex())
    assert caught.value.side == "white" and caught.value.code == "broken_reveal"


def test_a_round_survives_its_record() -> None:
    round_ = FairRound(5, "black", {"type": "roll"})
    round_.step("black", "commit", commitment_of(R))
    round_.step("white", "secret", OPP.hex())
    again = FairRound.from_dict(round_.to_dict())
    assert again == round_
    assert again.step("black", "reveal", R.hex()) == SharedSecret(R, OPP, 5)
    for bad in ({"number": -1, "roller": None, "action": {}}, {"number": 1, "roller": "red",
                "action": {}}, {"number": 1, "roller": None, "action": {},
                "commitments": {"white": "xyz"}}):  # fmt: skip
        with pytest.raises(ActionRefused) as caught:
            FairRound.from_dict(bad)
        assert caught.value.code == "invalid_record"
