"""An online room (gametable.room) through its service: seats and tokens, claims for players
who are gone, leaving, rematch, chance by rounds with every wait timed, broken reveals, and a
restart in the middle of a round."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from backgammon.adapter import RULES as BACKGAMMON
from checkers.adapter import RULES as CHECKERS
from fake_clock import FakeNow
from gametable.errors import ActionRefused
from gametable.fair import commitment_of
from gametable.room import CLAIM_AFTER, THINK_AFTER, Room
from gametable.room_store import RoomStore
from gametable.rooms import RoomService, check_name
from gametable.seam import Side
from room_rounds import SECRETS, throw_opening

GAMES = {"backgammon": BACKGAMMON, "checkers": CHECKERS}
W = bytes([1]) * 32
B = bytes([2]) * 32


def service(now: FakeNow, store: RoomStore | None = None) -> RoomService:
    return RoomService(GAMES, store, now=now)


def room_of(
    svc: RoomService, game: str, control: str = "none", settings: dict[str, Any] | None = None
) -> tuple[str, str, str]:
    code, host, side, _ = svc.create(game, settings or {}, control, name="Ann", side="white")
    guest, guest_side, _ = svc.join(code, "Bob")
    assert (side, guest_side) == ("white", "black")
    return code, host, guest


def refused(code: str, svc: RoomService, room: str, side: Side, message: dict[str, Any]) -> None:
    before = svc.room(room).to_record()
    with pytest.raises(ActionRefused) as caught:
        svc.handle(room, side, message)
    assert caught.value.code == code, caught.value
    assert svc.room(room).to_record() == before  # nothing changed


def move(svc: RoomService, room: str, side: Side, path: list[int]) -> None:
    svc.handle(room, side, {"type": "action", "action": {"type": "move", "path": path}})


def opening(svc: RoomService, room: str) -> None:
    """Backgammon's opening round with secrets W and B: dice (5, 2)? whatever they give."""
    number = svc.room(room).next_round
    svc.handle(room, "white", {"type": "commit", "round": number, "commitment": commitment_of(W)})
    svc.handle(room, "black", {"type": "commit", "round": number, "commitment": commitment_of(B)})
    svc.handle(room, "white", {"type": "reveal", "round": number, "secret": W.hex()})
    svc.handle(room, "black", {"type": "reveal", "round": number, "secret": B.hex()})


def test_seats_tokens_and_a_full_room() -> None:
    svc = service(FakeNow())
    code, host, _ = svc.create("checkers", {}, "none", name="Ann")[:3]
    refused(
        "no_opponent",
        svc,
        code,
        "black",
        {"type": "action", "action": {"type": "move", "path": [11, 15]}},
    )
    guest, side, _ = svc.join(code, "Bob")
    assert side == "black" and svc.seat_for(code, host) == "white"
    assert svc.seat_for(code.lower(), guest) == "black"
    with pytest.raises(ActionRefused) as caught:
        svc.join(code, "Eve")
    assert caught.value.code == "seats_taken"
    with pytest.raises(ActionRefused) as caught:
        svc.seat_for(code, "x" * 32)
    assert caught.value.code == "not_your_room"
    with pytest.raises(ActionRefused) as caught:
        svc.join(code, "a\x00b")
    assert caught.value.code == "invalid_name"


@pytest.mark.parametrize("name", ["a\x00b", "a\x85b", "Ann\u202eboB", "A\u200bnn", "a\u2028b"])
def test_a_name_with_control_or_invisible_characters_is_refused(name: str) -> None:
    """C0 and C1 controls, bidirectional overrides (a name that reads as another), zero-width
    spaces and line separators: refused, naming the character."""
    with pytest.raises(ActionRefused) as caught:
        check_name(name)
    assert caught.value.code == "invalid_name" and "U+" in str(caught.value)


def test_a_name_with_an_emoji_sequence_is_taken() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # joined by zero-width joiners
    assert check_name(f" Ann {family} ") == f"Ann {family}"
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    assert check_name(scotland) == scotland  # a subdivision flag: tag characters


