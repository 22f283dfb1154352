"""The bus that tells whoever follows a live match (a browser's stream) that the match changed.

Every process wakes its own followers directly, and, on PostgreSQL, every other process's through the
store's ``LISTEN``/``NOTIFY`` on one channel; on SQLite (one process) the same code wakes them directly.
A follower waits on an :class:`asyncio.Event`; a change may be announced from any thread.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import TYPE_CHECKING

from keypeg.errors import KeypegError

if TYPE_CHECKING:
    from keypeg.store import Store

__all__ = ["CHANNEL", "LiveBus"]

CHANNEL = "keypeg_live"
"""The PostgreSQL channel a change of a live match is announced on (the payload: the match's store id, a
space and the mark of the process that changed it)."""
log = logging.getLogger("keypeg.services")


class LiveBus:
    """Wakes the followers of a match when it changes, in this process and (PostgreSQL) in others."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.mark = secrets.token_hex(8)
        """This process's mark on what it announces: it hears its own announcements too, and ignores them
        (its followers were woken directly, and would otherwise read the match a second time)."""
        self._events: dict[int, asyncio.Event] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listening = False

    def event(self, match_id: int) -> asyncio.Event:
        """The event the next change of the match sets (take it before reading the match: no change is
        missed between the read and the wait). Called from the event loop the followers wait in."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._listen()
        return self._events.setdefault(match_id, asyncio.Event())

    def changed(self, match_id: int) -> None:
        """The match changed (called after the change is committed, from any thread)."""
        self._wake(match_id)
        try:
            self.store.live.notify(CHANNEL, f"{match_id} {self.mark}")
        except KeypegError as error:  # the move stands; other processes' followers catch up at their next check
            log.warning("could not announce a change of match %s: %s", match_id, error)

    def _wake(self, match_id: int) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._set, match_id)

    def _set(self, match_id: int) -> None:
        event = self._events.pop(match_id, None)
        if event is not None:
            event.set()

    def _listen(self) -> None:
        """On PostgreSQL, hear other processes' changes (the store listens in a thread of its own)."""
        if not self._listening:
            self._listening = self.store.live.listen(CHANNEL, self._heard)

    def _heard(self, payload: str) -> None:
        """A change announced on the channel: followers here are woken, unless this process announced it."""
        match_id, _, mark = payload.partition(" ")
        if mark != self.mark and match_id.isascii() and match_id.isdigit() and len(match_id) < 20:
            self._wake(int(match_id))
