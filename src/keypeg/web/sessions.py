"""Browser sessions: a random token in an HttpOnly, SameSite cookie (the store keeps only its hash),
a CSRF token per session, and the checks every state-changing request passes."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from fastapi import HTTPException, Request, Response

from keypeg.store import Store
from keypeg.store.names import GUEST_PREFIX

__all__ = [
    "COOKIE",
    "GUEST_PREFIX",
    "WebSession",
    "current",
    "open_session",
    "new_session",
    "check_origin",
    "check_origin_and_csrf",
    "store_of",
]

COOKIE = "keypeg_session"


@dataclass(frozen=True)
class WebSession:
    """Who is asking: the session's token hash, its CSRF token, and its player (a guest's, or ``None``)."""

    token_hash: str
    csrf: str
    player: str | None

    @property
    def person(self) -> str | None:
        """The logged-in player, ``None`` for a guest."""
        return None if self.player is None or self.player.startswith(GUEST_PREFIX) else self.player


def store_of(request: Request) -> Store:
    """The store the app serves."""
    store: Store = request.app.state.store
    return store


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def current(request: Request) -> WebSession | None:
    """The session the request's cookie names, if the store knows it."""
    token = request.cookies.get(COOKIE)
    if not token or len(token) > 128:
        return None
    found = store_of(request).web_sessions.get(_hash(token))
    return WebSession(_hash(token), found[0], found[1]) if found is not None else None


def open_session(request: Request, response: Response) -> WebSession:
    """The request's session, or a new one whose cookie is set on ``response``."""
    found = current(request)
    return found if found is not None else new_session(request, response)


def new_session(request: Request, response: Response, player: str | None = None) -> WebSession:
    """A fresh session (of ``player``, or a guest's), its cookie set on ``response``; the request's old
    session, if any, is forgotten (a new token at every login: no session fixation)."""
    store = store_of(request)
    old = current(request)
    if old is not None:
        store.web_sessions.drop(old.token_hash)
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    store.web_sessions.new(_hash(token), csrf)
    if player is not None:
        store.web_sessions.bind(_hash(token), player)
    secure = bool(request.app.state.https)
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax", secure=secure, path="/")
    return WebSession(_hash(token), csrf, player)


def check_origin(request: Request) -> None:
    """Refuse (403) a state-changing request from a foreign origin."""
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        ours = f"{request.url.scheme}://{request.url.netloc}"
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
