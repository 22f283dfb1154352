"""Accounts' use cases: register a player, log in (failed attempts limited per name and per address,
counted in the store so that the limit holds across workers and processes), welcome a guest who becomes
a player (their games are theirs), claim a name in the terminal, create a player, set a password.

A wrong password is :class:`WrongPasswordError` (forbidden), too many failed logins
:class:`ThrottledError` (refused, and to be tried again later), a name taken :class:`NameTakenError`
(a conflict); each face says them its own way.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from keypeg.errors import ConflictError, RefusedError
from keypeg.services.stores import GUEST_PREFIX, InvalidNameError, Store, WrongPasswordError, name_key, player_name

__all__ = [
    "LOGIN_LIMIT_PER_ADDRESS",
    "LOGIN_LIMIT_PER_NAME",
    "LOGIN_WINDOW",
    "NameTakenError",
    "ThrottledError",
    "WrongPasswordError",
    "change_password",
    "claim_player",
    "ensure_player",
    "has_password",
    "is_guest",
    "log_in",
    "register",
    "welcome",
]

LOGIN_WINDOW = timedelta(minutes=15)
LOGIN_LIMIT_PER_NAME = 5
"""Failed logins on one name within :data:`LOGIN_WINDOW` before further attempts are refused."""
LOGIN_LIMIT_PER_ADDRESS = 20
"""Failed logins from one address within :data:`LOGIN_WINDOW` before further attempts are refused."""


class ThrottledError(RefusedError):
    """Too many failed logins on a name or from an address lately: wait, then try again."""


class NameTakenError(ConflictError):
    """A player registered under a name already taken (or one that looks alike)."""


def is_guest(player: str | None) -> bool:
    """Whether ``player`` is a guest's player (made for a visitor who has not logged in)."""
    return player is not None and player.startswith(GUEST_PREFIX)


def register(store: Store, name: str, password: str) -> str:
    """Register a new player with a password; the name as registered. A guest's name is bad input
    (:class:`InvalidNameError`), a name taken a conflict (:class:`NameTakenError`)."""
    name = player_name(name)
    if name_key(name).startswith(GUEST_PREFIX):
        raise InvalidNameError(f"names starting with {GUEST_PREFIX!r} are kept for guests")
    if store.players.registered(name) is not None:
        raise NameTakenError("that name is taken (names that look alike are one name)")
    store.players.set_password(name, password)
    return store.players.registered(name) or name


def log_in(store: Store, name: str, password: str, address: str) -> str:
    """The player ``name`` as registered, if ``password`` is theirs; a name that is not a player's, one
    without a password, or a wrong password are all :class:`WrongPasswordError` (the same answer, so that
    nobody learns who is registered). Each attempt is counted as failed before the password is checked
    (attempts sent at once all count) and forgotten once it proves right: past the limits on the name or
    on ``address`` (the client's), :class:`ThrottledError` before any password is checked."""
    try:
        key = f"name:{name_key(name)}"
    except InvalidNameError:
        raise WrongPasswordError("wrong name or password") from None
    where = f"address:{address}"
    since = datetime.now(UTC) - LOGIN_WINDOW
    attempt = store.web_sessions.record_failure([key, where])
    if store.web_sessions.failures([key], since) > LOGIN_LIMIT_PER_NAME or (
        store.web_sessions.failures([where], since) > LOGIN_LIMIT_PER_ADDRESS
    ):
        raise ThrottledError("too many failed logins: wait a few minutes")
    known = store.players.registered(name)
    if known is None or not store.players.has_password(known) or not store.players.check_password(known, password):
        raise WrongPasswordError("wrong name or password")
    store.web_sessions.forget_failures(attempt)
    return known


def welcome(store: Store, previous: str | None, player: str) -> None:
    """``player`` has just registered or logged in where ``previous`` played: a guest's games become
    ``player``'s (another player's stay theirs)."""
    if is_guest(previous):
        assert previous is not None
        store.games.adopt(previous, player)


def claim_player(store: Store, name: str, ask_password: Callable[[], str]) -> str:
    """Check that whoever plays as ``name`` knows the password, if the player has one (``ask_password``
    is called only then); the name the player is registered under (``Ann`` for ``ANN``). A wrong
    password is :class:`WrongPasswordError`."""
    if store.players.has_password(name) and not store.players.check_password(name, ask_password()):
        raise WrongPasswordError(f"wrong password for {store.players.registered(name)!r}")
    return store.players.registered(name) or name


def ensure_player(store: Store, name: str) -> str:
    """The player ``name``, created when there is none yet; the name as registered."""
    return store.players.ensure(name)


def has_password(store: Store, name: str) -> bool:
    """Whether the player ``name`` has a password (changing it needs the current one)."""
    return store.players.has_password(name)


def change_password(store: Store, name: str, password: str, *, old: str | None = None) -> str:
    """Set ``name``'s password (the player is created when there is none), ``old`` being the current one
    when there is one (:class:`WrongPasswordError` when it is not); the name as registered."""
    store.players.set_password(name, password, old=old)
    return store.players.registered(name) or name
