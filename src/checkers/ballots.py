"""The three-move ballot of American checkers: the openings that tournament games start from.

Since the 1930s, American and British tournaments have not let the players choose their
first moves: a card drawn at random gives the first three moves (Black's first move, White's
reply, Black's second move), and the two players then play the opening twice, once from each
side. The American Checker Federation (ACF) numbers the three-move openings that do not lose a
piece at once from 1 to 174; 18 of them are **barred** (thought to lose), and the other **156**
make up the ACF's official three-move deck: 144 since the original ballot, and 12 long played
by mail (correspondence) and added to the tournament deck in 2003-2004.

Sources: the ACF, "The 156-Opening Three-Move Deck"
(http://www.usacheckers.com/156openingdeck.php) and "How Opening Rankings Were Computed"
(http://www.usacheckers.com/computingopeningrankings.php: "increasing the three-move deck from
144 to 156 openings"); the numbered list and its barred and mail-play marks as CheckerBoard
(Martin Fierz and Ed Gilbert's checkers program, ``utility.c``, ``three_move_table``: "The ACF
list of 3-move ballots. The ACF opening number is one greater than the index into the table")
gives them. The nicknames are the ones that list gives; most ballots have none. Every ballot is
checked legal by the engine in ``tests/checkers/test_checkers_ballots.py``.

Standard library only (the engine layer): :data:`BALLOTS` (all 174, in ACF order), :data:`DECK`
(the 156 that are played), :func:`find_ballot`, :func:`draw_ballot`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from checkers.errors import CheckersError

#: How many openings the ACF numbers, how many of them are barred, how many the deck holds.
ACF_OPENINGS: Final = 174
BARRED: Final = 18
DECK_SIZE: Final = 156


class BallotError(CheckersError, ValueError):
    """A ballot that is not in the deck: unknown, or barred."""


@dataclass(frozen=True, slots=True)
class Ballot:
    """One three-move opening.

    Attributes:
        number: its ACF number, 1-174.
        moves: Black's first move, White's reply, Black's second move, in PDN (``11-15``).
        name: its nickname, or "" (most have none).
        barred: True for the 18 openings the ACF bars (not in the deck).
        mail_play: True for the 12 openings played by mail before they joined the deck.
    """

    number: int
    moves: tuple[str, str, str]
    name: str = ""
    barred: bool = False
    mail_play: bool = False

    @property
    def key(self) -> str:
        """The three moves, space-separated: ``"11-15 23-18 8-11"`` (a setting names it so)."""
        return " ".join(self.moves)

    @property
    def label(self) -> str:
        """How a page names it: ``"ACF 121: 11-15 23-18 8-11"``, the nickname after
        (``"ACF 46: 9-14 23-18 14x23 (Double Cross)"``)."""
        label = f"ACF {self.number}: {self.key}"
        return f"{label} ({self.name})" if self.name else label


# One a line: the moves, then B (barred) or M (mail play, in the deck) or C (in the deck since
# the original ballot), then the nickname; the comment is the ACF number.
_TABLE: Final = (
    "9-13 21-17 5-9|C|",  # 1
    "9-13 21-17 6-9|C|",  # 2
    "9-13 21-17 10-14|B|",  # 3
    "9-13 22-17 13x22|C|",  # 4
    "9-13 22-18 6-9|C|Dreaded Edinburgh",  # 5
    "9-13 22-18 10-14|M|Inferno",  # 6
    "9-13 22-18 10-15|C|",  # 7
    "9-13 22-18 11-15|C|Edinburgh Single",  # 8
    "9-13 22-18 11-16|M|Wilderness I",  # 9
    "9-13 22-18 12-16|C|",  # 10
    "9-13 23-18 5-9|C|",  # 11
    "9-13 23-18 6-9|C|",  # 12
    "9-13 23-18 10-14|B|",  # 13
    "9-13 23-18 10-15|C|",  # 14
    "9-13 23-18 11-15|C|",  # 15
    "9-13 23-18 11-16|M|Wilderness II",  # 16
    "9-13 23-18 12-16|C|",  # 17
    "9-13 23-19 5-9|C|",  # 18
    "9-13 23-19 6-9|C|",  # 19
    "9-13 23-19 10-14|C|",  # 20
    "9-13 23-19 10-15|M|",  # 21
    "9-13 23-19 11-16|C|",  # 22
    "9-13 24-19 5-9|C|",  # 23
    "9-13 24-19 6-9|C|",  # 24
    "9-13 24-19 10-14|C|",  # 25
    "9-13 24-19 10-15|B|",  # 26
    "9-13 24-19 11-15|C|",  # 27
    "9-13 24-19 11-16|C|",  # 28
    "9-13 24-20 5-9|C|",  # 29
    "9-13 24-20 6-9|C|",  # 30
    "9-13 24-20 10-14|C|",  # 31
    "9-13 24-20 10-15|C|",  # 32
    "9-13 24-20 11-15|C|",  # 33
    "9-13 24-20 11-16|M|Twilight Zone",  # 34
    "9-13 24-20 12-16|B|Dundee Barred",  # 35
    "9-14 22-17 5-9|C|",  # 36
    "9-14 22-17 6-9|C|",  # 37
    "9-14 22-17 11-15|C|",  # 38
    "9-14 22-17 11-16|C|",  # 39
    "9-14 22-18 5-9|C|",  # 40
    "9-14 22-18 10-15|C|",  # 41
    "9-14 22-18 11-15|C|",  # 42
    "9-14 22-18 11-16|C|",  # 43
    "9-14 22-18 12-16|B|",  # 44
    "9-14 22-18 14-17|B|",  # 45
    "9-14 23-18 14x23|C|Double Cross",  # 46
    "9-14 23-19 5-9|C|",  # 47
    "9-14 23-19 10-15|B|Rattlesnake",  # 48
    "9-14 23-19 11-16|C|",  # 49
    "9-14 23-19 14-18|C|",  # 50
    "9-14 24-19 5-9|C|",  # 51
    "9-14 24-19 10-15|B|",  # 52
    "9-14 24-19 11-15|C|",  # 53
    "9-14 24-19 11-16|C|",  # 54
    "9-14 24-20 5-9|C|",  # 55
    "9-14 24-20 10-15|C|",  # 56
    "9-14 24-20 11-15|C|",  # 57
    "9-14 24-20 11-16|C|",  # 58
    "10-14 22-17 7-10|C|",  # 59
    "10-14 22-17 9-13|M|Black Hole",  # 60
    "10-14 22-17 11-15|M|",  # 61
    "10-14 22-17 11-16|M|Gemini I",  # 62
    "10-14 22-17 14-18|C|",  # 63
    "10-14 22-18 6-10|C|",  # 64
    "10-14 22-18 7-10|C|Fraser's Inferno",  # 65
    "10-14 22-18 11-15|C|",  # 66
    "10-14 22-18 11-16|C|",  # 67
    "10-14 22-18 12-16|C|White Doctor",  # 68
    "10-14 23-18 14x23|C|",  # 69
    "10-14 23-19 6-10|C|",  # 70
    "10-14 23-19 7-10|C|Diabolical Denny",  # 71
    "10-14 23-19 11-15|C|",  # 72
    "10-14 23-19 11-16|C|",  # 73
    "10-14 23-19 14-18|C|",  # 74
    "10-14 24-19 6-10|C|",  # 75
    "10-14 24-19 7-10|C|",  # 76
    "10-14 24-19 11-15|B|",  # 77
    "10-14 24-19 11-16|C|",  # 78
    "10-14 24-19 14-18|C|",  # 79
    "10-14 24-20 6-10|C|",  # 80
    "10-14 24-20 7-10|C|",  # 81
    "10-14 24-20 11-15|C|",  # 82
    "10-14 24-20 11-16|C|",  # 83
    "10-14 24-20 14-18|C|",  # 84
    "10-15 21-17 6-10|C|",  # 85
    "10-15 21-17 7-10|C|Octopus",  # 86
    "10-15 21-17 9-13|C|Tyne",  # 87
    "10-15 21-17 9-14|B|",  # 88
    "10-15 21-17 11-16|C|",  # 89
    "10-15 21-17 15-18|C|",  # 90
    "10-15 22-17 6-10|C|",  # 91
    "10-15 22-17 7-10|C|",  # 92
    "10-15 22-17 9-13|C|",  # 93
    "10-15 22-17 9-14|B|Nutcracker",  # 94
    "10-15 22-17 11-16|C|",  # 95
    "10-15 22-17 15-19|C|Skull-Cracker",  # 96
    "10-15 22-18 15x22|C|",  # 97
    "10-15 23-18 6-10|C|",  # 98
    "10-15 23-18 7-10|C|",  # 99
    "10-15 23-18 9-14|C|",  # 100
    "10-15 23-18 11-16|C|",  # 101
    "10-15 23-18 12-16|C|",  # 102
    "10-15 23-19 6-10|C|",  # 103
    "10-15 23-19 7-10|C|",  # 104
    "10-15 23-19 11-16|M|Gemini II",  # 105
    "10-15 24-19 15x24|C|",  # 106
    "10-15 24-20 6-10|C|",  # 107
    "10-15 24-20 7-10|C|",  # 108
    "10-15 24-20 11-16|B|",  # 109
    "10-15 24-20 15-19|C|",  # 110
    "11-15 21-17 8-11|C|",  # 111
    "11-15 21-17 9-13|C|",  # 112
    "11-15 21-17 9-14|C|",  # 113
    "11-15 21-17 10-14|B|",  # 114
    "11-15 21-17 15-19|C|",  # 115
    "11-15 22-17 8-11|C|",  # 116
    "11-15 22-17 9-13|C|",  # 117
    "11-15 22-17 15-18|C|",  # 118
    "11-15 22-17 15-19|C|",  # 119
    "11-15 22-18 15x22|C|",  # 120
    "11-15 23-18 8-11|C|",  # 121
    "11-15 23-18 9-14|C|",  # 122
    "11-15 23-18 10-14|C|",  # 123
    "11-15 23-18 12-16|C|",  # 124
    "11-15 23-18 15-19|C|",  # 125
    "11-15 23-19 8-11|C|",  # 126
    "11-15 23-19 9-13|C|",  # 127
    "11-15 23-19 9-14|C|",  # 128
    "11-15 24-19 15x24|C|",  # 129
    "11-15 24-20 8-11|C|",  # 130
    "11-15 24-20 12-16|C|",  # 131
    "11-15 24-20 15-18|C|",  # 132
    "11-16 21-17 7-11|C|Octopus",  # 133
    "11-16 21-17 8-11|C|",  # 134
    "11-16 21-17 9-13|C|",  # 135
    "11-16 21-17 9-14|C|",  # 136
    "11-16 21-17 10-14|B|Shark",  # 137
    "11-16 21-17 16-20|C|",  # 138
    "11-16 22-17 7-11|C|",  # 139
    "11-16 22-17 8-11|C|",  # 140
    "11-16 22-17 9-13|M|",  # 141
    "11-16 22-17 16-20|C|",  # 142
    "11-16 22-18 7-11|C|",  # 143
    "11-16 22-18 8-11|C|",  # 144
    "11-16 22-18 10-15|B|Cheetah",  # 145
    "11-16 22-18 16-19|C|",  # 146
    "11-16 22-18 16-20|C|",  # 147
    "11-16 23-18 7-11|C|",  # 148
    "11-16 23-18 8-11|C|",  # 149
    "11-16 23-18 9-14|C|",  # 150
    "11-16 23-18 10-14|C|",  # 151
    "11-16 23-18 16-20|C|",  # 152
    "11-16 23-19 16x23|M|Black Widow",  # 153
    "11-16 24-19 7-11|C|",  # 154
    "11-16 24-19 8-11|C|",  # 155
    "11-16 24-19 10-15|B|",  # 156
    "11-16 24-19 16-20|C|",  # 157
    "11-16 24-20 7-11|C|",  # 158
    "11-16 24-20 16-19|C|",  # 159
    "12-16 21-17 9-13|C|",  # 160
    "12-16 21-17 9-14|C|",  # 161
    "12-16 21-17 16-19|C|",  # 162
    "12-16 21-17 16-20|C|",  # 163
    "12-16 22-17 16-19|C|",  # 164
    "12-16 22-17 16-20|C|",  # 165
    "12-16 22-18 16-19|C|",  # 166
    "12-16 22-18 16-20|C|",  # 167
    "12-16 23-18 9-14|B|",  # 168
    "12-16 23-18 16-19|C|",  # 169
    "12-16 23-18 16-20|C|",  # 170
    "12-16 23-19 16x23|B|",  # 171
    "12-16 24-19 16-20|C|",  # 172
    "12-16 24-20 8-12|C|",  # 173
    "12-16 24-20 10-15|M|Skunk",  # 174
)


def _parse(number: int, row: str) -> Ballot:
    text, mark, name = row.split("|")
    first, reply, second = text.split()
    return Ballot(number, (first, reply, second), name, mark == "B", mark == "M")


#: Every numbered three-move opening, in ACF order (``BALLOTS[n - 1].number == n``).
BALLOTS: Final[tuple[Ballot, ...]] = tuple(
    _parse(number, row) for number, row in enumerate(_TABLE, start=1)
)
#: The ACF's three-move deck: the 156 openings that are not barred, in ACF order.
DECK: Final[tuple[Ballot, ...]] = tuple(ballot for ballot in BALLOTS if not ballot.barred)

_BY_KEY: Final = {ballot.key: ballot for ballot in BALLOTS}


def find_ballot(key: str | int) -> Ballot:
    """The deck's ballot named by its moves (``"11-15 23-18 8-11"``, spaces as they come) or its
    ACF number (``121`` or ``"121"``).

    Raises:
        BallotError: for a ballot that is not in the list, or one that is barred.
    """
    if isinstance(key, int) or (isinstance(key, str) and key.strip().isdigit()):
        number = int(key)
        if not 1 <= number <= ACF_OPENINGS:
            raise BallotError(f"ballot {key!r}: the ACF numbers its openings 1-{ACF_OPENINGS}")
        found = BALLOTS[number - 1]
    elif isinstance(key, str):
        found_or_none = _BY_KEY.get(" ".join(key.split()))
        if found_or_none is None:
            raise BallotError(
                f"ballot {key!r} is not a three-move opening of the ACF's list "
                "(three moves such as '11-15 23-18 8-11', or its number)"
            )
        found = found_or_none
    else:
        raise BallotError(f"ballot {key!r} is neither moves nor a number")
    if found.barred:
        raise BallotError(f"ballot {found.label} is barred by the ACF (it is thought to lose)")
    return found


def draw_ballot(rng: random.Random) -> Ballot:
    """A ballot of the deck drawn at random, each of the 156 equally likely (as the ACF's
    cards make them)."""
    return rng.choice(DECK)


__all__ = [
    "ACF_OPENINGS",
    "BALLOTS",
    "BARRED",
    "DECK",
    "DECK_SIZE",
    "Ballot",
    "BallotError",
    "draw_ballot",
    "find_ballot",
]
