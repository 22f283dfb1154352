"""The server's secret keys (the daily puzzles' secrets and the live invitations derive from them)."""

from __future__ import annotations

import secrets

from sqlalchemy.exc import IntegrityError

from keypeg.store.models import ServerKeyRow
from keypeg.store.plumbing import Repository

__all__ = ["ServerKeys"]


class ServerKeys(Repository):
    """Keys by name, made on first use and the same for every process after: never shown."""

    def server_key(self, name: str) -> bytes:
        """The server's secret key ``name`` (32 random bytes made on first use, the same for every
        process after): never shown."""

        def work() -> bytes:
            with self._session() as session:
                row = session.get(ServerKeyRow, name)
                if row is not None:
                    return bytes.fromhex(row.value)
            try:
                with self._session() as session:
                    session.add(ServerKeyRow(name=name, value=secrets.token_hex(32)))
            except IntegrityError:
                pass  # made at the same moment by another process: theirs stands
            with self._session() as session:
                return bytes.fromhex(session.get(ServerKeyRow, name).value)  # type: ignore[union-attr]

        return self._guarded(work)
