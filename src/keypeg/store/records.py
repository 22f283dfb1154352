"""Records: the leaderboard of a game and a player's statistics, read from the games played."""

from __future__ import annotations

from sqlalchemy import case, func, select

from keypeg.limits import MIN_RANKED_GAMES, TOP_SIZE
from keypeg.rules import Rules
from keypeg.store.games import Games
from keypeg.store.models import GameRow, PlayerRow
from keypeg.store.names import GUEST_PREFIX
from keypeg.store.plumbing import Plumbing, Repository
from keypeg.store.values import GameRecord, PlayerStats, Ranking

__all__ = ["Records"]


class Records(Repository):
    """The leaderboards and the players' statistics (reads only)."""

    def __init__(self, plumbing: Plumbing, games: Games) -> None:
        super().__init__(plumbing)
        self._games = games

    def top(self, rules: Rules, *, limit: int = TOP_SIZE, minimum: int = MIN_RANKED_GAMES) -> list[Ranking]:
        """The leaderboard of a game (its pegs, colours, repeats, blanks and row limit): the players with at
        least ``minimum`` rated games, by average guesses, a game lost, resigned or unfinished counted as
        the row limit plus one; ties go to the player with more rated games, then to the one whose latest
        rated game came first. A rated game counts from its first guess (before it, nothing of the secret
        is known); practice games and guests never count."""
        score = case((GameRow.outcome == "solved", GameRow.guesses), else_=GameRow.rows + 1)  # GameRecord.score
        games, average, last = func.count(GameRow.id), func.avg(score), func.max(GameRow.started_at)

        def work() -> list[Ranking]:
            with self._session() as session:
                query = (
                    select(PlayerRow.name, games, average, func.min(score), last)
                    .join(GameRow, GameRow.player_id == PlayerRow.id)
                    .where(
                        GameRow.rated.is_(True),
                        GameRow.guesses > 0,  # a rated game counts from its first guess
                        GameRow.role == "breaker",
                        PlayerRow.key.not_like(f"{GUEST_PREFIX}%"),  # a guest can be new at will: never ranked
                        GameRow.variant == rules.slug,
                        GameRow.rows == rules.rows,
                    )
                    .group_by(PlayerRow.id, PlayerRow.name)
                    .having(games >= minimum)
                    .order_by(average, games.desc(), last, PlayerRow.id)
                    .limit(limit)
                )
                return [
                    Ranking(rank, name, int(count), float(mean), int(best), when)
                    for rank, (name, count, mean, best, when) in enumerate(session.execute(query), 1)
                ]

        return self._guarded(work)

    def stats(self, player: str, *, rules: Rules | None = None) -> PlayerStats:
        """A player's finished games as codebreaker (of one game and row limit, when ``rules`` are given):
        count, wins, average/best/worst guesses of the wins, the average with losses counted as the row
        limit plus one, breakdowns by variant and row limit and by level, and the trend."""
        games = [
            g
            for g in reversed(self._games.history(player, limit=None, rules=rules))
            if g.role == "breaker" and g.outcome is not None
        ]
        wins = [g for g in games if g.outcome == "solved"]

        def summary(group: list[GameRecord]) -> tuple[int, int, float | None]:
            won = [g.guesses for g in group if g.outcome == "solved"]
            return len(group), len(won), (sum(won) / len(won) if won else None)

        by_variant: dict[str, list[GameRecord]] = {}
        by_level: dict[str, list[GameRecord]] = {}
        for g in games:
            by_variant.setdefault(g.variant, []).append(g)
            by_level.setdefault(str(g.level) if g.level is not None else "-", []).append(g)
        return PlayerStats(
            games=len(games),
            wins=len(wins),
            average=sum(g.guesses for g in wins) / len(wins) if wins else None,
            best=min((g.guesses for g in wins), default=None),
            worst=max((g.guesses for g in wins), default=None),
            by_variant={k: summary(v) for k, v in sorted(by_variant.items())},
            by_level={k: summary(v) for k, v in sorted(by_level.items())},
            trend=[g.score or 0 for g in games],
            score=sum(g.score or 0 for g in games) / len(games) if games else None,
        )
