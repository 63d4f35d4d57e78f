"""/docs (Swagger UI) and /redoc served with assets from an installed package, never a CDN.

The glasses' service often runs where there is no internet (a dinner table, a
phone hotspot); FastAPI's default pages load their JavaScript from a CDN and
stay blank there. The `fastapi-offline` package ships the Swagger UI and ReDoc
bundles; we serve them from its folder and point the pages at them.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

__all__ = ["ASSETS_PATH", "install_docs"]

ASSETS_PATH = "/docs-assets"
# The page itself talks only to this service: no validator badge (it calls an
# outside host), and a policy that lets the browser fetch nothing from elsewhere.
_CSP = ("default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; font-src 'self' data:")


def _assets_dir() -> Path:
    return Path(str(resources.files("fastapi_offline") / "static"))


def install_docs(app: FastAPI) -> None:
    """Serve /docs and /redoc for `app` (created with docs_url=None, redoc_url=None)."""
    app.mount(ASSETS_PATH, StaticFiles(directory=_assets_dir()), name="docs-assets")
    title = app.title
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=openapi_url, title=f"{title} — API",
            swagger_js_url=f"{ASSETS_PATH}/swagger-ui-bundle.js", swagger_css_url=f"{ASSETS_PATH}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS_PATH}/favicon.png", swagger_ui_parameters={"validatorUrl": None})
        page.headers["Content-Security-Policy"] = _CSP
        return page

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        page = get_redoc_html(openapi_url=openapi_url, title=f"{title} — API",
                              redoc_js_url=f"{ASSETS_PATH}/redoc.standalone.js",
                              redoc_favicon_url=f"{ASSETS_PATH}/favicon.png", with_google_fonts=False)
        page.headers["Content-Security-Policy"] = _CSP
        return page
