"""The bus that tells whoever follows a live thing (a browser's stream of a match or a room) that it changed.

Every process wakes its own followers directly, and, on PostgreSQL, every other process's through the
store's ``LISTEN``/``NOTIFY`` on one channel; on SQLite (one process) the same code wakes them directly.
A follower waits on an :class:`asyncio.Event`; a change may be announced from any thread. A thing is
named by its kind (``"live"``, a match between two people; ``"room"``) and its store id; followers share
reads through :class:`~keypeg.services.live_feed.Feed`. Each time the listening connection starts to
listen (the first time, and again after a failure), every follower here is woken: a change announced
before it listened was not heard, and a follower may have read the thing before that change.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from keypeg.errors import KeypegError

if TYPE_CHECKING:
    from keypeg.store import Store

__all__ = ["CHANNEL", "LiveBus"]

CHANNEL = "keypeg_live"
"""The PostgreSQL channel a change of a live thing is announced on (the payload: its kind, a colon, its
store id, a space and the mark of the process that changed it, then, when known, a space and the version
the change wrote)."""
log = logging.getLogger("keypeg.services")


class LiveBus:
    """Wakes the followers of a match when it changes, in this process and (PostgreSQL) in others."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.mark = secrets.token_hex(8)
        """This process's mark on what it announces: it hears its own announcements too, and ignores them
        (its followers were woken directly, and would otherwise read the match a second time)."""
        self._events: dict[tuple[str, int], asyncio.Event] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listening = False
        self.heard: Callable[[tuple[str, int], int | None, object | None], None] | None = None
        """Called in the event loop at each change of a thing, after its followers here are woken: with its
        kind and key, the version the change wrote (when known) and the thing as the change left it (when
        this process made it: :meth:`wake`'s ``value``). The :class:`~keypeg.services.live_feed.Feed` sets it."""
        self.lost: Callable[[], None] | None = None
        """Called in the event loop when changes may have been missed (the listener started listening)."""

    def event(self, key: int, kind: str = "live") -> asyncio.Event:
        """The event the next change of the thing sets (take it before reading the thing: no change is
        missed between the read and the wait). Called from the event loop the followers wait in."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._listen()
        return self._events.setdefault((kind, key), asyncio.Event())

    def changed(self, key: int, kind: str = "live") -> None:
        """The thing changed (called after the change is committed, from any thread): followers here are
        woken, and other processes' told (:meth:`note` is that note, for a writer that sends it within its
        own transaction: then call :meth:`wake` after the commit instead)."""
        self.wake(key, kind)
        try:
            self.store.live.notify(CHANNEL, self.note(key, kind))
        except KeypegError as error:  # the move stands; other processes' followers catch up at their next check
            log.warning("could not announce a change of %s %s: %s", kind, key, error)

    def note(self, key: int, kind: str = "live", version: int | None = None) -> str:
        """The payload that tells other processes the thing changed (to ``version``, when given)."""
        return f"{kind}:{key} {self.mark}" if version is None else f"{kind}:{key} {self.mark} {version}"

    def wake(self, key: int, kind: str = "live", version: int | None = None, value: object | None = None) -> None:
        """Wake this process's followers of the thing (from any thread); ``version``: the version the change
        wrote, ``value``: the thing as it left it (what a read would return now), when known."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._set, (kind, key), version, value)

    def _set(self, key: tuple[str, int], version: int | None = None, value: object | None = None) -> None:
        event = self._events.pop(key, None)
        if event is not None:
            event.set()
        if self.heard is not None:
            self.heard(key, version, value)

    def _set_all(self) -> None:
        events, self._events = self._events, {}
        for event in events.values():
            event.set()
        if self.lost is not None:
            self.lost()

    def _listen(self) -> None:
        """On PostgreSQL, hear other processes' changes (the store listens in a thread of its own)."""
        if not self._listening:
            self._listening = self.store.live.listen(CHANNEL, self._heard, self._listening_now)

    def _heard(self, payload: str) -> None:
        """A change announced on the channel: followers here are woken, unless this process announced it."""
        named, _, marked = payload.partition(" ")
        mark, _, version = marked.partition(" ")
        kind, _, key = named.rpartition(":")
        if (
            mark != self.mark
            and kind.isascii()
            and kind.isalpha()
            and key.isascii()
            and key.isdigit()
            and len(key) < 20
        ):
            written = int(version) if version.isascii() and version.isdigit() and len(version) < 20 else None
            self.wake(int(key), kind, written)

    def _listening_now(self) -> None:
        """Listening (from the first time, or again after a failure): every follower here reads again,
        since changes announced before were not heard."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._set_all)
