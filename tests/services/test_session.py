"""services/session.py: the game service's sessions kept in memory, bounded by bytes."""

from __future__ import annotations

import random
from pathlib import Path

from backgammon.services.session import MEMORY_PER_RECORD_BYTE, GameOptions, GameService
from gametable.game_store import GameStore


def test_the_sessions_kept_in_memory_are_bounded_by_their_estimated_bytes(
        tmp_path: Path) -> None:
    store = GameStore(tmp_path / "g.sqlite3")
    budget = 400_000
    service = GameService(store, rng=random.Random(1), memory_bytes=budget)
    ids = []
    for _ in range(40):
        state = service.create(GameOptions(mode="pass_and_play", kind="money"))
        game_id = state["id"]
        ids.append(game_id)
        for _ in range(6):  # some turns each: a record of some kilobytes
            state = service.roll(game_id)
            while state["phase"] == "move":
                first = state["legal"][0]
                state = service.move(game_id, first["from"],
                                     first["destinations"][0]["to"])
                if not state["legal"]:
                    state = service.end_turn(game_id)
        assert service.memory_bytes() <= budget
    kept = service.kept()
    assert 0 < len(kept) < 40  # the oldest were let go...
    assert sum(store.load(i).size for i in kept) * MEMORY_PER_RECORD_BYTE <= budget
    assert service.state(ids[0])["id"] == ids[0]  # ...and are read back when asked for
