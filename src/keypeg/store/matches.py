"""Matches against the computer: their state (the play layer's JSON), compared and swapped by version."""

from __future__ import annotations

from sqlalchemy import select, update

from keypeg.store.errors import MovedOnError, UnknownRecordError
from keypeg.store.models import MatchRow, PlayerRow
from keypeg.store.plumbing import Repository, now, player_row

__all__ = ["Matches"]


class Matches(Repository):
    """Matches by id and by public id; every write moves a match's version on."""

    def save(
        self,
        state: str,
        match_id: int | None = None,
        *,
        expect: int | None = None,
        player: str | None = None,
        public_id: str | None = None,
    ) -> int:
        """Store (or update) a match's state; returns its id. A new match starts at version 0, and every
        update moves it on by one. With ``expect``, the update happens only if the match is still at that
        version (else :class:`MovedOnError`: another request moved it on meanwhile). A new match may name
        its ``player`` and the ``public_id`` the web shows for it."""

        def work() -> int:
            with self._session() as session:
                row = session.get(MatchRow, match_id) if match_id is not None else None
                if row is None:
                    owner = player_row(session, player, create=True).id if player is not None else None
                    row = MatchRow(state=state, started_at=now(), public_id=public_id, player_id=owner, version=0)
                    session.add(row)
                    session.flush()
                    return row.id
                where = [MatchRow.id == row.id]
                if expect is not None:
                    where.append(MatchRow.version == expect)
                bumped = MatchRow.version + 1
                moved = session.execute(update(MatchRow).where(*where).values(state=state, version=bumped))
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    raise MovedOnError("the match was moved on elsewhere meanwhile")
                return row.id

        return self._guarded(work)

    def owned(self, public_id: str) -> tuple[int, str | None, str, int]:
        """The id, player, state and version of the match with this public id (:class:`UnknownRecordError`
        when none has it)."""

        def work() -> tuple[int, str | None, str, int]:
            with self._session() as session:
                row = session.scalar(select(MatchRow).where(MatchRow.public_id == public_id))
                if row is None:
                    raise UnknownRecordError("no such match")
                owner = session.get(PlayerRow, row.player_id) if row.player_id is not None else None
                return row.id, owner.name if owner is not None else None, row.state, row.version

        return self._guarded(work)

    def public_id(self, match_id: int) -> str | None:
        """The public id of a match started on the web (``None`` for one started elsewhere)."""

        def work() -> str | None:
            with self._session() as session:
                row = session.get(MatchRow, match_id)
                return row.public_id if row is not None else None

        return self._guarded(work)
