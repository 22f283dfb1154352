"""One read per change for everyone following the same thing: a per-process fan-out of live state.

A :class:`Feed` (one per process, made with the process's :class:`~keypeg.services.live_bus.LiveBus`)
keeps a *topic* per followed thing, keyed by a kind (``"live"`` for a match between two people,
``"room"`` for a room) and the thing's store id. Every follower of a topic shares its reads: when the
thing changes (:meth:`Feed.changed`, in this process or, on PostgreSQL, another), the first follower to
ask reads it once, in a thread, and every other follower gets that same read; each then makes the view
for its own viewer from it (a view must not read the store). A follower's keep-alive reads nothing.

    feed = Feed(bus)                                   # once per process (the web app's state)
    with feed.follow("room", room_id, read) as follower:  # read(): the room as loaded, from a thread
        state = await follower.read()                  # the latest read (made now if there is none)
        while ...:
            if await follower.wait(5.0):               # changed since this follower's last read?
                state = await follower.read()          # one read shared by every follower
            ...
            state = await follower.fresh(since)        # a read started at or after ``since``
                                                       # (time.monotonic()): a clock's deadline, a retry
    feed.changed("room", room_id)                      # after a change is committed, from any thread

``read`` raises what the store raises (every follower waiting for that read gets the error; nothing is
kept of it, so the next ``read`` tries again).

A writer in this process that has the thing as its change left it hands it over with the change
(``bus.wake(key, kind, version, value)``, or :meth:`Feed.woken`): it is kept as the read after that change,
and the followers here read nothing, unless a newer version was announced meanwhile (each change's note
carries the version it wrote) or a change of unknown version was (then they read, as before).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from keypeg.services.live_bus import LiveBus

__all__ = ["Feed", "Follower"]

T = TypeVar("T")
Runner = Callable[[Callable[[], Any]], Awaitable[Any]]


async def _in_thread(read: Callable[[], Any]) -> Any:
    return await asyncio.to_thread(read)


class _Topic:
    """What a process's followers of one thing share: the change count they know of, the latest read and
    the read under way."""

    def __init__(self, feed: Feed, kind: str, key: int, read: Callable[[], Any]) -> None:
        self.feed, self.kind, self.key, self.read = feed, kind, key, read
        self.followers = 0
        self.changes = 0
        self.event = feed.bus.event(key, kind)  # taken before the first read: no change is missed
        self.kept: tuple[int, float, Any] | None = None  # changes seen at the read's start, when it started, the read
        self.running: tuple[int, float, asyncio.Future[Any]] | None = None  # the read under way
        self.latest = -1  # the newest version announced (UNKNOWN once a change of unknown version was)

    def seen(self) -> int:
        """The changes announced so far (a change moves the count on once, whoever notices it)."""
        if self.event.is_set():
            self.changes += 1
            self.event = self.feed.bus.event(self.key, self.kind)
        return self.changes

    async def get(self, since: float | None) -> tuple[int, Any]:
        """A read made after the latest change, and (with ``since``) started at or after ``since``: the one
        kept, the one under way, or a new one; with the change count it started at."""
        changes = self.seen()
        if self.kept is not None and self.kept[0] == changes and (since is None or self.kept[1] >= since):
            return changes, self.kept[2]
        running = self.running
        if running is not None and running[0] == changes and (since is None or running[1] >= since):
            return changes, await asyncio.shield(running[2])
        started = time.monotonic()
        task = asyncio.ensure_future(self._read(changes, started))
        task.add_done_callback(_retrieved)
        self.running = (changes, started, task)
        return changes, await asyncio.shield(task)

    async def _read(self, changes: int, started: float) -> Any:
        """One read for every follower asking meanwhile (a follower that leaves does not cancel it)."""
        try:
            value = await self.feed.run(self.read)
        finally:
            if self.running is not None and self.running[2] is asyncio.current_task():
                self.running = None
        if self.kept is None or (changes, started) >= self.kept[:2]:
            self.kept = (changes, started, value)
        return value


UNKNOWN = sys.maxsize
"""A topic's newest version once a change of unknown version was announced: no value is handed over."""


def _version(value: Any) -> int:
    """The version of a thing as read (``-1`` when it has none)."""
    version = getattr(value, "version", None)
    return version if isinstance(version, int) and not isinstance(version, bool) else -1


