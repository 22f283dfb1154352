"""Matches between two people: their seats, state and version, and the
notes (PostgreSQL's LISTEN/NOTIFY) that tell every process a match moved."""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, func, or_, select, text, update
from sqlalchemy.orm import Session, aliased

from keypeg.code import Feedback
from keypeg.rules import Rules
from keypeg.store.errors import MovedOnError, UnknownRecordError
from keypeg.store.games import add_game, saved_game, update_game
from keypeg.store.models import MatchRow, PlayerRow
from keypeg.store.plumbing import Repository, find_player, now, player_row
from keypeg.store.values import LiveRecord, SavedGame

__all__ = ["LiveMatches", "LiveWrite"]

T = TypeVar("T")


class LiveWrite:
    """One transaction on one live match (:meth:`LiveMatches.within`): the match as read at its start
    (:attr:`record`), its games read and written, its new state saved and announced, all committed at
    once (or nothing, when anything raises)."""

    def __init__(self, session: Session, record: LiveRecord, locked: bool) -> None:
        self._session = session
        self.record = record
        self._locked = locked
        self._held: list[object] = []  # rows read here (the session holds them weakly)

    def game(self, game_id: int) -> SavedGame:
        """One of the match's games, read in this transaction."""
        return saved_game(self._session, game_id, self._held)

    def update_game(
        self,
        game_id: int,
        *,
        keep: int,
        moves: list[tuple[str, Feedback]],
        state: str | None = None,
        outcome: str | None = None,
        secret: str | None = None,
        expect: int | None = None,
    ) -> int:
        """:meth:`Games.update <keypeg.store.games.Games.update>` of a game of the match, in this transaction."""
        return update_game(
            self._session,
            game_id,
            keep=keep,
            moves=moves,
            state=state,
            outcome=outcome,
            secret=secret,
            expect=expect,
            locked=self._locked,
        )

    def start_game(
        self, player: str, rules: Rules, *, role: str, secret: str, state: str, maker: str, rated: bool = False
    ) -> int:
        """Record a new game of the match (as :meth:`LiveMatches.start_game` does); its id."""
        owner = player_row(self._session, player, create=True)
        return add_game(
            self._session,
            owner,
            rules,
            role=role,
            secret=secret,
            match_id=self.record.id,
            state=state,
            rated=rated,
            maker=maker,
        ).id

    def save(self, state: str, *, opponent: str | None = None, notify: tuple[str, str] | None = None) -> int:
        """Store the match's new state if no one else wrote it since it was read (else
        :class:`MovedOnError`); its new version (the next :meth:`save` compares with that). ``notify``
        (a channel and a payload) is :meth:`notify` sent by the same statement (one round trip)."""
        expect = self.record.version
        if opponent is not None:  # the second seat taken (once a match)
            where = [MatchRow.id == self.record.id, MatchRow.version == expect, MatchRow.opponent_id.is_(None)]
            opponent_id = player_row(self._session, opponent, create=True).id
            values = {"state": state, "version": expect + 1, "opponent_id": opponent_id}
            moved = self._session.execute(update(MatchRow).where(*where).values(**values))
            count = moved.rowcount  # type: ignore[attr-defined]
        else:  # a move's usual case: a statement built once, run as it is (not through the ORM)
            params = {"match_id": self.record.id, "expect": expect, "new_state": state, "new_version": expect + 1}
            connection = self._session.connection()
            if notify is not None and connection.dialect.name == "postgresql":
                channel, payload = notify
                sent = connection.execute(_save_notifying(), params | {"channel": channel, "payload": payload})
                count, notify = len(sent.all()), None  # sent with the write, if it wrote
            else:
                count = connection.execute(_save_query(), params).rowcount
        if count != 1:
            raise MovedOnError("the match was moved on elsewhere meanwhile")
        if notify is not None:
            self.notify(*notify)
        second = opponent if opponent is not None else self.record.second
        self.record = LiveRecord(self.record.id, self.record.first, second, expect + 1, state)
        return expect + 1

    def move_seat(self, guest: str, player: str) -> None:
        """The seat ``guest`` holds in the match becomes ``player``'s (a guest who logged in), in this
        transaction: the match is listed among ``player``'s from then on."""
        old = find_player(self._session, guest)
        if old is None:
            return
        new = player_row(self._session, player, create=True).id
        for column in (MatchRow.player_id, MatchRow.opponent_id):
            self._session.execute(
                update(MatchRow).where(MatchRow.id == self.record.id, column == old.id).values({column: new}),
                execution_options={"synchronize_session": False},
            )

    def notify(self, channel: str, payload: str) -> None:
        """Tell every process listening on ``channel`` as this transaction commits (PostgreSQL's NOTIFY,
        sent only if it commits); nothing on other databases."""
        if self._session.get_bind().dialect.name == "postgresql":
            self._session.execute(
                text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload}
            )


