"""The interactive API docs, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), whole from this
server: they work offline and tell no other host that someone reads them.

Their scripts and styles are the fastapi-offline package's copies (its package data), served
under :data:`DOCS_STATIC`. Two bundles name places on the internet that the page would fetch
or link to, and are served with those taken out (:data:`PATCHES`): ReDoc's footer loads the
Redocly logo from ``cdn.redoc.ly`` (an ``<img>``) and links to redocly.com; Swagger UI asks
``validator.swagger.io`` for a badge (also turned off on the page: ``validatorUrl`` null). Each
replacement must find its text exactly as often as listed, or the app does not start: a
fastapi-offline whose bundles changed fails the tests instead of fetching again quietly.
(The bundles keep other URLs that are names, never fetched: XML namespaces, JSON Schema ids,
links inside error messages.)
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.types import Scope

#: Where the docs' scripts and styles are served.
DOCS_STATIC: Final = "/static-docs"
#: Swagger UI's settings on ``/docs``: no validator badge (it is fetched from
#: validator.swagger.io).
SWAGGER_PARAMETERS: Final = {"validatorUrl": None}
#: For each bundle: (text, replacement, how many times the text is there).
PATCHES: Final[dict[str, tuple[tuple[bytes, bytes, int], ...]]] = {
    "redoc.standalone.js": (
        # the footer's logo: an image that fails hides itself (its onError)
        (b'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"', b'src:"data:,"', 1),
        # the footer's "API docs by Redocly": kept, linking nowhere
        (b'href:"https://redocly.com/redoc/"', b'href:"#"', 1),
    ),
    "swagger-ui-bundle.js": (
        # the validator badge's default (the page also sets validatorUrl null)
        (b'"https://validator.swagger.io/validator"', b"null", 3),
    ),
}


def _files_dir() -> Path:
    import fastapi_offline

    return Path(fastapi_offline.__file__).parent / "static"


class DocsAssetError(RuntimeError):
    """A docs bundle of fastapi-offline is not the one :data:`PATCHES` was written for."""


@functools.cache
def patched_assets() -> dict[str, bytes]:
    """Each bundle of :data:`PATCHES` with its replacements made (read once a process).

    Raises:
        DocsAssetError: a replacement's text is not there as often as listed.
    """
    assets = {}
    for name, patches in PATCHES.items():
        data = (_files_dir() / name).read_bytes()
        for old, new, count in patches:
            found = data.count(old)
            if found != count:
                raise DocsAssetError(f"fastapi-offline's {name} holds {old!r} {found} times, "
                                     f"not {count}: see backgammon.server.docs.PATCHES")
            data = data.replace(old, new)
        assets[name] = data
    return assets


class _DocsFiles(StaticFiles):
    """fastapi-offline's files, the patched bundles from memory."""

    def __init__(self) -> None:
        super().__init__(directory=_files_dir())
        self.patched = {name: (data, hashlib.sha256(data).hexdigest()[:32])
                        for name, data in patched_assets().items()}

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path in self.patched:
            if scope["method"] not in ("GET", "HEAD"):
                raise HTTPException(status_code=405)
            data, tag = self.patched[path]
            return Response(data, media_type="text/javascript",
                            headers={"ETag": f'"{tag}"', "Cache-Control": "no-cache"})
        response = await super().get_response(path, scope)
        response.headers["Cache-Control"] = "no-cache"
        return response


def install_docs(app: FastAPI, favicon_url: str) -> None:
    """Serve ``/docs``, ``/docs/oauth2-redirect``, ``/redoc`` and their files under
    :data:`DOCS_STATIC` (``app`` made with ``docs_url=None, redoc_url=None``)."""
    openapi_url = app.openapi_url
    assert openapi_url is not None
    app.mount(DOCS_STATIC, _DocsFiles(), name="static-docs")
    redirect_url = app.swagger_ui_oauth2_redirect_url

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}", title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=redirect_url,
            swagger_js_url=f"{root}{DOCS_STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_STATIC}/swagger-ui.css",
            swagger_favicon_url=favicon_url, swagger_ui_parameters=SWAGGER_PARAMETERS)

    if redirect_url is not None:
        @app.get(redirect_url, include_in_schema=False)
        async def swagger_ui_redirect() -> HTMLResponse:
            return get_swagger_ui_oauth2_redirect_html()

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{openapi_url}", title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{DOCS_STATIC}/redoc.standalone.js",
            redoc_favicon_url=favicon_url, with_google_fonts=False)


__all__ = ["DOCS_STATIC", "PATCHES", "SWAGGER_PARAMETERS", "DocsAssetError", "install_docs",
           "patched_assets"]
