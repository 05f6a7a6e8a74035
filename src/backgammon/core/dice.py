"""Dice: injected randomness, fixed dice for tests, parsing, and commit-reveal dice for online play.

Nothing here touches the global :mod:`random` generator (DESIGN.md, habit 7): :class:`Dice`
draws from the ``random.Random`` it is given, or from its own ``random.SystemRandom``.

The opening roll follows WBF rules 2.1: each player throws one die; equal numbers are thrown
again; the two dice together are the first player's roll.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import Final, Protocol

from backgammon.core.errors import DiceExhaustedError, InvalidDiceError, ProtocolError
from backgammon.core.types import Roll

__all__ = [
    "SECRET_BYTES",
    "Dice",
    "DiceSource",
    "FixedDice",
    "commitment",
    "dice_from_secrets",
    "new_secret",
    "validate_dice",
    "verify_commitment",
]

#: Faces of a die.
_LOWEST_FACE: Final = 1
_HIGHEST_FACE: Final = 6
#: Length in bytes of each player's secret in the commit-reveal protocol.
SECRET_BYTES: Final = 32
#: Bytes at or above this are rejected so that ``byte % 6`` is uniform: 252 = 6 * 42.
_REJECT_FROM: Final = 252
#: Round numbers are written as 8 bytes and must stay below 2**63 (a signed 64-bit integer).
_ROUND_LIMIT: Final = 1 << 63
#: Block counters are written as 4 bytes.
_COUNTER_LIMIT: Final = 1 << 32

#: "31", "3-1" or "3 1", with optional surrounding whitespace.
_DICE_TEXT: Final = re.compile(r"([1-6])[- ]?([1-6])")


class DiceSource(Protocol):
    """Anything that throws dice: :class:`Dice` or, in tests, :class:`FixedDice`."""

    def roll(self) -> Roll:
        """A roll of two dice, each 1..6, in the order thrown."""
        ...

    def opening_roll(self) -> Roll:
        """The opening roll ``(white_die, black_die)``; never a tie."""
        ...


class Dice:
    """Two fair dice drawing from an injected random number generator.

    Args:
        rng: the generator to draw from; a seeded ``random.Random(seed)`` makes every roll
            reproducible. ``None`` gives a fresh ``random.SystemRandom()`` (the operating
            system's entropy), never the module-level generator.

    Raises:
        TypeError: ``rng`` is not a ``random.Random`` (a bare seed, say).
    """

    __slots__ = ("_rng",)

    def __init__(self, rng: random.Random | None = None) -> None:
        if rng is not None and not isinstance(rng, random.Random):
            hint = f" (for a seed write Dice(random.Random({rng!r})))" if isinstance(
                rng, int) and not isinstance(rng, bool) else ""
            raise TypeError(f"Dice takes a random.Random, got {type(rng).__name__}{hint}")
        self._rng = rng if rng is not None else random.SystemRandom()

    def __repr__(self) -> str:
        return f"Dice({self._rng!r})"

    def _die(self) -> int:
        return self._rng.randint(_LOWEST_FACE, _HIGHEST_FACE)

    def roll(self) -> Roll:
        """Throw both dice.

        Returns:
            Two ints 1..6 in the order thrown (a double has both equal).
        """
        return (self._die(), self._die())

    def opening_roll(self) -> Roll:
        """Throw one die for each player until they differ (WBF rules 2.1).

        Returns:
            ``(white_die, black_die)``, never equal; the higher die's owner moves first and plays
            the two numbers.
        """
        while True:
            white, black = self._die(), self._die()
            if white != black:
                return (white, black)


class FixedDice:
    """Dice that return given rolls in order, for tests and for replaying a record.

    Args:
        rolls: the rolls, each anything :func:`validate_dice` accepts (``(3, 1)``, ``"31"``).

    Raises:
        InvalidDiceError: (on construction) a roll that is not two dice 1..6, naming its index.
    """

    __slots__ = ("_rolls", "_used")

    def __init__(self, rolls: Iterable[Sequence[int] | str]) -> None:
        checked: list[Roll] = []
        for index, item in enumerate(rolls):
            try:
                checked.append(validate_dice(item))
            except InvalidDiceError as exc:
                raise InvalidDiceError(f"roll {index} of the fixed dice: {exc}") from None
        self._rolls: tuple[Roll, ...] = tuple(checked)
        self._used = 0

    def __repr__(self) -> str:
        return f"FixedDice({list(self._rolls[self._used :])!r})"

    @property
    def remaining(self) -> int:
        """How many rolls are left."""
        return len(self._rolls) - self._used

    def _next(self, purpose: str) -> Roll:
        if self._used >= len(self._rolls):
            raise DiceExhaustedError(
                f"the fixed dice are used up: all {len(self._rolls)} rolls given were thrown "
                f"before this {purpose}"
            )
        result = self._rolls[self._used]
        self._used += 1
        return result

    def roll(self) -> Roll:
        """The next roll, exactly as given.

        Raises:
            DiceExhaustedError: no rolls are left.
        """
        return self._next("roll")

    def opening_roll(self) -> Roll:
        """The next roll that is not a tie, read as ``(white_die, black_die)``.

        Ties are consumed and skipped, as a tie is thrown again at the table.

        Raises:
            DiceExhaustedError: no untied roll is left.
        """
        while True:
            white, black = self._next("opening roll")
            if white != black:
                return (white, black)


def validate_dice(dice: Sequence[int] | str) -> Roll:
    """Check a roll and return it as a tuple of two ints.

    Args:
        dice: a sequence of two ints 1..6 (``(3, 1)``, ``[6, 6]``), or text ``"31"``, ``"3-1"``
            or ``"3 1"`` (surrounding whitespace allowed).

    Returns:
        The two dice in the order given.

    Raises:
        InvalidDiceError: anything else (``"71"``, ``(0, 3)``, ``(1, 2, 3)``, ``(True, 2)``,
            ``(3.0, 1)``), quoting the input.
    """
    if isinstance(dice, str):
        match = _DICE_TEXT.fullmatch(dice.strip())
        if match is None:
            raise InvalidDiceError(
                f"not a roll: {dice!r} (expected two dice 1..6 such as '31', '3-1' or '3 1')"
            )
        return (int(match.group(1)), int(match.group(2)))
    if isinstance(dice, bytes | bytearray) or not isinstance(dice, Sequence):
        raise InvalidDiceError(f"not a roll: {dice!r} (expected two ints 1..6 or text like '31')")
    if len(dice) != 2:
        raise InvalidDiceError(f"not a roll: {dice!r} has {len(dice)} dice, expected 2")
    for die in dice:
        if isinstance(die, bool) or not isinstance(die, int):
            raise InvalidDiceError(f"not a roll: {dice!r}: the die {die!r} is not an int")
        if not _LOWEST_FACE <= die <= _HIGHEST_FACE:
            raise InvalidDiceError(f"not a roll: {dice!r}: the die {die} is not 1..6")
    return (int(dice[0]), int(dice[1]))


# --------------------------------------------------------------------------------------------
# Commit-reveal dice for online play


def _check_secret(secret: object, name: str) -> bytes:
    if not isinstance(secret, bytes | bytearray):
        raise ProtocolError(f"{name} must be {SECRET_BYTES} bytes, got {type(secret).__name__}")
    if len(secret) != SECRET_BYTES:
        raise ProtocolError(f"{name} must be {SECRET_BYTES} bytes, got {len(secret)}")
    return bytes(secret)


def new_secret() -> bytes:
    """A fresh secret for the commit-reveal protocol: 32 bytes from :mod:`secrets`."""
    return secrets.token_bytes(SECRET_BYTES)


def commitment(secret: bytes) -> str:
    """The commitment to a secret: SHA-256 (FIPS 180-4) of its 32 bytes as 64 lowercase hex digits.

    Raises:
        ProtocolError: ``secret`` is not exactly 32 bytes.
    """
    return hashlib.sha256(_check_secret(secret, "the secret")).hexdigest()


def verify_commitment(secret: bytes, commitment_hex: str) -> bool:
    """Whether ``secret`` is the one committed to, compared in constant time.

    Args:
        secret: the revealed 32 bytes.
        commitment_hex: the commitment received earlier, 64 lowercase hex digits; any other
            text (upper case included) does not match.

    Raises:
        ProtocolError: ``secret`` is not exactly 32 bytes or ``commitment_hex`` is not a string.
    """
    if not isinstance(commitment_hex, str):
        raise ProtocolError(f"a commitment is a hex string, got {type(commitment_hex).__name__}")
    expected = commitment(secret).encode("ascii")
    return hmac.compare_digest(expected, commitment_hex.encode("utf-8"))


def _blocks(prefix: bytes) -> Iterator[bytes]:
    """SHA-256(prefix || counter as 4 bytes big-endian) for counter = 0, 1, 2, ..."""
    for counter in range(_COUNTER_LIMIT):
        yield hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
    raise ProtocolError("the dice stream ran out of blocks")  # pragma: no cover - 2**32 blocks


def _dice_from_blocks(blocks: Iterable[bytes]) -> Roll:
    """The first two accepted bytes of ``blocks`` as dice: skip bytes >= 252, map b to b % 6 + 1."""
    dice: list[int] = []
    for block in blocks:
        for byte in block:
            if byte >= _REJECT_FROM:
                continue
            dice.append(byte % 6 + 1)
            if len(dice) == 2:
                return (dice[0], dice[1])
    raise ProtocolError("the dice stream ended before two dice were read")


def dice_from_secrets(roller_secret: bytes, other_secret: bytes, round_no: int) -> Roll:
    """The roll that two revealed secrets fix for one round, reproducible by anyone.

    Derivation (every step exact, so that another implementation, e.g. JavaScript with
    ``crypto.subtle.digest("SHA-256", ...)``, gives the same dice):

    1. ``prefix`` = the 32 bytes of ``roller_secret`` (the player who rolls), then the 32 bytes
       of ``other_secret`` (the opponent), then ``round_no`` as 8 bytes, unsigned big-endian:
       72 bytes in all.
    2. For ``counter`` = 0, 1, 2, ...: ``block`` = SHA-256(``prefix`` followed by ``counter``
       as 4 bytes, unsigned big-endian), 32 bytes. The blocks, in counter order and each
       read from its first byte to its last, form one stream of bytes.
    3. Read the stream in order. A byte ``b`` >= 252 is skipped (so that the 252 bytes kept
       map evenly onto 6 faces); any other byte gives a die ``b % 6 + 1``.
    4. The first accepted byte is the first die, the second accepted byte the second die.

    Example: ``dice_from_secrets(bytes(32), bytes([1]) * 32, 0)`` is ``(4, 3)``.

    Args:
        roller_secret: 32 bytes, the rolling player's revealed secret.
        other_secret: 32 bytes, the other player's revealed secret.
        round_no: which roll of the game this is, 0 <= round_no < 2**63.

    Returns:
        Two dice 1..6, in stream order.

    Raises:
        ProtocolError: a secret that is not exactly 32 bytes, or a round number that is not an
            int from 0 to 2**63 - 1.
    """
    roller = _check_secret(roller_secret, "the roller's secret")
    other = _check_secret(other_secret, "the other player's secret")
    if isinstance(round_no, bool) or not isinstance(round_no, int):
        raise ProtocolError(f"the round number must be an int, got {round_no!r}")
    if not 0 <= round_no < _ROUND_LIMIT:
        raise ProtocolError(f"the round number must be from 0 to 2**63 - 1, got {round_no}")
    prefix = roller + other + round_no.to_bytes(8, "big")
    return _dice_from_blocks(_blocks(prefix))
