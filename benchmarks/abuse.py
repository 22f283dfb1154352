"""One abusive client against everyone else: does another player still get quick answers?

Starts ``keypeg serve --workers 2`` as ``web_load.py`` does (a SQLite file by default; ``--db URL``: a
fresh database made on that PostgreSQL server, dropped at the end) and, once a few games have warmed
every worker up, measures two stretches of ``--seconds`` each in the same run:

1. **quiet**: ``--players`` honest players play games of classic through the JSON API (pausing
   ``--think`` seconds on average before each request, as people do), and another player, the probe,
   asks ``GET /api/session`` every 0.1 s;
2. **abused**: the same, while one abusive client (one address: the server believes the
   ``X-Forwarded-For`` of loopback clients, and every client sends one of its own) keeps ``--streams``
   event streams open on a live match of its own, as a spectator without a cookie (opened
   ``--concurrency`` at a time, each refused one tried again after its ``Retry-After`` or 1 s), and
   sends ``--junk`` junk moves a second (a guess that is no code, on a game of its own, with its
   session and CSRF token), at most ``--concurrency`` in flight.

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
import itertools
import json
import multiprocessing
import os
import resource
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from report import report
from web_load import (
    GUESS,
    SESSION,
    Cpu,
    Player,
    Tally,
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
ABUSER = "10.255.255.1"
"""The abusive client's one address (every other client has one of its own: see ``web_load.Player``)."""


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


async def stretch(base: str, options: argparse.Namespace, into: Stretch) -> None:
    """A stretch of ``--seconds``: the probe and the honest players."""
    stop = asyncio.Event()
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
def abusing(port: int, options: argparse.Namespace, into: Stretch) -> Iterator[None]:
    """The abusive client at work in a process of its own while the block runs (the block starts once it
    has tried every stream); what it got put in ``into.abuser`` at the end."""
    context = multiprocessing.get_context("spawn")
    ready, stop, out = context.Event(), context.Event(), context.Queue()
    child = context.Process(target=abuser_process, args=(port, options, ready, stop, out))
    child.start()
    try:
        if not ready.wait(120):
            raise SystemExit("the abusive client did not get going within 120 s")
        yield
        stop.set()
        into.abuser = out.get(timeout=60)
    finally:
        stop.set()
        child.join(10)
        if child.is_alive():
            child.kill()
            child.join()


# -- the abusive client: a process of its own, speaking HTTP/1.1 on raw sockets (cheap enough for the pace)


@dataclass
class Abuser:
    """What the abusive client got: its streams' answers, the most open at once, its junk moves' answers."""

    streams: Counter[str] = field(default_factory=Counter)
    open: int = 0
    most_open: int = 0
    junk: Counter[str] = field(default_factory=Counter)
    junk_sent: int = 0
    junk_seconds: float = 0.0
    cpu: float = 0.0
    """CPU seconds the abusive client's process used."""


class Raw:
    """HTTP/1.1 requests of the abusive client on raw connections: its address, cookie and CSRF token."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookie = ""
        self.csrf = ""

    def request(self, method: str, path: str, body: object = None) -> bytes:
        data = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"X-Forwarded-For: {ABUSER}"]
        lines += [f"Cookie: {self.cookie}"] if self.cookie else []
        if method == "POST":
            lines += [f"X-CSRF-Token: {self.csrf}", "Content-Type: application/json", f"Content-Length: {len(data)}"]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + data

    async def connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1", self.port)


async def answer(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    """Read one answer (not a stream): its status, headers (lower case) and body."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in head[1:] if ": " in line)
    headers = {k.lower(): v for k, v in headers.items()}
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    return int(head[0].split()[1]), headers, body


async def once(raw: Raw, method: str, path: str, body: object = None) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await raw.connect()
    try:
        writer.write(raw.request(method, path, body))
        return await answer(reader)
    finally:
        writer.close()


async def hold_stream(raw: Raw, path: str, abuser: Abuser, gate: asyncio.Semaphore, reopen: float) -> None:
    """Keep one event stream open (opened again after ``reopen`` s or the Retry-After, when refused or
    ended) until cancelled."""
    while True:
        wait = reopen
        async with gate:
            try:
                reader, writer = await raw.connect()
                writer.write(raw.request("GET", path))
                status_line = await reader.readline()
                status = status_line.split()[1].decode() if status_line else "closed"
            except (OSError, asyncio.IncompleteReadError, IndexError) as error:
                abuser.streams[type(error).__name__] += 1
                await asyncio.sleep(wait)
                continue
        abuser.streams[status] += 1
        try:
            if status == "200":
                abuser.open += 1
                abuser.most_open = max(abuser.most_open, abuser.open)
                try:
                    while await reader.read(65536):
                        pass
                finally:
                    abuser.open -= 1
            else:
                head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
                for line in head.split("\r\n"):
                    if line.startswith("retry-after: "):
                        with contextlib.suppress(ValueError):
                            wait = max(wait, float(line[13:]))
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
        await asyncio.sleep(wait)