@pytest.mark.parametrize("name", ["\u200d", "\u3164", "\u2800 \u2800"])
def test_a_name_with_nothing_visible_is_refused(name: str) -> None:
    with pytest.raises(ActionRefused, match="at least one visible character"):
        check_name(name)


def test_only_the_side_to_move_moves_and_a_refusal_changes_nothing() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    refused(
        "not_your_turn",
        svc,
        code,
        "white",
        {"type": "action", "action": {"type": "move", "path": [22, 18]}},
    )
    refused(
        "illegal_move",
        svc,
        code,
        "black",
        {"type": "action", "action": {"type": "move", "path": [12, 8]}},
    )
    refused("invalid_action", svc, code, "black", {"type": "action", "action": {"type": "fly"}})
    refused(
        "not_allowed",
        svc,
        code,
        "black",
        {"type": "commit", "round": 0, "commitment": commitment_of(W)},
    )  # no chance here
    move(svc, code, "black", [11, 15])
    assert svc.room(code).view("white")["state"]["moves"] == ["11-15"]


def test_a_gone_player_can_be_claimed_against_after_two_minutes_only() -> None:
    now = FakeNow()
    svc = service(now)
    code, _, _ = room_of(svc, "checkers")
    for side in ("white", "black"):
        svc.connect(code, side)
    svc.disconnect(code, "black")  # black, to move, closes its page
    now.advance(119)
    assert not svc.room(code).view("white")["room"]["can_claim"]
    refused("not_claimable", svc, code, "white", {"type": "claim"})
    now.advance(2)
    room = svc.room(code)
    assert room.view("white")["room"]["can_claim"]
    assert not room.view("black")["room"]["can_claim"]
    svc.handle(code, "white", {"type": "claim"})
    assert room.view("white")["outcome"] == {"winner": "white", "reason": "forfeit",
                                             "points": 1}  # fmt: skip
    assert room.view("white")["room"]["forfeit"] == {"side": "black", "cause": "claimed"}


def test_a_connected_player_who_thinks_is_claimable_only_after_the_think_time() -> None:
    """A connected first mover may think over its first move for THINK_AFTER seconds (its
    wait starts when the guest joins), then its opponent may claim the game."""
    now = FakeNow()
    svc = service(now)
    code, _, _ = room_of(svc, "checkers")
    for side in ("white", "black"):
        svc.connect(code, side)
    now.advance(THINK_AFTER - 1)
    refused("not_claimable", svc, code, "white", {"type": "claim"})
    now.advance(1)
    svc.handle(code, "white", {"type": "claim"})
    assert svc.room(code).view(None)["room"]["forfeit"] == {"side": "black",
                                                            "cause": "claimed"}


def test_an_offer_does_not_start_the_offerers_wait_afresh() -> None:
    """The seconds a side thought over its turn before offering a draw still count when the
    turn comes back to it; its opponent's answer is not charged to it; a move of its own
    starts its next wait afresh."""
    now = FakeNow()
    svc = service(now)
    code, _, _ = room_of(svc, "checkers")
    for side in ("white", "black"):
        svc.connect(code, side)
    now.advance(300)  # Black thinks over its first move
    svc.handle(code, "black", {"type": "action", "action": {"type": "offer_draw"}})
    now.advance(50)  # White thinks over the offer
    svc.handle(code, "white", {"type": "action", "action": {"type": "decline_draw"}})
    now.advance(THINK_AFTER - 300 - 1)
    refused("not_claimable", svc, code, "white", {"type": "claim"})
    now.advance(1)
    assert svc.room(code).view("white")["room"]["can_claim"]
    move(svc, code, "black", [11, 15])  # a move: White's wait starts, Black's next afresh
    now.advance(THINK_AFTER - 1)
    refused("not_claimable", svc, code, "black", {"type": "claim"})
    move(svc, code, "white", [23, 18])
    now.advance(THINK_AFTER - 1)
    refused("not_claimable", svc, code, "white", {"type": "claim"})


