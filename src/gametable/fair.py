"""Fair-random rounds: chance that neither player (nor the server) can steer, by commit-reveal.

A game with chance (backgammon's dice) played between two screens draws each chance action's
randomness from a round in which both players give a secret; the round yields a
:class:`~gametable.seam.SharedSecret` and the game turns it into its chance (backgammon:
:func:`backgammon.core.dice.dice_from_secrets`). A game without chance never opens a round.

The scheme is Blum's coin flipping by telephone (M. Blum, "Coin flipping by telephone",
1981), with SHA-256 commitments:

* **A round one side opens** (a roll): the roller sends ``commit`` with SHA-256 of a fresh
  32-byte secret ``r``; the opponent answers ``secret`` with its own fresh secret ``o`` in
  the clear; the roller sends ``reveal`` with ``r``, which must hash to the commitment. The
  shared secret is ``(r, o, number)``.
* **A round both sides play** (backgammon's opening roll, which either side may throw): each
  side commits, in either order; once both commitments are in, each reveals. The shared
  secret is ``(white's, black's, number)``.

Neither side can steer the result: each secret is fixed (committed to, or sent) before the
other is known, and the derivation is public, so each page checks it. A reveal that does not
match its commitment has no innocent cause (a page keeps its secret before committing): the
room forfeits that side's game. Commitments are 64 lowercase hex digits; secrets 32 bytes.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from gametable.errors import ActionRefused
from gametable.seam import SIDES, SharedSecret, Side, other

#: A secret's length in bytes.
SECRET_BYTES: Final = 32
#: Round numbers stay below this (8 bytes in the derivation).
MAX_ROUND: Final = 2**63


class BrokenRevealError(ActionRefused):
    """A reveal that does not hash to its commitment: the side that sent it cheated or lost
    its secret. ``side`` is that side."""

    def __init__(self, side: Side) -> None:
        super().__init__("broken_reveal", f"{side}'s reveal does not match its commitment")
        self.side = side


def commitment_of(secret: bytes) -> str:
    """SHA-256 of ``secret``, 64 lowercase hex digits."""
    return hashlib.sha256(secret).hexdigest()


def check_commitment(value: object) -> str:
    """``value`` as a commitment (64 lowercase hex digits).

    Raises:
        ActionRefused: ``invalid_message`` naming what is wrong.
    """
    if (
        not isinstance(value, str)
        or len(value) != 64
        or any(c not in "0123456789abcdef" for c in value)
    ):
        raise ActionRefused("invalid_message", "a commitment is 64 lowercase hex digits")
    return value


def check_secret(value: object) -> bytes:
    """``value`` (64 hex digits) as a secret's 32 bytes.

    Raises:
        ActionRefused: ``invalid_message`` naming what is wrong.
    """
    if not isinstance(value, str) or len(value) != 2 * SECRET_BYTES:
        raise ActionRefused("invalid_message", "a secret is 64 hex digits (32 bytes)")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise ActionRefused("invalid_message", "a secret is 64 hex digits (32 bytes)") from None


@dataclass
class FairRound:
    """One round in progress.

    Attributes:
        number: the round's number.
        roller: the side that opened it, or None for a round both sides play.
        action: the chance action the round's result carries out (``{"type": "roll"}``).
        commitments: each side's commitment so far.
        secrets: each side's secret so far (the opponent's in the clear; the roller's once
            revealed).
    """

    number: int
    roller: Side | None
    action: dict[str, Any]
    commitments: dict[Side, str] = field(default_factory=dict)
    secrets: dict[Side, bytes] = field(default_factory=dict)

    # ---------------------------------------------------------------- who is awaited

    def awaiting(self) -> frozenset[Side]:
        """The sides whose step the round waits for."""
        if self.roller is None:
            if len(self.commitments) < 2:
                return frozenset(s for s in SIDES if s not in self.commitments)
            return frozenset(s for s in SIDES if s not in self.secrets)
        opponent = other(self.roller)
        if self.roller not in self.commitments:
            return frozenset({self.roller})
        if opponent not in self.secrets:
            return frozenset({opponent})
        if self.roller not in self.secrets:
            return frozenset({self.roller})
        return frozenset()

    def expects(self, side: Side) -> str | None:
        """The message ``side`` must send next (``"commit"``, ``"secret"``, ``"reveal"``), or
        None."""
        if side not in self.awaiting():
            return None
        if side not in self.commitments and (self.roller is None or side == self.roller):
            return "commit"
        return "secret" if side != self.roller and self.roller is not None else "reveal"

    # ---------------------------------------------------------------- steps

    def step(self, side: Side, kind: str, value: str) -> SharedSecret | None:
        """``side`` sends its ``commit``, ``secret`` or ``reveal``; returns the round's result
        once it is complete, else None.

        Raises:
            ActionRefused: ``not_your_turn`` for a step the round does not wait for from
                ``side``, ``invalid_message`` for a malformed value.
            BrokenRevealError: a reveal that does not match its commitment.
        """
        wanted = self.expects(side)
        if wanted != kind:
            waits = ", ".join(f"{s}'s {self.expects(s)}" for s in sorted(self.awaiting()))
            raise ActionRefused("not_your_turn", f"round {self.number} waits for {waits}")
        if kind == "commit":
            self.commitments[side] = check_commitment(value)
        else:
            secret = check_secret(value)
            if kind == "reveal" and not hmac.compare_digest(
                commitment_of(secret), self.commitments[side]
            ):
                raise BrokenRevealError(side)
            self.secrets[side] = secret
        return self.result()

    def result(self) -> SharedSecret | None:
        """The shared secret once every step is in, else None."""
        if self.awaiting():
            return None
        first: Side = self.roller if self.roller is not None else "white"
        return SharedSecret(self.secrets[first], self.secrets[other(first)], self.number)

    # ---------------------------------------------------------------- JSON

    def view(self) -> dict[str, Any]:
        """The round as both pages see it: ``{"number", "roller", "awaiting",
        "commitments", "secrets"}`` (hex; a roller's secret only once revealed)."""
        return {
            "number": self.number,
            "roller": self.roller,
            "awaiting": sorted(self.awaiting()),
            "commitments": dict(self.commitments),
            "secrets": {side: secret.hex() for side, secret in self.secrets.items()},
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready; :meth:`from_dict` reads it back."""
        return {**self.view(), "action": dict(self.action)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FairRound:
        """A round from :meth:`to_dict`.

        Raises:
            ActionRefused: ``invalid_record`` for a malformed round.
        """
        try:
            number = data["number"]
            roller = data["roller"]
            if not isinstance(number, int) or not 0 <= number < MAX_ROUND:
                raise ValueError(f"round number {number!r}")
            if roller not in (None, *SIDES):
                raise ValueError(f"roller {roller!r}")
            action = data["action"]
            if not isinstance(action, dict):
                raise ValueError("the round's action is not an object")
            result = cls(number, roller, dict(action))
            for side, value in dict(data.get("commitments", {})).items():
                if side not in SIDES:
                    raise ValueError(f"side {side!r}")
                result.commitments[side] = check_commitment(value)
            for side, value in dict(data.get("secrets", {})).items():
                if side not in SIDES:
                    raise ValueError(f"side {side!r}")
                result.secrets[side] = check_secret(value)
        except (KeyError, TypeError, ValueError, ActionRefused) as error:
            raise ActionRefused("invalid_record", f"bad round: {error}") from error
        return result
