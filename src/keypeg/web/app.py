"""The FastAPI application: the store it serves, security headers, and errors as JSON."""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.body_limit import RequestBodyLimitMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from keypeg.errors import (
    KeypegError,
)
from keypeg.limits import WEB_BODY_LIMIT
from keypeg.services.accounts import ThrottledError
from keypeg.services.fair_share import FairShare
from keypeg.services.stores import open_store
from keypeg.text import visible
from keypeg.web.errors import retry_after, status_of

__all__ = ["create_app", "app_from_environment", "SECURITY_HEADERS"]

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


HSTS = "max-age=31536000"
"""Behind ``keypeg serve --https`` every answer asks browsers to use HTTPS only for this site, for a year
(no ``includeSubDomains``: the site's neighbours are not keypeg's to decide)."""
UNAVAILABLE = "keypeg cannot use its database just now, and nothing of this request was kept: try again shortly"
"""What a client is told when the store (or a worker) is down; the details go to the server's log."""


def _error(
    status: int, message: str, headers: dict[str, str] | None = None, request: Request | None = None
) -> Response:
    """An error as JSON ``{"error"}`` for the API, as a page for a page's address."""
    if request is not None and _is_page(request):
        from keypeg.web.pages import error_page

        response: Response = error_page(request, status, message)
        response.headers.update(headers or {})
        return response
    return JSONResponse({"error": visible(message, 400)}, status_code=status, headers=headers)


def _methods(request: Request) -> list[str]:
    """The methods the routes at the request's address take."""
    path = request.url.path
    found: set[str] = set()
    for route in request.app.routes:
        regex, methods = getattr(route, "path_regex", None), getattr(route, "methods", None)
        if regex is not None and methods and regex.match(path):
            found |= set(methods)
    return sorted(found)


def _is_page(request: Request) -> bool:
    path = request.url.path
    return not (path.startswith(("/api/", "/docs", "/openapi.json", "/static/")) or path == "/api")