def _retrieved(task: asyncio.Future[Any]) -> None:
    """A read's error is its followers' (a read nobody waits for any more is not reported as lost)."""
    if not task.cancelled():
        task.exception()


class Follower(Generic[T]):
    """One follower of a topic (a stream): its reads are the topic's, shared."""

    def __init__(self, topic: _Topic) -> None:
        self._topic = topic
        self._seen = -1

    async def read(self) -> T:
        """The thing as read after the latest change (one read, in a thread, for all followers asking)."""
        self._seen, value = await self._topic.get(None)
        return value  # type: ignore[no-any-return]

    async def fresh(self, since: float) -> T:
        """The thing as read by a read started at ``since`` (:func:`time.monotonic`) or later: at a clock's
        deadline, or to try again after the store failed (followers asking at once share it)."""
        self._seen, value = await self._topic.get(since)
        return value  # type: ignore[no-any-return]

    async def wait(self, timeout: float) -> bool:
        """Whether the thing changed since this follower's last read, waiting up to ``timeout`` seconds
        for a change (``True`` at once when one came meanwhile)."""
        topic = self._topic
        if topic.seen() != self._seen:
            return True
        try:
            await asyncio.wait_for(topic.event.wait(), timeout)
        except TimeoutError:
            return topic.seen() != self._seen
        return True


class Feed:
    """A process's followers of live things, one topic per thing, woken by the bus."""

    def __init__(self, bus: LiveBus, run: Runner | None = None) -> None:
        self.bus = bus
        self.run: Runner = run or _in_thread
        """How a read is run off the event loop (the web passes its thread pool's runner)."""
        self._topics: dict[tuple[str, int], _Topic] = {}
        bus.heard, bus.lost = self._heard, self._lost

    def changed(self, kind: str, key: int) -> None:
        """The thing changed (call after the change is committed, from any thread): its followers here and
        in other processes read it again."""
        self.bus.changed(key, kind)

    def note(self, kind: str, key: int, version: int | None = None) -> str:
        """What a writer sends within its own transaction (PostgreSQL's NOTIFY, on the bus's channel) to tell
        other processes the thing changed (to ``version``: a version at least as new as no other writer's
        before it); after its commit it calls :meth:`woken` (not :meth:`changed`)."""
        return self.bus.note(key, kind, version)

    def woken(self, kind: str, key: int, value: Any = None) -> None:
        """The thing changed and its writer committed, having sent :meth:`note` itself: its followers in
        this process read it again, or, given ``value`` (the thing as the change left it, with its
        ``version``: what ``read`` would return now), get that without a read (from any thread)."""
        version = _version(value)
        self.bus.wake(key, kind, version if version >= 0 else None, value)

    def _heard(self, key: tuple[str, int], version: int | None, value: Any) -> None:
        """A change of ``key`` (its followers here were just woken; in the event loop): the newest version
        announced noted, and ``value`` kept as the read after it if it is that version."""
        topic = self._topics.get(key)
        if topic is None:
            return
        topic.latest = max(topic.latest, UNKNOWN if version is None else version)
        if value is None or version is None or version < topic.latest or _version(value) != version:
            return
        if topic.kept is None or _version(topic.kept[2]) < version:
            topic.kept = (topic.seen(), time.monotonic(), value)  # the change just announced counted

    def _lost(self) -> None:
        """Changes may have been missed: no value is handed over to the topics followed now."""
        for topic in self._topics.values():
            topic.latest = UNKNOWN

    @contextmanager
    def follow(self, kind: str, key: int, read: Callable[[], T]) -> Iterator[Follower[T]]:
        """Follow ``kind`` ``key`` (call in the event loop): ``read`` reads it, in a thread; the topic is
        shared with the process's other followers of it (the first one's ``read`` is used) and dropped
        when its last follower leaves."""
        topic = self._topics.get((kind, key))
        if topic is None:
            topic = self._topics[(kind, key)] = _Topic(self, kind, key, read)
        topic.followers += 1
        try:
            yield Follower(topic)
        finally:
            topic.followers -= 1
            if topic.followers == 0 and self._topics.get((kind, key)) is topic:
                del self._topics[(kind, key)]

    def topics(self) -> int:
        """How many things this process follows now (for tests and figures)."""
        return len(self._topics)
