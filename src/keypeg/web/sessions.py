"""Browser sessions: a token in an HttpOnly, SameSite cookie (the store keeps only its hash), a CSRF token
per session, and the checks every state-changing request passes. A first visit gets a pending session,
which writes nothing until it is needed (a game): looking at public pages keeps no row. The sessions
themselves are :mod:`keypeg.services.web_sessions`'s; here are the cookie and the checks."""

from __future__ import annotations

import hmac
from collections.abc import Callable
from urllib.parse import urlsplit

from fastapi import HTTPException, Request, Response

from keypeg.errors import UnavailableError
from keypeg.services import web_sessions
from keypeg.services.stores import GUEST_PREFIX, Store
from keypeg.services.web_sessions import WebSession, find, open_new, open_pending

__all__ = [
    "player_for",
    "COOKIE",
    "GUEST_PREFIX",
    "WebSession",
    "current",
    "still_current",
    "open_session",
    "new_session",
    "check_origin",
    "check_origin_and_csrf",
    "store_of",
]

COOKIE = "keypeg_session"


def store_of(request: Request) -> Store:
    """The store the app serves."""
    store: Store = request.app.state.store
    return store


def player_for(request: Request, session: WebSession) -> str:
    """The session's player; a guest gets a player of their own on their first game."""
    return web_sessions.player_for(store_of(request), session)


def current(request: Request) -> WebSession | None:
    """The session the request's cookie names, if the store knows it."""
    return find(store_of(request), request.cookies.get(COOKIE))


def still_current(request: Request, session: WebSession) -> Callable[[], bool]:
    """Whether the request's cookie still names ``session``, of the same player (call later, in a thread: a
    stream checks that the session it began with was not logged out or replaced by a login since). A
    store that is down answers ``True``: the stream's own reads meet that."""
    store, token = store_of(request), request.cookies.get(COOKIE)

    def holds() -> bool:
        try:
            found = find(store, token)
        except UnavailableError:
            return True
        return found is not None and found.player == session.player

    return holds


def open_session(request: Request, response: Response) -> WebSession:
    """The request's session, or a new pending one (kept by the store only once needed) whose cookie is set
    on ``response``."""
    found = current(request)
    if found is not None:
        return found
    token, session = open_pending(store_of(request))
    _set_cookie(request, response, token)
    return session


def new_session(request: Request, response: Response, player: str | None = None) -> WebSession:
    """A fresh session (of ``player``, or a guest's), its cookie set on ``response``; the request's old
    session, if any, is forgotten (a new token at every login: no session fixation)."""
    token, session = open_new(store_of(request), player, old=current(request))
    _set_cookie(request, response, token)
    return session


def _set_cookie(request: Request, response: Response, token: str) -> None:
    secure = bool(request.app.state.https)
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax", secure=secure, path="/")


def check_origin(request: Request) -> None:
    """Refuse (403) a state-changing request from a foreign origin."""
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        scheme = "https" if request.app.state.https else request.url.scheme  # --https: behind a TLS proxy
        ours = f"{scheme}://{request.url.netloc}"
        parts = urlsplit(origin)
        if f"{parts.scheme}://{parts.netloc}" != ours:
            raise HTTPException(403, "requests from another site are refused")
    elif origin == "null":
        raise HTTPException(403, "requests from another site are refused")


def check_origin_and_csrf(request: Request, session: WebSession) -> None:
    """Refuse (403) a state-changing request from a foreign origin or without the session's CSRF token."""
    check_origin(request)
    given = request.headers.get("x-csrf-token", "")
    if not hmac.compare_digest(given.encode(), session.csrf.encode()):
        raise HTTPException(403, "the X-CSRF-Token header must carry this session's token (GET /api/session)")
