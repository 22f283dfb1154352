"""The web app under load on loopback: many players at once, every answer timed, every game checked
in the database afterwards.

Starts ``keypeg serve --workers 2`` (this checkout's keypeg) on a fresh PostgreSQL database, made
on the server ``--db`` names or on the one ``.ci/postgres`` runs (started if it is not running), and
dropped at the end; ``--sqlite``: a SQLite file and one worker. Once it answers:

1. a few untimed games warm every worker up;
2. ``--players`` players at once, each with a session of its own, play ``--games`` games of classic
   as codebreaker through the JSON API, each guess a random code that fits every score so far
   (worked out client-side with keypeg's own engine), so a game takes about five guesses; with no
   pause between requests unless ``--think`` gives one (as a person would take);
3. then, alone, ``--maker-games`` games of super (5 pegs, 8 colours) where the computer at level 3
   breaks a secret this script picked and scores: the computer's moves, timed;
4. every game created is read back from the database itself: there, finished, with exactly the
   guesses and scores the client saw; and no answer may be a 5xx.

The players ride out faults (``benchmarks/chaos.py`` injects them): a request that gets no answer, a 5xx
or a 429 is tried again with a backoff, a guess names its row (one sent again is never applied twice),
and a guess that went unanswered is checked by reading the game back. Each keeps a ledger of the moves
a 2xx answer acknowledged; the check finds none of them lost and no game half-written, and the report
counts the failures by kind and the tries made again.

Prints the latency of each kind of request (p50, p99, max), the throughput, where the CPU went and
the goals, and saves them to benchmarks/results/web.md. The server is stopped at the end (and on
Ctrl-C). Exit 1 when a check fails.

    python benchmarks/web_load.py [--players 50] [--games 20] [--workers 2] [--db URL | --sqlite]
                                  [--maker-games 5] [--think SECONDS] [--no-save]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import math
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from report import report
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import make_url

import keypeg
from keypeg import Feedback, find_variant, score
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.store import Store
from keypeg.store.models import GameRow, GuessRow

REPO = Path(__file__).resolve().parents[1]
DEFAULT_POSTGRES = "postgresql+psycopg://keypeg@127.0.0.1:54329/keypeg_test"
"""Where ``.ci/postgres`` puts its server."""
GUESS_GOAL = 0.050
"""The issue's goal: a guess answered in p99 <= 50 ms on classic with 50 players."""
MOVE_GOAL = 0.200
"""The issue's goal: the computer's move on super (5x8) at level 3 in <= 0.2 s."""
CLASSIC = find_variant("classic").rules
SUPER = find_variant("super").rules

SESSION = "GET /api/session"
CREATE = "POST /api/games (classic)"
GUESS = "POST guesses (classic)"
MAKER_CREATE = "POST /api/games (super, maker, level 3)"
MAKER_SCORE = "POST scores (super, level 3)"
LOAD_KINDS = (SESSION, CREATE, GUESS)

Moves = list[tuple[str, int, int]]
"""A game's moves as (guess, black, white)."""


