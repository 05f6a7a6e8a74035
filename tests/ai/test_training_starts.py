"""Back-game, blitz and prime-versus-prime starts for training (``backgammon train
--back-games``, ``--blitz``, ``--primes``): what is drawn, and that a game played from one
learns from that position."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from backgammon.ai.encoding import encode
from backgammon.ai.neural import CONTACT, classify
from backgammon.core.position import Position
from backgammon.training import td
from backgammon.training.starts import back_game_start, blitz_start, prime_start


def _anchors(board: tuple[int, ...], sign: int) -> list[int]:
    """The opponent's points 1..5 (in its numbering) where the side of ``sign`` has two or
    more checkers; ``board`` is in the numbering of the side on roll (sign +1)."""
    if sign > 0:  # the mover's 24..20 are the opponent's 1..5
        return [25 - i for i in range(20, 25) if board[i] >= 2]
    return [i for i in range(1, 6) if board[i] <= -2]  # the mover's 1..5


def test_drawn_starts_are_legal_back_or_holding_games() -> None:
    rng = random.Random(11)
    boards = [back_game_start(rng) for _ in range(500)]
    defender_on_roll = 0
    pip_leads = []
    for board in boards:
        Position.from_points(board, "white")  # 15 a side, none off, nothing impossible
        assert sum(c for c in board if c > 0) == 15 and sum(c for c in board if c < 0) == -15
        assert board[25] >= 0 and board[0] <= 0
        mine, theirs = _anchors(board, +1), _anchors(board, -1)
        assert bool(mine) != bool(theirs), board  # exactly one side holds anchors
        defender_on_roll += bool(mine)
        sign = 1 if mine else -1
        held = mine or theirs
        assert 1 <= len(held) <= 2
        # the defender's pip count against the attacker's (bar = 25 pips)
        own = sum(c * i for i, c in enumerate(board) if c > 0)
        other = sum(-c * (25 - i) for i, c in enumerate(board) if c < 0)
        pip_leads.append((own - other) * sign)
    assert np.all(classify(np.asarray(boards, dtype=np.int8)) == CONTACT)
    assert 200 < defender_on_roll < 300  # either side on roll, about half each
    assert np.median(pip_leads) > 50  # the defender is well behind in the race
    assert len({tuple(b) for b in boards}) == len(boards)


def test_the_draw_is_reproducible() -> None:
    first = [back_game_start(random.Random(n)) for n in range(20)]
    again = [back_game_start(random.Random(n)) for n in range(20)]
    assert first == again


def test_a_game_from_a_drawn_start_learns_from_it() -> None:
    """The first state is the drawn position (not the opening), the game is played to its end
    (doubles allowed on the first roll), and every target is a set of chances."""
    from backgammon.ai.nets import default_nets

    start = back_game_start(random.Random(3))
    states, kinds, returns = td.play_training_game(default_nets(), random.Random(4), 0.7,
                                                   start=start)
    assert np.array_equal(states[0], encode(np.asarray([start], dtype=np.int8))[0])
    assert kinds[0] == CONTACT and len(states) > 5
    assert np.all(returns >= 0.0) and np.all(returns <= 1.0)


def test_drawn_blitzes_have_a_strong_board_and_checkers_on_the_bar() -> None:
    """The attacker has made 3-5 home points, the defender has 1-3 checkers on its bar and at
    most two blots in the attacker's home board, no point holds checkers of both sides, and
    either side is on roll about half the time."""
    rng = random.Random(5)
    boards = [blitz_start(rng) for _ in range(500)]
    defender_on_roll = 0
    for board in boards:
        Position.from_points(board, "white")
        assert sum(c for c in board if c > 0) == 15 and sum(c for c in board if c < 0) == -15
        defender = board[25] > 0
        defender_on_roll += defender
        if defender:  # the attacker's home points are the mover's 19..24
            bar, home = board[25], [-board[i] for i in range(24, 18, -1)]
        else:
            bar, home = -board[0], list(board[1:7])
        assert 1 <= bar <= 3, board
        assert 3 <= sum(n >= 2 for n in home) <= 5, board
        assert board[0] * board[25] == 0  # only the defender has checkers on the bar
        blots = [n for n in home if n < 0]  # the defender's checkers there
        assert len(blots) <= 2 and all(n == -1 for n in blots), board
    assert np.all(classify(np.asarray(boards, dtype=np.int8)) == CONTACT)
    assert 200 < defender_on_roll < 300
    assert len({tuple(b) for b in boards}) == len(boards)
    assert [blitz_start(random.Random(n)) for n in range(10)] == [
        blitz_start(random.Random(n)) for n in range(10)]


def _prime_behind(board: tuple[int, ...], sign: int) -> tuple[int, int]:
    """The longest run of made points (two or more checkers) of the side of ``sign`` on its
    own points 1..12, as (length, back point in its own numbering), and how many of the
    other side's checkers stand on that side's points below it."""
    own = [board[i] * sign if sign > 0 else -board[25 - i] for i in range(26)]
    best = (0, 0)
    run = 0
    for point in range(1, 13):
        run = run + 1 if own[point] >= 2 else 0
        if run > best[0]:
            best = (run, point - run + 1)
    length, back = best
    trapped = sum(-c for c in own[1:back] if c < 0)
    return length, trapped


def test_drawn_primes_face_each_other_with_checkers_trapped_behind() -> None:
    """Each side has a prime of four to six points (a spare point beside it can make it
    longer), with one to three of the other side's checkers behind it; fifteen checkers a
    side, none on the bar or off; always in contact; the draw reproducible."""
    rng = random.Random(7)
    boards = [prime_start(rng) for _ in range(500)]
    lengths = []
    for board in boards:
        Position.from_points(board, "white")
        assert sum(c for c in board if c > 0) == 15 and sum(c for c in board if c < 0) == -15
        assert board[0] == 0 and board[25] == 0
        for sign in (+1, -1):
            length, trapped = _prime_behind(board, sign)
            assert length >= 4 and 1 <= trapped <= 3, (board, sign)
            lengths.append(length)
    assert np.all(classify(np.asarray(boards, dtype=np.int8)) == CONTACT)
    assert {4, 5, 6} <= set(lengths) and sum(n <= 6 for n in lengths) > 0.8 * len(lengths)
    assert len({tuple(b) for b in boards}) == len(boards)
    assert [prime_start(random.Random(n)) for n in range(10)] == [
        prime_start(random.Random(n)) for n in range(10)]


@pytest.mark.parametrize(("drawer", "setting"), [("back_game_start", "back_games"),
                                               ("blitz_start", "blitz"),
                                               ("prime_start", "primes")])
def test_a_share_of_training_games_start_from_a_drawn_position(
        drawer: str, setting: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Settings.back_games`` and ``Settings.blitz``: that share of the games (for the blitz,
    of those not drawn as back games) starts from a drawn position (the draw comes from the
    game's own generator, so a run stays reproducible), none at 0; old settings resume at 0."""
    from backgammon.ai.nets import default_nets

    drawn: list[tuple[int, ...]] = []
    starts: list[tuple[int, ...]] = []
    original_play = td.play_training_game
    original_draw = getattr(td, drawer)

    def draw(rng: random.Random) -> tuple[int, ...]:
        drawn.append(original_draw(rng))
        return drawn[-1]

    def play(*args: Any, **kwargs: Any) -> Any:
        starts.append(args[6])
        return original_play(*args, **kwargs)

    monkeypatch.setattr(td, drawer, draw)
    monkeypatch.setattr(td, "play_training_game", play)
    nets = default_nets()  # rate 0: the shared nets are left as they are
    td.train_games(nets, td.Settings(rate=0.0, **{setting: 0.5}), 0, 40)
    assert 10 <= len(drawn) <= 30
    assert [s for s in starts if s != td.START] == drawn
    drawn.clear()
    starts.clear()
    td.train_games(nets, td.Settings(rate=0.0), 0, 10)
    assert not drawn and starts == [td.START] * 10
    old = td.Settings(**{"seed": 1, "lam": 0.7, "rate": 0.1, "contact_hidden": 8,
                         "race_hidden": 4})
    assert getattr(old, setting) == 0.0


def test_primes_are_drawn_only_for_games_drawn_as_neither_back_game_nor_blitz(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the blitz share at 1 no game is a prime-versus-prime start."""
    from backgammon.ai.nets import default_nets

    monkeypatch.setattr(td, "prime_start", lambda rng: pytest.fail("a prime was drawn"))
    td.train_games(default_nets(), td.Settings(rate=0.0, blitz=1.0, primes=1.0), 0, 3)


def test_blitzes_are_drawn_only_for_games_not_drawn_as_back_games(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With both shares at 1 every game is a back game."""
    from backgammon.ai.nets import default_nets

    monkeypatch.setattr(td, "blitz_start", lambda rng: pytest.fail("a blitz was drawn"))
    td.train_games(default_nets(), td.Settings(rate=0.0, back_games=1.0, blitz=1.0), 0, 3)