def test_leaving_forfeits_and_a_rematch_swaps_the_sides() -> None:
    svc = service(FakeNow())
    code, host, guest = room_of(svc, "checkers")
    move(svc, code, "black", [11, 15])
    refused("no_rematch", svc, code, "white", {"type": "rematch"})
    svc.handle(code, "black", {"type": "leave"})
    room = svc.room(code)
    assert room.table.game.outcome() is not None
    assert room.view(None)["outcome"]["winner"] == "white"
    assert room.view("white")["room"]["forfeit"] == {"side": "black", "cause": "left"}
    # the cause is kept with the room: a restart still says it
    again = Room.from_record(room.to_record(), GAMES, FakeNow())
    assert again.view("white")["room"]["forfeit"] == {"side": "black", "cause": "left"}
    svc.handle(code, "white", {"type": "rematch"})
    assert room.view("black")["room"]["rematch"] == ["white"]
    svc.handle(code, "black", {"type": "rematch"})
    room = svc.room(code)
    assert svc.seat_for(code, host) == "black" and svc.seat_for(code, guest) == "white"
    assert room.names == {"white": "Bob", "black": "Ann"}
    assert room.view("black")["state"]["moves"] == [] and room.view(None)["outcome"] is None
    assert room.view("black")["room"]["forfeit"] is None  # the new game's, none yet
    assert len(room.history) == 1


def test_the_room_keeps_who_left_a_finished_game_and_pushes_the_other_its_view(
        tmp_path: Path) -> None:
    path = tmp_path / "rooms.sqlite3"
    now = FakeNow()
    svc = service(now, RoomStore(path))
    code, _, _ = room_of(svc, "checkers")
    svc.handle(code, "white", {"type": "action", "action": {"type": "resign"}})
    version = svc.room(code).version
    out = svc.handle(code, "black", {"type": "leave"})
    # both seats are pushed their views (the one still there learns it from its own)
    assert [(o.side, o.payload["view"]["room"]["left"]) for o in out] == [
        ("white", ["black"]), ("black", ["black"])]
    room = svc.room(code)
    assert room.left == {"black"} and room.version == version + 1
    assert room.forfeit is None  # (the game was over: nothing forfeited)
    assert room.view(None)["outcome"]["reason"] == "resignation"
    assert svc.handle(code, "black", {"type": "leave"}) == []  # leaving twice: nothing
    assert room.version == version + 1
    # kept in the record, and across a restart (the step replayed)
    assert room.to_record()["left"] == ["black"]
    again = service(now, RoomStore(path))
    assert again.restore() == [code]
    assert again.room(code).view("white")["room"]["left"] == ["black"]
    assert again.room(code).version == version + 1


def test_a_leave_in_play_and_a_host_leaving_an_empty_room_are_kept_too() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    svc.handle(code, "black", {"type": "leave"})
    assert svc.room(code).view("white")["room"]["left"] == ["black"]
    assert svc.room(code).forfeit == {"side": "black", "cause": "left"}
    # a rematch both asked for forgets it (whoever left came back)
    svc.handle(code, "white", {"type": "rematch"})
    svc.handle(code, "black", {"type": "rematch"})
    assert svc.room(code).view("white")["room"]["left"] == []
    lone, _, _, _ = svc.create("checkers", {}, "none", name="Ann", side="black")
    svc.handle(lone, "black", {"type": "leave"})
    room = svc.room(lone)
    assert room.closed and room.view("black")["room"]["left"] == ["black"]


def test_an_old_record_without_left_loads_and_says_who_left() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    record = svc.room(code).to_record()
    del record["left"]
    assert Room.from_record(record, GAMES, FakeNow()).left == set()
    svc.handle(code, "black", {"type": "leave"})
    record = svc.room(code).to_record()
    del record["left"]  # forfeited by leaving: the forfeit says who
    assert Room.from_record(record, GAMES, FakeNow()).left == {"black"}
    lone, _, _, _ = svc.create("checkers", {}, "none", name="Ann", side="black")
    svc.handle(lone, "black", {"type": "leave"})
    record = svc.room(lone).to_record()
    del record["left"]  # closed by its host: the host
    assert Room.from_record(record, GAMES, FakeNow()).left == {"black"}
    for bad in ("black", ["red"], [1]):
        with pytest.raises(ActionRefused, match="bad left") as caught:
            Room.from_record({**record, "left": bad}, GAMES, FakeNow())
        assert caught.value.code == "invalid_record"


