"""Records' use cases: a player's history and stats, a game's top 10, a player looked up by name, and one
stored game read back.

Read only: each is one load from the store, the same for the terminal and the web.
"""

from __future__ import annotations

from keypeg.rules import Rules
from keypeg.services.stores import GameRecord, PlayerStats, Ranking, Store

__all__ = ["game", "history", "registered", "stats", "top"]


def registered(store: Store, name: str) -> str:
    """The name ``name`` is registered under (``Ann`` for ``ANN``), or ``name`` itself when nobody is."""
    return store.players.registered(name) or name


def history(
    store: Store,
    player: str | None = None,
    *,
    limit: int | None = 20,
    with_moves: bool = False,
    made: bool = False,
) -> list[GameRecord]:
    """The latest games, newest first: ``player``'s (everyone's when ``None``), with ``made`` the games
    whose code they set for another person too, at most ``limit`` (``None``: all), with their moves when
    ``with_moves`` (a game in progress never shows its secret)."""
    return store.games.history(player, limit=limit, with_moves=with_moves, made=made)


def top(store: Store, rules: Rules) -> list[Ranking]:
    """The top 10 players of the game of ``rules`` (rated games only)."""
    return store.records.top(rules)


def stats(store: Store, player: str, rules: Rules | None = None) -> PlayerStats:
    """``player``'s record as codebreaker, of the game of ``rules`` only when given."""
    return store.records.stats(player, rules=rules)


def game(store: Store, game_id: int) -> GameRecord:
    """The stored game ``game_id``, with its moves (its secret only once it has ended)."""
    return store.games.record(game_id)
