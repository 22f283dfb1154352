"""Accounts' use cases: register a player (one password rule for every face, and a cap on registrations per
address), log in (failed attempts slowed down per name and address and per address, never a lock of the
name: counted in the store so that the limits hold across workers and processes), welcome a guest who
becomes a player (their games are theirs), claim a name in the terminal, create a player, set a password.

A wrong password is :class:`WrongPasswordError` (forbidden), too many failed logins or registrations
:class:`ThrottledError` (refused, and to be tried again later), a name taken :class:`NameTakenError`
(a conflict), a password the rule refuses :class:`WeakPasswordError` (bad input); each face says them its
own way.
"""

from __future__ import annotations

import ipaddress
import math
import unicodedata
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any

from keypeg.errors import ConflictError, KeypegError, RefusedError
from keypeg.services.stores import GUEST_PREFIX, InvalidNameError, Store, WrongPasswordError, name_key, player_name
from keypeg.store.names import plain_look_alikes

if TYPE_CHECKING:
    from keypeg.services.live_bus import LiveBus
    from keypeg.services.rooms import Announcer

__all__ = [
    "LOGIN_DELAY_CAP",
    "LOGIN_DELAY_START",
    "LOGIN_FREE_PER_ADDRESS",
    "LOGIN_FREE_PER_NAME_AND_ADDRESS",
    "LOGIN_WINDOW",
    "PASSWORD_MIN_DISTINCT",
    "PASSWORD_MIN_LENGTH",
    "REGISTRATION_LIMIT_PER_ADDRESS",
    "REGISTRATION_WINDOW",
    "NameTakenError",
    "ThrottledError",
    "WeakPasswordError",
    "WrongPasswordError",
    "address_group",
    "change_password",
    "check_password_rule",
    "claim_player",
    "ensure_player",
    "has_password",
    "is_guest",
    "log_in",
    "register",
    "renamed",
    "welcome",
]

LOGIN_WINDOW = timedelta(minutes=15)
"""How long a failed login is remembered."""
LOGIN_FREE_PER_NAME_AND_ADDRESS = 5
"""Failed logins on one name from one address within :data:`LOGIN_WINDOW` before that address must wait
between attempts on that name (other addresses, the owner's, are not slowed down)."""
LOGIN_FREE_PER_ADDRESS = 20
"""Failed logins from one address (on any names) within :data:`LOGIN_WINDOW` before it must wait between
attempts."""
LOGIN_DELAY_START = timedelta(seconds=2)
"""The wait after the first failure past a free allowance; it doubles with each further failure..."""
LOGIN_DELAY_CAP = timedelta(minutes=15)
"""... up to this."""
REGISTRATION_WINDOW = timedelta(hours=1)
REGISTRATION_LIMIT_PER_ADDRESS = 10
"""Players registered from one address within :data:`REGISTRATION_WINDOW` before further ones are refused
(a registration refused for its name or password does not count)."""
PASSWORD_MIN_LENGTH = 8
"""The shortest password a player may choose, in characters that show (the most common passwords are
refused too)."""
PASSWORD_MIN_DISTINCT = 4
"""The fewest different characters in a password (``aaaaaaaa`` is no password)."""


class ThrottledError(RefusedError):
    """Too many failed logins (or registrations) from an address lately: wait ``retry_after`` seconds, then
    try again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class WeakPasswordError(KeypegError, ValueError):
    """A password the rule refuses: too short, or one of the most common passwords."""


class NameTakenError(ConflictError):
    """A player registered under a name already taken (or one that looks alike)."""


def is_guest(player: str | None) -> bool:
    """Whether ``player`` is a guest's player (made for a visitor who has not logged in)."""
    return player is not None and player.startswith(GUEST_PREFIX)


@cache
def _common_passwords() -> frozenset[str]:
    """The most common passwords (``common_passwords.txt``, shipped with the package), lower-cased."""
    text = files("keypeg.services").joinpath("common_passwords.txt").read_text(encoding="utf-8")
    return frozenset(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))


def _shown(password: str) -> str:
    """The characters of ``password`` that show, as the rule reads them: NFKC (a full-width letter is the
    letter), without spaces, control and format characters (a zero-width space is nothing), with look-alikes
    of Latin letters and digits written as those (a Cyrillic a is an a), case-folded."""
    normal = unicodedata.normalize("NFKC", password)
    shows = "".join(c for c in normal if not c.isspace() and unicodedata.category(c) not in ("Cc", "Cf"))
    return plain_look_alikes(shows).casefold()


