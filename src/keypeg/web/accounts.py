"""Players on the web: register, log in (failed attempts limited per name and per address: the rule is
:mod:`keypeg.services.accounts`'s), log out. Here are the routes, the cookies and the statuses."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request, Response
from pydantic import Field

from keypeg.errors import KeypegError
from keypeg.services import accounts
from keypeg.services.stores import WrongPasswordError
from keypeg.web.api import ERRORS, RequestBody, SessionOut, changing
from keypeg.web.errors import status_of
from keypeg.web.live import bus_of, feed_of
from keypeg.web.sessions import WebSession, new_session, store_of

__all__ = [
    "router",
    "register_player",
    "check_login",
    "welcome",
    "login_status",
    "client_address",
    "trusted_proxies",
]

router = APIRouter(prefix="/api", responses=ERRORS)


class Credentials(RequestBody):
    name: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=1000)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_proxies(addresses: Iterable[str]) -> tuple[Network, ...]:
    """The proxies named with ``keypeg serve --trust-proxy`` (addresses, or networks such as
    ``10.0.0.0/8``); a :class:`ValueError` for one that is neither."""
    return tuple(ipaddress.ip_network(address.strip(), strict=False) for address in addresses if address.strip())


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def client_address(request: Request) -> str:
    """The client's address: the peer's, unless the peer is one of the proxies the app trusts
    (``app.state.trusted_proxies``): then the last address in ``X-Forwarded-For`` that is not a trusted
    proxy (the one the trusted chain received the request from). A forwarded address from anyone else
    is ignored, so that nobody can choose the address their failed logins are counted against."""
    peer = request.client.host if request.client else "unknown"
    trusted: tuple[Network, ...] = getattr(request.app.state, "trusted_proxies", ())

    def is_trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        return address is not None and any(address in network for network in trusted)

    if not trusted or not is_trusted(_address(peer)):
        return peer
    hops = [hop for header in request.headers.getlist("x-forwarded-for") for hop in header.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:  # a hop that is no address: nothing before it can be trusted
            return peer
        if not is_trusted(address):
            return str(address)
    return str(_address(hops[0])) if hops else peer


def register_player(request: Request, name: str, password: str) -> str:
    """Register a new player with a password; the name as registered (409 when it is taken, 400 for a
    password the rule refuses, 429 after too many registrations from the client's address)."""
    return accounts.register(store_of(request), name, password, client_address(request))


def login_status(error: KeypegError) -> int:
    """The status of a login refused with ``error``: 401 for a wrong name or password, the app's
    ``STATUSES`` otherwise (429 for too many failed logins). A wrong password is of the forbidden kind
    (403 elsewhere), but a login that fails is "not authenticated", and the login routes have always
    answered 401: the clients written against them tell the two apart."""
    return 401 if isinstance(error, WrongPasswordError) else status_of(error)


def check_login(request: Request, name: str, password: str) -> str:
    """The player ``name`` if ``password`` is theirs (401 otherwise; 429 after too many failures)."""
    try:
        return accounts.log_in(store_of(request), name, password, client_address(request))
    except WrongPasswordError as error:
        raise HTTPException(login_status(error), str(error)) from None


def welcome(request: Request, session: WebSession | None, player: str) -> None:
    """A guest who registers or logs in keeps the games they played as a guest, and their seats."""
    previous = session.player if session is not None else None
    accounts.welcome(store_of(request), previous, player, feed_of(request), bus_of(request))


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
