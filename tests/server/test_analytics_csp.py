"""The analytics hook on the server: off by default, the page's script tag and its CSP when on,
and the refusals of a domain or script that cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from backgammon.server import ServerSettings, create_app
from backgammon.server.analytics import (
    DEFAULT_ANALYTICS_SCRIPT,
    PAGE_SCRIPT_MARK,
    Analytics,
    AnalyticsConfigError,
    page_with_analytics,
    script_origin,
)
from backgammon.server.middleware import DOCS_CSP, PAGE_CSP, page_csp

ON_CSP = (
    "default-src 'self'; script-src 'self' https://plausible.io; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self' https://plausible.io; font-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)


def client_for(tmp_path: Path, analytics: Analytics | None) -> TestClient:
    return TestClient(create_app(ServerSettings(db_path=tmp_path / "games.sqlite3",
                                                analytics=analytics)))


def test_the_csp_names_the_analytics_origin_only_when_on() -> None:
    assert page_csp(None) == PAGE_CSP
    assert "plausible" not in PAGE_CSP and "http" not in PAGE_CSP
    assert page_csp("https://plausible.io") == ON_CSP
    assert page_csp("http://127.0.0.1:8765") == PAGE_CSP.replace(
        "script-src 'self';", "script-src 'self' http://127.0.0.1:8765;").replace(
        "connect-src 'self';", "connect-src 'self' http://127.0.0.1:8765;")
    for bad in ("https://a.example; script-src *", "'unsafe-inline'", "https://a b",
                "https://ü.example"):
        with pytest.raises(ValueError, match="not an origin for a CSP"):
            page_csp(bad)


def test_off_by_default_no_script_tag_and_no_other_origin(tmp_path: Path) -> None:
    assert ServerSettings().analytics is None
    with client_for(tmp_path, None) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert "data-analytics" not in page.text and "plausible" not in page.text
        assert page.headers["content-security-policy"] == PAGE_CSP
        assert client.get("/health").headers["content-security-policy"] == PAGE_CSP
        rules = client.get("/rules")
        assert rules.headers["content-security-policy"] == PAGE_CSP
        assert "data-analytics" not in rules.text


def test_on_the_page_carries_the_script_and_the_csp_allows_its_origin(tmp_path: Path) -> None:
    analytics = Analytics("games.example.org")
    assert analytics.script == DEFAULT_ANALYTICS_SCRIPT == "https://plausible.io/js/script.js"
    with client_for(tmp_path, analytics) as client:
        page = client.get("/")
        assert page.status_code == 200
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["cache-control"] == "no-cache"
        tag = ('<script defer data-analytics="plausible" data-domain="games.example.org" '
               'src="https://plausible.io/js/script.js"></script>')
        assert page.text.count(tag) == 1
        # Before the page's own module, so that the script is there as early as it can be.
        assert page.text.index(tag) < page.text.index(PAGE_SCRIPT_MARK)
        # the page's own two (game_choice.js in the head, main.js) and the analytics tag
        assert page.text.count("<script") == 3
        assert page.text.count('src="https://') == 1
        assert page.headers["content-security-policy"] == ON_CSP
        assert client.get("/api/games/nosuch").headers["content-security-policy"] == ON_CSP
        # The interactive docs keep their own policy, which names no other origin.
        assert client.get("/docs").headers["content-security-policy"] == DOCS_CSP


def test_a_self_hosted_script_and_its_origin(tmp_path: Path) -> None:
    analytics = Analytics("a.example,b.example", "https://stats.example.net:8443/js/script.js")
    assert analytics.origin == "https://stats.example.net:8443"
    with client_for(tmp_path, analytics) as client:
        page = client.get("/")
        assert ('data-domain="a.example,b.example" '
                'src="https://stats.example.net:8443/js/script.js"') in page.text
        csp = page.headers["content-security-policy"]
        assert "script-src 'self' https://stats.example.net:8443;" in csp
        assert "connect-src 'self' https://stats.example.net:8443;" in csp
        assert csp.count("stats.example.net") == 2


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("https://plausible.io/js/script.js", "https://plausible.io"),
        ("http://127.0.0.1:9/fake.js", "http://127.0.0.1:9"),
        ("https://[::1]:8080/js/p.js", "https://[::1]:8080"),
        ("https://Stats.Example.org/js/script.tagged-events.js", "https://stats.example.org"),
    ],
)
def test_script_origin(url: str, origin: str) -> None:
    assert script_origin(url) == origin


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("plausible.io/js/script.js", "it must start with https://"),
        ("javascript:alert(1)", "it must start with https://"),
        ("ftp://plausible.io/js/script.js", "it must start with https://"),
        ("https:///js/script.js", "it must name a host"),
        ("https://user:pw@plausible.io/js/script.js", "it must name a host (and no user"),
        ("https://plausible.io", "it must name the script's path"),
        ("https://plausible.io/", "it must name the script's path"),
        ("https://plausible.io/js/script.js; script-src *", "too long, or holds spaces"),
        ("https://plausible.io/js/x.js;script-src", "it may not hold"),
        ('https://plausible.io/"><script>', "it may not hold"),
        ("https://plausible.io:99999/js/script.js", "Port out of range"),
        ("https://bücher.example/js/script.js", "outside ASCII"),
    ],
)
def test_a_script_url_that_cannot_be_used_is_refused(url: str, problem: str) -> None:
    with pytest.raises(AnalyticsConfigError, match="analytics script") as caught:
        Analytics("games.example.org", url)
    assert repr(url) in str(caught.value)
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    "domain",
    ["", "https://games.example.org", "games.example.org/path", "games example", "-a.example",
     'a.example" onload="x', "a.example,", "a" * 254],
)
def test_a_domain_that_cannot_be_used_is_refused(domain: str) -> None:
    with pytest.raises(AnalyticsConfigError, match="analytics domain") as caught:
        Analytics(domain)
    assert repr(domain) in str(caught.value)


def test_page_with_analytics_leaves_the_page_alone_when_off() -> None:
    page = f"<head>{PAGE_SCRIPT_MARK}</head>"
    assert page_with_analytics(page, None) == page
    with pytest.raises(ValueError, match="no main\\.js script tag"):
        page_with_analytics("<head></head>", Analytics("games.example.org"))
