"""Players and their accounts: the name a player is registered under, and the password (an argon2 hash)."""

from __future__ import annotations

from keypeg.store.errors import EmptyPasswordError, WrongPasswordError
from keypeg.store.names import player_name
from keypeg.store.plumbing import Repository, find_player, player_row

__all__ = ["Players"]


class Players(Repository):
    """Players by name: one name (compared by :func:`~keypeg.store.names.name_key`), one player."""

    def registered(self, name: str) -> str | None:
        """The name a player was registered under (``Ann`` for ``ANN``), or ``None`` for a new player."""

        def work() -> str | None:
            with self._session() as session:
                row = find_player(session, name)
                return row.name if row is not None else None

        return self._guarded(work)

    def ensure(self, name: str) -> str:
        """Create the player on first use; the name they are registered under."""

        def work() -> str:
            with self._session() as session:
                return player_row(session, name, create=True).name

        return self._guarded(work)

    def set_password(self, name: str, password: str, *, old: str | None = None) -> None:
        """Store an argon2 hash of the player's new ``password`` (never the password); a player who has
        a password already must give it as ``old`` (:class:`WrongPasswordError` otherwise)."""
        from argon2 import PasswordHasher

        if not password:
            raise EmptyPasswordError("a password cannot be empty")
        if self.has_password(name) and not self.check_password(name, old or ""):
            raise WrongPasswordError(f"wrong password for {player_name(name)!r}: the password is not changed")
        digest = PasswordHasher().hash(password)

        def work() -> None:
            with self._session() as session:
                player_row(session, name, create=True).password_hash = digest

        self._guarded(work)

    def has_password(self, name: str) -> bool:
        """Whether the player has set a password."""

        def work() -> bool:
            with self._session() as session:
                row = find_player(session, name)
                return row is not None and row.password_hash is not None

        return self._guarded(work)

    def check_password(self, name: str, password: str) -> bool:
        """Whether ``password`` is the player's (any password is, for a player without one)."""
        from argon2 import PasswordHasher
        from argon2.exceptions import InvalidHashError, VerificationError

        def work() -> str | None:
            with self._session() as session:
                row = find_player(session, name)
                return row.password_hash if row is not None else None

        digest = self._guarded(work)
        if digest is None:
            return True
        try:
            return PasswordHasher().verify(digest, password)
        except (VerificationError, InvalidHashError):
            return False
