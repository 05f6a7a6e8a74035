"""Helpers for the API tests: an app on a temporary database with injected dice.

(Not a conftest.py: a second module named ``conftest`` would shadow ``tests/conftest.py`` for
the modules that import from it.)"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from backgammon.core.dice import FixedDice
from backgammon.server import ServerSettings, create_app


class Clients:
    """Test clients on one database file; ``clients.new(rolls=[(3, 1), ...], seed=7)`` opens
    another (fixed dice when ``rolls`` is given; the opening roll reads as (white, black)).
    A context manager that closes them all."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._open: list[TestClient] = []

    def new(self, rolls: Sequence[Sequence[int]] | None = None, seed: int = 7,
            max_body_bytes: int = 16 * 1024) -> TestClient:
        settings = ServerSettings(
            db_path=self.db_path,
            rng=random.Random(seed),
            dice=FixedDice(rolls) if rolls is not None else None,
            max_body_bytes=max_body_bytes,
        )
        client = TestClient(create_app(settings))
        client.__enter__()
        self._open.append(client)
        return client

    def __enter__(self) -> Clients:
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self._open:
            client.__exit__(None, None, None)


def app_of(client: TestClient) -> FastAPI:
    app = client.app
    assert isinstance(app, FastAPI)
    return app


def new_game(client: TestClient, **settings: Any) -> dict[str, Any]:
    """Create a game (pass & play unless ``mode`` is given) and return its state."""
    body = {"mode": "pass_and_play", **settings}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    state: dict[str, Any] = response.json()
    return state


def act(client: TestClient, game_id: str, action: str, body: dict[str, Any] | None = None,
        status: int = 200) -> dict[str, Any]:
    """POST an action and check the status; returns the JSON answer."""
    response = client.post(f"/api/games/{game_id}/{action}", json=body or {})
    assert response.status_code == status, response.text
    data: dict[str, Any] = response.json()
    return data


def destinations(state: dict[str, Any]) -> dict[Any, dict[Any, list[str]]]:
    """``state["legal"]`` as {from: {to: [move texts]}}."""
    return {
        entry["from"]: {d["to"]: [m["text"] for m in d["moves"]] for d in entry["destinations"]}
        for entry in state["legal"]
    }