def test_an_old_stored_leave_of_a_finished_game_still_replays() -> None:
    """A leave of a finished game stored before rooms kept who left changed no version:
    its step (``rv`` the version before it) replays."""
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    svc.handle(code, "white", {"type": "action", "action": {"type": "resign"}})
    snapshot = {**svc.room(code).to_record(), "at": 0.0}
    version = svc.room(code).version
    step = {"side": "black", "message": {"type": "leave"}, "at": 1.0, "rv": version}
    record, _ = svc.replayed(snapshot, [step])
    assert record["left"] == ["black"] and record["room_version"] == version


def test_a_stored_forfeit_cause_is_checked() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    record = svc.room(code).to_record()
    for bad in ({"side": "red", "cause": "left"}, {"side": "white", "cause": "bored"}, "left"):
        with pytest.raises(ActionRefused, match="bad forfeit") as refused:
            Room.from_record({**record, "forfeit": bad}, GAMES, FakeNow())
        assert refused.value.code == "invalid_record"


def test_backgammon_dice_come_only_from_rounds_and_a_broken_reveal_forfeits() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "backgammon", settings={"length": 3})
    refused("invalid_action", svc, code, "white", {"type": "action", "action": {"type": "roll"}})
    opening(svc, code)
    room = svc.room(code)
    events = room.table.game.match.current.events
    assert events[0]["type"] == "opening_roll" and events[0]["given"] is True
    while room.table.game.match.current.phase.value == "opening":  # a tie: again
        opening(svc, code)
    game = room.table.game
    mover = next(iter(game.to_act()))
    play = BACKGAMMON.computer_action(game, mover, "easy", __import__("random").Random(1))
    svc.handle(code, mover, {"type": "action", "action": play})
    roller = next(iter(game.to_act()))
    other: Side = "black" if roller == "white" else "white"
    number = room.next_round
    svc.handle(code, roller, {"type": "commit", "round": number, "commitment": commitment_of(W)})
    svc.handle(code, other, {"type": "secret", "round": number, "secret": B.hex()})
    svc.handle(code, roller, {"type": "reveal", "round": number, "secret": B.hex()})  # not W
    outcome = room.view(None)["outcome"]
    assert outcome["winner"] == other and outcome["reason"] == "forfeit"
    assert outcome["points"] == 3  # the rest of the match
    assert room.view(other)["room"]["forfeit"] == {"side": roller, "cause": "broken_reveal"}


def test_a_rounds_wait_is_charged_to_the_awaited_side_and_a_stall_loses_on_time() -> None:
    now = FakeNow()
    svc = service(now)
    code, _, _ = room_of(svc, "backgammon", "blitz", {"length": 1})
    opening(svc, code)
    room = svc.room(code)
    while room.table.game.match.current.phase.value == "opening":
        opening(svc, code)
    game = room.table.game
    mover = next(iter(game.to_act()))
    play = BACKGAMMON.computer_action(game, mover, "easy", __import__("random").Random(1))
    now.advance(5)
    svc.handle(code, mover, {"type": "action", "action": play})
    roller = next(iter(game.to_act()))
    other: Side = "black" if roller == "white" else "white"
    clock = room.table.clock
    assert clock is not None
    before = {side: clock.remaining(side) for side in ("white", "black")}
    number = room.next_round
    now.advance(2)
    svc.handle(code, roller, {"type": "commit", "round": number, "commitment": commitment_of(W)})
    now.advance(10)  # the opponent's page is slow to send its secret
    svc.handle(code, other, {"type": "secret", "round": number, "secret": B.hex()})
    assert clock.remaining(other) == pytest.approx(before[other] - 10)
    assert clock.remaining(roller) == pytest.approx(before[roller] - 2)
    svc.handle(code, roller, {"type": "reveal", "round": number, "secret": W.hex()})
    # the next roll: the opponent stalls its secret past its whole reserve
    while room.table.game.outcome() is None and game.to_act() == {roller}:
        play = BACKGAMMON.computer_action(game, roller, "easy", __import__("random").Random(2))
        if play["type"] != "move":
            break
        svc.handle(code, roller, {"type": "action", "action": play})
    stalled = next(iter(game.to_act()))
    number = room.next_round
    opponent: Side = "black" if stalled == "white" else "white"
    svc.handle(code, stalled, {"type": "commit", "round": number,
                               "commitment": commitment_of(W)})  # fmt: skip
    left = clock.remaining(opponent)
    assert room.next_deadline() == pytest.approx(now() + left)
    now.advance(left + 1)
    assert svc.tick_room(code)
    assert room.view(None)["outcome"] == {"winner": stalled, "reason": "time", "points": 1}


