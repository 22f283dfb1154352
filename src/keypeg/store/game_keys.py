"""Idempotency keys of games: a game started with a key is found again by its player and that key for
:data:`KEY_LIFE`, so a request retried (its answer lost) does not start a second game. The key is
written in the transaction that writes the game; keys older than :data:`KEY_LIFE` are pruned as keys
are written."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from keypeg.errors import ConflictError
from keypeg.store.errors import StoreError
from keypeg.store.models import GameKeyRow, GameRow
from keypeg.store.plumbing import find_player, now

__all__ = ["KEY_LIFE", "KeyedGame", "KeyTakenError", "find_keyed", "remember_key"]

KEY_LIFE = timedelta(hours=24)
"""How long a key finds its game."""


class KeyTakenError(StoreError, ConflictError):
    """Another request of the player's started a game with the same key at the same moment."""


@dataclass(frozen=True)
class KeyedGame:
    """The game a player started with a key: its id, public id, and the digest of the request."""

    game_id: int
    public_id: str
    request: str


def remember_key(session: Session, player_id: int, key: str, request: str, game_id: int) -> None:
    """Record ``key`` for the game ``game_id`` in the session's transaction, pruning expired keys first;
    :class:`KeyTakenError` when the player's key is taken."""
    session.execute(delete(GameKeyRow).where(GameKeyRow.created_at < now() - KEY_LIFE))
    session.add(GameKeyRow(player_id=player_id, key=key, request=request, game_id=game_id, created_at=now()))
    try:
        session.flush()
    except IntegrityError:
        raise KeyTakenError("a game was started with this key at the same moment") from None


def find_keyed(session: Session, player: str, key: str) -> KeyedGame | None:
    """The game ``player`` started with ``key`` less than :data:`KEY_LIFE` ago, if any."""
    owner = find_player(session, player)
    if owner is None:
        return None
    found = session.execute(
        select(GameKeyRow.game_id, GameRow.public_id, GameKeyRow.request)
        .join(GameRow, GameRow.id == GameKeyRow.game_id)
        .where(GameKeyRow.player_id == owner.id, GameKeyRow.key == key, GameKeyRow.created_at >= now() - KEY_LIFE)
    ).first()
    return KeyedGame(int(found[0]), str(found[1]), str(found[2])) if found is not None else None
