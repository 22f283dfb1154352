"""Rooms: their state, private side and version (compared and swapped), their seats, and their boards'
games, written with the room's new state in one transaction (a move is one transaction). A board's game
gets its secret only when its round ends (the room keeps the round's code on its own private side); until
then the game is left out of every history (:meth:`keypeg.store.games.Games.history`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.orm import Session

from keypeg.code import Feedback
from keypeg.rules import Rules
from keypeg.store.errors import MovedOnError, UnknownRecordError
from keypeg.store.games import add_game, add_guesses
from keypeg.store.models import GameRow, GuessRow, RoomGameRow, RoomRow, RoomSeatRow
from keypeg.store.plumbing import Repository, find_player, now, player_row

__all__ = ["BoardWrite", "RoomRecord", "RoomWrite", "Rooms", "State"]

T = TypeVar("T")

State = tuple[str, str | None]
"""A room's state as stored: its public JSON and its private side's JSON (``None``: no round in play)."""


@dataclass(frozen=True)
class RoomRecord:
    """A room as its use cases load it: the store's id, version, state (JSON) and private side (JSON)."""

    id: int
    public_id: str
    version: int
    state: str
    secret: str | None = None


@dataclass
class BoardWrite:
    """What a move changed of one board's game: made now (``game_id`` ``None``: the breaker's game of
    ``rules``, set by ``maker``, if a person) or updated; its guesses after the first ``keep`` (``moves``),
    the session's ``state``, its ``outcome`` once it ends, and its ``secret`` once its ROUND ends (``None``
    before: the game shows no code)."""

    player: str
    game_id: int | None
    rules: Rules
    secret: str | None
    state: str
    keep: int = 0
    moves: list[tuple[str, Feedback]] = field(default_factory=list)
    outcome: str | None = None
    maker: str | None = None


class RoomWrite:
    """A room read in a transaction (:meth:`Rooms.within`): its ``record``, and :meth:`save` in the same
    transaction."""

    def __init__(self, session: Session, record: RoomRecord) -> None:
        self._session = session
        self.record = record

    def save(
        self,
        expect: int,
        state: State | Callable[[list[int | None]], State],
        *,
        host: str | None = None,
        seats: Sequence[tuple[str, int]] = (),
        boards: Sequence[BoardWrite] = (),
        reveal: Sequence[tuple[int, str]] = (),
        notify: tuple[str, str] | None = None,
    ) -> tuple[int, list[int | None]]:
        """:meth:`Rooms.save` in this transaction (committed when the work returns); ``notify`` (a channel
        and a payload) is sent as it commits (PostgreSQL's NOTIFY, by the room's own UPDATE; nothing on
        other databases)."""
        return _save(self._session, self.record.id, expect, state, host, seats, boards, reveal, notify)


class Rooms(Repository):
    """Rooms, compared and swapped by version."""

    def create(self, player: str, state: str, public_id: str, secret: str | None = None) -> int:
        """Record a new room, ``player`` its host in the first seat (at version 0); its id."""

        def work() -> int:
            with self._session() as session:
                host = player_row(session, player, create=True)
                row = RoomRow(
                    public_id=public_id, host_id=host.id, state=state, secret=secret, version=0, created_at=now()
                )
                session.add(row)
                session.flush()
                session.add(RoomSeatRow(room_id=row.id, player_id=host.id, seat=0, joined_at=now()))
                return row.id

        return self._guarded(work)

    def get(self, public_id: str) -> RoomRecord:
        """The room with this public id (:class:`UnknownRecordError` when none)."""

        def work() -> RoomRecord:
            with self._session() as session:
                row = session.execute(_room_query(False), {"public_id": public_id}).one_or_none()
                if row is None:
                    raise UnknownRecordError("no such room")
                return RoomRecord(row[0], public_id, row[1], row[2], row[3])

        return self._guarded(work)

    def within(self, public_id: str, work: Callable[[RoomWrite], T], *, lock: bool = False) -> T:
        """Run ``work`` on the room with this public id in one transaction (:class:`UnknownRecordError` when
        there is none), committed when it returns: with ``lock``, the room's row is locked first (``SELECT
        ... FOR UPDATE`` on PostgreSQL; SQLite's transactions take its write lock at their start), so the
        moves of one room take turns and each reads what the one before wrote."""

        def run() -> T:
            with self._session() as session:
                row = session.execute(_room_query(lock), {"public_id": public_id}).one_or_none()
                if row is None:
                    raise UnknownRecordError("no such room")
                return work(RoomWrite(session, RoomRecord(row[0], public_id, row[1], row[2], row[3])))

        return self._guarded(run)

    def save(
        self,
        room_id: int,
        expect: int,
        state: State | Callable[[list[int | None]], State],
        *,
        host: str | None = None,
        seats: Sequence[tuple[str, int]] = (),
        boards: Sequence[BoardWrite] = (),
        reveal: Sequence[tuple[int, str]] = (),
    ) -> tuple[int, list[int | None]]:
        """Store a room's new state and private side (``state``: both) if it is still at version ``expect``
        (else :class:`MovedOnError`), in one transaction with: its ``host`` now, the ``seats`` taken (player,
        seat number), its ``boards``' games made or moved on, and the secrets of the games of rounds that
        ended (``reveal``: game id, code). ``state`` may be a function of the ids of the games made (one per
        board written, in order; ``None`` for a game moved on). The new version and those ids."""

        def work() -> tuple[int, list[int | None]]:
            with self._session() as session:
                return _save(session, room_id, expect, state, host, seats, boards, reveal)

        return self._guarded(work)

    def of_player(self, player: str, limit: int = 50) -> list[RoomRecord]:
        """The rooms ``player`` took a seat in, newest first."""

        def work() -> list[RoomRecord]:
            with self._session() as session:
                row = find_player(session, player)
                if row is None:
                    return []
                query = (
                    select(RoomRow.id, RoomRow.public_id, RoomRow.version, RoomRow.state, RoomRow.secret)
                    .join(RoomSeatRow, RoomSeatRow.room_id == RoomRow.id)
                    .where(RoomSeatRow.player_id == row.id)
                    .order_by(RoomRow.id.desc())
                    .limit(limit)
                )
                return [RoomRecord(*row) for row in session.execute(query)]

        return self._guarded(work)