def test_a_restart_in_the_middle_of_a_round_picks_it_up(tmp_path: Path) -> None:
    now = FakeNow()
    db = tmp_path / "rooms.sqlite3"
    svc = service(now, RoomStore(db))
    code, host, guest = room_of(svc, "backgammon", "rapid", {"length": 1})
    svc.handle(code, "white", {"type": "commit", "round": 0, "commitment": commitment_of(W)})
    svc.handle(code, "black", {"type": "commit", "round": 0, "commitment": commitment_of(B)})
    svc.handle(code, "white", {"type": "reveal", "round": 0, "secret": W.hex()})
    seen = svc.room(code).view("black")
    now.advance(500)  # the server is down for a while
    again = service(now, RoomStore(db))
    assert again.restore() == [code]
    room = again.room(code)
    assert again.seat_for(code, host) == "white" and again.seat_for(code, guest) == "black"
    view = room.view("black")
    assert view["room"]["round"] == seen["room"]["round"]
    assert view["clock"]["remaining"] == seen["clock"]["remaining"]  # downtime not charged
    again.handle(code, "black", {"type": "reveal", "round": 0, "secret": B.hex()})
    events = room.table.game.match.current.events
    assert events[0]["type"] == "opening_roll"


def test_a_damaged_stored_room_is_left_out_and_the_others_restored(tmp_path: Path) -> None:
    now = FakeNow()
    db = tmp_path / "rooms.sqlite3"
    store = RoomStore(db)
    svc = service(now, store)
    good, _, _ = room_of(svc, "checkers")
    bad, _, _ = room_of(svc, "checkers")
    record = svc.room(bad).to_record()
    record["table"]["log"] = [{"move": "12-8"}]
    store.save(bad, "checkers", None, 3, record)
    again = service(now, RoomStore(db))
    assert again.restore() == [good]


def test_nothing_can_be_done_before_the_guest_joins() -> None:
    svc = service(FakeNow())
    code, _, _, room = svc.create("checkers", {}, "none", name="Ann", side="black")
    assert room.view("black")["state"]["can"] == {
        "move": False, "offer_draw": False, "accept_draw": False, "decline_draw": False,
        "claim_draw": False, "resign": False,
    }  # fmt: skip
    svc.join(code, "Bob")
    assert room.view("black")["state"]["can"]["move"] is True


def test_give_back_credits_the_running_clock_and_a_rounds_waits() -> None:
    now = FakeNow()
    svc = service(now)
    code, _, _ = room_of(svc, "checkers", "blitz")
    room = svc.room(code)
    rng = __import__("random").Random(3)
    first = CHECKERS.computer_action(room.table.game, "black", "easy", rng)
    svc.handle(code, "black", {"type": "action", "action": first})
    clock = room.table.clock
    assert clock is not None and clock.running == "white"
    now.advance(30)  # 30 s ran, 20 of them while no action could be taken
    room.give_back(20.0)
    assert clock.remaining("white") == 170.0
    assert clock.remaining("black") == 180.0  # the clocks started with its first move
    room.give_back(-5.0)  # nothing to give back
    assert clock.remaining("white") == 170.0
    # backgammon's opening round: both sides' waits run, the game's clock stands still
    code, _, _ = room_of(svc, "backgammon", "blitz", {"length": 1})
    room = svc.room(code)
    number = room.next_round
    svc.handle(code, "white", {"type": "commit", "round": number, "commitment": commitment_of(W)})
    now.advance(12)
    assert room.wait_left("black") == 168.0
    room.give_back(10.0)
    assert room.wait_left("black") == 178.0
    room.give_back(100.0)  # a wait never starts after now
    assert room.wait_left("black") == 180.0