def _raw(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    """``headers`` as ASGI sends them."""
    return [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]


class Dressed:
    """Every answer with the security headers (:data:`SECURITY_HEADERS`, and HSTS behind ``--https``), a
    request whose declared body is too large refused (413) before it is read, and an error escaping the app
    answered as a plain 500 (its stack trace to the server's log only). A plain ASGI layer: the headers are
    added to the answer's start as it is sent, so a stream (an event stream) passes through unbuffered."""

    def __init__(self, app: ASGIApp, https: bool = False) -> None:
        from keypeg.web import api_docs

        self.app = app
        added = SECURITY_HEADERS | ({"Strict-Transport-Security": HSTS} if https else {})
        self._added = _raw(added)
        self._added_try = _raw(added | {"Content-Security-Policy": api_docs.TRY_POLICY})
        self._try_path = api_docs.TRY_PATH

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        added = self._added_try if scope["path"] == self._try_path else self._added
        started = False

        async def dress(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in added if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        declared = "0"
        for name, value in scope["headers"]:
            if name == b"content-length":
                declared = value.decode("latin-1")
                break
        if not declared.isdigit() or int(declared) > WEB_BODY_LIMIT:
            request = Request(scope, receive)
            too_large = _error(413, f"the request is too large (at most {WEB_BODY_LIMIT:,} bytes)", request=request)
            await too_large(scope, receive, dress)
            return
        try:
            await self.app(scope, receive, dress)
        except Exception:  # the last resort: never a stack trace to the client (the server's log has it)
            logging.getLogger("keypeg.web").exception("internal error on %s %s", scope["method"], scope["path"])
            if started:  # the answer is under way: it can only be cut short
                raise
            failed = _error(500, "internal error; please report it", request=Request(scope, receive))
            await failed(scope, receive, dress)


def create_app(
    url: str | None = None, *, https: bool = False, trust_proxies: tuple[str, ...] = (), share: FairShare | None = None
) -> FastAPI:
    """The app, serving the store at ``url`` (the CLI's default when ``None``); ``X-Forwarded-For`` is
    believed only from the proxies ``trust_proxies`` names (addresses or networks); ``share`` counts the
    fair shares of the server (a new :class:`~keypeg.services.fair_share.FairShare` by default)."""
    from fastapi.staticfiles import StaticFiles
    from starlette.middleware.gzip import GZipMiddleware

    from keypeg.web import (
        accounts,
        analysis_api,
        analysis_pages,
        api,
        api_docs,
        daily,
        explore,
        fair_share,
        live,
        pages,
        play_pages,
        player_pages,
        records,
        rooms,
        rooms_api,
        watch,
    )

    app = FastAPI(
        title="keypeg",
        summary="Mastermind: play, solve and analyse.",
        version="1",
        docs_url=None,  # served below from the swagger-ui-bundle package, not from a CDN
        redoc_url=None,
    )
    app.openapi_version = "3.0.3"  # what the Swagger UI of swagger-ui-bundle renders
    app.state.store = open_store(url)
    app.state.https = https
    app.state.trusted_proxies = accounts.trusted_proxies(trust_proxies)
    app.state.fair_share = share if share is not None else FairShare()
    api_docs.mount_assets(app)
    app.include_router(api.router)
    app.include_router(accounts.router)
    app.include_router(records.router)
    app.include_router(daily.api)
    app.include_router(play_pages.router)
    app.include_router(daily.pages)
    app.include_router(live.api)
    app.include_router(live.pages)
    app.include_router(player_pages.router)
    app.include_router(analysis_api.router)
    app.include_router(analysis_pages.router)
    app.include_router(api_docs.router)
    app.include_router(explore.api)
    app.include_router(explore.pages)
    app.include_router(watch.api)
    app.include_router(watch.pages)
    app.include_router(rooms_api.api)
    app.include_router(rooms.pages)
    # style sheets and modules compressed (they hold no secret, so no BREACH); pages are not
    app.mount("/static", GZipMiddleware(StaticFiles(directory=pages.STATIC), minimum_size=1024), name="static")

    app.add_middleware(RequestBodyLimitMiddleware, max_body_size=WEB_BODY_LIMIT)  # a body sent past it: 413

    def dressed(request: Request, response: Response) -> Response:
        """``response`` with the security headers every answer carries."""
        if request.url.path == api_docs.TRY_PATH:
            response.headers.setdefault("Content-Security-Policy", api_docs.TRY_POLICY)
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if https:
            response.headers.setdefault("Strict-Transport-Security", HSTS)
        return response

    app.add_middleware(Dressed, https=https)  # every answer's security headers; a body declared too large: 413

    def beyond_share(request: Request, error: ThrottledError) -> Response:
        return dressed(request, _error(429, str(error), retry_after(error), request))

    app.add_middleware(fair_share.FairShareGate, refuse=beyond_share)  # outermost: refusals cost least

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        headers = getattr(error, "headers", None)
        if error.status_code == 405:  # every method the address takes, not only its first route's
            headers = {**(headers or {}), "Allow": ", ".join(_methods(request))}
        return _error(error.status_code, str(error.detail), headers, request)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', 'invalid')}" for e in error.errors()[:5]
        )
        return _error(422, f"bad request: {problems}", request=request)

    @app.exception_handler(KeypegError)
    async def refused(request: Request, error: KeypegError) -> Response:
        status = status_of(error)
        if status == 503:  # the server's trouble: its log has the details (a database's name, a path)
            logging.getLogger("keypeg.web").warning("unavailable on %s %s: %s", request.method, request.url.path, error)
            return _error(503, UNAVAILABLE, request=request)
        return _error(status, str(error), retry_after(error), request)

    return app


@asynccontextmanager
async def _kernels_loaded(app: FastAPI) -> AsyncIterator[None]:
    """Load the kernels (compile them on a first run) before the first request is answered: no visitor
    waits for them, and no analysis is cut short by them."""
    from keypeg.analysis.cost import load_kernels

    load_kernels()
    yield


def app_from_environment() -> FastAPI:
    """The app as ``keypeg serve`` starts it in each worker: the store from ``$KEYPEG_DB``, ``--https``
    from ``$KEYPEG_HTTPS``, the trusted proxies from ``$KEYPEG_TRUST_PROXY`` (comma-separated)."""
    app = create_app(
        os.environ.get("KEYPEG_DB"),
        https=os.environ.get("KEYPEG_HTTPS") == "1",
        trust_proxies=tuple(os.environ.get("KEYPEG_TRUST_PROXY", "").split(",")),
    )
    app.router.lifespan_context = _kernels_loaded  # the kernels loaded before the first request
    return app