class LiveMatches(Repository):
    """Matches between two people, compared and swapped by version."""

    def start(self, player: str, state: str, public_id: str) -> int:
        """Record a match between two people, waiting for its second player (at version 0); returns its id."""

        def work() -> int:
            with self._session() as session:
                row = MatchRow(
                    state=state,
                    started_at=now(),
                    public_id=public_id,
                    player_id=player_row(session, player, create=True).id,
                    version=0,
                )
                session.add(row)
                session.flush()
                return row.id

        return self._guarded(work)

    def get(self, public_id: str) -> LiveRecord:
        """The match with this public id, as live play needs it (:class:`UnknownRecordError` when none)."""

        def work() -> LiveRecord:
            with self._session() as session:
                row = session.execute(_live_query(), {"public_id": public_id}).one_or_none()
                if row is None:
                    raise UnknownRecordError("no such match")
                match_id, first_name, second_name, version, state = row
                return LiveRecord(match_id, first_name, second_name, version, state)

        return self._guarded(work)

    def within(self, public_id: str, work: Callable[[LiveWrite], T], *, lock: bool = False) -> T:
        """Run ``work`` on the match with this public id in one transaction (:class:`UnknownRecordError`
        when there is none), committed when it returns: with ``lock``, the match's row is locked first
        (PostgreSQL; SQLite's write transactions are one at a time), so moves of one match take turns and
        each reads what the one before wrote. On SQLite a busy database runs ``work`` again, from a fresh
        read."""

        def run() -> T:
            with self._session() as session:
                query = _live_query_locked() if lock else _live_query()
                row = session.execute(query, {"public_id": public_id}).one_or_none()
                if row is None:
                    raise UnknownRecordError("no such match")
                match_id, first_name, second_name, version, state = row
                record = LiveRecord(match_id, first_name, second_name, version, state)
                return work(LiveWrite(session, record, lock))

        return self._guarded(run)

    def save(self, match_id: int, state: str, expect: int, *, opponent: str | None = None) -> int:
        """Store a match's new state if it is still at version ``expect`` (else :class:`MovedOnError`:
        another request moved it on); the new version. ``opponent`` takes the second seat (only if it is
        free)."""

        def work() -> int:
            with self._session() as session:
                values: dict[str, Any] = {"state": state, "version": expect + 1}
                where = [MatchRow.id == match_id, MatchRow.version == expect]
                if opponent is not None:
                    values.update(opponent_id=player_row(session, opponent, create=True).id)
                    where.append(MatchRow.opponent_id.is_(None))
                moved = session.execute(update(MatchRow).where(*where).values(**values))
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    raise MovedOnError("the match was moved on elsewhere meanwhile")
                return expect + 1

        return self._guarded(work)

    def start_game(
        self,
        match_id: int,
        expect: int,
        match_state: Callable[[int], str],
        player: str,
        rules: Rules,
        *,
        role: str,
        secret: str,
        state: str,
        maker: str,
        rated: bool = False,
    ) -> tuple[int, int]:
        """Start a game of a match, ``player`` to break ``maker``'s ``secret`` (its row as
        :meth:`Games.start <keypeg.store.games.Games.start>` records one), and store the match's new state,
        ``match_state(game_id)``, if the match is still at version ``expect``: one transaction, so a request
        that lost the race (:class:`MovedOnError`) leaves no game behind. The game's id and the match's new
        version."""

        def work() -> tuple[int, int]:
            with self._session() as session:
                owner = player_row(session, player, create=True)
                game_id = add_game(
                    session,
                    owner,
                    rules,
                    role=role,
                    secret=secret,
                    match_id=match_id,
                    state=state,
                    rated=rated,
                    maker=maker,
                ).id
                where = (MatchRow.id == match_id, MatchRow.version == expect)
                values = {"state": match_state(game_id), "version": expect + 1}
                moved = session.execute(update(MatchRow).where(*where).values(**values))
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    raise MovedOnError("the match was moved on elsewhere meanwhile")
                return game_id, expect + 1

        return self._guarded(work)

    def of_player(self, player: str, limit: int = 50) -> list[tuple[str, str]]:
        """The public ids and states of the matches between people ``player`` sits in, newest first."""

        def work() -> list[tuple[str, str]]:
            with self._session() as session:
                row = find_player(session, player)
                if row is None:
                    return []
                query = (
                    select(MatchRow.public_id, MatchRow.state)
                    .where(or_(MatchRow.player_id == row.id, MatchRow.opponent_id == row.id))
                    .where(MatchRow.opponent_id.is_not(None) | MatchRow.state.like('%"live"%'))
                    .order_by(MatchRow.id.desc())
                    .limit(limit)
                )
                return [(p, s) for p, s in session.execute(query) if p is not None]

        return self._guarded(work)

    def notify(self, channel: str, payload: str) -> None:
        """Tell every process listening on ``channel`` (PostgreSQL's NOTIFY); nothing on other databases,
        whose one process is told directly."""
        if self._plumbing.engine.dialect.name != "postgresql":
            return

        def work() -> None:
            with self._session() as session:
                session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": channel, "payload": payload})

        self._guarded(work)

    def listen(self, channel: str, heard: Callable[[str], None], again: Callable[[], None] | None = None) -> bool:
        """On PostgreSQL, call ``heard`` with the payload of every NOTIFY on ``channel`` (``heard`` checks it),
        from a thread of its own that reconnects if the server goes away; ``False`` (and nothing) on other
        databases. ``again`` is called each time it starts listening, the first time too: notes sent
        before (while it connected, or reconnected after a failure) were not heard."""
        engine = self._plumbing.engine
        if engine.dialect.name != "postgresql":
            return False
        conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)

        def listen() -> None:
            import psycopg

            while True:
                try:
                    with psycopg.connect(conninfo, autocommit=True) as connection:
                        connection.execute(f"LISTEN {channel}")
                        if again is not None:
                            again()
                        for note in connection.notifies():
                            heard(note.payload)
                except Exception as error:  # the server went away: listen again shortly
                    logging.getLogger("keypeg.store").warning("listening on %s paused: %s", channel, error)
                    time.sleep(1.0)

        threading.Thread(target=listen, name=f"keypeg-listen-{channel}", daemon=True).start()
        return True