def test_give_back_moves_an_untimed_claim_later() -> None:
    now = FakeNow()
    svc = service(now)
    start = now()
    code, _, _ = room_of(svc, "checkers")
    svc.connect(code, "white")  # Black, to move first, has been gone since the room was made
    room = svc.room(code)
    assert room.next_deadline() == pytest.approx(start + CLAIM_AFTER)
    now.advance(100)  # 30 s of it while no action could be taken
    room.give_back(30.0)
    assert room.next_deadline() == pytest.approx(start + CLAIM_AFTER + 30)
    now.advance(CLAIM_AFTER - 100 + 29)
    assert room.claimable() is None
    now.advance(2)
    assert room.claimable() == "black"
    room.give_back(1000.0)  # a wait never starts after now
    assert room.gone_for("black") == 0.0
    assert room.gone_for("white") is None


def test_an_unseen_step_returns_one_changed_message_and_views_for_some_sides() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    room = svc.room(code)
    version = room.version
    with room.unseen():
        out = room.handle("black", {"type": "action", "action": {"type": "offer_draw"}})
    assert [(o.side, o.payload) for o in out] == [(None, {"type": "changed"})]
    assert room.version == version + 1
    views = room.views({"x": 1}, ["white"])
    assert [o.side for o in views] == ["white"]
    assert views[0].payload["x"] == 1 and views[0].payload["view"]["room"]["you"] == "white"
    out = room.handle("white", {"type": "action", "action": {"type": "decline_draw"}})
    assert [o.side for o in out] == ["white", "black"]  # seen again after the block


def test_a_dice_round_in_a_game_without_dice_is_refused_in_words() -> None:
    svc = service(FakeNow())
    code, _, _ = room_of(svc, "checkers")
    refused("not_allowed", svc, code, "black",
            {"type": "commit", "round": 0, "commitment": "ab" * 32})
    with pytest.raises(ActionRefused, match="checkers has no dice"):
        svc.handle(code, "black", {"type": "commit", "round": 0, "commitment": "ab" * 32})


def test_a_guest_is_gone_from_its_join_not_from_the_rooms_making() -> None:
    """A room that waited five minutes for its guest: the guest, to move first, is not
    claimable the moment it joins (its page has not connected yet), timed or not."""
    for control in ("none", "blitz"):
        now = FakeNow()
        svc = service(now)
        code, _, _, _ = svc.create("checkers", {}, control, name="Ann", side="white")
        svc.connect(code, "white")
        now.advance(300)
        svc.join(code, "Bob")
        refused("not_claimable", svc, code, "white", {"type": "claim"})
        now.advance(CLAIM_AFTER + 1)  # never connected: gone since its join
        svc.handle(code, "white", {"type": "claim"})


def test_a_lapsed_offer_does_not_shorten_the_next_turn() -> None:
    """White offers a draw at the start of its turn, thinks, then moves (the offer lapses):
    Black's turn waits afresh from White's move, not from the offer."""
    now = FakeNow()
    svc = service(now)
    code, _, _ = room_of(svc, "checkers")
    for side in ("white", "black"):
        svc.connect(code, side)
    move(svc, code, "black", [11, 15])
    svc.handle(code, "white", {"type": "action", "action": {"type": "offer_draw"}})
    now.advance(THINK_AFTER - 30)
    move(svc, code, "white", [23, 18])
    now.advance(THINK_AFTER - 1)
    refused("not_claimable", svc, code, "white", {"type": "claim"})


def test_a_games_thinking_is_not_carried_into_the_next_game() -> None:
    """A match's game that ends on a dropped double: the next game's turns wait afresh."""
    now = FakeNow()
    svc, code = _backgammon_room(now)
    room = svc.room(code)
    throw_opening(svc, code)
    mover: Side = next(iter(room.table.game.to_act()))
    other_side: Side = "black" if mover == "white" else "white"
    _play_out_turn(svc, code, mover)
    now.advance(500)  # the other side thinks, doubles, and is dropped
    svc.handle(code, other_side, {"type": "action", "action": {"type": "double"}})
    now.advance(400)
    svc.handle(code, mover, {"type": "action", "action": {"type": "drop"}})
    svc.handle(code, mover, {"type": "action", "action": {"type": "next_game"}})
    throw_opening(svc, code)
    first: Side = next(iter(room.table.game.to_act()))
    now.advance(THINK_AFTER - 1)
    refused("not_claimable", svc, code, "white" if first == "black" else "black",
            {"type": "claim"})


