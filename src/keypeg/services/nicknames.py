"""A guest's nickname: one rule for rooms and live matches. A guest may be shown by a nickname checked like
a player's name (1 to :data:`NICKNAME_LENGTH` characters), never one of the computer's labels in the
ratings, a registered player's name or a look-alike, nor the name another player at the same table is
shown by. A registered player is always shown by their name."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from keypeg.errors import ConflictError
from keypeg.services import ratings
from keypeg.store import InvalidNameError, name_key, player_name
from keypeg.store.names import GUEST_PREFIX, NAME_LENGTH

if TYPE_CHECKING:
    from keypeg.store import Store

__all__ = ["NICKNAME_LENGTH", "checked", "free", "registered"]

NICKNAME_LENGTH = NAME_LENGTH
"""The longest guest's nickname, in characters (a player's name's limit: one rule for the forms and the API)."""


def checked(player: str, nickname: str | None) -> str | None:
    """``player``'s nickname as they will be shown by (``None``: none given, or ``player`` is registered),
    or :class:`InvalidNameError` saying why it cannot be one."""
    if not player.startswith(GUEST_PREFIX) or not nickname or not nickname.strip():
        return None
    try:
        nick = player_name(nickname)
    except InvalidNameError as error:
        raise InvalidNameError(str(error).replace("a player's name", "a nickname", 1)) from None
    if ratings.reserved(nick):  # the one check registration makes: the computer's labels are nobody's
        raise InvalidNameError(
            f"{nick!r} is kept for the computer (its levels in the ratings): choose another nickname"
        )
    return nick


def registered(store: Store, nick: str | None) -> bool:
    """Whether ``nick`` is a registered player's name (or a look-alike): read before a move's transaction,
    then given to :func:`free`."""
    return nick is not None and store.players.registered(nick) is not None


def free(nick: str | None, *, registered: bool, others: Iterable[str] = ()) -> None:
    """Refuse (a conflict) a nickname that is (or looks like) a ``registered`` player's name, or the name
    one of the ``others`` at the table is shown by."""
    if nick is None:
        return
    if registered:
        raise ConflictError("that nickname is a registered player's name (or looks like one): choose another")
    if any(name_key(other) == name_key(nick) for other in others):
        raise ConflictError("that nickname is taken here (or looks like one that is): choose another")