async def junk(raw: Raw, path: str, rate: float, connections: int, abuser: Abuser) -> None:
    """Junk moves at ``rate`` a second in all, over ``connections`` keep-alive connections, until cancelled:
    sent at that pace whatever the answers (pipelined: a connection's answers are read as they come, and
    only the connection's buffers hold the sending back)."""
    request = raw.request("POST", path, {"code": "??!!"})
    started = time.perf_counter()
    slot = itertools.count()

    async def answers(reader: asyncio.StreamReader) -> None:
        try:
            while True:
                status, headers, _ = await answer(reader)
                abuser.junk[str(status)] += 1
                abuser.junk_seconds = time.perf_counter() - started
                if headers.get("connection", "").lower() == "close":
                    return
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            abuser.junk[type(error).__name__] += 1

    async def one() -> None:
        while True:
            try:
                reader, writer = await raw.connect()
            except OSError as error:
                abuser.junk[type(error).__name__] += 1
                await asyncio.sleep(0.1)
                continue
            reading = asyncio.create_task(answers(reader))
            try:
                while not reading.done():
                    ahead = started + next(slot) / rate - time.perf_counter()
                    if ahead > 0:
                        await asyncio.sleep(ahead)
                    writer.write(request)
                    await writer.drain()
                    abuser.junk_sent += 1
            except OSError as error:
                abuser.junk[type(error).__name__] += 1
            finally:
                reading.cancel()
                writer.close()

    await asyncio.gather(*(one() for _ in range(connections)))


async def abuse(port: int, options: argparse.Namespace, ready: Any, stop: Any) -> Abuser:
    """The abusive client: a session, a live match and a game of its own; its streams opened (``ready``
    set once each was tried), then its junk moves too, until ``stop`` is set."""
    abuser, raw = Abuser(), Raw(port)
    status, headers, body = await once(raw, "GET", "/api/session")
    raw.cookie = headers.get("set-cookie", "").split(";", 1)[0]
    raw.csrf = json.loads(body)["csrf"]
    made = await once(raw, "POST", "/api/live", {"variant": "classic"})
    game = await once(raw, "POST", "/api/games", {"variant": "classic"})
    if status != 200 or made[0] != 201 or game[0] != 201:
        raise SystemExit(f"the abusive client could not start: {status} {made[0]} {game[0]}")
    gate = asyncio.Semaphore(options.concurrency)
    path = f"/api/live/{json.loads(made[2])['id']}/events"
    tasks = [asyncio.create_task(hold_stream(raw, path, abuser, gate, options.reopen)) for _ in range(options.streams)]
    deadline = time.perf_counter() + 60
    while sum(abuser.streams.values()) < options.streams and time.perf_counter() < deadline:
        await asyncio.sleep(0.1)
    moves = f"/api/games/{json.loads(game[2])['id']}/guesses"
    tasks.append(asyncio.create_task(junk(raw, moves, options.junk, options.connections, abuser)))
    ready.set()
    while not stop.is_set():
        await asyncio.sleep(0.1)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    abuser.cpu = time.process_time()
    return abuser