def check_password_rule(password: str) -> None:
    """The one password rule, for the API, the forms and the command line: at least
    :data:`PASSWORD_MIN_LENGTH` characters that show, :data:`PASSWORD_MIN_DISTINCT` of them different, and
    not one of the most common passwords (whatever the case, width, look-alike letters or invisible
    characters). A password
    refused is :class:`WeakPasswordError`, whose message never shows the password."""
    shown = _shown(password)
    if len(shown) < PASSWORD_MIN_LENGTH:
        raise WeakPasswordError(f"choose a password of at least {PASSWORD_MIN_LENGTH} characters")
    if len(set(shown)) < PASSWORD_MIN_DISTINCT:
        raise WeakPasswordError(f"choose a password of at least {PASSWORD_MIN_DISTINCT} different characters")
    if shown in _common_passwords():
        raise WeakPasswordError("that password is one of the most common ones: choose another")


def address_group(address: str) -> str:
    """The group of client addresses one person may hold, as the limits count them: an IPv4 address (an
    IPv4-mapped IPv6 one read as IPv4), or an IPv6 address's /64 network (any home connection hands out a
    /64, so counting single IPv6 addresses would limit nothing); anything else as it is."""
    try:
        parsed = ipaddress.ip_address(address.strip())
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


def _waiting(store: Store, key: str, free: int, now: datetime) -> int:
    """Seconds an attempt counted on ``key`` must still wait: none within ``free`` failures in
    :data:`LOGIN_WINDOW`; past them, the previous failure must be older than a delay that starts at
    :data:`LOGIN_DELAY_START` and doubles with each further failure, up to :data:`LOGIN_DELAY_CAP`: what is
    left of it. The attempt being made is already counted (so the previous one is the second within the
    delay)."""
    failed = store.web_sessions.failures([key], now - LOGIN_WINDOW)
    if failed <= free:
        return 0
    delay = min(LOGIN_DELAY_START * 2 ** min(failed - free - 1, 30), LOGIN_DELAY_CAP)
    latest = store.web_sessions.failure_times(key, now - delay, 2)
    if len(latest) < 2:
        return 0
    left: timedelta = delay - (now - latest[1])
    return max(1, math.ceil(left.total_seconds()))


def register(store: Store, name: str, password: str, address: str | None = None) -> str:
    """Register a new player with a password; the name as registered. A guest's name or a password the
    rule refuses (:func:`check_password_rule`) is bad input, a name taken a conflict
    (:class:`NameTakenError`). From ``address`` (the client's, on the web), at most
    :data:`REGISTRATION_LIMIT_PER_ADDRESS` tries in :data:`REGISTRATION_WINDOW` (:class:`ThrottledError`)."""
    where = f"registration:{address_group(address)}" if address is not None else None
    if where is not None:
        made = store.web_sessions.failures([where], datetime.now(UTC) - REGISTRATION_WINDOW)
        if made >= REGISTRATION_LIMIT_PER_ADDRESS:
            raise ThrottledError(
                "too many registrations from this address: try again later",
                math.ceil(REGISTRATION_WINDOW.total_seconds()),
            )
    name = player_name(name)
    if name_key(name).startswith(GUEST_PREFIX):
        raise InvalidNameError(f"names starting with {GUEST_PREFIX!r} are kept for guests")
    _not_reserved(name)
    check_password_rule(password)
    if store.players.registered(name) is not None:
        raise NameTakenError("that name is taken (names that look alike are one name)")
    store.players.set_password(name, password)
    if where is not None:
        store.web_sessions.record_failure([where])  # only a player made counts toward the cap
    return store.players.registered(name) or name


