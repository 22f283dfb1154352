"""One abusive client against everyone else: does another player still get quick answers?

Starts ``keypeg serve --workers 2`` as ``web_load.py`` does (a SQLite file by default; ``--db URL``: a
fresh database made on that PostgreSQL server, dropped at the end) and, once a few games have warmed
every worker up, measures two stretches of ``--seconds`` each in the same run:

1. **quiet**: ``--players`` honest players play games of classic through the JSON API (pausing
   ``--think`` seconds on average before each request, as people do), and another player, the probe,
   asks ``GET /api/session`` every 0.1 s;
2. **abused**: the same, while one abusive client (one address) keeps ``--streams`` event streams open on
   a live match of its own, as a spectator without a cookie (opened ``--concurrency`` at a time, each
   refused one tried again after its ``Retry-After`` or 1 s), and sends ``--junk`` junk moves a second
   (a guess that is no code, on a game of its own, with its session and CSRF token), at most
   ``--concurrency`` in flight.

Reports the probe's ``GET /api/session`` p50/p99 and the honest players' guess p99 in both stretches,
against the goals (session p99 <= 50 ms, guess p99 <= 100 ms while abused), what the abusive client got
(streams open, refused with 429 or otherwise, junk moves sent and their answers), and where the CPU went,
and saves them as a section of benchmarks/results/web.md. The honest players' requests are never tried
again here (a failure counts as such).

    python benchmarks/abuse.py [--seconds 20] [--players 4] [--think 0.3] [--streams 2000] [--junk 1000]
                               [--concurrency 200] [--db URL] [--no-save]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import resource
import signal
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from report import report
from web_load import (
    GUESS,
    SESSION,
    Cpu,
    Player,
    Tally,
    error_kind,
    error_kinds,
    fresh_database,
    interrupted,
    ms,
    percentile,
    server,
    warm_up,
)

SESSION_GOAL = 0.050
"""The issue's goal: another player's ``GET /api/session`` in p99 <= 50 ms while one client abuses."""
GUESS_GOAL = 0.100
"""The issue's goal: a real guess in p99 <= 100 ms while one client abuses."""
PROBE_EVERY = 0.1
"""Seconds between the probe's requests."""


@dataclass
class Abuser:
    """What the abusive client got: its streams' answers, how many are open now, its junk moves' answers."""

    streams: Counter[str] = field(default_factory=Counter)
    open: int = 0
    most_open: int = 0
    junk: Counter[str] = field(default_factory=Counter)
    junk_sent: int = 0


@dataclass
class Stretch:
    """One stretch of the run: the probe's and the honest players' tally, and its length."""

    name: str
    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    abuser: Abuser | None = None


async def probe(base: str, tally: Tally, stop: asyncio.Event) -> None:
    """Another player asking ``GET /api/session`` every :data:`PROBE_EVERY` seconds until ``stop``."""
    player = Player(base, tally)
    try:
        while not stop.is_set():
            await player.request(SESSION, "GET", "/api/session", retry=False)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), PROBE_EVERY)
    finally:
        await player.close()


async def honest(base: str, count: int, think: float, tally: Tally, stop: asyncio.Event, seed: int) -> None:
    """``count`` players playing games of classic until ``stop`` (their requests not tried again)."""

    async def one(number: int) -> None:
        player = Player(base, tally, think, seed * 1_000_003 + number, patience=0.0)
        try:
            if await player.start(kind=None):
                while not stop.is_set():
                    await player.break_classic()
        finally:
            await player.close()

    await asyncio.gather(*(one(n) for n in range(count)))


async def hold_stream(client: httpx.AsyncClient, path: str, abuser: Abuser, gate: asyncio.Semaphore) -> None:
    """Keep one event stream open (opened again when refused or ended) until cancelled."""
    while True:
        async with gate:
            try:
                answer = await client.send(client.build_request("GET", path), stream=True)
            except httpx.HTTPError as error:
                abuser.streams[error_kind(error)] += 1
                await asyncio.sleep(1.0)
                continue
        try:
            abuser.streams[str(answer.status_code)] += 1
            if answer.status_code != 200:
                wait = 1.0
                with contextlib.suppress(ValueError):
                    wait = max(wait, float(answer.headers.get("Retry-After", "")))
                await asyncio.sleep(wait)
                continue
            abuser.open += 1
            abuser.most_open = max(abuser.most_open, abuser.open)
            try:
                async for _ in answer.aiter_raw():
                    pass
            except httpx.HTTPError as error:
                abuser.streams[f"then {error_kind(error)}"] += 1
            finally:
                abuser.open -= 1
        finally:
            await answer.aclose()


