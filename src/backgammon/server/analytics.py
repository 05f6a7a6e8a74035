"""The analytics hook: a privacy-friendly, Plausible-compatible script, off by default.

``backgammon serve --analytics-domain DOMAIN [--analytics-script URL]`` turns it on. Then, and
only then, the game page carries one more tag,
``<script defer data-domain="DOMAIN" src="URL"></script>`` (Plausible's snippet:
https://plausible.io/docs/plausible-script), and the page's Content-Security-Policy allows the
script's origin for scripts and for sending events (:func:`backgammon.server.middleware.page_csp`).
Without it the page names no other origin at all.

The page itself (``static/js/analytics.js``) sends exactly three custom events through
Plausible's ``window.plausible(name, {props})`` (with the queue stub, so that calls made before
the script arrives wait for it): "Game Completed", "Played Again" and "Online Game
Connected", their props strings. A script that is blocked or never arrives changes nothing:
the calls wait in the queue.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

#: The script used when ``--analytics-script`` is not given: Plausible's hosted one.
DEFAULT_ANALYTICS_SCRIPT: Final = "https://plausible.io/js/script.js"

# A domain as Plausible's sites are named: host names (letters, digits, hyphens, dots), several
# separated by commas (Plausible sends to each); no scheme, no path.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_HOST = rf"{_LABEL}(?:\.{_LABEL})*"
_DOMAIN_RE: Final = re.compile(rf"{_HOST}(?:,{_HOST})*")
_MAX_DOMAIN: Final = 253
_MAX_URL: Final = 2000


class AnalyticsConfigError(ValueError):
    """An analytics domain or script URL that cannot be used; the message quotes it."""


@dataclass(frozen=True, slots=True)
class Analytics:
    """Where the page's analytics go.

    Attributes:
        domain: the site's name in Plausible (``data-domain``), e.g. ``"games.example.org"``;
            several may be given, separated by commas.
        script: the script's absolute ``https://`` (or ``http://``) URL; default Plausible's
            (:data:`DEFAULT_ANALYTICS_SCRIPT`). A self-hosted Plausible or a proxy works the
            same: the script sends to ``/api/event`` on its own origin.

    Raises:
        AnalyticsConfigError: (on construction) a domain that is not host names, or a URL
            that is not an absolute http(s) URL with a host, quoted.
    """

    domain: str
    script: str = DEFAULT_ANALYTICS_SCRIPT

    def __post_init__(self) -> None:
        if len(self.domain) > _MAX_DOMAIN or not _DOMAIN_RE.fullmatch(self.domain):
            raise AnalyticsConfigError(
                f"analytics domain {self.domain!r}: give the site's host name as Plausible "
                f"knows it, e.g. games.example.org (no scheme, no path)")
        script_origin(self.script)  # checks the URL

    @property
    def origin(self) -> str:
        """The script's origin, ``scheme://host[:port]``: what the CSP allows."""
        return script_origin(self.script)

    def script_tag(self) -> str:
        """The tag the page gets, attributes escaped: ``<script defer
        data-analytics="plausible" data-domain="…" src="…"></script>`` (``data-analytics``
        tells the page's own analytics.js that the hook is on)."""
        return (f'<script defer data-analytics="plausible" '
                f'data-domain="{html.escape(self.domain)}" '
                f'src="{html.escape(self.script)}"></script>')


def script_origin(url: str) -> str:
    """The origin, ``scheme://host[:port]``, of the script at ``url``.

    Raises:
        AnalyticsConfigError: ``url`` is not an absolute http(s) URL with a host and a path,
            or holds characters a CSP or an HTML attribute would have to quote.
    """
    problem = None
    host, scheme, port = "", "", None
    if len(url) > _MAX_URL or not url.isascii() or any(c.isspace() or ord(c) < 32 for c in url):
        problem = "it is too long, or holds spaces or letters outside ASCII (give the IDNA form)"
    elif any(c in url for c in ";'\"<>,"):
        problem = "it may not hold ; ' \" < > or ,"
    else:
        try:
            parts = urlsplit(url)
            port = parts.port
            scheme, host = parts.scheme, parts.hostname or ""
            if scheme not in ("https", "http"):
                problem = "it must start with https:// (or http://)"
            elif not host or parts.username or parts.password:
                problem = "it must name a host (and no user or password)"
            elif not parts.path or parts.path == "/":
                problem = "it must name the script's path"
        except ValueError as exc:
            problem = str(exc)
    if problem is not None:
        raise AnalyticsConfigError(f"analytics script {url!r}: {problem}")
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")


#: Where the page's scripts are named in ``index.html``: the analytics tag goes just before.
PAGE_SCRIPT_MARK: Final = '<script type="module" src="/static/js/main.js"></script>'


def page_with_analytics(page: str, analytics: Analytics | None) -> str:
    """``page`` (the game page's HTML) with the analytics tag before its own script; the page
    unchanged when ``analytics`` is None.

    Raises:
        ValueError: the page has no :data:`PAGE_SCRIPT_MARK` to put the tag before.
    """
    if analytics is None:
        return page
    if PAGE_SCRIPT_MARK not in page:
        raise ValueError("the game page has no main.js script tag to put the analytics before")
    return page.replace(PAGE_SCRIPT_MARK, f"{analytics.script_tag()}\n  {PAGE_SCRIPT_MARK}", 1)


__all__ = ["DEFAULT_ANALYTICS_SCRIPT", "PAGE_SCRIPT_MARK", "Analytics", "AnalyticsConfigError",
           "page_with_analytics", "script_origin"]
