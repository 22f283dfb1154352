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

    app = FastAPI(title="keypeg", summary="Mastermind: play, solve and analyse.", version="1")
    app.state.store = Store(url)
    app.state.https = https
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
            if not (name == "Content-Security-Policy" and request.url.path in ("/docs", "/redoc")):
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


def app_from_environment() -> FastAPI:
    """The app as ``keypeg serve`` starts it in each worker: the store from ``$KEYPEG_DB``."""
    return create_app(os.environ.get("KEYPEG_DB"), https=os.environ.get("KEYPEG_HTTPS") == "1")