def _backgammon_room(now: FakeNow, store: RoomStore | None = None) -> tuple[RoomService, str]:
    svc = RoomService({"backgammon": BACKGAMMON}, store, now=now)
    code, _, _, _ = svc.create("backgammon", {"length": 5, "cube": True}, "none",
                               name="Ann", side="white")
    svc.join(code, "Bob")
    for side in ("white", "black"):
        svc.connect(code, side)
    return svc, code


def _play_out_turn(svc: RoomService, code: str, mover: Side) -> None:
    room = svc.room(code)
    while room.view(mover)["state"]["legal"]:
        legal = room.view(mover)["state"]["legal"][0]
        svc.handle(code, mover, {"type": "action", "action": {
            "type": "move_checker", "from": legal["from"], "to": legal["destinations"][0]["to"]}})
    svc.handle(code, mover, {"type": "action", "action": {"type": "end_turn"}})


def test_a_dice_round_waiting_on_the_opponent_is_not_charged_to_the_roller() -> None:
    """The roller commits after thinking 482 s; the opponent withholds its secret 119 s (a
    step, timed as one): once it sends it, the roller is not claimable at once."""
    now = FakeNow()
    svc, code = _backgammon_room(now)
    throw_opening(svc, code)
    room = svc.room(code)
    first: Side = next(iter(room.table.game.to_act()))
    roller: Side = "black" if first == "white" else "white"
    _play_out_turn(svc, code, first)
    now.advance(482)
    number = room.next_round
    svc.handle(code, roller, {"type": "commit", "round": number,
                              "commitment": commitment_of(SECRETS[roller])})  # fmt: skip
    now.advance(119)
    svc.handle(code, first, {"type": "secret", "round": number,
                             "secret": SECRETS[first].hex()})  # fmt: skip
    refused("not_claimable", svc, code, first, {"type": "claim"})
    now.advance(600 - 482 - 1)  # the roller's own thinking: 599 s
    refused("not_claimable", svc, code, first, {"type": "claim"})


def test_the_seconds_thought_before_an_offer_survive_a_restart(tmp_path: Path) -> None:
    """A restart while a draw offer waits: the offerer's seconds still count when its turn
    comes back, and the answerer is not charged its answer."""
    now = FakeNow()
    store = RoomStore(tmp_path / "rooms.sqlite3")
    svc = service(now, store)
    code, _, _ = room_of(svc, "checkers")
    for side in ("white", "black"):
        svc.connect(code, side)
    now.advance(300)
    svc.handle(code, "black", {"type": "action", "action": {"type": "offer_draw"}})
    again = service(now, store)
    assert again.restore() == [code]
    for side in ("white", "black"):
        again.connect(code, side)
    now.advance(400)
    again.handle(code, "white", {"type": "action", "action": {"type": "decline_draw"}})
    now.advance(THINK_AFTER - 300 - 1)
    refused("not_claimable", again, code, "white", {"type": "claim"})
    now.advance(2)
    assert again.room(code).view("white")["room"]["can_claim"]
    move(again, code, "black", [11, 15])  # White's turn: afresh, its 400 s not charged
    now.advance(THINK_AFTER - 1)
    refused("not_claimable", again, code, "black", {"type": "claim"})


def test_a_host_gone_before_the_game_is_not_claimable_at_the_join() -> None:
    """The host (to move first) closed its page before anyone joined: the game starts at the
    join, and its absence counts from there."""
    now = FakeNow()
    svc = service(now)
    code, _, _, _ = svc.create("checkers", {}, "none", name="Ann", side="black")
    svc.connect(code, "black")
    svc.disconnect(code, "black")
    now.advance(300)
    svc.join(code, "Bob")
    svc.connect(code, "white")
    refused("not_claimable", svc, code, "white", {"type": "claim"})
    now.advance(CLAIM_AFTER + 1)
    svc.handle(code, "white", {"type": "claim"})
