"""Web sessions' use cases: the session a token names, a new one (the old one forgotten: a new token at
every login), and a session handed to a player.

A session is named by a random token the browser keeps (in a cookie: the web's business); the store keeps
only the token's hash, and the session's CSRF token and player. A visitor who only looks (a public page,
``GET /api/session``) gets a *pending* session that the store does not keep: its token is signed with a
server key and carries when it was made, and its CSRF token is derived from it by HMAC, so forms work
without a row; the row is written when the session is first needed (a game, a guest's player).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
import weakref
from dataclasses import dataclass, replace

from keypeg.errors import UnavailableError
from keypeg.services.accounts import is_guest
from keypeg.services.stores import GUEST_PREFIX, Store
from keypeg.store import web_sessions as kept_sessions
from keypeg.store.web_sessions import FORGOTTEN

__all__ = ["WebSession", "bind", "find", "keep", "open_new", "open_pending", "player_for", "token_hash"]

TOKEN_LENGTH = 128
"""The longest token a session can have (a longer one names none, unlooked)."""
KEY_NAME = "web-sessions"
"""The server key pending sessions are signed with (and their CSRF tokens derived from)."""

_keys: weakref.WeakKeyDictionary[Store, bytes] = weakref.WeakKeyDictionary()
"""Each store's key, read once per process (a key never changes once made)."""


@dataclass(frozen=True)
class WebSession:
    """Who is asking: the session's token hash, its CSRF token, its player (a guest's, or ``None``), and
    whether the store keeps it yet (a pending session is kept on first need: :func:`keep`)."""

    token_hash: str
    csrf: str
    player: str | None
    kept: bool = True

    @property
    def person(self) -> str | None:
        """The logged-in player, ``None`` for a guest."""
        return None if self.player is None or is_guest(self.player) else self.player


def token_hash(token: str) -> str:
    """What the store keeps of a session's token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _mac(store: Store, purpose: str, text: str) -> str:
    """``text``'s HMAC for ``purpose`` under the store's server key, in 43 URL-safe characters."""
    key = _keys.get(store)
    if key is None:
        key = _keys[store] = store.keys.server_key(KEY_NAME)
    digest = hmac.new(key, f"{purpose}|{text}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def open_pending(store: Store) -> tuple[str, WebSession]:
    """A new guest's session that the store does not keep yet (:func:`keep` writes it on first need), and its
    token, to be handed to the browser: ``<when made>.<random>.<signature>``, its CSRF token derived from it.
    Once forgotten (a login, whether it was kept or not), the token names no session."""
    body = f"{int(time.time())}.{secrets.token_urlsafe(24)}"
    token = f"{body}.{_mac(store, 'token', body)}"
    return token, WebSession(token_hash(token), _mac(store, "csrf", token), None, kept=False)


def _signed(store: Store, token: str) -> WebSession | None:
    """The pending session ``token`` names, if the server signed it and it has not outlived a session's
    lifetime."""
    made = token.partition(".")[0]
    body, _, signature = token.rpartition(".")
    if not made.isdigit() or len(made) > 12 or not hmac.compare_digest(signature, _mac(store, "token", body)):
        return None
    if not 0 <= time.time() - int(made) <= kept_sessions.WEB_SESSION_LIFETIME.total_seconds():
        return None
    return WebSession(token_hash(token), _mac(store, "csrf", token), None, kept=False)


def find(store: Store, token: str | None) -> WebSession | None:
    """The session ``token`` names: the one the store keeps, or a pending one the server signed."""
    if not token or len(token) > TOKEN_LENGTH:
        return None
    found = store.web_sessions.get(token_hash(token))
    if found is not None:
        return WebSession(token_hash(token), found[0], found[1]) if found[0] != FORGOTTEN else None
    return _signed(store, token) if token.count(".") == 2 else None


def open_new(store: Store, player: str | None = None, *, old: WebSession | None = None) -> tuple[str, WebSession]:
    """A fresh session (of ``player``, or a guest's), kept, and its token, to be handed to the browser;
    ``old``, the asker's session until now, is forgotten for good, kept or pending (a new token at every
    login: no session fixation; a stream opened with the old one sees it gone)."""
    if old is not None:
        store.web_sessions.forget(old.token_hash)
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    store.web_sessions.new(token_hash(token), csrf)
    if player is not None:
        store.web_sessions.bind(token_hash(token), player)
    return token, WebSession(token_hash(token), csrf, player)


def keep(store: Store, session: WebSession) -> WebSession:
    """``session``, kept by the store from now on (a pending one is written, with the CSRF token its pages
    already carry)."""
    if session.kept:
        return session
    try:
        store.web_sessions.new(session.token_hash, session.csrf)
    except UnavailableError:
        if store.web_sessions.get(session.token_hash) is None:  # not written meanwhile by a request of its own
            raise
    return replace(session, kept=True)


def bind(store: Store, session: WebSession, player: str | None) -> WebSession:
    """``session`` made ``player``'s (``None``: a guest's again)."""
    session = keep(store, session)
    store.web_sessions.bind(session.token_hash, player)
    return replace(session, player=player)


def player_for(store: Store, session: WebSession) -> str:
    """``session``'s player; a guest gets a player of their own on their first game (kept with the
    session, so that their games follow them when they register or log in): one, whatever number of the
    session's requests ask at once."""
    if session.player is not None:
        return session.player
    kept = keep(store, session)
    return store.web_sessions.claim(kept.token_hash, f"{GUEST_PREFIX}{secrets.token_hex(6)}")
