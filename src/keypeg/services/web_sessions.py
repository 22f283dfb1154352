"""Web sessions' use cases: the session a token names, a new one (the old one forgotten: a new token at
every login), and a session handed to a player.

A session is named by a random token the browser keeps (in a cookie: the web's business); the store keeps
only the token's hash, and the session's CSRF token and player.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from keypeg.services.accounts import is_guest
from keypeg.services.stores import GUEST_PREFIX, Store

__all__ = ["WebSession", "bind", "find", "open_new", "player_for", "token_hash"]

TOKEN_LENGTH = 128
"""The longest token a session can have (a longer one names none, unlooked)."""


@dataclass(frozen=True)
class WebSession:
    """Who is asking: the session's token hash, its CSRF token, and its player (a guest's, or ``None``)."""

    token_hash: str
    csrf: str
    player: str | None

    @property
    def person(self) -> str | None:
        """The logged-in player, ``None`` for a guest."""
        return None if self.player is None or is_guest(self.player) else self.player


def token_hash(token: str) -> str:
    """What the store keeps of a session's token."""
    return hashlib.sha256(token.encode()).hexdigest()


def find(store: Store, token: str | None) -> WebSession | None:
    """The session ``token`` names, if the store knows it."""
    if not token or len(token) > TOKEN_LENGTH:
        return None
    found = store.web_sessions.get(token_hash(token))
    return WebSession(token_hash(token), found[0], found[1]) if found is not None else None


def open_new(store: Store, player: str | None = None, *, old: WebSession | None = None) -> tuple[str, WebSession]:
    """A fresh session (of ``player``, or a guest's) and its token, to be handed to the browser; ``old``,
    the asker's session until now, is forgotten (a new token at every login: no session fixation)."""
    if old is not None:
        store.web_sessions.drop(old.token_hash)
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    store.web_sessions.new(token_hash(token), csrf)
    if player is not None:
        store.web_sessions.bind(token_hash(token), player)
    return token, WebSession(token_hash(token), csrf, player)


def bind(store: Store, session: WebSession, player: str | None) -> WebSession:
    """``session`` made ``player``'s (``None``: a guest's again)."""
    store.web_sessions.bind(session.token_hash, player)
    return WebSession(session.token_hash, session.csrf, player)


def player_for(store: Store, session: WebSession) -> str:
    """``session``'s player; a guest gets a player of their own on their first game (kept with the
    session, so that their games follow them when they register or log in)."""
    if session.player is not None:
        return session.player
    guest = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
    store.web_sessions.bind(session.token_hash, guest)
    return guest
