"""What every repository shares: one transaction per call, database failures turned into
:class:`~keypeg.store.errors.StoreError`, the time, and the row helpers (a player by name, stored games as
:class:`~keypeg.store.values.GameRecord`)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import Engine, event, select
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.exc import DatabaseError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from keypeg.code import Feedback
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.store.errors import DamagedRecordError, StoreUnavailableError, UnknownRecordError
from keypeg.store.models import GameRow, PlayerRow, RoomGameRow, RoomRow
from keypeg.store.names import name_key, player_name
from keypeg.store.values import GameRecord, MoveRecord
from keypeg.text import visible

__all__ = ["BUSY_RETRIES", "Plumbing", "Repository", "find_player", "game_records", "now", "player_row", "rules_of"]

T = TypeVar("T")
BUSY_RETRIES = 5


def now() -> datetime:
    """The time now, in UTC (every time the store writes)."""
    return datetime.now(UTC)


class Plumbing:
    """An engine's transactions, each run under :meth:`guarded` (one per :class:`~keypeg.store.Store`)."""

    def __init__(self, engine: Engine, shown_url: str) -> None:
        self.engine = engine
        self.shown_url = shown_url
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        if not _in_memory(engine):  # a memory database lives in its one connection: never discarded
            event.listen(engine, "handle_error", _discard_bad_connection)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction, committed when the block ends (rolled back if it raises)."""
        with self._sessions.begin() as session:
            yield session

    def guarded(self, work: Callable[[], T]) -> T:
        """Run ``work``, retrying while SQLite is busy, turning database failures into :class:`StoreError`."""
        shown = self.shown_url
        for attempt in range(BUSY_RETRIES):
            try:
                return work()
            except OperationalError as error:
                text = str(error.orig)
                if "locked" in text or "busy" in text:
                    if attempt + 1 < BUSY_RETRIES:
                        time.sleep(0.2 * (attempt + 1))
                        continue
                    raise StoreUnavailableError(f"the database {shown!r} stays locked by another program") from None
                raise StoreUnavailableError(f"cannot use the database {shown!r}: {text}") from None
            except DatabaseError as error:
                raise StoreUnavailableError(f"cannot use the database {shown!r}: {error.orig}") from None
            except SQLAlchemyError as error:
                reason = getattr(error, "orig", None) or type(error).__name__  # never the statement or its values
                raise StoreUnavailableError(f"database error on {shown!r}: {reason}") from None
            except (ValueError, TypeError, OverflowError) as error:  # a value that cannot be what keypeg wrote
                if isinstance(error, KeypegError) and not isinstance(error, DamagedRecordError):
                    raise
                found = f"{type(error).__name__}: {visible(error, 200)}"
                raise StoreUnavailableError(f"the database {shown!r} holds damaged data ({found})") from None
        raise AssertionError("unreachable")  # pragma: no cover


def _in_memory(engine: Engine) -> bool:
    database = engine.url.database or ""
    return engine.dialect.name == "sqlite" and (database in ("", ":memory:") or "mode=memory" in database)


KEPT_STATES = ("40", "55P03", "57014")
"""PostgreSQL's errors that leave the connection sound: a transaction rolled back (serialization,
deadlock), a lock not available, a statement cancelled."""


def _discard_bad_connection(context: ExceptionContext) -> None:
    """A database error that may have come from the connection itself (SQLite's handle opened while the
    file was read-only, a disk error, a PostgreSQL session in a bad state) discards that connection and,
    on SQLite, every pooled one opened before it: the next transaction gets a fresh one, so the store
    recovers by itself once the cause goes away (the pool kept read-only handles for good before).
    Busy or locked, a constraint, bad data or SQL: the connection is sound and kept."""
    error = context.original_exception
    if context.is_disconnect or context.is_pre_ping or not isinstance(error, Exception):
        return  # SQLAlchemy already discards it (and the pool's older ones)
    kinds = {kind.__name__ for kind in type(error).__mro__}  # the driver's (PEP 249) kinds, by name
    if not kinds & {"OperationalError", "InterfaceError", "InternalError"} and type(error).__name__ != "DatabaseError":
        return  # IntegrityError, DataError, ProgrammingError, NotSupportedError: the request's fault
    text = str(error)
    if "locked" in text or "busy" in text or str(getattr(error, "sqlstate", "") or "").startswith(KEPT_STATES):
        return
    context.is_disconnect = True
    context.invalidate_pool_on_disconnect = context.dialect.name == "sqlite"


class Repository:
    """Base of the store's repositories: each public method is one guarded transaction."""

    def __init__(self, plumbing: Plumbing) -> None:
        self._plumbing = plumbing

    def _session(self) -> AbstractContextManager[Session]:
        return self._plumbing.session()

    def _guarded(self, work: Callable[[], T]) -> T:
        return self._plumbing.guarded(work)


