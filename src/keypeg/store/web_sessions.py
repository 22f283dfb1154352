"""The web app's logins: sessions (only a hash of their cookie's token is kept) and failed logins, counted
so that the limit holds across workers."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, delete, func, select, update

from keypeg.store.models import LoginFailureRow, PlayerRow, WebSessionRow
from keypeg.store.plumbing import Repository, now, player_row
from keypeg.store.values import aware

__all__ = ["FORGOTTEN", "WEB_SESSION_LIFETIME", "WebSessions"]

WEB_SESSION_LIFETIME = timedelta(days=30)
"""A web session ends this long after it began (and is then deleted)."""
FORGOTTEN = ""
"""The CSRF token of a forgotten session's row (:meth:`WebSessions.forget`): its token names no session."""


class WebSessions(Repository):
    """Web sessions by the hash of their token, and the failed logins by what they were limited on."""

    def get(self, token_hash: str) -> tuple[str, str | None] | None:
        """A web session's CSRF token and player (``None`` for a guest), or ``None`` if there is none (a
        session forgotten has the CSRF token :data:`FORGOTTEN`)."""

        def work() -> tuple[str, str | None] | None:
            with self._session() as session:  # one query: the session and its player, if any
                since = now() - WEB_SESSION_LIFETIME
                found = session.execute(_session_query(), {"token_hash": token_hash, "since": since}).first()
                return (found[0], found[1]) if found is not None else None

        return self._guarded(work)

    def new(self, token_hash: str, csrf: str) -> None:
        """Keep a new web session (a guest until it logs in)."""

        def work() -> None:
            with self._session() as session:
                session.execute(delete(WebSessionRow).where(WebSessionRow.created_at < now() - WEB_SESSION_LIFETIME))
                session.add(WebSessionRow(token_hash=token_hash, csrf=csrf, created_at=now()))

        self._guarded(work)

    def bind(self, token_hash: str, player: str | None) -> None:
        """Make a web session ``player``'s (``None``: a guest again)."""

        def work() -> None:
            with self._session() as session:
                row = session.get_one(WebSessionRow, token_hash)
                row.player_id = player_row(session, player, create=True).id if player is not None else None

        self._guarded(work)

    def claim(self, token_hash: str, guest: str) -> str:
        """Make a kept web session with no player yet ``guest``'s; the session's player after (another
        request's guest, when one claimed the session first: one session, one guest, however many requests
        race to it)."""

        def work() -> str:
            try:
                with self._session() as session:
                    guest_id = player_row(session, guest, create=True).id
                    claimed = session.execute(
                        update(WebSessionRow)
                        .where(WebSessionRow.token_hash == token_hash, WebSessionRow.player_id.is_(None))
                        .values(player_id=guest_id)
                    )
                    if claimed.rowcount != 1:  # type: ignore[attr-defined]
                        raise _Claimed  # undo the guest's player row: it will have no game
                    return guest
            except _Claimed:
                with self._session() as session:
                    return session.scalars(
                        select(PlayerRow.name)
                        .join(WebSessionRow, WebSessionRow.player_id == PlayerRow.id)
                        .where(WebSessionRow.token_hash == token_hash)
                    ).one()

        return self._guarded(work)

    def forget(self, token_hash: str) -> None:
        """Forget a web session for good: its token names no session from now on, kept or pending (a row
        with no CSRF token stands for it until the lifetime of a session has passed)."""

        def work() -> None:
            with self._session() as session:
                row = session.get(WebSessionRow, token_hash)
                if row is not None:
                    session.delete(row)
                    session.flush()
                session.add(WebSessionRow(token_hash=token_hash, csrf=FORGOTTEN, created_at=now()))

        self._guarded(work)

    def failures(self, keys: list[str], since: datetime) -> int:
        """Failed logins since ``since`` on any of ``keys`` (the most on one key)."""

        def work() -> int:
            with self._session() as session:
                failed = select(func.count(LoginFailureRow.id)).where(LoginFailureRow.at >= since)
                counts = [session.scalar(failed.where(LoginFailureRow.key == key)) or 0 for key in keys]
                return max(counts, default=0)

        return self._guarded(work)

    def failure_times(self, key: str, since: datetime, limit: int) -> list[datetime]:
        """When the latest ``limit`` failed logins on ``key`` since ``since`` were, newest first."""

        def work() -> list[datetime]:
            with self._session() as session:
                found = session.scalars(
                    select(LoginFailureRow.at)
                    .where(LoginFailureRow.key == key, LoginFailureRow.at >= since)
                    .order_by(LoginFailureRow.at.desc(), LoginFailureRow.id.desc())
                    .limit(limit)
                )
                return [aware(at) for at in found]

        return self._guarded(work)

    def record_failure(self, keys: list[str]) -> list[int]:
        """Count a failed login against each of ``keys`` (a login is counted as failed before its password
        is checked, so attempts sent at once cannot all pass the limit); the ids, to forget them once the
        password proves right."""

        def work() -> list[int]:
            with self._session() as session:
                rows = [LoginFailureRow(key=key[:200], at=now()) for key in keys]
                session.add_all(rows)
                session.flush()
                return [row.id for row in rows]

        return self._guarded(work)

    def forget_failures(self, ids: list[int]) -> None:
        """Forget counted failures (a login that succeeded)."""

        def work() -> None:
            with self._session() as session:
                session.execute(delete(LoginFailureRow).where(LoginFailureRow.id.in_(ids)))

        self._guarded(work)


class _Claimed(Exception):
    """A session claimed by another request meanwhile (rolls the claim's transaction back)."""


@functools.cache
def _session_query() -> Any:
    """A web session's CSRF token and player's name by its token's hash, if it began since ``since``: built
    once (every request asks it)."""
    return (
        select(WebSessionRow.csrf, PlayerRow.name)
        .outerjoin(PlayerRow, PlayerRow.id == WebSessionRow.player_id)
        .where(WebSessionRow.token_hash == bindparam("token_hash"), WebSessionRow.created_at >= bindparam("since"))
    )
