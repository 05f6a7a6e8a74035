"""Seeds: what a seed may be, and a seeded match read back going on with the same dice."""

from __future__ import annotations

import random

import pytest

from backgammon.core.dice import Dice
from backgammon.core.errors import InvalidLogError
from backgammon.core.game import Phase
from backgammon.core.match import Match
from backgammon.services.seeds import MAX_SEED, SeedError, derived_rng, new_seed, parse_seed


def test_a_seed_is_digits_or_an_int_in_range() -> None:
    assert parse_seed(" 1234567890 ") == 1234567890
    assert parse_seed(0) == 0
    assert parse_seed(str(MAX_SEED)) == MAX_SEED == 9007199254740991


@pytest.mark.parametrize(("value", "words"), [
    ("abc", "a seed is a whole number from 0 to 9007199254740991 (digits only): 'abc' is not one"),
    ("-5", "(digits only): '-5' is not one"),
    ("1.5", "(digits only): '1.5' is not one"),
    ("", "the seed is empty"),
    (str(MAX_SEED + 1), "9007199254740992 is out of range"),
    (-1, "-1 is out of range"),
    (True, "not True"),
    (1.0, "not float 1.0"),
])
def test_a_bad_seed_is_refused_with_the_input_quoted(value: object, words: str) -> None:
    with pytest.raises(SeedError) as caught:
        parse_seed(value)
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_new_seeds_have_ten_digits_and_derived_generators_repeat() -> None:
    rng = random.Random(5)
    seeds = [new_seed(rng) for _ in range(50)]
    assert all(len(str(s)) == 10 for s in seeds)
    assert len(set(seeds)) == 50
    assert [derived_rng(7, "computer", 1, 12).random() for _ in range(2)] == \
        [derived_rng(7, "computer", 1, 12).random()] * 2
    assert derived_rng(7, "side").random() != derived_rng(8, "side").random()


def test_the_seeded_dice_are_python_randoms() -> None:
    dice = Dice(random.Random(1234567890))
    assert dice.opening_roll() == (5, 6)
    assert [dice.roll() for _ in range(5)] == [(2, 4), (2, 5), (3, 3), (1, 4), (2, 4)]


def _play_some(match: Match, turns: int) -> None:
    """Roll and play the first legal play, ``turns`` times (over game ends, by resigning)."""
    for _ in range(turns):
        game = match.current
        if game.is_over:
            match.new_game()
            game = match.current
        if game.phase in (Phase.OPENING, Phase.ROLL):
            game.roll()
        if game.phase is Phase.MOVE:  # (a roll that cannot be played passes by itself)
            game.play(next(iter(game.legal_plays())))


def test_a_seeded_match_read_back_throws_what_it_would_have_thrown() -> None:
    whole = Match(0, seed=42)
    _play_some(whole, 8)
    whole.current.resign(whole.current.on_roll, "single")
    whole.current.accept_resignation()
    half = Match.replay(whole.to_log())  # read back after game 1, seeded dice advanced
    for match in (whole, half):
        match.new_game()
        _play_some(match, 6)
    assert half.to_log() == whole.to_log()
    assert half.current.events[0] == whole.current.events[0]
    assert half.current.events[0]["type"] == "opening_roll"


def test_a_seeded_log_with_a_roll_changed_is_refused() -> None:
    match = Match(0, seed=42)
    _play_some(match, 3)
    match.current.roll()  # the last event: a roll not yet played
    log = match.to_log()
    event = log["games"][0]["events"][-1]
    assert event["type"] == "roll" and len(log["games"][0]["events"]) == 7
    event["dice"] = [event["dice"][0] % 6 + 1, event["dice"][1]]
    with pytest.raises(InvalidLogError, match=r"game 1: event 6: the roll \d\d is not what "
                                              r"the seeded dice give"):
        Match.replay(log)
