"""Where a live move's CPU goes, in-process: one live guess's request, one stream wake-up of a match (its
shared read and each viewer's state as JSON), and the same for a room of 6, on PostgreSQL.

    python benchmarks/profile_move.py [--db URL] [--moves 200] [--profile live|room|wake|room-wake] [--top 30]

The app is served in this process through httpx's ASGI transport (no sockets, no uvicorn): the CPU of a
request here is the app's and the store's client side, not the HTTP server's. Each figure is CPU seconds
(``time.process_time``, the whole process) over the calls, divided by their number; the statements and
transactions are counted with SQLAlchemy's events. With ``--profile``, that part is run again under
cProfile with the thread pool replaced by direct calls (one thread: every frame seen) and its top
functions printed by cumulative time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio.to_thread
import httpx
from sqlalchemy import event
from web_load import fresh_database, postgres_server

from keypeg.services import live as live_service
from keypeg.services import rooms as rooms_service
from keypeg.web.app import create_app
from keypeg.web.live import feed_of

HOST = "http://keypeg.test"
Calls = list[Callable[[], Awaitable[Any]]]


class Counter:
    """Statements and transactions run on the store's engine meanwhile."""

    def __init__(self, engine: Any) -> None:
        self.statements = 0
        self.transactions = 0
        event.listen(engine, "before_cursor_execute", self._statement)
        event.listen(engine, "begin", self._begin)

    def _statement(self, *_: Any) -> None:
        self.statements += 1

    def _begin(self, *_: Any) -> None:
        self.transactions += 1


class Client:
    """A browser in-process: its cookies and CSRF token."""

    def __init__(self, app: Any, number: int) -> None:
        transport = httpx.ASGITransport(app=app, client=(f"10.0.{number >> 8}.{number & 255}", 5000))
        self.http = httpx.AsyncClient(transport=transport, base_url=HOST, headers={"Origin": HOST})
        self.csrf = ""

    async def start(self) -> None:
        self.csrf = (await self.http.get("/api/session")).json()["csrf"]

    async def post(self, path: str, body: object) -> dict[str, Any]:
        answer = await self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        refused = answer.status_code == 409 and "/rooms/" in path  # a room's board broken by a random guess: over
        assert answer.status_code in (200, 201) or refused, (path, answer.status_code, answer.text[:300])
        result: dict[str, Any] = answer.json()
        return result


def codes(rng: random.Random, secret: str, count: int) -> list[str]:
    """``count`` classic codes other than ``secret``."""
    found: list[str] = []
    while len(found) < count:
        code = "".join(rng.choice("ABCDEF") for _ in range(4))
        if code != secret:
            found.append(code)
    return found


async def live_matches(app: Any, count: int) -> list[tuple[str, Client, Client]]:
    """``count`` matches, each joined, its first code set: (id, codemaker, codebreaker)."""
    made = []
    for number in range(count):
        first, second = Client(app, 2 * number + 1), Client(app, 2 * number + 2)
        await first.start()
        await second.start()
        created = await first.post("/api/live", {"variant": "classic", "games": 2})
        public_id = created["id"]
        joined = await second.post(f"/api/live/{public_id}/join", {"token": created["token"]})
        me = created["you"]
        maker = first if joined["seats"][0] == me else second  # who sets the first code
        breaker = second if maker is first else first
        await maker.post(f"/api/live/{public_id}/secret", {"code": "AABB"})
        made.append((public_id, maker, breaker))
    return made


async def timed(label: str, calls: Calls, counter: Counter) -> float:
    """Run the calls in turn: CPU ms a call, with statements and transactions a call."""
    statements, transactions = counter.statements, counter.transactions
    start = time.process_time()
    for call in calls:
        await call()
    cpu = (time.process_time() - start) / len(calls) * 1000
    s = (counter.statements - statements) / len(calls)
    t = (counter.transactions - transactions) / len(calls)
    print(f"{label:<40} {cpu:7.2f} ms CPU a call, {s:5.1f} statements in {t:4.1f} transactions ({len(calls)} calls)")
    return cpu