def find_player(session: Session, name: str) -> PlayerRow | None:
    """The player registered under ``name`` (compared by :func:`~keypeg.store.names.name_key`), if any."""
    return session.scalar(select(PlayerRow).where(PlayerRow.key == name_key(name)))


def player_row(session: Session, name: str, create: bool) -> PlayerRow:
    """The player ``name``, made now if ``create`` (else :class:`UnknownRecordError` for a new name)."""
    key = name_key(name)
    row = session.scalar(select(PlayerRow).where(PlayerRow.key == key))
    if row is None:
        if not create:
            raise UnknownRecordError(f"unknown player {player_name(name)!r}")
        row = PlayerRow(name=player_name(name), key=key, created_at=now())
        session.add(row)
        session.flush()
    return row


def game_records(session: Session, rows: Any, with_moves: bool = False) -> list[GameRecord]:
    """Stored games as records (their secret only once over; their moves with ``with_moves``)."""
    records = []
    rows = list(rows)
    ids = [row.id for row in rows if row.match_id is None]  # a game of a live match is never a room's board
    query = select(RoomGameRow.game_id, RoomRow.public_id).join(RoomRow, RoomRow.id == RoomGameRow.room_id)
    rooms: dict[int, str] = {}  # each room's board: its room's public id
    if ids:
        rooms.update((game, room) for game, room in session.execute(query.where(RoomGameRow.game_id.in_(ids))))
    for row in rows:
        try:
            moves = [MoveRecord(m.number, m.guess, Feedback(m.black, m.white)) for m in row.moves] if with_moves else []
        except KeypegError as error:
            raise DamagedRecordError(f"game {row.id}: {error}") from None
        records.append(
            GameRecord(
                id=row.id,
                player=row.player.name,
                rules=rules_of(row),
                role=row.role,
                level=row.level,
                secret=row.secret if row.outcome is not None else None,
                outcome=row.outcome,
                guesses=row.guesses,
                started_at=row.started_at,
                ended_at=row.ended_at,
                moves=moves,
                rated=bool(row.rated),
                public_id=row.public_id,
                daily=row.daily,
                maker=session.get(PlayerRow, row.maker_id).name if row.maker_id is not None else None,  # type: ignore[union-attr]
                room=rooms.get(row.id),
            )
        )
    return records


def rules_of(row: GameRow) -> Rules:
    """A stored game's rules: kept whole since schema 0003 (with their feedback, in the JSON, when it is not
    standard); before, only the game and row limit (letters)."""
    try:
        plain = Rules(row.pegs, row.colors, repeats=row.repeats, blanks=row.blanks, rows=row.rows)
    except KeypegError as error:
        raise DamagedRecordError(f"game {row.id}: {error}") from None
    if row.rules is None:
        return plain
    try:
        rules = Rules.from_dict(json.loads(row.rules))
    except (ValueError, TypeError, KeypegError):
        return plain
    # the columns hold no feedback: it is the JSON's (standard when absent, as in every game before it)
    same = rules.game == plain.replace(feedback=rules.feedback).game and rules.rows == plain.rows
    return rules if same else plain