def log_in(store: Store, name: str, password: str, address: str) -> str:
    """The player ``name`` as registered, if ``password`` is theirs; a name that is not a player's, one
    without a password, or a wrong password are all :class:`WrongPasswordError` (the same answer, so that
    nobody learns who is registered). Each attempt is counted as failed, on the name from ``address`` (the
    client's) and on ``address``, before the password is checked (attempts sent at once all count), and
    forgotten once it proves right. Past the free failures on either, the address must wait between
    attempts (:class:`ThrottledError`, before any password is checked, and not counted): a delay that
    doubles with each failure. The name itself is never locked: from an address that has not failed lately,
    its owner logs in."""
    group = address_group(address)
    try:
        key = f"name+address:{name_key(name)}|{group}"
    except InvalidNameError:
        raise WrongPasswordError("wrong name or password") from None
    where = f"address:{group}"
    now = datetime.now(UTC)
    attempt = store.web_sessions.record_failure([key, where])
    wait = max(
        _waiting(store, key, LOGIN_FREE_PER_NAME_AND_ADDRESS, now), _waiting(store, where, LOGIN_FREE_PER_ADDRESS, now)
    )
    if wait:
        store.web_sessions.forget_failures(attempt)  # a refused attempt does not count: waiting is enough
        raise ThrottledError(f"too many failed logins: wait {wait} seconds, then try again", wait)
    known = store.players.registered(name)
    if known is None or not store.players.has_password(known) or not store.players.check_password(known, password):
        raise WrongPasswordError("wrong name or password")
    store.web_sessions.forget_failures(attempt)
    return known


def welcome(
    store: Store, previous: str | None, player: str, feed: Announcer | None = None, bus: LiveBus | None = None
) -> None:
    """``player`` has just registered or logged in where ``previous`` played: a guest's seats in rooms and
    live matches not over (:func:`keypeg.services.rooms.adopt`, :func:`keypeg.services.live.adopt`; their
    followers told by ``feed`` and ``bus``) and games become ``player``'s (another player's stay theirs)."""
    if is_guest(previous):
        assert previous is not None
        from keypeg.services import live, rooms  # here: both import games, which import this module
        from keypeg.services.live_bus import LiveBus

        rooms.adopt(store, feed or _Silent(), previous, player)
        live.adopt(store, bus or LiveBus(store), previous, player)
        store.games.adopt(previous, player)


def renamed(value: Any, old: str, new: str) -> Any:
    """A JSON value (a room's or a match's state) with the player ``old`` renamed ``new`` wherever the name
    stands whole, as a value or a key (a guest's seat becoming a player's).

    >>> renamed({"host": "g-1", "seats": [["g-1", "Kim"], ["ann", None]], "boards": {"g-1": 3}}, "g-1", "kim")
    {'host': 'kim', 'seats': [['kim', 'Kim'], ['ann', None]], 'boards': {'kim': 3}}
    """
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [renamed(v, old, new) for v in value]
    if isinstance(value, dict):
        return {renamed(k, old, new): renamed(v, old, new) for k, v in value.items()}
    return value


class _Silent:
    """Tells nobody (no followers to tell: a face with no fan-out)."""

    def changed(self, kind: str, key: int) -> None:
        return None


def claim_player(store: Store, name: str, ask_password: Callable[[], str]) -> str:
    """Check that whoever plays as ``name`` knows the password, if the player has one (``ask_password``
    is called only then); the name the player is registered under (``Ann`` for ``ANN``). A wrong
    password is :class:`WrongPasswordError`."""
    if store.players.has_password(name) and not store.players.check_password(name, ask_password()):
        raise WrongPasswordError(f"wrong password for {store.players.registered(name)!r}")
    return store.players.registered(name) or name


def ensure_player(store: Store, name: str) -> str:
    """The player ``name``, created when there is none yet; the name as registered."""
    if store.players.registered(name) is None:
        _not_reserved(name)
    return store.players.ensure(name)


def _not_reserved(name: str) -> None:
    """Refuse the computer's labels in ratings as a new player's name (:func:`keypeg.services.ratings.reserved`)."""
    from keypeg.services.ratings import reserved

    if reserved(name):
        raise InvalidNameError(f"{name!r} is kept for the computer (its levels in the ratings)")


def has_password(store: Store, name: str) -> bool:
    """Whether the player ``name`` has a password (changing it needs the current one)."""
    return store.players.has_password(name)


def change_password(store: Store, name: str, password: str, *, old: str | None = None) -> str:
    """Set ``name``'s password (the player is created when there is none), ``old`` being the current one
    when there is one (:class:`WrongPasswordError` when it is not); the name as registered. The new password
    must pass :func:`check_password_rule`."""
    check_password_rule(password)
    store.players.set_password(name, password, old=old)
    return store.players.registered(name) or name
