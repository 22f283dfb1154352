"""The per-process fan-out of live things (services.live_feed): every follower of one thing shares one read
of it a change; a keep-alive reads nothing; a read that fails fails for everyone waiting on it."""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
import time
from pathlib import Path

import pytest

from keypeg.errors import UnavailableError
from keypeg.services.live_bus import LiveBus
from keypeg.services.live_feed import Feed
from keypeg.store import Store


class Counted:
    """A read that counts its calls (made from threads) and can be held until released, or made to fail."""

    def __init__(self) -> None:
        self.calls = 0
        self.lock = threading.Lock()
        self.held = threading.Event()
        self.held.set()
        self.failing = False

    def __call__(self) -> int:
        self.held.wait(30)
        with self.lock:
            self.calls += 1
            if self.failing:
                raise UnavailableError("the store is down")
            return self.calls


@pytest.fixture
def feed(tmp_path: Path) -> Feed:
    return Feed(LiveBus(Store(f"sqlite:///{tmp_path / 'feed.sqlite3'}")))


def test_followers_of_one_thing_share_one_read_a_change(feed: Feed) -> None:
    read = Counted()

    async def main() -> None:
        with contextlib.ExitStack() as stack:
            followers = [stack.enter_context(feed.follow("room", 7, read)) for _ in range(5)]
            assert await asyncio.gather(*(f.read() for f in followers)) == [1] * 5
            assert not await followers[0].wait(0.05) and read.calls == 1  # a keep-alive: nothing changed, nothing read
            read.held.clear()  # the next read waits until every follower has asked for it
            feed.changed("room", 7)
            assert all(await asyncio.gather(*(f.wait(5) for f in followers)))
            reads = asyncio.gather(*(f.read() for f in followers))
            await asyncio.sleep(0.05)
            read.held.set()
            assert await reads == [2] * 5 and read.calls == 2 and feed.topics() == 1
        assert feed.topics() == 0  # the last follower gone, so is the topic

    asyncio.run(main())


def test_things_of_other_kinds_or_ids_are_read_apart(feed: Feed) -> None:
    rooms, lives = Counted(), Counted()

    async def main() -> None:
        with feed.follow("room", 1, rooms) as room, feed.follow("live", 1, lives) as match:
            await room.read()
            await match.read()
            feed.changed("live", 1)
            assert await match.wait(5)
            assert not await room.wait(0.05)
            await match.read()
        assert (rooms.calls, lives.calls) == (1, 2)

    asyncio.run(main())


def test_a_failed_read_fails_for_its_followers_and_the_next_one_reads_again(feed: Feed) -> None:
    read = Counted()

    async def main() -> None:
        with feed.follow("live", 3, read) as one, feed.follow("live", 3, read) as two:
            read.failing = True
            results = await asyncio.gather(one.read(), two.read(), return_exceptions=True)
            assert all(isinstance(r, UnavailableError) for r in results) and read.calls == 1
            read.failing = False
            assert await one.read() == 2  # nothing kept of the failure
            assert await two.read() == 2  # the same read, kept
            assert await two.fresh(time.monotonic()) == 3  # a read started now (a clock's deadline)

    asyncio.run(main())


class Versioned:
    """A thing read at a version (as a match or a room is)."""

    def __init__(self, version: int) -> None:
        self.version = version


def test_a_value_handed_over_with_its_change_is_read_by_nobody_unless_a_newer_one_was_announced(feed: Feed) -> None:
    """A writer of this process hands its followers the thing as its change left it: they read nothing; a
    newer version announced by another process first, or a change of unknown version, makes them read."""
    stored = [Versioned(1)]
    reads: list[int] = []

    def read() -> Versioned:
        reads.append(stored[-1].version)
        return stored[-1]

    async def main() -> None:
        with feed.follow("live", 5, read) as one, feed.follow("live", 5, read) as two:
            assert (await one.read()).version == 1 and reads == [1]
            stored.append(Versioned(2))
            feed.woken("live", 5, stored[-1])  # this process's move, to version 2
            assert await one.wait(5) and await two.wait(5)
            assert [(await f.read()).version for f in (one, two)] == [2, 2] and reads == [1]  # no read
            stored.extend([Versioned(3), Versioned(4)])
            feed.bus.wake(5, "live", version=4)  # another process's move, to 4, heard first
            feed.woken("live", 5, stored[2])  # then this one's, to 3: older than announced, not kept
            assert await one.wait(5)
            assert [(await f.read()).version for f in (one, two)] == [4, 4] and reads == [1, 4]
            stored.append(Versioned(5))
            feed.bus.wake(5, "live")  # a change of unknown version: nothing is handed over any more
            feed.woken("live", 5, stored[-1])
            assert await two.wait(5)
            assert (await two.read()).version == 5 and reads == [1, 4, 5]

    asyncio.run(main())


# -- across processes: PostgreSQL's LISTEN/NOTIFY -----------------------------------------------------------


def _postgres_url() -> str:
    import os

    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    return url


def test_the_listener_says_each_time_it_starts_listening_the_first_time_too() -> None:
    """A note sent before the listener listens is never heard, so ``again`` is called once it listens, the
    first time too (a follower may have read the thing before a change it was not told of)."""
    import secrets

    store = Store(_postgres_url())
    channel = f"keypeg_test_{secrets.token_hex(6)}"
    listening, heard = threading.Event(), queue.Queue[str]()
    assert store.live.listen(channel, heard.put, listening.set)
    assert listening.wait(30)
    store.live.notify(channel, "after")
    assert heard.get(timeout=30) == "after"


def test_a_change_announced_before_a_process_listens_still_reaches_its_followers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A follower in one process; another process changes the thing and announces it before the first
    one's listener listens (held here until then): the follower is woken when it listens, and reads."""
    import psycopg

    url = _postgres_url()
    connect, announced = psycopg.connect, threading.Event()

    def listener_waits(*args: object, **kwargs: object) -> object:
        if threading.current_thread().name.startswith("keypeg-listen"):
            announced.wait(30)
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(psycopg, "connect", listener_waits)
    here, there = Feed(LiveBus(Store(url))), LiveBus(Store(url))
    stored = [1]

    async def main() -> None:
        with here.follow("live", 424242, lambda: stored[-1]) as follower:
            assert await follower.read() == 1
            stored.append(2)
            there.changed(424242)  # another process's move, announced before this one listens
            announced.set()
            assert await follower.wait(30), "the follower was never woken"
            assert await follower.read() == 2

    asyncio.run(main())
