"""The interactive API docs (/docs, /redoc) reference nothing on another host: their pages,
and every script, style and icon those pages load from this server (server/docs.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from backgammon.server import ServerSettings, create_app

#: Any URL.
URL = re.compile(rb"https?://")
#: A URL where a page fetches or links from: an element's ``src``, ``href`` or ``srcset`` (as
#: markup or as a script's object key), Swagger UI's ``validatorUrl`` (its badge), a
#: stylesheet's ``url(...)`` or ``@import``. (The bundles also hold URLs that are names,
#: never fetched: XML namespaces, JSON Schema ids, links inside error messages.)
FETCHED = re.compile(
    rb"""(?:\b(?:src|href|srcset|validatorUrl)\s*[:=]\s*["'`]|\burl\(\s*["']?|@import\s+["']?)"""
    rb"""(https?://[^"'`)\s]+)""", re.IGNORECASE)
#: What a page loads from this server.
LOADED = re.compile(r"""(?:src|href)=["'](/[^"']+)["']""")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServerSettings(db_path=tmp_path / "g.sqlite3"))) as opened:
        yield opened


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_docs_reference_no_other_host(client: TestClient, page: str) -> None:
    html = client.get(page)
    assert html.status_code == 200
    assert URL.findall(html.content) == []
    assets = LOADED.findall(html.text)
    assert any(asset.endswith(".js") for asset in assets)
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        assert [m.group(1) for m in FETCHED.finditer(response.content)] == [], asset


def test_the_swagger_validator_badge_is_off(client: TestClient) -> None:
    assert '"validatorUrl": null' in client.get("/docs").text