# -- the server -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def server(url: str, workers: int, log: Path, prefix: Sequence[str] = ()) -> Iterator[tuple[str, int]]:
    """``keypeg serve`` (this checkout's) on a free loopback port, run through the command ``prefix`` if
    given, believing the ``X-Forwarded-For`` of clients on the loopback (each player comes from an address
    of its own, as people do: the server's limits per address are not all of them at once): its base URL
    once it answers, and its pid. Stopped (SIGINT: uvicorn's clean shutdown; killed if
    it lingers) however the block ends."""
    port = free_port()
    paths = [str(Path(keypeg.__file__).parents[1]), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    command = [*prefix, *NICE, sys.executable, "-m", "keypeg", "serve", "--workers", str(workers), "--port", str(port)]
    command += ["--db", url, "--trust-proxy", "127.0.0.1"]  # each player's address: see Player
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise SystemExit(f"keypeg serve stopped (exit {process.returncode}):\n{log.read_text()[-2000:]}")
            with suppress(httpx.HTTPError):
                if httpx.get(f"{base}/api/session", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"keypeg serve did not answer within 60 s:\n{log.read_text()[-2000:]}")
            time.sleep(0.2)
        yield base, process.pid
    finally:
        stop(process)


def stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the server and its workers: SIGINT to its process group, SIGKILL after 15 s."""
    if process.poll() is not None:
        return
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def cpu_of_tree(pid: int) -> float:
    """CPU seconds used so far by process ``pid`` and its descendants, finished ones included (Linux)."""
    total, ticks = 0.0, os.sysconf("SC_CLK_TCK")
    todo = [pid]
    while todo:
        current = todo.pop()
        with suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15]) / ticks  # utime, stime, and its reaped children's
            for task in Path(f"/proc/{current}/task").iterdir():
                todo += [int(child) for child in (task / "children").read_text().split()]
    return total


def cpu_of_machine() -> float:
    """CPU seconds all cores together have been busy since boot (Linux; 0 elsewhere)."""
    with suppress(OSError, ValueError):
        user, nice, system, _idle, _iowait, irq, softirq, steal = map(
            int, Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]
        )
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    return 0.0


@dataclass
class Cpu:
    """CPU seconds spent while a block ran: by the server, this client, the database server (when it
    runs here and could be found), and the machine as a whole."""

    server_pid: int
    database_pid: int | None
    server: float = 0.0
    client: float = 0.0
    database: float = 0.0
    machine: float = 0.0

    @contextmanager
    def measure(self) -> Iterator[None]:
        database = self.database_pid or 0
        marks = cpu_of_tree(self.server_pid), time.process_time(), cpu_of_tree(database), cpu_of_machine()
        try:
            yield
        finally:
            self.server = cpu_of_tree(self.server_pid) - marks[0]
            self.client = time.process_time() - marks[1]
            self.database = cpu_of_tree(database) - marks[2] if database else 0.0
            self.machine = cpu_of_machine() - marks[3]

    @property
    def others(self) -> float:
        """What every other process on the machine used meanwhile."""
        return max(0.0, self.machine - self.server - self.client - self.database)


# -- the database -----------------------------------------------------------------------------------


def reachable(url: str) -> bool:
    engine = create_engine(url)
    try:
        with engine.connect():
            return True
    except Exception:
        return False
    finally:
        engine.dispose()


def postgres_server(given: str | None) -> str:
    """A PostgreSQL URL: ``--db``, else the server ``.ci/postgres`` runs (started now if it is not running;
    it is left running)."""
    if given:
        return given
    if reachable(DEFAULT_POSTGRES):
        return DEFAULT_POSTGRES
    started = subprocess.run(["bash", str(REPO / ".ci" / "postgres")], capture_output=True, text=True, check=False)
    url = started.stdout.strip()
    if not url or not reachable(url):
        raise SystemExit("no PostgreSQL server: give one with --db URL, or run with --sqlite")
    print(f"started PostgreSQL with .ci/postgres (left running): {url}")
    return url


@contextmanager
def fresh_database(server_url: str) -> Iterator[tuple[str, bool]]:
    """A new, empty database on the server of ``server_url`` for this run, dropped afterwards, and
    ``True``; or, when none can be created there, ``server_url`` itself and ``False``."""
    base = make_url(server_url)
    name = f"keypeg_load_{secrets.token_hex(4)}"
    admin = create_engine(base, isolation_level="AUTOCOMMIT", pool_pre_ping=True)  # the server may restart
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    except Exception as error:
        admin.dispose()
        print(f"note: cannot create a database there ({type(error).__name__}): using the one --db names")
        yield server_url, False
        return
    try:
        yield base.set(database=name).render_as_string(hide_password=False), True
    finally:
        with suppress(Exception), admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@dataclass
class Database:
    url: str
    label: str
    """How the report names it (``PostgreSQL 15.18``)."""
    fresh: bool
    """Whether this run made it (so every game in it is this run's)."""
    pid: int | None
    """Its server's process, when it runs on this machine and could be found (SQLite: none)."""


@contextmanager
def database(options: argparse.Namespace, folder: Path) -> Iterator[Database]:
    """The database served in this run."""
    if options.sqlite:
        yield Database(f"sqlite:///{folder / 'load.sqlite3'}", "SQLite", True, None)
        return
    with fresh_database(postgres_server(options.db)) as (url, fresh):
        engine = create_engine(url)
        pid = None
        with engine.connect() as connection:
            version = connection.execute(text("SHOW server_version")).scalar()
            if make_url(url).host in ("127.0.0.1", "localhost", "::1"):
                with suppress(Exception):  # a superuser may read where its files are; else no figure
                    data = connection.execute(text("SHOW data_directory")).scalar()
                    pid = int((Path(str(data)) / "postmaster.pid").read_text().split()[0])
        engine.dispose()
        yield Database(url, f"PostgreSQL {str(version).split()[0]}", fresh, pid)


@contextmanager
def connections_opened(url: str) -> Iterator[list[int]]:
    """PostgreSQL: how many connections to the database were opened while the block ran (from
    ``pg_stat_database``, PostgreSQL 14 and later), put in the list yielded; nothing elsewhere."""
    opened: list[int] = []
    if make_url(url).get_backend_name() != "postgresql":
        yield opened
        return
    query = text("SELECT sessions FROM pg_stat_database WHERE datname = current_database()")
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            before = None
            with suppress(Exception):
                before = int(connection.execute(query).scalar_one())
            connection.rollback()
            yield opened
            if before is not None:
                time.sleep(1.5)  # a busy backend reports its statistics once a second at most
                opened.append(int(connection.execute(query).scalar_one()) - before)
    finally:
        engine.dispose()


# -- the players ------------------------------------------------------------------------------------

PATIENCE = 60.0
"""Seconds a request is tried again (after a connection error, a 5xx or a 429) before it is given up."""
BACKOFF = (0.05, 2.0)
"""The first pause before a request is tried again, doubled at each try up to the second."""
STALLS = 4
"""Read-backs in a row that show a refused guess did not land before a player gives the game up."""


def error_kind(error: httpx.HTTPError) -> str:
    """How the tally names an exchange that got no answer: ``refused`` (nothing listening), ``reset``
    (the connection dropped), ``timeout``, or the error's class."""
    if isinstance(error, httpx.TimeoutException):
        return "timeout"
    if isinstance(error, httpx.ConnectError):
        return "refused"
    if isinstance(error, httpx.ReadError | httpx.WriteError | httpx.RemoteProtocolError):
        return "reset"
    return type(error).__name__


def retry_after(response: httpx.Response | None, pause: float) -> float:
    """How long to wait before trying again: a 429's ``Retry-After`` (seconds), else ``pause``."""
    if response is not None and response.status_code == 429:
        with suppress(ValueError):
            return max(pause, float(response.headers.get("Retry-After", "")))
    return pause


@dataclass
class Tally:
    """Every request's latency by kind, the answers' statuses, the failures met, and the ledger: the
    moves of every game as the server acknowledged them."""

    latency: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    """Tries that failed, by kind: ``refused``, ``reset``, ``timeout`` (no answer), or the status (5xx, 429)."""
    requests: int = 0
    """Tries sent, retries included."""
    retries: int = 0
    failures: list[str] = field(default_factory=list)
    games: dict[str, Moves] = field(default_factory=dict)
    """The ledger: public id -> the moves a 2xx answer acknowledged (a move's own, or a read-back's)."""
    acknowledged: dict[str, list[float]] = field(default_factory=dict)
    """Public id -> when each of its ledger's moves was acknowledged (``time.perf_counter``)."""
    touched: dict[str, float] = field(default_factory=dict)
    """Public id -> when the client last sent a move for it."""
    finished: set[str] = field(default_factory=set)
    """The games the client saw end."""
    outcomes: Counter[str] = field(default_factory=Counter)

    def acknowledge(self, public_id: str, moves: Moves) -> None:
        """Add moves a 2xx answer showed to a game's ledger."""
        now = time.perf_counter()
        self.games.setdefault(public_id, []).extend(moves)
        self.acknowledged.setdefault(public_id, []).extend(now for _ in moves)


ADDRESSES = itertools.count(1)
"""Numbers the players' addresses (10.0.0.1, 10.0.0.2, ...)."""


def next_address() -> str:
    """A client address no player of this process has had yet."""
    number = next(ADDRESSES)
    return f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"


class Player:
    """A browser: its own connection, cookie jar, CSRF token and address (sent as ``X-Forwarded-For``,
    which the server started here believes from the loopback). It rides out faults: a request that
    gets no answer, a 5xx or a 429 is tried again (see :meth:`request`), and a move refused or unanswered
    is checked by reading the game back."""

    def __init__(self, base: str, tally: Tally, think: float = 0.0, seed: int = 0, patience: float = PATIENCE) -> None:
        self.client = httpx.AsyncClient(base_url=base, timeout=60, headers={"X-Forwarded-For": next_address()})
        self.tally = tally
        self.think = think
        self.patience = patience
        self.rng = random.Random(seed)
        self.jitter = random.Random(seed)
        self.csrf = ""

    async def request(
        self,
        kind: str | None,
        method: str,
        path: str,
        body: object = None,
        *,
        retry: bool = True,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response | None:
        """Send a request (timed as ``kind`` unless ``None``, from the first try to the answer kept); every
        status and every failure is counted. A try that gets no answer, a 5xx or a 429 is tried again after
        a pause (doubling from 0.05 s to 2 s, or the 429's ``Retry-After``) for up to ``patience`` seconds,
        unless ``retry`` is false. The last answer, or ``None`` if none came."""
        started, pause = time.perf_counter(), BACKOFF[0]
        sent = {**(headers or {}), **({"X-CSRF-Token": self.csrf} if method == "POST" else {})}
        while True:
            self.tally.requests += 1
            response: httpx.Response | None = None
            try:
                response = await self.client.request(method, path, json=body, headers=sent)
            except httpx.HTTPError as error:
                self.tally.errors[error_kind(error)] += 1
                failure = f"{method} {path}: no answer ({error_kind(error)})"
            else:
                self.tally.statuses[response.status_code] += 1
                if response.status_code < 500 and response.status_code != 429:
                    break
                self.tally.errors[str(response.status_code)] += 1
                failure = f"{method} {path}: {response.status_code} {response.text[:200]}"
            wait = retry_after(response, pause) * self.jitter.uniform(0.5, 1.0)
            if not retry or time.perf_counter() + wait - started > self.patience:
                self.tally.failures.append(failure)
                break
            self.tally.retries += 1
            await asyncio.sleep(wait)
            pause = min(2 * pause, BACKOFF[1])
        if response is not None:
            if kind is not None:
                self.tally.latency[kind].append(time.perf_counter() - started)
            if 400 <= response.status_code < 500 and response.status_code != 429:
                self.tally.failures.append(f"{method} {path}: {response.status_code} {response.text[:200]}")
        return response

    async def pause(self) -> None:
        """A person's time to think (``--think``: uniform over 0 to twice the mean)."""
        if self.think > 0:
            await asyncio.sleep(self.rng.uniform(0, 2 * self.think))

    async def start(self, kind: str | None = SESSION) -> bool:
        """Open the session and keep its CSRF token: whether it could."""
        answer = await self.request(kind, "GET", "/api/session")
        if answer is None or answer.status_code != 200:
            return False
        self.csrf = answer.json()["csrf"]
        return True

    async def read_back(self, public_id: str) -> dict[str, Any] | None:
        """The game as the server shows it now: the moves it shows beyond the ledger's are acknowledged
        (the answer to a move lost on the way); ``None`` if it cannot be read, or does not show the ledger's
        moves (said in the failures, the check counts them lost)."""
        answer = await self.request(None, "GET", f"/api/games/{public_id}")
        if answer is None or answer.status_code != 200:
            return None
        game: dict[str, Any] = answer.json()
        shown = [(m["guess"], m["black"], m["white"]) for m in game["history"]]
        ledger = self.tally.games[public_id]
        if shown[: len(ledger)] != ledger:
            self.tally.failures.append(f"game {public_id}: the server shows {shown}; acknowledged {ledger}")
            return None
        self.tally.acknowledge(public_id, shown[len(ledger) :])
        return game

    async def break_classic(self, *, timed: bool = True) -> None:
        """One game of classic as codebreaker, every guess a random code that fits every score so far (a
        guess names its row, so one tried again is never applied twice, and the game's start an idempotency
        key, so one tried again starts one game)."""
        await self.pause()
        key = {"Idempotency-Key": secrets.token_urlsafe(16)}
        made = await self.request(CREATE if timed else None, "POST", "/api/games", {"variant": "classic"}, headers=key)
        if made is None or made.status_code != 201:
            return
        game = made.json()
        public_id = game["id"]
        self.tally.acknowledge(public_id, [])
        moves = self.tally.games[public_id]
        knowledge, stalls = Knowledge(CLASSIC), 0
        while game["status"] == "playing":
            fitting = knowledge.candidates
            code = knowledge.space.code(int(fitting[self.rng.randrange(len(fitting))]))
            await self.pause()
            path, body = f"/api/games/{public_id}/guesses", {"code": str(code), "row": len(moves) + 1}
            self.tally.touched[public_id] = time.perf_counter()
            answer = await self.request(GUESS if timed else None, "POST", path, body)
            if answer is not None and answer.status_code == 200:
                game = answer.json()
                self.tally.acknowledge(public_id, [(str(code), game["black"], game["white"])])
                knowledge = knowledge.add(code, Feedback(game["black"], game["white"]))
                continue
            known = len(moves)
            read = await self.read_back(public_id)
            stalls = 0 if len(moves) > known else stalls + 1
            if read is None or stalls >= STALLS:
                self.tally.outcomes["given up"] += 1
                return
            game = read
            for guess, black, white in moves[known:]:
                knowledge = knowledge.add(CLASSIC.parse(guess), Feedback(black, white))
        self.tally.outcomes[game["status"]] += 1
        self.tally.finished.add(public_id)

    async def break_my_codes(self, games: int, seed: int, *, timed: bool = True) -> None:
        """Games of super where the computer, at level 3, breaks secrets picked (and scored) here."""
        for number in range(games):
            secret = random_code(SUPER, random.Random(seed + number))
            body = {"variant": "super", "role": "maker", "level": 3}
            key = {"Idempotency-Key": secrets.token_urlsafe(16)}
            made = await self.request(MAKER_CREATE if timed else None, "POST", "/api/games", body, headers=key)
            if made is None or made.status_code != 201:
                continue
            game = made.json()
            self.tally.acknowledge(game["id"], [])
            while game["status"] == "playing":
                guess = SUPER.parse(game["guess"])
                feedback = score(secret, guess)
                given = {"black": feedback.black, "white": feedback.white, "row": len(self.tally.games[game["id"]]) + 1}
                answer = await self.request(MAKER_SCORE, "POST", f"/api/games/{game['id']}/scores", given)
                if answer is None or answer.status_code != 200:
                    break
                game = answer.json()
                self.tally.acknowledge(game["id"], [(str(guess), feedback.black, feedback.white)])
            else:
                self.tally.finished.add(game["id"])
            self.tally.outcomes[f"maker {game['status']}"] += 1

    async def close(self) -> None:
        await self.client.aclose()


async def as_players(base: str, count: int, tally: Tally, play: Callable[[Player, int], Awaitable[None]]) -> None:
    """``count`` players at once, each with its own session and connection, each playing ``play``."""
    players = [Player(base, tally, seed=n) for n in range(count)]
    try:
        started = await asyncio.gather(*(p.start(kind=None) for p in players))
        await asyncio.gather(*(play(p, n) for n, p in enumerate(players) if started[n]))
    finally:
        for player in players:
            await player.close()


async def warm_up(base: str, workers: int, tally: Tally) -> None:
    """Untimed games first, so that every worker has loaded what a game needs, the kernels of the
    computer's moves included (the first move of a fresh worker loads them: its time is kept apart)."""
    await as_players(base, 4 * workers, tally, lambda player, _: player.break_classic(timed=False))
    await as_players(base, 2 * workers, tally, lambda player, n: player.break_my_codes(1, 1000 + n))


async def load(base: str, players: int, games: int, think: float, tally: Tally, seed: int) -> float:
    """``players`` at once, each its session then ``games`` games of classic; the seconds it all took."""

    async def one(number: int) -> None:
        player = Player(base, tally, think, seed * 1_000_003 + number)
        try:
            if not await player.start():
                return
            for _ in range(games):
                await player.break_classic()
        finally:
            await player.close()

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(players)))
    return time.perf_counter() - started


async def computer_moves(base: str, games: int, tally: Tally) -> None:
    """The computer's moves on super at level 3, one request at a time."""
    player = Player(base, tally)
    try:
        if await player.start(kind=None):
            await player.break_my_codes(games, 0)
    finally:
        await player.close()


# -- the check --------------------------------------------------------------------------------------


@dataclass
class Checked:
    created: int
    """Games in the ledger (their creation acknowledged)."""
    found: int
    finished: int
    """Of the games the client saw end, those finished in the database too."""
    matching: int
    """Games stored with exactly the ledger's moves."""
    moves: int
    """Acknowledged moves."""
    stored_games: int
    problems: list[str]
    lost: dict[str, int] = field(default_factory=dict)
    """Public id -> how many of its acknowledged moves the database does not have (from the first wrong one)."""
    half_written: list[str] = field(default_factory=list)
    """Public ids of the games stored half-written (any game, the ledger's or not)."""
    unknown: int = 0
    """Games stored that the client never heard of (a create whose answer was lost)."""


def half_written(pegs: int, outcome: str | None, guesses: int, moves: list[tuple[int, int]]) -> str:
    """What is half-written in a stored game ('' if nothing): its count of guesses against its rows, the
    rows' numbers (1, 2, ...), a winning guess that is not the last or not marked solved, and a game marked
    solved whose last guess does not win. ``moves``: each guess's number and black pegs, in order."""
    wrong = []
    if guesses != len(moves):
        wrong.append(f"{guesses} guesses counted, {len(moves)} stored")
    if [number for number, _ in moves] != list(range(1, len(moves) + 1)):
        wrong.append(f"guesses numbered {[number for number, _ in moves]}")
    wins = [k for k, (_, black) in enumerate(moves) if black == pegs]
    if wins and (wins != [len(moves) - 1] or outcome != "solved"):
        wrong.append(f"a winning guess at {wins[0] + 1} of {len(moves)}, outcome {outcome}")
    if outcome == "solved" and not wins:
        wrong.append("solved without a winning guess")
    return "; ".join(wrong)


def check(url: str, ledger: dict[str, Moves], finished: set[str]) -> Checked:
    """The ``ledger`` (see :attr:`Tally.games`) against the database itself, read directly: every game the
    client created is there, its stored moves start with every move acknowledged (none lost), those the
    client saw end (``finished``) are finished, and no game at all is half-written (see :func:`half_written`)."""
    store = Store(url)
    stored: dict[int, tuple[str | None, str | None, int, int, list[tuple[int, str, int, int]]]] = {}
    separate = set()  # the games of matches (live or against the computer): not this client's to know
    with store.engine.connect() as connection:
        columns = GameRow.id, GameRow.public_id, GameRow.outcome, GameRow.guesses, GameRow.pegs, GameRow.match_id
        for game_id, public_id, outcome, guesses, pegs, match_id in connection.execute(select(*columns)):
            stored[game_id] = (public_id, outcome, guesses, pegs, [])
            if match_id is not None:
                separate.add(game_id)
        moves = connection.execute(
            select(GuessRow.game_id, GuessRow.number, GuessRow.guess, GuessRow.black, GuessRow.white).order_by(
                GuessRow.game_id, GuessRow.number
            )
        )
        for game_id, number, guess, black, white in moves:
            stored[game_id][4].append((number, guess, black, white))
        total = connection.execute(select(func.count(GameRow.id))).scalar_one()
    store.engine.dispose()
    checked = Checked(len(ledger), 0, 0, 0, sum(map(len, ledger.values())), total, [])
    for game_id, (public_id, outcome, guesses, pegs, rows_) in stored.items():
        if wrong := half_written(pegs, outcome, guesses, [(number, black) for number, _, black, _ in rows_]):
            checked.half_written.append(public_id or f"#{game_id}")
            checked.problems.append(f"game {public_id or f'#{game_id}'}: half-written: {wrong}")
    by_public_id = {public_id: (outcome, rows_) for public_id, outcome, _, _, rows_ in stored.values() if public_id}
    checked.unknown = sum(1 for k, (p, *_) in stored.items() if k not in separate and p not in ledger)
    for public_id, seen in ledger.items():
        if public_id not in by_public_id:
            checked.problems.append(f"game {public_id}: not in the database")
            checked.lost[public_id] = len(seen)
            continue
        checked.found += 1
        outcome, rows_ = by_public_id[public_id]
        kept = [(guess, black, white) for _, guess, black, white in rows_]
        same = next((k for k, (a, b) in enumerate(zip(kept, seen, strict=False)) if a != b), min(len(kept), len(seen)))
        if same < len(seen):
            checked.lost[public_id] = len(seen) - same
            checked.problems.append(f"game {public_id}: stored {kept}; acknowledged {seen}")
        checked.matching += kept == seen
        if public_id in finished:
            checked.finished += outcome is not None
            if outcome is None:
                checked.problems.append(f"game {public_id}: not finished in the database; the client saw it end")
    return checked


# -- the figures ------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank percentile (``q`` from 0 to 1)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f}"


def error_kinds(errors: Counter[str]) -> str:
    """Failed tries by kind, for a table or a note: ``503 12, reset 3`` (``none`` without any)."""
    return ", ".join(f"{kind} {n:,}" for kind, n in sorted(errors.items())) or "none"


def faults_note(tallies: list[Tally], checked: Checked) -> str:
    """The faults the clients met and rode out, and what the check found of them, for the report."""
    errors = sum((t.errors for t in tallies), Counter[str]())
    retries, tries = sum(t.retries for t in tallies), sum(t.requests for t in tallies)
    return (
        f"- Faults met: tries that failed, by kind: {error_kinds(errors)}; tried again: {retries:,} of "
        f"{tries:,} tries. Acknowledged moves lost: **{sum(checked.lost.values()):,}**; games half-written: "
        f"**{len(checked.half_written):,}**; games stored that the client never heard of (an answer lost): "
        f"{checked.unknown:,}."
    )


def interrupted(_signal: int, _frame: object) -> None:
    raise KeyboardInterrupt


def server_options(parser: argparse.ArgumentParser) -> None:
    """The options every load test of the server takes (shared with ``live_load.py``)."""
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (default 2; 1 with --sqlite)")
    parser.add_argument("--db", metavar="URL", help="a PostgreSQL server: a fresh database is made on it, then dropped")
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file and one worker instead of PostgreSQL")
    parser.add_argument("--think", type=float, default=0.0, help="a player's mean pause before each request, in s")
    parser.add_argument("--seed", type=int, default=0, help="seeds the players' choice of guesses")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument(
        "--plain", action="store_true", help="serve with asyncio's event loop and h11 (not uvloop and httptools)"
    )
    parser.add_argument("--label", default="", help="said after the section's title: a section of its own")
    parser.add_argument(
        "--nice", type=int, default=0, help="run the server at this niceness (negative: ahead of the machine's others)"
    )


def checked_workers(parser: argparse.ArgumentParser, options: argparse.Namespace) -> int:
    """The number of worker processes to start (1 on SQLite), the shared options checked; SIGTERM then
    stops a run as Ctrl-C does (the server too, the database dropped)."""
    if options.sqlite and options.db:
        parser.error("--sqlite and --db do not go together")
    if options.workers < 1 or options.think < 0:
        parser.error("--workers must be 1 or more; --think, 0 or more")
    signal.signal(signal.SIGTERM, interrupted)
    if options.plain:  # keypeg serve reads it (its workers inherit the environment)
        os.environ["KEYPEG_PLAIN_HTTP"] = "1"
    LABEL[:] = [options.label] if options.label else []
    NICE[:] = ["nice", "-n", str(options.nice)] if options.nice else []
    return 1 if options.sqlite else int(options.workers)


LABEL: list[str] = []
"""``--label``, when given."""
NICE: list[str] = []
"""The command ``keypeg serve`` runs through for ``--nice``."""


def paced(title: str, think: float) -> str:
    """A section's title, with the players' pause when they take one (each pace is a section of its own),
    and the run's ``--label``."""
    title = f"{title}: players pausing {think:g} s on average" if think else title
    return f"{title} ({LABEL[0]})" if LABEL else title


def server_command(options: argparse.Namespace, workers: int) -> str:
    """How the report names the options shared by every load test."""
    command = " --sqlite" if options.sqlite else f" --workers {workers}"
    command += f" --think {options.think:g}" if options.think else ""
    return command + (" --plain" if options.plain else "") + (f" --nice {options.nice}" if options.nice else "")


def cpu_note(cpu: Cpu, seconds: float, requests: int, opened: list[int]) -> str:
    """Where the CPU went while the load ran, for the report."""
    cores = os.cpu_count() or 1
    database = f"the database server {cpu.database:.1f} s, " if cpu.database_pid else ""
    connections = f" Connections the server opened to the database meanwhile: {opened[0]:,}." if opened else ""
    return (
        f"- CPU meanwhile ({cores} cores x {seconds:.1f} s): the server's processes {cpu.server:.1f} s "
        f"(**{cpu.server / max(requests, 1) * 1000:.1f} ms a request**), {database}this client {cpu.client:.1f} s, "
        f"other processes on the machine {cpu.others:.1f} s, idle {max(0.0, cores * seconds - cpu.machine):.1f} s "
        f"(load average {os.getloadavg()[0]:.2f} at the end).{connections} The server: uvicorn on "
        f"{'asyncio and h11' if os.environ.get('KEYPEG_PLAIN_HTTP') == '1' else 'uvloop and httptools'}."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=50, help="players at once (default 50)")
    parser.add_argument("--games", type=int, default=20, help="games of classic each (default 20)")
    parser.add_argument("--maker-games", type=int, default=5, help="games of super the computer breaks (default 5)")
    server_options(parser)
    options = parser.parse_args()
    if min(options.players, options.games) < 1 or options.maker_games < 0:
        parser.error("--players and --games must be 1 or more; --maker-games, 0 or more")
    workers = checked_workers(parser, options)
    _ = Knowledge(CLASSIC).add(CLASSIC.parse("AABB"), Feedback(1, 0)).candidates  # the client's kernels, loaded

    tally, warm = Tally(), Tally()
    with tempfile.TemporaryDirectory() as folder, database(options, Path(folder)) as served:
        try:
            with server(served.url, workers, Path(folder) / "serve.log") as (base, pid):
                print(f"keypeg serve --workers {workers} on {served.label}: {base}")
                asyncio.run(warm_up(base, workers, warm))
                print(f"{options.players} players x {options.games} games of classic ...")
                cpu = Cpu(pid, served.pid)
                with connections_opened(served.url) as opened, cpu.measure():
                    seconds = asyncio.run(
                        load(base, options.players, options.games, options.think, tally, options.seed)
                    )
                print(f"... {seconds:.1f} s; the computer breaks {options.maker_games} codes of super ...")
                asyncio.run(computer_moves(base, options.maker_games, tally))
        except KeyboardInterrupt:
            raise SystemExit("stopped; so is the server") from None
        checked = check(served.url, {**warm.games, **tally.games}, warm.finished | tally.finished)
        if served.fresh and checked.stored_games != checked.created:
            checked.problems.append(f"{checked.stored_games} games in the database, {checked.created} created")
    summary(options, workers, served.label, tally, warm, seconds, cpu, opened, checked)


def summary(
    options: argparse.Namespace,
    workers: int,
    label: str,
    tally: Tally,
    warm: Tally,
    seconds: float,
    cpu: Cpu,
    opened: list[int],
    checked: Checked,
) -> None:
    rows = []
    for kind in (*LOAD_KINDS, MAKER_CREATE, MAKER_SCORE):
        if values := tally.latency.get(kind):
            p50, p99, worst = percentile(values, 0.5), percentile(values, 0.99), max(values)
            rows.append([kind, f"{len(values):,}", ms(p50), ms(p99), ms(worst)])
    requests = sum(len(tally.latency[k]) for k in LOAD_KINDS)
    guesses = len(tally.latency[GUESS])
    statuses = tally.statuses + warm.statuses
    errors = sum(n for status, n in statuses.items() if status >= 500)
    refused = sum(n for status, n in statuses.items() if 400 <= status < 500)
    played = sum(n for k, n in tally.outcomes.items() if not k.startswith("maker"))
    guess_p99 = percentile(tally.latency[GUESS], 0.99) if guesses else math.inf
    moves = tally.latency[MAKER_CREATE] + tally.latency[MAKER_SCORE]
    move_p99, move_max = (percentile(moves, 0.99), max(moves)) if moves else (math.inf, math.inf)
    cold = max(warm.latency[MAKER_CREATE] + warm.latency[MAKER_SCORE], default=0.0)
    think = f", pausing {options.think:g} s on average before each request" if options.think else ", without pausing"
    checks = "**all right**" if not checked.problems and errors == 0 else "**wrong**"

    def met(ok: bool) -> str:
        return "**met**" if ok else "**not met**"

    notes = [
        "",
        f"{options.players} players at once, each with its own session and connection{think}, played "
        f"{options.games} games of classic as codebreaker (each guess a random code that fits the scores so far: "
        f"{guesses / max(played, 1):.2f} guesses a game, {tally.outcomes['won']:,} of {played:,} won) against "
        f"`keypeg serve --workers {workers}` on {label}, over loopback, client and server on the same machine; "
        f"then the computer, at level 3, broke {options.maker_games} codes of super (5x8) picked and scored by the "
        "client, one request at a time. Latency is as the client saw it: from sending a request to reading the "
        f"whole answer. Untimed games warmed the workers up first ({len(warm.games)} games); the computer's slowest "
        f"move among them, in a worker that had not loaded its kernels yet, took {cold:.2f} s.",
        "",
        f"- Throughput: {requests:,} requests in {seconds:.1f} s: **{requests / seconds:,.0f} requests/s**, "
        f"**{guesses / seconds:,.0f} guesses/s**, {played / seconds:,.1f} games/s.",
        cpu_note(cpu, seconds, requests, opened),
        f"- Checked in the database: {checked.found:,} of the {checked.created:,} games created are there, "
        f"{checked.finished:,} finished, {checked.matching:,} with exactly the moves the client saw "
        f"({checked.moves:,} moves): {checks}. Answers 5xx: **{errors}**; refused (4xx): {refused}.",
        faults_note([tally, warm], checked),
        f"- Little's law: players / throughput - mean pause = {options.players} / {requests / seconds:,.0f} - "
        f"{options.think:g} = {options.players * seconds / requests - options.think:.3f} s, a request's mean latency "
        "and the client's own time before the next"
        + (
            ": without pauses the players saturate the server, every request waits behind the others in flight, "
            "and the latency measures the throughput more than the time a request takes alone."
            if not options.think
            else "."
        ),
        f"- Goal: a guess answered in p99 <= {GUESS_GOAL * 1000:.0f} ms on classic with 50 players: p99 "
        f"{ms(guess_p99)} ms with {options.players}: {met(guess_p99 <= GUESS_GOAL)}.",
        f"- Goal: the computer's move on super (5x8) at level 3 in <= {MOVE_GOAL:.1f} s: p99 {move_p99:.3f} s, "
        f"slowest {move_max:.3f} s of {len(moves)} moves: {met(move_max <= MOVE_GOAL)}.",
    ]
    command = f"python benchmarks/web_load.py --players {options.players} --games {options.games}"
    if options.maker_games != 5:
        command += f" --maker-games {options.maker_games}"
    command += server_command(options, workers)
    report(
        "web",
        paced("The web app under load, on loopback", options.think),
        command,
        notes,
        ["request", "count", "p50 ms", "p99 ms", "max ms"],
        rows,
        save=not options.no_save,
        section=True,
    )
    for problem in (checked.problems + tally.failures + warm.failures)[:20]:
        print(f"problem: {problem}")
    if checked.problems or errors:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
