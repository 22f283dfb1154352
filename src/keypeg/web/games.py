"""Who plays a web request's games: the session's player, or a guest player made on the first game.

The games and matches themselves are the use cases of :mod:`keypeg.services.games` and
:mod:`keypeg.services.matches`; the web keeps no game in memory between requests.
"""

from __future__ import annotations

import secrets

from fastapi import Request

from keypeg.web.sessions import GUEST_PREFIX, WebSession, store_of

__all__ = ["player_for"]


def player_for(request: Request, session: WebSession) -> str:
    """The session's player; a guest gets a player of their own on their first game."""
    if session.player is not None:
        return session.player
    guest = f"{GUEST_PREFIX}{secrets.token_hex(6)}"
    store_of(request).web_sessions.bind(session.token_hash, guest)
    return guest