async def direct(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", help="a PostgreSQL server's URL (default: as web_load.py finds one)")
    parser.add_argument("--moves", type=int, default=200, help="calls measured of each kind")
    parser.add_argument("--profile", choices=["live", "wake", "room", "room-wake"], help="profile this part")
    parser.add_argument("--top", type=int, default=35, help="functions shown by the profile")
    parser.add_argument("--sort", default="cumulative", help="the profile's order (pstats)")
    options = parser.parse_args()
    with fresh_database(postgres_server(options.db)) as (url, _):
        app = create_app(url)
        store = app.state.store
        counter = Counter(store.engine)
        rng = random.Random(1)
        matches = await live_matches(app, max(1, options.moves // 10))
        guesses: Calls = []
        for public_id, _maker, breaker in matches:
            for row, code in enumerate(codes(rng, "AABB", 10), start=1):
                guesses.append(partial(breaker.post, f"/api/live/{public_id}/guesses", {"code": code, "row": row}))
        probe = Client(app, 9999)
        await probe.start()
        await timed("warm-up GET /api/session", [partial(probe.http.get, "/api/session")] * 50, counter)

        class Fake:  # a request stand-in for feed_of
            pass

        fake = Fake()
        fake.app = app  # type: ignore[attr-defined]
        feed = feed_of(fake)  # type: ignore[arg-type]
        bus = feed.bus

        def wake(public_id: str, viewers: tuple[str | None, ...]) -> None:
            import json

            opened = live_service.shared(store, bus, public_id)
            for viewer in viewers:
                json.dumps(live_service.shown(opened, viewer))

        seats = {}
        for public_id, maker, _breaker in matches:
            state = await maker.http.get(f"/api/live/{public_id}")
            seats[public_id] = tuple(state.json()["seats"])
        wakes: Calls = [
            partial(direct, wake, p, seats[p])
            for p, _, _ in matches
            for _ in range(max(1, options.moves // len(matches)))
        ]
        if options.profile in ("live", "wake"):
            half = len(guesses) // 2
            await timed("POST /api/live/{id}/guesses", guesses[:half], counter)
            await timed("live wake-up (read + 2 views + JSON)", wakes[: len(wakes) // 2], counter)
            await profile(options, guesses[half:] if options.profile == "live" else wakes[len(wakes) // 2 :])
            return
        await timed("POST /api/live/{id}/guesses", guesses, counter)
        await timed("live wake-up (read + 2 views + JSON)", wakes, counter)
        await timed("GET /api/session", [partial(probe.http.get, "/api/session")] * options.moves, counter)
        await rooms(app, store, feed, options, counter, rng)


async def rooms(
    app: Any, store: Any, feed: Any, options: argparse.Namespace, counter: Counter, rng: random.Random
) -> None:
    """Rooms of 6, started (the computer's code): a room guess, and a room's wake-up (read + 6 views + JSON)."""
    import json

    count = max(1, options.moves // 30)
    made = []
    for number in range(count):
        players = [Client(app, 1000 + 6 * number + k) for k in range(6)]
        for p in players:
            await p.start()
        created = await players[0].post("/api/rooms", {"variant": "classic", "rounds": 2})
        room_id = created["id"]
        for p in players[1:]:
            await p.post(f"/api/rooms/{room_id}/join", {"token": created["links"]["token"]})
        started = await players[0].post(f"/api/rooms/{room_id}/start", {})
        assert started["round"] is not None
        made.append((room_id, players, [s["player"] for s in started["seats"]]))
    guesses: Calls = []
    for room_id, players, _ in made:
        for row in range(1, 6):
            for p in players:
                guess = "".join(rng.choice("ABCDEF") for _ in range(4))
                guesses.append(partial(p.post, f"/api/rooms/{room_id}/guesses", {"guess": guess, "row": row}))
    viewers = {}
    for room_id, players, _ in made:
        view = await players[0].http.get(f"/api/rooms/{room_id}")
        viewers[room_id] = [s["player"] for s in view.json()["seats"]]

    def wake(room_id: str) -> None:
        opened = rooms_service.shared(store, feed, room_id)
        for viewer in viewers[room_id]:
            json.dumps(rooms_service.shown(opened, viewer, whole=False))

    wakes: Calls = [partial(direct, wake, r) for r, _, _ in made for _ in range(max(1, options.moves // count))]
    if options.profile in ("room", "room-wake"):
        half = len(guesses) // 2
        await timed("POST /api/rooms/{id}/guesses", guesses[:half], counter)
        await timed("room wake-up (read + 6 views + JSON)", wakes[: len(wakes) // 2], counter)
        await profile(options, guesses[half:] if options.profile == "room" else wakes[len(wakes) // 2 :])
        return
    await timed("POST /api/rooms/{id}/guesses", guesses, counter)
    await timed("room wake-up (read + 6 views + JSON)", wakes, counter)


async def profile(options: argparse.Namespace, calls: Calls) -> None:
    """The calls under cProfile, the thread pool replaced by direct calls."""

    async def inline(function: Callable[..., Any], *args: Any, **_: Any) -> Any:
        return function(*args)

    anyio.to_thread.run_sync = inline  # type: ignore[assignment]

    profiler = cProfile.Profile(time.process_time)  # CPU, not the waits on the database
    profiler.enable()
    for call in calls:
        await call()
    profiler.disable()
    pstats.Stats(profiler).sort_stats(options.sort).print_stats(options.top)


if __name__ == "__main__":
    asyncio.run(main())