@functools.cache
def _live_query() -> Any:
    """A live match by its public id, with its seats' names: one round trip. Built once (an aliased join
    costs more to build than to run)."""
    first, second = aliased(PlayerRow), aliased(PlayerRow)
    return (
        select(MatchRow.id, first.name, second.name, MatchRow.version, MatchRow.state)
        .outerjoin(first, first.id == MatchRow.player_id)
        .outerjoin(second, second.id == MatchRow.opponent_id)
        .where(MatchRow.public_id == bindparam("public_id"))
    )


@functools.cache
def _live_query_locked() -> Any:
    """:func:`_live_query`, the match's row locked until the transaction ends (its seats' rows are not)."""
    return _live_query().with_for_update(of=MatchRow)


@functools.cache
def _save_query() -> Any:
    """A match's new state and version, if it is still at the version read (a compare-and-swap)."""
    table = cast(Table, MatchRow.__table__)
    return (
        update(table)
        .where(table.c.id == bindparam("match_id"), table.c.version == bindparam("expect"))
        .values(state=bindparam("new_state"), version=bindparam("new_version"))
    )


@functools.cache
def _save_notifying() -> Any:
    """:func:`_save_query` that also sends a NOTIFY (PostgreSQL) for the row it wrote: one round trip."""
    return _save_query().returning(func.pg_notify(bindparam("channel"), bindparam("payload")))
