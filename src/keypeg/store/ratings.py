"""Ratings: the rated results (a live match, a room, a solo game seeding a new player), each player's
rating before and after each, and every player's current rating.

The arithmetic is not here (it is :mod:`keypeg.play.ratings`'s, called by the services): :meth:`Ratings.write`
hands the result's players and their current standings to a function and writes what it returns, with the
result, in one transaction. Rating writes are taken one at a time (SQLite's write lock; a transaction-wide
advisory lock on PostgreSQL), so results are numbered in the order their ratings were computed, and
replaying them in that order gives the same values.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import desc, func, or_, select, text
from sqlalchemy.orm import Session

from keypeg.store.models import PlayerRatingRow, PlayerRow, RatingChangeRow, RatingResultRow
from keypeg.store.names import GUEST_PREFIX
from keypeg.store.plumbing import Repository, find_player, player_row
from keypeg.store.values import aware

__all__ = ["RatingChangeRecord", "RatingValue", "Ratings", "ResultRecord", "Standing"]

LOCK = 30_0012
"""The PostgreSQL advisory lock rating writes take (any number: the same for every writer)."""

Entry = int | str
"""A place's member as stored: a player's id, or a fixed rating's label (a computer's level, ``level 3``)."""


@dataclass(frozen=True)
class RatingValue:
    """A rating, its deviation and volatility (Glicko's scale)."""

    rating: float
    rd: float
    volatility: float


@dataclass(frozen=True)
class Standing:
    """A player's rating now: the value, how many rated results it rests on, and the last one's time."""

    player: str
    value: RatingValue
    results: int
    last: datetime | None
    people: int = 0
    """How many of those results were against people (not a seeding game against the computer)."""


@dataclass(frozen=True)
class RatingChangeRecord:
    """A player's rating before a result (idleness applied) and after it."""

    player: str
    kind: str
    event_id: str
    at: datetime
    before: RatingValue
    after: RatingValue


@dataclass(frozen=True)
class ResultRecord:
    """A stored result: its places (players' ids, or fixed ratings' labels), the names of the players, the
    fixed ratings used, and the changes by player id."""

    id: int
    kind: str
    event_id: str
    at: datetime
    places: list[list[Entry]]
    names: dict[int, str]
    fixed: dict[str, RatingValue]
    changes: dict[int, tuple[RatingValue, RatingValue]]
    unrated: list[int] = field(default_factory=list)
    """Players met at their rating but not rated (a player the host removed)."""
    left_out: list[tuple[Entry, Entry]] = field(default_factory=list)
    """Pairs of the places whose result was not rated."""

    def pairs(self) -> set[frozenset[int]]:
        """The pairs of players (ids) whose result counted: both players, not left out."""
        ids = [e for place in self.places for e in place if isinstance(e, int)]
        out = {frozenset(p) for p in self.left_out}
        return {frozenset((a, b)) for i, a in enumerate(ids) for b in ids[i + 1 :] if frozenset((a, b)) not in out}


Changes = Mapping[int, tuple[RatingValue, RatingValue, int, datetime]]
Rate = Callable[
    [list[list[Entry]], dict[int, Standing], list[int], list[tuple[Entry, Entry]], dict[frozenset[int], int]],
    tuple[Changes, list[tuple[Entry, Entry]]],
]
"""What computes a result: from its places, the current standings of its players (by id; a new player is
missing), the players not rated, the pairs left out, and how many results since ``shared_since`` counted
each pair of its players: each rated player's rating before the result, after it, their rated results and
the last one's time; and the pairs it leaves out besides."""


def _value(rating: float, rd: float, volatility: float) -> RatingValue:
    return RatingValue(float(rating), float(rd), float(volatility))


class Ratings(Repository):
    """Rated results and the players' current ratings."""

    def write(
        self,
        kind: str,
        event_id: str,
        at: datetime,
        places: Sequence[Sequence[str]],
        rate: Rate,
        *,
        fixed: Mapping[str, RatingValue] | None = None,
        unrated: Sequence[str] = (),
        left_out: Sequence[tuple[str, str]] = (),
        shared_since: datetime | None = None,
    ) -> tuple[ResultRecord, bool]:
        """Record the result of event ``(kind, event_id)`` whose ``places`` group the players' names (and
        the labels of ``fixed`` ratings) by final place, best first; the ratings are what ``rate`` makes of
        the players' current standings. Idempotent: an event recorded already is returned as it was, with
        ``False`` (nothing written). ``unrated`` players are met, not rated; the pairs ``left_out`` and those
        ``rate`` leaves out are stored with the result (a replay gives the same values)."""
        fixed = dict(fixed or {})

        def work() -> tuple[ResultRecord, bool]:
            with self._session() as session:
                if session.get_bind().dialect.name == "postgresql":
                    session.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": LOCK})
                found = self._find(session, kind, event_id)
                if found is not None:
                    return _record(session, found), False
                names: dict[int, str] = {}
                stored: list[list[Entry]] = []
                for place in places:
                    entries: list[Entry] = []
                    for name in place:
                        if name in fixed:
                            entries.append(name)
                        else:
                            row = player_row(session, name, create=True)
                            names[row.id] = row.name
                            entries.append(row.id)
                    stored.append(entries)
                current = {
                    row.player_id: _standing(names[row.player_id], row)
                    for row in session.scalars(select(PlayerRatingRow).where(PlayerRatingRow.player_id.in_(names)))
                }
                ids = {row_name: pid for pid, row_name in names.items()}

                def entry(name: str) -> Entry:
                    return name if name in fixed else ids.get(name, player_row(session, name, create=False).id)

                out: list[tuple[Entry, Entry]] = [(entry(a), entry(b)) for a, b in left_out]
                shared = self._shared(session, list(names), shared_since, at) if shared_since is not None else {}
                kept = [int(entry(n)) for n in unrated]
                changes, more = rate(stored, current, kept, out, shared)
                out += more
                layout: object = stored
                if kept or out:
                    layout = {"places": stored, "unrated": kept, "left_out": out}
                result = RatingResultRow(
                    kind=kind,
                    event_id=event_id,
                    at=at,
                    places=json.dumps(layout),
                    fixed=json.dumps({k: [v.rating, v.rd, v.volatility] for k, v in fixed.items()}) if fixed else None,
                )
                session.add(result)
                session.flush()
                for player_id, (before, after, count, last) in changes.items():
                    session.add(
                        RatingChangeRow(
                            result_id=result.id,
                            player_id=player_id,
                            rating_before=before.rating,
                            rd_before=before.rd,
                            volatility_before=before.volatility,
                            rating_after=after.rating,
                            rd_after=after.rd,
                            volatility_after=after.volatility,
                        )
                    )
                    now_row = session.get(PlayerRatingRow, player_id)
                    if now_row is None:
                        now_row = PlayerRatingRow(player_id=player_id)
                        session.add(now_row)
                    now_row.rating, now_row.rd, now_row.volatility = after.rating, after.rd, after.volatility
                    now_row.results, now_row.last_at = count, last
                session.flush()
                return _record(session, result), True

        return self._guarded(work)

    @staticmethod
    def _shared(session: Session, ids: list[int], since: datetime, until: datetime) -> dict[frozenset[int], int]:
        """How many results from ``since`` to ``until`` (stored before this one) counted each pair of ``ids``."""
        query = (
            select(RatingResultRow)
            .join(RatingChangeRow, RatingChangeRow.result_id == RatingResultRow.id)
            .where(RatingChangeRow.player_id.in_(ids), RatingResultRow.at >= since, RatingResultRow.at <= until)
            .distinct()
        )
        mine = set(ids)
        shared: dict[frozenset[int], int] = {}
        for row in session.scalars(query):
            for pair in _record(session, row, [], {}).pairs():
                if pair <= mine:
                    shared[pair] = shared.get(pair, 0) + 1
        return shared

    @staticmethod
    def _find(session: Session, kind: str, event_id: str) -> RatingResultRow | None:
        return session.scalar(
            select(RatingResultRow).where(RatingResultRow.kind == kind, RatingResultRow.event_id == event_id)
        )

    def get(self, kind: str, event_id: str) -> ResultRecord | None:
        """The result of event ``(kind, event_id)``, if it was recorded."""

        def work() -> ResultRecord | None:
            with self._session() as session:
                found = self._find(session, kind, event_id)
                return _record(session, found) if found is not None else None

        return self._guarded(work)

    def results(self) -> list[ResultRecord]:
        """Every stored result, in the order they were rated."""

        def work() -> list[ResultRecord]:
            with self._session() as session:
                rows = list(session.scalars(select(RatingResultRow).order_by(RatingResultRow.id)))
                changes: dict[int, list[RatingChangeRow]] = {}
                for change in session.scalars(select(RatingChangeRow)):
                    changes.setdefault(change.result_id, []).append(change)
                names: dict[int, str] = {}
                return [_record(session, row, changes.get(row.id, []), names) for row in rows]

        return self._guarded(work)

    def standing(self, player: str) -> Standing | None:
        """``player``'s current rating (``None`` before their first rated result)."""

        def work() -> Standing | None:
            with self._session() as session:
                found = find_player(session, player)
                row = session.get(PlayerRatingRow, found.id) if found is not None else None
                if found is None or row is None:
                    return None
                return _standing(found.name, row, _people(session, [found.id]).get(found.id, 0))

        return self._guarded(work)

    def standings(self) -> list[Standing]:
        """Every rated player's current rating (guests never have one), best first."""

        def work() -> list[Standing]:
            with self._session() as session:
                query = (
                    select(PlayerRow.name, PlayerRatingRow)
                    .join(PlayerRatingRow, PlayerRatingRow.player_id == PlayerRow.id)
                    .where(or_(PlayerRow.key.is_(None), PlayerRow.key.not_like(f"{GUEST_PREFIX}%")))
                    .order_by(desc(PlayerRatingRow.rating), PlayerRow.id)
                )
                found = list(session.execute(query))
                people = _people(session, [row.player_id for _, row in found])
                return [_standing(name, row, people.get(row.player_id, 0)) for name, row in found]

        return self._guarded(work)

    def changes(self, player: str, *, limit: int | None = 20) -> list[RatingChangeRecord]:
        """``player``'s rating changes, newest first (at most ``limit``; ``None``: all)."""

        def work() -> list[RatingChangeRecord]:
            with self._session() as session:
                found = find_player(session, player)
                if found is None:
                    return []
                query = (
                    select(RatingChangeRow, RatingResultRow)
                    .join(RatingResultRow, RatingResultRow.id == RatingChangeRow.result_id)
                    .where(RatingChangeRow.player_id == found.id)
                    .order_by(desc(RatingResultRow.id))
                    .limit(limit)
                )
                return [
                    RatingChangeRecord(
                        found.name,
                        result.kind,
                        result.event_id,
                        aware(result.at),
                        _value(change.rating_before, change.rd_before, change.volatility_before),
                        _value(change.rating_after, change.rd_after, change.volatility_after),
                    )
                    for change, result in session.execute(query)
                ]

        return self._guarded(work)

    def counted(self, player: str, kind: str) -> list[str]:
        """The event ids of ``player``'s results of ``kind``, oldest first."""

        def work() -> list[str]:
            with self._session() as session:
                found = find_player(session, player)
                if found is None:
                    return []
                query = (
                    select(RatingResultRow.event_id)
                    .join(RatingChangeRow, RatingChangeRow.result_id == RatingResultRow.id)
                    .where(RatingChangeRow.player_id == found.id, RatingResultRow.kind == kind)
                    .order_by(RatingResultRow.id)
                )
                return list(session.scalars(query))

        return self._guarded(work)

    def count(self) -> int:
        """How many results are stored."""

        def work() -> int:
            with self._session() as session:
                return int(session.scalar(select(func.count(RatingResultRow.id))) or 0)

        return self._guarded(work)


def _standing(name: str, row: PlayerRatingRow, people: int = 0) -> Standing:
    return Standing(name, _value(row.rating, row.rd, row.volatility), row.results, aware(row.last_at), people)


def _people(session: Session, ids: list[int]) -> dict[int, int]:
    """How many rated results against people (not seeding games: ``solo``) each of ``ids`` has."""
    if not ids:
        return {}
    query = (
        select(RatingChangeRow.player_id, func.count())
        .join(RatingResultRow, RatingResultRow.id == RatingChangeRow.result_id)
        .where(RatingChangeRow.player_id.in_(ids), RatingResultRow.kind != "solo")
        .group_by(RatingChangeRow.player_id)
    )
    return {int(pid): int(n) for pid, n in session.execute(query)}


def _record(
    session: Session,
    row: RatingResultRow,
    change_rows: Sequence[RatingChangeRow] | None = None,
    names: dict[int, str] | None = None,
) -> ResultRecord:
    if change_rows is None:
        change_rows = list(session.scalars(select(RatingChangeRow).where(RatingChangeRow.result_id == row.id)))
    layout = json.loads(row.places)
    if isinstance(layout, list):
        layout = {"places": layout}
    places: list[list[Entry]] = [[e if isinstance(e, str) else int(e) for e in place] for place in layout["places"]]
    unrated = [int(e) for e in layout.get("unrated", [])]
    left_out = [(_entry(a), _entry(b)) for a, b in layout.get("left_out", [])]
    known = names if names is not None else {}
    shown: dict[int, str] = {}
    for place in places:
        for entry in place:
            if isinstance(entry, int):
                if entry not in known:
                    player = session.get(PlayerRow, entry)
                    known[entry] = player.name if player is not None else f"#{entry}"
                shown[entry] = known[entry]
    fixed = {k: _value(*v) for k, v in json.loads(row.fixed).items()} if row.fixed else {}
    changes = {
        c.player_id: (
            _value(c.rating_before, c.rd_before, c.volatility_before),
            _value(c.rating_after, c.rd_after, c.volatility_after),
        )
        for c in change_rows
    }
    return ResultRecord(row.id, row.kind, row.event_id, aware(row.at), places, shown, fixed, changes, unrated, left_out)


def _entry(value: object) -> Entry:
    return value if isinstance(value, str) else int(value)  # type: ignore[call-overload]
