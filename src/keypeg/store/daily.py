"""Daily puzzles: the games of a puzzle, and how a player's attempts went."""

from __future__ import annotations

from sqlalchemy import select

from keypeg.store.models import GameRow
from keypeg.store.plumbing import Repository, find_player, game_records, player_row
from keypeg.store.values import GameRecord

__all__ = ["DailyGames"]


class DailyGames(Repository):
    """The daily puzzles' games (a game is a puzzle's by its ``daily`` name, ``YYYY-MM-DD preset``)."""

    def games(self, daily: str, player: str | None = None) -> list[GameRecord]:
        """The games of the ``daily`` puzzle (``YYYY-MM-DD preset``), or ``player``'s only, oldest first."""

        def work() -> list[GameRecord]:
            with self._session() as session:
                query = select(GameRow).where(GameRow.daily == daily).order_by(GameRow.id)
                if player is not None:
                    query = query.where(GameRow.player_id == player_row(session, player, create=True).id)
                return game_records(session, session.scalars(query))

        return self._guarded(work)

    def results(self, player: str, suffix: str) -> dict[str, str | None]:
        """``player``'s attempts at the puzzles whose name ends in `` suffix`` (a preset): each puzzle's
        name and its attempt's outcome (``None``: not finished)."""

        def work() -> dict[str, str | None]:
            with self._session() as session:
                row = find_player(session, player)
                if row is None:
                    return {}
                query = select(GameRow.daily, GameRow.outcome).where(
                    GameRow.player_id == row.id, GameRow.daily.like(f"% {suffix}")
                )
                return {daily: outcome for daily, outcome in session.execute(query) if daily is not None}

        return self._guarded(work)
