"""Seeds of local games: every game the page starts has one, and the same seed gives the same
dice.

A seed is a whole number from 0 to :data:`MAX_SEED` (2**53 - 1, the largest integer a
JavaScript number holds exactly, so the page can show and send it without rounding). The
dice of a seeded session are ``Dice(random.Random(seed))``
(:class:`~backgammon.core.match.Match` with ``seed``), thrown in order across the games of a
match or money session; a session read back from the store goes on with the dice it would
have thrown (:meth:`~backgammon.core.match.Match.replay`). The computer's choices at the levels
with noise and a side drawn at random come from generators derived from the seed too
(:func:`derived_rng`), so the same seed and the same plays make the same game.

Online games have no seed: their dice stay commit-reveal (:mod:`backgammon.core.dice`).
"""

from __future__ import annotations

import random
import re
from typing import Final

from backgammon.core.errors import BackgammonError

__all__ = ["MAX_SEED", "SeedError", "derived_rng", "new_seed", "parse_seed"]

#: The largest seed: 2**53 - 1 (JavaScript's ``Number.MAX_SAFE_INTEGER``).
MAX_SEED: Final = 2**53 - 1
#: Seeds drawn for new games have 10 digits: short enough to read out and type.
_NEW_LOW: Final = 10**9
_NEW_HIGH: Final = 10**10 - 1
_DIGITS: Final = re.compile(r"[0-9]+")


class SeedError(BackgammonError, ValueError):
    """A seed that is not a whole number from 0 to :data:`MAX_SEED`; the message quotes it."""


def parse_seed(value: object) -> int:
    """A seed as the page or the API gives it: an int, or text of digits (spaces around
    allowed).

    Returns:
        The seed, 0..:data:`MAX_SEED`.

    Raises:
        SeedError: anything else (``"abc"``, ``"-5"``, ``"1.5"``, ``True``, a number above
            :data:`MAX_SEED`), quoted in the message.
    """
    rule = f"a seed is a whole number from 0 to {MAX_SEED}"
    if isinstance(value, bool):
        raise SeedError(f"{rule}, not {value!r}")
    if isinstance(value, int):
        seed = value
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            raise SeedError(f"{rule}: the seed is empty")
        if len(text) > 40 or not _DIGITS.fullmatch(text):
            shown = text if len(text) <= 40 else text[:40] + "…"
            raise SeedError(f"{rule} (digits only): {shown!r} is not one")
        seed = int(text)
    else:
        raise SeedError(f"{rule}, not {type(value).__name__} {value!r}")
    if not 0 <= seed <= MAX_SEED:
        raise SeedError(f"{rule}: {seed} is out of range")
    return seed


def new_seed(rng: random.Random) -> int:
    """A fresh 10-digit seed drawn from ``rng``."""
    return rng.randint(_NEW_LOW, _NEW_HIGH)


def derived_rng(seed: int, *parts: object) -> random.Random:
    """A generator for one use of a seeded game (``derived_rng(seed, "side")``,
    ``derived_rng(seed, "computer", game, event)``): the same seed and parts give the same
    generator, independent of the dice's own ``random.Random(seed)``."""
    return random.Random("/".join(str(part) for part in (seed, *parts)))