def _save(
    session: Session,
    room_id: int,
    expect: int,
    state: State | Callable[[list[int | None]], State],
    host: str | None,
    seats: Sequence[tuple[str, int]],
    boards: Sequence[BoardWrite],
    reveal: Sequence[tuple[int, str]],
    notify: tuple[str, str] | None = None,
) -> tuple[int, list[int | None]]:
    """:meth:`Rooms.save`'s writes in ``session`` (``notify``: see :meth:`RoomWrite.save`)."""
    # the room first: a request that lost the race writes nothing of its boards
    table = cast(Table, RoomRow.__table__)
    values: dict[str, object] = {"version": expect + 1}
    making = callable(state) and any(board.game_id is None for board in boards)
    if not making:  # the state known now: one statement (a move's usual case)
        values["state"], values["secret"] = state([None] * len(boards)) if callable(state) else state
    if host is not None:
        values["host_id"] = player_row(session, host, create=True).id
    claim = update(table).where(table.c.id == room_id, table.c.version == expect).values(**values)
    connection = session.connection()
    if notify is not None and connection.dialect.name == "postgresql":  # the NOTIFY sent by the same statement
        claimed = len(connection.execute(claim.returning(func.pg_notify(*notify))).all())
    else:
        claimed = connection.execute(claim).rowcount
    if claimed != 1:
        raise MovedOnError("the room was moved on elsewhere meanwhile")
    made = [_write_board(session, room_id, board) for board in boards]
    if making:
        assert callable(state)
        public, secret = state(made)
        session.execute(update(RoomRow).where(RoomRow.id == room_id).values(state=public, secret=secret))
    for game_id, code in reveal:
        session.execute(
            update(GameRow).where(GameRow.id == game_id).values(secret=code, version=GameRow.version + 1),
            execution_options={"synchronize_session": False},
        )
    for player, seat in seats:
        player_id = player_row(session, player, create=True).id
        taken = session.get(RoomSeatRow, (room_id, player_id))
        if taken is None:
            session.add(RoomSeatRow(room_id=room_id, player_id=player_id, seat=seat, joined_at=now()))
    return expect + 1, made


def _write_board(session: Session, room_id: int, board: BoardWrite) -> int | None:
    """Make or move on one board's game of room ``room_id`` in ``session``; the id of a game made."""
    made = None
    if board.game_id is None:
        owner = player_row(session, board.player, create=True)
        row = add_game(
            session,
            owner,
            board.rules,
            role="breaker",
            secret=board.secret,
            state=board.state,
            rated=False,
            maker=board.maker,
        )
        made = game_id = row.id
        session.add(RoomGameRow(game_id=game_id, room_id=room_id))
    else:  # one statement: only the room's writes move its games, and the room's row is claimed already
        game_id = board.game_id
        games = cast(Table, GameRow.__table__)  # a plain statement: no row of the game is loaded here
        values: dict[str, object] = {
            "guesses": board.keep + len(board.moves),
            "version": games.c.version + 1,
            "state": board.state,
        }
        if board.outcome is not None:
            values.update(outcome=board.outcome, ended_at=now())
        if board.secret is not None:
            values["secret"] = board.secret
        moved = session.connection().execute(
            update(games).where(games.c.id == game_id, games.c.outcome.is_(None)).values(**values)
        )
        if moved.rowcount != 1:
            raise MovedOnError(f"game {game_id} is over already")
    if board.game_id is None:
        at = now()
        session.add_all(
            GuessRow(game_id=game_id, number=n, guess=guess, black=feedback.black, white=feedback.white, made_at=at)
            for n, (guess, feedback) in enumerate(board.moves, board.keep + 1)
        )
        row.guesses = len(board.moves)
        row.version = 1
        if board.outcome is not None:
            row.outcome, row.ended_at = board.outcome, at
    else:  # one plain INSERT (a move's usual case: a guess on a board in play)
        add_guesses(session, game_id, board.keep, board.moves)
    return made


@functools.cache
def _room_query(lock: bool) -> Any:
    """A room by its public id (its row locked with ``lock``): built once."""
    query = select(RoomRow.id, RoomRow.version, RoomRow.state, RoomRow.secret).where(
        RoomRow.public_id == bindparam("public_id")
    )
    return query.with_for_update() if lock else query