async def junk(client: httpx.AsyncClient, path: str, csrf: str, rate: float, abuser: Abuser, gate: int) -> None:
    """Junk moves at ``rate`` a second (at most ``gate`` in flight) until cancelled."""
    in_flight = asyncio.Semaphore(gate)
    pending: set[asyncio.Task[None]] = set()

    async def one() -> None:
        try:
            answer = await client.post(path, json={"code": "??!!"}, headers={"X-CSRF-Token": csrf})
            abuser.junk[str(answer.status_code)] += 1
        except httpx.HTTPError as error:
            abuser.junk[error_kind(error)] += 1
        finally:
            in_flight.release()

    started = time.perf_counter()
    try:
        while True:
            await in_flight.acquire()
            abuser.junk_sent += 1
            task = asyncio.create_task(one())
            pending.add(task)
            task.add_done_callback(pending.discard)
            ahead = started + abuser.junk_sent / rate - time.perf_counter()
            if ahead > 0:
                await asyncio.sleep(ahead)
    finally:
        for task in pending:
            task.cancel()


@contextlib.asynccontextmanager
async def abusing(base: str, options: argparse.Namespace, abuser: Abuser) -> AsyncIterator[None]:
    """The abusive client at work while the block runs: its streams opened first (the block starts once
    every one is open or was refused at least once), its junk moves throughout."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with (
        httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as mover,
        httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(60, read=None), limits=limits) as watcher,
    ):
        session = (await mover.get("/api/session")).json()
        csrf = session["csrf"]
        made = await mover.post("/api/live", json={"variant": "classic"}, headers={"X-CSRF-Token": csrf})
        game = await mover.post("/api/games", json={"variant": "classic"}, headers={"X-CSRF-Token": csrf})
        if made.status_code != 201 or game.status_code != 201:
            raise SystemExit(f"the abusive client could not start: {made.status_code} {game.status_code}")
        gate = asyncio.Semaphore(options.concurrency)
        path = f"/api/live/{made.json()['id']}/events"
        tasks = [asyncio.create_task(hold_stream(watcher, path, abuser, gate)) for _ in range(options.streams)]
        deadline = time.perf_counter() + 60
        while sum(abuser.streams.values()) < options.streams and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        moves = f"/api/games/{game.json()['id']}/guesses"
        tasks.append(asyncio.create_task(junk(mover, moves, csrf, options.junk, abuser, options.concurrency)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def stretch(base: str, options: argparse.Namespace, into: Stretch) -> None:
    """A stretch of ``--seconds``: the probe and the honest players, with the abusive client if ``into``
    has one."""
    stop = asyncio.Event()
    quiet: contextlib.AbstractAsyncContextManager[None] = contextlib.nullcontext()
    async with abusing(base, options, into.abuser) if into.abuser is not None else quiet:
        started = time.perf_counter()
        work = [
            asyncio.create_task(probe(base, into.tally, stop)),
            asyncio.create_task(honest(base, options.players, options.think, into.tally, stop, options.seed)),
        ]
        await asyncio.sleep(options.seconds)
        stop.set()
        await asyncio.gather(*work)
        into.seconds = time.perf_counter() - started


@contextlib.contextmanager
def database(options: argparse.Namespace, folder: Path) -> Iterator[tuple[str, str]]:
    """The database of the run and how the report names it."""
    if options.db:
        with fresh_database(options.db) as (url, _):
            yield url, "PostgreSQL"
    else:
        yield f"sqlite:///{folder / 'abuse.sqlite3'}", "SQLite"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each stretch (default 20)")
    parser.add_argument("--players", type=int, default=4, help="honest players (default 4)")
    parser.add_argument("--think", type=float, default=0.3, help="an honest player's mean pause (0.3 s)")
    parser.add_argument("--streams", type=int, default=2000, help="the abuser's event streams (default 2000)")
    parser.add_argument("--junk", type=float, default=1000.0, help="the abuser's junk moves a second (1000)")
    parser.add_argument("--concurrency", type=int, default=200, help="the abuser's requests in flight (200)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (default 2)")
    parser.add_argument("--db", metavar="URL", help="a PostgreSQL server: a fresh database is made on it")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-save", action="store_true")
    options = parser.parse_args()
    if min(options.players, options.streams, options.concurrency, options.workers) < 1 or options.junk <= 0:
        parser.error("--players, --streams, --concurrency, --workers and --junk must be more than 0")
    signal.signal(signal.SIGTERM, interrupted)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4 * options.streams + 1024  # the client's sockets, and the server's (it inherits the limit)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    quiet, abused = Stretch("quiet"), Stretch("abused", abuser=Abuser())
    with tempfile.TemporaryDirectory() as name, database(options, Path(name)) as (url, label):
        try:
            with server(url, options.workers, Path(name) / "serve.log") as (base, pid):
                print(f"keypeg serve --workers {options.workers} on {label}: {base}")
                asyncio.run(warm_up(base, options.workers, Tally()))
                cpu = [Cpu(pid, None), Cpu(pid, None)]
                for measured, stretch_ in zip(cpu, (quiet, abused), strict=True):
                    print(f"{stretch_.name}: {options.seconds:g} s ...", flush=True)
                    with measured.measure():
                        asyncio.run(stretch(base, options, stretch_))
                log = (Path(name) / "serve.log").read_text(errors="replace")
        except KeyboardInterrupt:
            raise SystemExit("stopped; so is the server") from None
    summary(options, label, quiet, abused, cpu, log)


def summary(options: argparse.Namespace, label: str, quiet: Stretch, abused: Stretch, cpu: list[Cpu], log: str) -> None:
    def row(stretch_: Stretch, kind: str) -> list[str]:
        values = stretch_.tally.latency.get(kind) or [float("nan")]
        p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
        failed = stretch_.tally.errors + Counter(
            {str(s): n for s, n in stretch_.tally.statuses.items() if s >= 400 and s not in (429,) and s < 500}
        )
        return [stretch_.name, kind, f"{len(values):,}", ms(p50), ms(p99), ms(max(values)), error_kinds(failed)]

    rows = [row(s, kind) for kind in (SESSION, GUESS) for s in (quiet, abused)]
    abuser = abused.abuser
    assert abuser is not None
    session_p99 = percentile(abused.tally.latency.get(SESSION) or [float("inf")], 0.99)
    guess_p99 = percentile(abused.tally.latency.get(GUESS) or [float("inf")], 0.99)

    def met(ok: bool) -> str:
        return "**met**" if ok else "**not met**"

    junk_rate = abuser.junk_sent / abused.seconds if abused.seconds else 0.0
    cores = os.cpu_count() or 1
    notes = [
        "",
        f"`keypeg serve --workers {options.workers}` on {label}, over loopback, client and server on the same "
        f"machine. Two stretches of {options.seconds:g} s in one run: **quiet**, {options.players} honest players "
        f"play classic through the JSON API (pausing {options.think:g} s on average before each request) while "
        f"another player asks `GET /api/session` every {PROBE_EVERY:g} s; **abused**, the same while one client "
        f"(one address) keeps {options.streams:,} event streams open on a live match of its own as a spectator "
        f"without a cookie (opened {options.concurrency} at a time, a refused one opened again after its "
        f"Retry-After or 1 s) and sends {options.junk:,.0f} junk moves a second (a guess that is no code, on a "
        f"game of its own; at most {options.concurrency} in flight). The honest requests are not tried again.",
        "",
        f"- The abusive client's streams: at most **{abuser.most_open:,} open at once**; the answers to its "
        f"{sum(abuser.streams.values()):,} tries to open one: {error_kinds(abuser.streams)}.",
        f"- Its junk moves: {abuser.junk_sent:,} sent in {abused.seconds:.1f} s (**{junk_rate:,.0f} a second**, "
        f"of {options.junk:,.0f} asked); their answers: {error_kinds(abuser.junk)}.",
        *[
            f"- CPU in the {s.name} stretch ({cores} cores x {s.seconds:.1f} s): the server's processes "
            f"{c.server:.1f} s, this client (honest players, probe and abuser together) {c.client:.1f} s, other "
            f"processes on the machine {c.others:.1f} s, idle {max(0.0, cores * s.seconds - c.machine):.1f} s."
            for s, c in zip((quiet, abused), cpu, strict=True)
        ],
        f"- Goal: another player's `GET /api/session` in p99 <= {SESSION_GOAL * 1000:.0f} ms while abused: "
        f"p99 {ms(session_p99)} ms: {met(session_p99 <= SESSION_GOAL)}.",
        f"- Goal: a real guess in p99 <= {GUESS_GOAL * 1000:.0f} ms while abused: p99 {ms(guess_p99)} ms: "
        f"{met(guess_p99 <= GUESS_GOAL)}.",
        f"- The server's log: {log.count('Traceback')} tracebacks.",
    ]
    command = (
        f"python benchmarks/abuse.py --seconds {options.seconds:g} --players {options.players} --think "
        f"{options.think:g} --streams {options.streams} --junk {options.junk:g}" + (" --db URL" if options.db else "")
    )
    report(
        "web",
        f"One abusive client against the others, on {label}",
        command,
        notes,
        ["stretch", "request", "count", "p50 ms", "p99 ms", "max ms", "failed"],
        rows,
        left=2,
        save=not options.no_save,
        section=True,
    )


if __name__ == "__main__":
    main()
