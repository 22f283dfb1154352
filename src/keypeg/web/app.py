"""The FastAPI application: the store it serves, security headers, and errors as JSON."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from keypeg.errors import InconsistentScoreError, KeypegError
from keypeg.store import Store
from keypeg.text import visible

__all__ = ["create_app", "app_from_environment", "SECURITY_HEADERS"]

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": visible(message, 400)}, status_code=status, headers=headers)


def create_app(url: str | None = None, *, https: bool = False) -> FastAPI:
    """The app, serving the store at ``url`` (the CLI's default when ``None``)."""
    from keypeg.web import accounts, api, records

    app = FastAPI(
        title="keypeg",
        summary="Mastermind: play, solve and analyse.",
        version="1",
        docs_url=None,  # served below from the swagger-ui-bundle package, not from a CDN
        redoc_url=None,
    )
    app.openapi_version = "3.0.3"  # what the Swagger UI of swagger-ui-bundle renders
    app.state.store = Store(url)
    app.state.https = https
    _serve_docs(app)
    app.include_router(api.router)
    app.include_router(accounts.router)
    app.include_router(records.router)

    @app.middleware("http")
    async def headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        try:
            response = await call_next(request)
        except Exception:  # the last resort: never a stack trace, never a 500 page
            response = _error(500, "internal error; please report it")
        for name, value in SECURITY_HEADERS.items():
            if not (name == "Content-Security-Policy" and request.url.path == "/docs"):  # Swagger UI's inline start
                response.headers.setdefault(name, value)
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, error: StarletteHTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail), getattr(error, "headers", None))

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', 'invalid')}" for e in error.errors()[:5]
        )
        return _error(422, f"bad request: {problems}")

    @app.exception_handler(InconsistentScoreError)
    async def inconsistent(_request: Request, error: InconsistentScoreError) -> JSONResponse:
        return _error(409, str(error))

    @app.exception_handler(KeypegError)
    async def refused(_request: Request, error: KeypegError) -> JSONResponse:
        status = 400 if error.exit_code == 2 else 503
        return _error(status, str(error))

    return app


def _serve_docs(app: FastAPI) -> None:
    """The API's documentation at ``/docs``: Swagger UI from the ``swagger-ui-bundle`` package (no CDN)."""
    from fastapi.openapi.docs import get_swagger_ui_html
    from fastapi.responses import HTMLResponse
    from fastapi.staticfiles import StaticFiles
    from swagger_ui_bundle import swagger_ui_path

    app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json",
            title="keypeg API",
            swagger_js_url="/docs-assets/swagger-ui-bundle.js",
            swagger_css_url="/docs-assets/swagger-ui.css",
            swagger_favicon_url="/docs-assets/favicon-32x32.png",
        )


def app_from_environment() -> FastAPI:
    """The app as ``keypeg serve`` starts it in each worker: the store from ``$KEYPEG_DB``."""
    return create_app(os.environ.get("KEYPEG_DB"), https=os.environ.get("KEYPEG_HTTPS") == "1")
