"""Players on the web: register, log in (failed attempts limited per name and per address: the rule is
:mod:`keypeg.services.accounts`'s), log out. Here are the routes, the cookies and the statuses."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import Field

from keypeg.errors import KeypegError
from keypeg.services import accounts
from keypeg.services.stores import WrongPasswordError
from keypeg.web.api import ERRORS, RequestBody, SessionOut, changing
from keypeg.web.errors import status_of
from keypeg.web.sessions import WebSession, new_session, store_of

__all__ = [
    "router",
    "register_player",
    "check_login",
    "welcome",
    "login_status",
]

router = APIRouter(prefix="/api", responses=ERRORS)


class Credentials(RequestBody):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1000)


def register_player(request: Request, name: str, password: str) -> str:
    """Register a new player with a password; the name as registered (409 when it is taken)."""
    return accounts.register(store_of(request), name, password)


def login_status(error: KeypegError) -> int:
    """The status of a login refused with ``error``: 401 for a wrong name or password, the app's
    ``STATUSES`` otherwise (429 for too many failed logins). A wrong password is of the forbidden kind
    (403 elsewhere), but a login that fails is "not authenticated", and the login routes have always
    answered 401: the clients written against them tell the two apart."""
    return 401 if isinstance(error, WrongPasswordError) else status_of(error)


def check_login(request: Request, name: str, password: str) -> str:
    """The player ``name`` if ``password`` is theirs (401 otherwise; 429 after too many failures)."""
    address = request.client.host if request.client else "unknown"
    try:
        return accounts.log_in(store_of(request), name, password, address)
    except WrongPasswordError as error:
        raise HTTPException(login_status(error), str(error)) from None


def welcome(request: Request, session: WebSession | None, player: str) -> None:
    """A guest who registers or logs in keeps the games they played as a guest."""
    accounts.welcome(store_of(request), session.player if session is not None else None, player)


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
