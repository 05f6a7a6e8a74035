"""The installable app's files and the API docs in chromium: the manifest and every icon it
names load, and ``/docs`` and ``/redoc`` draw Swagger UI and ReDoc with every request off this
server refused (no internet), asking nothing of another host."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_support import ARTIFACTS, ServerProcess, launched_chromium, served

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launched_chromium()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    yield from served(tmp_path_factory, "server-assets")


@pytest.fixture
def offline_page(browser: Any, server: ServerProcess) -> Iterator[tuple[Any, list[str]]]:
    """A page whose requests to anywhere but the test server are aborted (and listed)."""
    context = browser.new_context()
    host = urlsplit(server.url).netloc
    blocked: list[str] = []

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if urlsplit(url).netloc == host or url.startswith(("data:", "blob:")):
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    yield page, blocked
    context.close()


def test_manifest_and_icons_load(offline_page: tuple[Any, list[str]],
                                 server: ServerProcess) -> None:
    page, blocked = offline_page
    page.goto(server.url + "/")
    href = page.get_attribute('link[rel="manifest"]', "href")
    assert href == "/static/manifest.webmanifest"
    manifest = page.evaluate("async (h) => (await fetch(h)).json()", href)
    assert manifest["display"] == "standalone"
    sources = [icon["src"] for icon in manifest["icons"]]
    sources += page.eval_on_selector_all(
        'link[rel~="icon"], link[rel="apple-touch-icon"]', "nodes => nodes.map(n => n.href)")
    sources.append(page.get_attribute('meta[property="og:image"]', "content"))
    sizes = page.evaluate(
        """async (sources) => Promise.all(sources.map((src) => new Promise((done) => {
             const img = new Image();
             img.onload = () => done([src, img.naturalWidth, img.naturalHeight]);
             img.onerror = () => done([src, 0, 0]);
             img.src = src;
           })))""", sources)
    for src, width, height in sizes:
        assert width > 0 and height > 0, src
    by_name = {Path(urlsplit(src).path).name: (w, h) for src, w, h in sizes}
    assert by_name["icon-192.png"] == (192, 192) and by_name["icon-512.png"] == (512, 512)
    assert by_name["apple-touch-icon.png"] == (180, 180)
    assert by_name["og-image.png"] == (1200, 630)
    colours = page.eval_on_selector_all('meta[name="theme-color"]',
                                        "nodes => nodes.map(n => n.content)")
    assert colours == ["#1f5c45", "#143c2e"]
    assert blocked == []


def test_docs_load_with_the_network_blocked(offline_page: tuple[Any, list[str]],
                                            server: ServerProcess) -> None:
    page, blocked = offline_page
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".swagger-ui .info .title", timeout=20000)
    assert "Backgammon" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_selector(".opblock-summary-path", timeout=20000)
    paths = page.eval_on_selector_all(".opblock-summary-path",
                                      "nodes => nodes.map(n => n.textContent.trim())")
    assert "/api/games" in [p.replace("\u200b", "") for p in paths]
    assert not [e for e in errors if "Content Security Policy" in e], errors
    page.screenshot(path=str(ARTIFACTS / "docs-offline.png"))
    # the page needed nothing from outside, and asked nothing (no validator badge)
    assert blocked == []


def test_redoc_loads_with_the_network_blocked(offline_page: tuple[Any, list[str]],
                                              server: ServerProcess) -> None:
    page, blocked = offline_page
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url + "/redoc")
    page.wait_for_selector("h1", timeout=20000)
    assert "Backgammon" in page.inner_text("h1")
    page.locator("h2", has_text="Health check").wait_for(timeout=20000)
    assert "/api/games" in page.inner_text("body")
    assert not [e for e in errors if "Content Security Policy" in e], errors
    page.screenshot(path=str(ARTIFACTS / "redoc-offline.png"))
    # ReDoc's footer logo came from cdn.redoc.ly: now nothing is asked of another host
    assert blocked == []