def abuser_process(port: int, options: argparse.Namespace, ready: Any, stop: Any, out: Any) -> None:
    """The abusive client's process: what it got, put on ``out``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the run; the run stops this process
    out.put(asyncio.run(abuse(port, options, ready, stop)))


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
    parser.add_argument("--concurrency", type=int, default=200, help="the abuser's streams opening at once (200)")
    parser.add_argument("--reopen", type=float, default=5.0, help="the abuser's pause before reopening (5 s)")
    parser.add_argument("--connections", type=int, default=20, help="the abuser's connections for junk (20)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (default 2)")
    parser.add_argument("--db", metavar="URL", help="a PostgreSQL server: a fresh database is made on it")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-save", action="store_true")
    options = parser.parse_args()
    counts = options.players, options.streams, options.concurrency, options.workers, options.connections
    if min(counts) < 1 or options.junk <= 0 or options.reopen < 0:
        parser.error("--players, --streams, --concurrency, --workers, --connections and --junk must be more than 0")
    signal.signal(signal.SIGTERM, interrupted)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 4 * options.streams + 1024  # the client's sockets, and the server's (it inherits the limit)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    quiet, abused = Stretch("quiet"), Stretch("abused")
    with tempfile.TemporaryDirectory() as name, database(options, Path(name)) as (url, label):
        try:
            with server(url, options.workers, Path(name) / "serve.log") as (base, pid):
                print(f"keypeg serve --workers {options.workers} on {label}: {base}")
                asyncio.run(warm_up(base, options.workers, Tally()))
                cpu = [Cpu(pid, None), Cpu(pid, None)]
                print(f"quiet: {options.seconds:g} s ...", flush=True)
                with cpu[0].measure():
                    asyncio.run(stretch(base, options, quiet))
                print(f"abused: the abusive client gets going, then {options.seconds:g} s ...", flush=True)
                with abusing(int(base.rsplit(":", 1)[1]), options, abused), cpu[1].measure():
                    asyncio.run(stretch(base, options, abused))
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

    junk_rate = abuser.junk_sent / abuser.junk_seconds if abuser.junk_seconds else 0.0
    cores = os.cpu_count() or 1
    abusive = sum(abuser.streams.values()) + sum(abuser.junk.values())
    answered = abusive + sum(abused.tally.statuses.values())
    each, seconds = cpu[1].server / max(answered, 1), max(abused.seconds, 1e-9)
    idle = max(0.0, cores * abused.seconds - cpu[1].machine)
    notes = [
        "",
        f"`keypeg serve --workers {options.workers}` on {label}, over loopback, client and server on the same "
        f"machine. Two stretches of {options.seconds:g} s in one run: **quiet**, {options.players} honest players "
        f"play classic through the JSON API (pausing {options.think:g} s on average before each request) while "
        f"another player asks `GET /api/session` every {PROBE_EVERY:g} s; **abused**, the same while one client, "
        f"a process of its own speaking HTTP/1.1 on raw sockets from one address, keeps {options.streams:,} event "
        f"streams open on a live match of its own as a spectator without a cookie (opened {options.concurrency} at "
        f"a time; a refused or ended one opened again after its Retry-After or {options.reopen:g} s) and sends "
        f"{options.junk:,.0f} junk moves a second (a guess that is no code, on a game of its own, with its session "
        f"and CSRF token, pipelined over {options.connections} keep-alive connections: sent at that pace whatever "
        "the answers, as far as the connections' buffers take them). Every other client has an address of "
        "its own (`X-Forwarded-For`, believed from the loopback). The honest requests are not tried again; "
        "latency is as the client saw it.",
        "",
        f"- The abusive client's streams: at most **{abuser.most_open:,} open at once**; the answers to its "
        f"{sum(abuser.streams.values()):,} tries to open one: {error_kinds(abuser.streams)}.",
        f"- Its junk moves: {abuser.junk_sent:,} sent in {abuser.junk_seconds:.1f} s (**{junk_rate:,.0f} a "
        f"second**, of {options.junk:,.0f} asked); the answers read: {error_kinds(abuser.junk)}. Its process used "
        f"{abuser.cpu:.1f} s of CPU.",
        *[
            f"- CPU in the {s.name} stretch ({cores} cores x {s.seconds:.1f} s): the server's processes "
            f"{c.server:.1f} s, the honest players and the probe {c.client:.1f} s, other processes on the machine "
            f"{c.others:.1f} s{' (the abusive client among them)' if s.abuser else ''}, idle "
            f"{max(0.0, cores * s.seconds - c.machine):.1f} s."
            for s, c in zip((quiet, abused), cpu, strict=True)
        ],
        f"- Answers the server gave in the abused stretch, the abusive client's (streams refused or opened, junk "
        f"moves answered) and the others': {answered:,}, **{each * 1000:.2f} ms of "
        f"the server's CPU each**; the server's processes had {cpu[1].server / max(abused.seconds, 1e-9):.2f} "
        "of the machine's cores on average meanwhile.",
        f"- What limits the others: the limits refuse (429) what they should, but each refusal still costs the "
        f"server a request's whole trip; the abusive client's {abusive:,} answers alone, at that cost, took "
        f"**{abusive * each / seconds:.2f} cores** of the {cpu[1].server / seconds:.2f} "
        "the server had, and every other request waits in line with them (its junk moves not yet answered wait in "
        f"the connections' buffers). The machine had {idle:.1f} s of CPU idle meanwhile: "
        + (
            "not its cores but the server's own pace through the requests (its workers' Python, a request at a "
            "time in each event loop) is the bottleneck."
            if idle > 0.1 * cores * seconds
            else "the server was also short of CPU, the machine's cores busy with other work."
        ),
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
