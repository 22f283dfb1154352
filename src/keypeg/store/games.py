"""Games: written as they are played (one transaction per move, compared and swapped by version), loaded
to be continued, found by their public id, listed as history."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import Any, TypeVar, cast

from sqlalchemy import Table, bindparam, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased, joinedload
from sqlalchemy.orm.attributes import set_committed_value

from keypeg.code import Feedback
from keypeg.rules import Rules
from keypeg.store.errors import MovedOnError, PlayedAlreadyError, UnknownRecordError
from keypeg.store.game_keys import KeyedGame, find_keyed, remember_key
from keypeg.store.models import GameRow, GuessRow, PlayerRow, RoomGameRow
from keypeg.store.names import GUEST_PREFIX
from keypeg.store.plumbing import Repository, find_player, game_records, now, player_row
from keypeg.store.values import GameRecord, SavedGame
from keypeg.text import visible

T = TypeVar("T")

__all__ = ["GameWrite", "Games", "add_game", "saved_game", "update_game"]


class Games(Repository):
    """Every game played, with its guesses; its secret on the private side until it ends."""

    def start(
        self,
        player: str,
        rules: Rules,
        *,
        role: str,
        level: int | None = None,
        secret: str | None = None,
        match_id: int | None = None,
        state: str | None = None,
        rated: bool = False,
        public_id: str | None = None,
        daily: str | None = None,
        maker: str | None = None,
        key: tuple[str, str] | None = None,
    ) -> int:
        """Record a game as it starts (at version 0); returns its id. Codes are kept in the rules' own
        symbols. ``secret`` is kept on the private side: no query shows it before the game ends
        (:meth:`saved` gives it to the play layer). A ``rated`` game counts on the leaderboard from now
        on, as a loss until it is won. A game of the ``daily`` puzzle (``YYYY-MM-DD preset``) is refused
        (:class:`PlayedAlreadyError`) when the player has played that puzzle. With ``key`` (an idempotency
        key and the digest of the request) the key is recorded with the game, in its transaction
        (:class:`~keypeg.store.game_keys.KeyTakenError` when the player's key is taken: :meth:`keyed`
        finds its game)."""

        def work() -> int:
            with self._session() as session:
                owner = player_row(session, player, create=True)
                if daily is not None:
                    taken = select(GameRow.id).where(GameRow.player_id == owner.id, GameRow.daily == daily)
                    if session.scalar(taken) is not None:
                        raise PlayedAlreadyError(f"{owner.name} has played the puzzle of {daily} already")
                try:
                    row = add_game(
                        session,
                        owner,
                        rules,
                        role=role,
                        level=level,
                        secret=secret,
                        match_id=match_id,
                        state=state,
                        rated=rated,
                        public_id=public_id,
                        daily=daily,
                        maker=maker,
                    )
                except IntegrityError:  # the same attempt started at the same moment elsewhere
                    raise PlayedAlreadyError(f"{owner.name} has played the puzzle of {daily} already") from None
                if key is not None:
                    remember_key(session, owner.id, *key, row.id)
                return row.id

        return self._guarded(work)

    def keyed(self, player: str, key: str) -> KeyedGame | None:
        """The game ``player`` started with idempotency key ``key`` within the last 24 hours, if any."""

        def work() -> KeyedGame | None:
            with self._session() as session:
                return find_keyed(session, player, key)

        return self._guarded(work)

    def update(
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
        """Bring a game up to date in one transaction: keep its first ``keep`` guesses, add ``moves`` after
        them, store the session's ``state`` (when given), and, with an ``outcome``, finish it; the game's
        new version.

        ``expect`` is the version the writer loaded (:attr:`SavedGame.version`, or the one this method last
        returned): if another process has written the game since (two terminals on one game), nothing is
        written and :class:`MovedOnError` says so."""

        def work() -> int:
            with self._session() as session:
                return update_game(
                    session, game_id, keep=keep, moves=moves, state=state, outcome=outcome, secret=secret, expect=expect
                )

        return self._guarded(work)

    def saved(self, game_id: int) -> SavedGame:
        """A game with its session state, its secret and its version, for the play layer to continue it."""
        if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id < 2**63:
            raise UnknownRecordError(f"no game {visible(game_id)!r} in the database")

        def work() -> SavedGame:
            with self._session() as session:
                return saved_game(session, game_id)

        return self._guarded(work)

    def move(self, public_id: str, work: Callable[[SavedGame, GameWrite], T]) -> T:
        """Run ``work`` on the game with this public id (:class:`UnknownRecordError` when none has it) in one
        transaction, the game's row locked: ``work`` gets it as :meth:`saved` reads it and writes it through
        the :class:`GameWrite` (one move: read, scored and written at once)."""

        def run() -> T:
            with self._session() as session:
                query = (
                    select(GameRow)
                    .where(GameRow.public_id == public_id)
                    .options(joinedload(GameRow.player), joinedload(GameRow.moves))
                    .with_for_update(of=GameRow)
                )
                row = session.scalars(query).unique().one_or_none()
                if row is None:
                    raise UnknownRecordError("no such game")
                record = game_records(session, [row], with_moves=True)[0]
                saved = SavedGame(record, row.state, row.secret, row.match_id, row.version)
                return work(saved, GameWrite(session, row))

        return self._guarded(run)

    def record(self, game_id: int) -> GameRecord:
        """One game with its guesses (its secret only once it is over)."""
        return self.saved(game_id).record

    def by_public_id(self, public_id: str) -> int:
        """The id of the game with this public id (:class:`UnknownRecordError` when none has it)."""

        def work() -> int:
            with self._session() as session:
                found = session.scalar(select(GameRow.id).where(GameRow.public_id == public_id))
                if found is None:
                    raise UnknownRecordError("no such game")
                return int(found)

        return self._guarded(work)

    def owned(self, public_id: str) -> tuple[int, str]:
        """The id and the player of the game with this public id, in one query (:class:`UnknownRecordError`
        when none has it)."""

        def work() -> tuple[int, str]:
            with self._session() as session:
                found = session.execute(
                    select(GameRow.id, PlayerRow.name)
                    .join(PlayerRow, PlayerRow.id == GameRow.player_id)
                    .where(GameRow.public_id == public_id)
                ).first()
                if found is None:
                    raise UnknownRecordError("no such game")
                return int(found[0]), str(found[1])

        return self._guarded(work)

    def history(
        self,
        player: str | None = None,
        *,
        limit: int | None = 20,
        rules: Rules | None = None,
        with_moves: bool = False,
        made: bool = False,
    ) -> list[GameRecord]:
        """The latest games, newest first (of one player, and with ``made`` the games whose code they set
        for another person too; of one game and row limit)."""

        def work() -> list[GameRecord]:
            with self._session() as session:
                query = select(GameRow).order_by(GameRow.started_at.desc(), GameRow.id.desc())
                if player is not None:
                    who = player_row(session, player, create=False).id
                    query = query.where(
                        or_(GameRow.player_id == who, GameRow.maker_id == who) if made else GameRow.player_id == who
                    )
                if rules is not None:
                    query = query.where(GameRow.variant == rules.slug, GameRow.rows == rules.rows)
                # a room's board shows nothing before its round ends (its secret is written then)
                query = query.where(or_(GameRow.secret.is_not(None), GameRow.id.not_in(select(RoomGameRow.game_id))))
                if limit is not None:
                    query = query.limit(limit)
                return game_records(session, session.scalars(query), with_moves)

        return self._guarded(work)

    def adopt(self, guest: str, player: str) -> int:
        """Make a guest's games ``player``'s (a guest who registers or logs in keeps what they played, as
        practice: a guest's game is never rated); how many moved. Each game moved is a write: its version
        moves on."""

        def work() -> int:
            with self._session() as session:
                old = find_player(session, guest)
                if old is None or old.key is None or not old.key.startswith(GUEST_PREFIX):
                    return 0
                new = player_row(session, player, create=False)
                bumped = GameRow.version + 1
                moved = session.execute(  # a guest's games are never rated, after login neither
                    update(GameRow)
                    .where(GameRow.player_id == old.id)
                    .values(player_id=new.id, version=bumped, rated=False)
                )
                session.execute(
                    update(GameRow).where(GameRow.maker_id == old.id).values(maker_id=new.id, version=bumped)
                )
                return int(moved.rowcount)  # type: ignore[attr-defined]

        return self._guarded(work)


def add_game(
    session: Session,
    owner: PlayerRow,
    rules: Rules,
    *,
    role: str,
    level: int | None = None,
    secret: str | None = None,
    match_id: int | None = None,
    state: str | None = None,
    rated: bool = False,
    public_id: str | None = None,
    daily: str | None = None,
    maker: str | None = None,
) -> GameRow:
    """A game's row as it starts (at version 0), added in ``session`` and flushed (its id is known): what
    :meth:`Games.start` records, in a transaction another write may share (a live match's new game is
    written with the match's new state)."""
    maker_id = player_row(session, maker, create=True).id if maker is not None else None
    row = GameRow(
        player=owner,
        maker_id=maker_id,
        variant=rules.slug,
        rules=json.dumps(rules.as_dict()),
        pegs=rules.pegs,
        colors=rules.colors,
        repeats=rules.repeats,
        blanks=rules.blanks,
        rows=rules.rows,
        role=role,
        level=level,
        secret=secret,
        guesses=0,
        started_at=now(),
        match_id=match_id,
        state=state,
        rated=rated,
        public_id=public_id,
        daily=daily,
        version=0,
    )
    session.add(row)
    session.flush()
    return row


class GameWrite:
    """Writes one game within :meth:`Games.move`'s transaction (its row read and locked there)."""

    def __init__(self, session: Session, row: GameRow) -> None:
        self._session = session
        self._row = row  # held: the session holds rows weakly, and the update finds it without a query

    def update(
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
        """:meth:`Games.update`, in the move's transaction."""
        if game_id != self._row.id:
            raise UnknownRecordError(f"game {game_id} is not the game of this move")
        return update_game(
            self._session,
            game_id,
            keep=keep,
            moves=moves,
            state=state,
            outcome=outcome,
            secret=secret,
            expect=expect,
            locked=True,
        )


def saved_game(session: Session, game_id: int, hold: list[object] | None = None) -> SavedGame:
    """:meth:`Games.saved`, in a transaction another write may share (a live match's move: read afresh, with
    what that transaction wrote); its row is put in ``hold`` (the session holds rows weakly: a later write
    of the game in the transaction finds it without reading it again)."""
    found = session.execute(_saved_query(), {"game_id": game_id}).unique().first()
    if found is None:
        raise UnknownRecordError(f"no game {game_id!r} in the database")
    row = found[0]
    if hold is not None:
        hold.append(row)
    record = game_records(session, [row], with_moves=True)[0]
    return SavedGame(record, row.state, row.secret, row.match_id, row.version)


@functools.cache
def _saved_query() -> Any:
    """A game by its id with its player, its moves and its maker (read with it: its record names the maker
    without a query of its own), read afresh: one round trip. Built once (an aliased join costs more to
    build than to run)."""
    maker = aliased(PlayerRow)
    return (
        select(GameRow, maker)
        .outerjoin(maker, maker.id == GameRow.maker_id)
        .where(GameRow.id == bindparam("game_id"))
        .options(joinedload(GameRow.player), joinedload(GameRow.moves))
        .execution_options(populate_existing=True)
    )


def update_game(
    session: Session,
    game_id: int,
    *,
    keep: int,
    moves: list[tuple[str, Feedback]],
    state: str | None = None,
    outcome: str | None = None,
    secret: str | None = None,
    expect: int | None = None,
    locked: bool = False,
) -> int:
    """:meth:`Games.update`, in a transaction another write may share; ``locked``: the caller read the game in
    ``session`` (its live match's row or its own locked there). Either way the write is a compare-and-swap:
    the UPDATE names the version read, so a writer that holds no lock of the game (a live match's viewer
    timing a player out, review F6) and wrote first makes this one a :class:`MovedOnError`."""
    # unlocked, the game's row is locked as it is read: a writer that read it before another committed
    # would otherwise wait at the UPDATE below and find its version moved on only then (PostgreSQL;
    # SQLite's transactions take the write lock as they begin)
    row = session.get_one(GameRow, game_id) if locked else session.get_one(GameRow, game_id, with_for_update=True)
    if expect is not None and row.version != expect:
        raise MovedOnError(f"game {game_id} was played on elsewhere meanwhile; this copy is not kept")
    if row.outcome is not None:
        raise MovedOnError(f"game {game_id} is over already; this copy is not kept")
    read, stored = row.version, row.guesses
    values: dict[str, object] = {"guesses": keep + len(moves), "version": read + 1}
    if state is not None:
        values["state"] = state
    if outcome is not None:
        values.update(outcome=outcome, ended_at=now())
        if secret is not None:
            values["secret"] = secret
    swapped = session.execute(
        update(GameRow)
        .where(GameRow.id == game_id, GameRow.version == read, GameRow.outcome.is_(None))
        .values(**values),
        execution_options={"synchronize_session": False},
    )
    if swapped.rowcount != 1:  # type: ignore[attr-defined]
        raise MovedOnError(f"game {game_id} was played on elsewhere meanwhile; this copy is not kept")
    for key, value in values.items():  # the row read here, as written (a later read in this transaction)
        set_committed_value(row, key, value)
    if stored != keep:  # one statement, without loading the moves kept (none to drop: none sent)
        session.execute(
            delete(GuessRow).where(GuessRow.game_id == game_id, GuessRow.number > keep),
            execution_options={"synchronize_session": False},
        )
    add_guesses(session, game_id, keep, moves)
    return read + 1


def add_guesses(session: Session, game_id: int, keep: int, moves: list[tuple[str, Feedback]]) -> None:
    """Write ``moves`` as the game's guesses after its first ``keep``, in ``session``'s transaction: one
    INSERT now (a plain statement, not the ORM's unit of work: nothing here reads them back as rows)."""
    if not moves:
        return
    at = now()
    rows = [
        {"game_id": game_id, "number": number, "guess": guess, "black": f.black, "white": f.white, "made_at": at}
        for number, (guess, f) in enumerate(moves, keep + 1)
    ]
    session.connection().execute(_insert_guesses(), rows)


@functools.cache
def _insert_guesses() -> Any:
    return insert(cast(Table, GuessRow.__table__))
