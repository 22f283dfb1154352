"""Players on the web: register, log in (failed attempts limited per name and per address, counted in
the store so the limit holds across workers), log out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import Field

from keypeg.store import InvalidNameError, name_key, player_name
from keypeg.web.api import ERRORS, RequestBody, SessionOut, changing
from keypeg.web.sessions import GUEST_PREFIX, WebSession, new_session, store_of

__all__ = [
    "router",
    "register_player",
    "check_login",
    "welcome",
    "LOGIN_WINDOW",
    "LOGIN_LIMIT_PER_NAME",
    "LOGIN_LIMIT_PER_ADDRESS",
]

router = APIRouter(prefix="/api", responses=ERRORS)

LOGIN_WINDOW = timedelta(minutes=15)
LOGIN_LIMIT_PER_NAME = 5
"""Failed logins on one name within :data:`LOGIN_WINDOW` before further attempts are refused (429)."""
LOGIN_LIMIT_PER_ADDRESS = 20


class Credentials(RequestBody):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1000)


def register_player(request: Request, name: str, password: str) -> str:
    """Register a new player with a password; the name as registered (409 when it is taken)."""
    store = store_of(request)
    name = player_name(name)
    if name_key(name).startswith(GUEST_PREFIX):
        raise InvalidNameError(f"names starting with {GUEST_PREFIX!r} are kept for guests")
    if store.players.registered(name) is not None:
        raise HTTPException(409, "that name is taken (names that look alike are one name)")
    store.players.set_password(name, password)
    return store.players.registered(name) or name


def check_login(request: Request, name: str, password: str) -> str:
    """The player ``name`` if ``password`` is theirs (401 otherwise; 429 after too many failures)."""
    store = store_of(request)
    try:
        key = f"name:{name_key(name)}"
    except InvalidNameError:
        raise HTTPException(401, "wrong name or password") from None
    address = f"address:{request.client.host if request.client else 'unknown'}"
    since = datetime.now(UTC) - LOGIN_WINDOW
    attempt = store.web_sessions.record_failure([key, address])  # counted first: attempts sent at once all count
    if store.web_sessions.failures([key], since) > LOGIN_LIMIT_PER_NAME or (
        store.web_sessions.failures([address], since) > LOGIN_LIMIT_PER_ADDRESS
    ):
        raise HTTPException(429, "too many failed logins: wait a few minutes")
    known = store.players.registered(name)
    if known is None or not store.players.has_password(known) or not store.players.check_password(known, password):
        raise HTTPException(401, "wrong name or password")
    store.web_sessions.forget_failures(attempt)
    return known


def welcome(request: Request, session: WebSession | None, player: str) -> None:
    """A guest who registers or logs in keeps the games they played as a guest."""
    if session is not None and session.player is not None and session.person is None:
        store_of(request).games.adopt(session.player, player)


@router.post("/players", status_code=201, response_model=SessionOut)
def register(
    request: Request, response: Response, body: Credentials, session: Annotated[WebSession, Depends(changing)]
) -> SessionOut:
    """Register a new player with a password, and log in as them (the games played as a guest are theirs)."""
    player = register_player(request, body.name, body.password)
    welcome(request, session, player)
    fresh = new_session(request, response, player)
    return SessionOut(player=fresh.person, csrf=fresh.csrf)


@router.post("/login", response_model=SessionOut)
def login(
    request: Request, response: Response, body: Credentials, session: Annotated[WebSession, Depends(changing)]
) -> SessionOut:
    """Log in: a new session (and a new CSRF token) for the player (the games played as a guest are theirs)."""
    player = check_login(request, body.name, body.password)
    welcome(request, session, player)
    fresh = new_session(request, response, player)
    return SessionOut(player=fresh.person, csrf=fresh.csrf)


@router.post("/logout", response_model=SessionOut)
def logout(request: Request, response: Response, session: Annotated[WebSession, Depends(changing)]) -> SessionOut:
    """Log out: a new guest session."""
    fresh = new_session(request, response)
    return SessionOut(player=None, csrf=fresh.csrf)
