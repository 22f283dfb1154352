"""The web app through faults under load: does it lose an acknowledged move, half-write a game, or stay
down once the cause has gone?

Starts ``keypeg serve --workers 2`` as ``web_load.py`` does, on a SQLite file kept on a small tmpfs of its
own (by default), or on PostgreSQL: ``--postgres`` starts a throwaway cluster of its own (its data on a
small tmpfs; ``initdb`` and ``pg_ctl`` from /usr/lib/postgresql/*/bin, as the user postgres when run as
root), ``--db URL`` names a server this script may restart and stop (it runs ``pg_ctl`` on its data
directory, as the directory's owner), with a fresh database made there and dropped at the end.

``--players`` players play games of classic through the JSON API without end (``web_load.Player``: a
request that gets no answer, a 5xx or a 429 is tried again with a backoff; a guess names its row; each
keeps a ledger of the moves the server acknowledged). Meanwhile, after a quiet ``--baseline``, faults
come one after another, each followed by ``--settle`` seconds of load:

- **kill a worker**: SIGKILL to one of the server's worker processes (the other serves; the server
  starts a new one);
- **restart PostgreSQL** (``pg_ctl restart -m fast``) and **stop PostgreSQL** for ``--hold`` seconds;
- **disk full**: a file fills the filesystem holding the database for ``--hold`` seconds (the tmpfs; with
  ``--db URL``, not done: the server's disk is not this script's to fill);
- **read-only**: for ``--hold`` seconds the SQLite file, its journal files and its folder lose their
  write permission (the server runs without the capability that lets root write anyway), and a worker is
  killed then, so that the one started in its place opens the file read-only (the connections already
  open keep writing: SQLite reads a file's mode when it opens it); or the
  PostgreSQL database is made read-only (``ALTER DATABASE ... SET default_transaction_read_only``, its
  sessions ended so that new ones take it).

After each fault, its **recovery**: from the moment the cause is gone until a client without a cookie
gets ``GET /api/session`` 200 (a session written). At the end every game is read from the database
itself: every acknowledged move stored (the stored moves start with the ledger), nothing half-written
(guesses counted as stored, numbered 1, 2, ..., a winning guess last and marked solved). Prints a table
(fault, recovery, tries, failures by kind, acknowledged moves lost, games half-written) and saves it as a
section of benchmarks/results/web.md with the machine's competing load. Exit 1 when a move was lost, a
game half-written or the server did not recover.

    python benchmarks/chaos.py [--players 16] [--think 0.1] [--hold 3] [--settle 5] [--baseline 5]
                               [--postgres | --db URL] [--faults kill,restart,stop,disk,readonly] [--no-save]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import itertools
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from live_load import DELIVERY_TIMEOUT, LiveTally, play_match
from live_load import Checked as LiveChecked
from live_load import check as live_check
from report import report
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool
from web_load import (
    CLASSIC,
    Checked,
    Cpu,
    Player,
    check,
    error_kinds,
    free_port,
    fresh_database,
    interrupted,
    server,
)

FAULTS = {
    "kill": "kill a worker",
    "restart": "restart PostgreSQL",
    "stop": "stop PostgreSQL",
    "disk": "disk full",
    "readonly": "read-only",
}
"""Each fault's option name and how the table names it, in the order they come."""
POSTGRES_ONLY = ("restart", "stop")
RECOVERY_LIMIT = 60.0
"""Seconds the server has to answer again after a fault's cause has gone before it counts as not recovered."""
PATIENCE = 30.0
"""Seconds a player tries a request again before giving it up."""
DISK_MB = {"sqlite": 32, "postgresql": 160}
"""The size of the tmpfs holding the database."""
ROOT = os.geteuid() == 0
UNPRIVILEGED = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]
"""Run as root, the server goes without the capabilities that write through any file's mode (else a
read-only file is not read-only to it)."""


# -- the disk and the database ------------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(folder: Path, megabytes: int) -> Iterator[tuple[Path | None, str]]:
    """A tmpfs of ``megabytes`` mounted on ``folder`` (made), and ``''``; or, when none can be mounted here,
    ``None`` and why. Unmounted at the end."""
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={megabytes}m,mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        yield None, f"no tmpfs could be mounted here ({mounted.stderr.strip() or 'mount failed'})"
        return
    try:
        yield folder, ""
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


@dataclass
class Postgres:
    """A PostgreSQL server this script may restart and stop: its URL, data directory, ``pg_ctl`` and the
    user that owns the data directory."""

    url: str
    data: Path
    pg_ctl: Path
    owner: str
    log: Path

    def ctl(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        """``pg_ctl -D DATA ARGUMENTS``, as the data directory's owner."""
        as_owner = ["runuser", "-u", self.owner, "--"] if ROOT and self.owner != "root" else []
        command = [*as_owner, str(self.pg_ctl), "-D", str(self.data), "-l", str(self.log), *arguments]
        return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)

    def running(self) -> bool:
        return self.ctl("status").returncode == 0


def binaries() -> Path:
    """The newest PostgreSQL's programs on this machine."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: [int(x) for x in p.parent.name.split(".")])
    if not found:
        raise SystemExit("no PostgreSQL here (/usr/lib/postgresql/*/bin): run without --postgres")
    return found[-1]


@contextlib.contextmanager
def private_postgres(folder: Path) -> Iterator[Postgres]:
    """A throwaway PostgreSQL cluster in ``folder`` (on a free loopback port, trusting local users, small
    WAL segments so that a small disk holds it), stopped at the end."""
    bin_ = binaries()
    owner = "postgres" if ROOT else os.environ.get("USER", "")
    if ROOT:
        shutil.chown(folder, owner)
    data, port = folder / "data", free_port()
    as_owner = ["runuser", "-u", owner, "--"] if ROOT else []
    made = subprocess.run(
        [*as_owner, str(bin_ / "initdb"), "-D", str(data), "--auth=trust", "-U", "keypeg", "--wal-segsize=1"],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        raise SystemExit(f"initdb failed: {made.stderr.strip()[-500:]}")
    settings = f"\nport = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{folder}'\n"
    settings += "max_wal_size = 32MB\nmin_wal_size = 4MB\nmax_connections = 100\n"
    with (data / "postgresql.conf").open("a") as conf:
        conf.write(settings)
    cluster = Postgres(
        f"postgresql+psycopg://keypeg@127.0.0.1:{port}/postgres", data, bin_ / "pg_ctl", owner, folder / "log"
    )
    try:
        started = cluster.ctl("-w", "start")
        if started.returncode != 0:
            raise SystemExit(f"PostgreSQL did not start: {started.stderr.strip()[-500:]}")
        yield cluster
    finally:
        cluster.ctl("-m", "immediate", "stop")


def given_postgres(url: str) -> Postgres:
    """The server ``url`` names, as one this script may restart and stop: its data directory (read as a
    superuser), the ``pg_ctl`` of its version, and the directory's owner."""
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            data = Path(str(connection.execute(text("SHOW data_directory")).scalar()))
            version = str(connection.execute(text("SHOW server_version")).scalar()).split(".")[0]
    except Exception as error:
        raise SystemExit(f"--db: cannot read the server's data directory ({type(error).__name__})") from None
    finally:
        engine.dispose()
    pg_ctl = Path(f"/usr/lib/postgresql/{version}/bin/pg_ctl")
    if not pg_ctl.exists():
        pg_ctl = binaries() / "pg_ctl"
    return Postgres(url, data, pg_ctl, data.owner(), data / "chaos.log")


@dataclass
class Served:
    """The database of the run: its URL, the SQLite file (or ``None``), the PostgreSQL server (or
    ``None``), the filesystem it may fill (or ``None``, and why not)."""

    url: str
    label: str
    sqlite: Path | None = None
    postgres: Postgres | None = None
    disk: Path | None = None
    no_disk: str = ""


@contextlib.contextmanager
def database(options: argparse.Namespace, folder: Path) -> Iterator[Served]:
    """The database served in this run, on a small tmpfs when it can be."""
    if options.db:
        cluster = given_postgres(options.db)
        with fresh_database(options.db) as (url, fresh):
            if not fresh:
                raise SystemExit("--db: cannot create a database there for this run")
            note = "the server named with --db is not on a disk this script may fill"
            yield Served(url, "PostgreSQL (the server --db names)", postgres=cluster, no_disk=note)
        return
    kind = "postgresql" if options.postgres else "sqlite"
    with small_disk(folder / "disk", DISK_MB[kind]) as (disk, why):
        place = disk or folder / "disk"
        if options.postgres:
            with private_postgres(place) as cluster, fresh_database(cluster.url) as (url, _):
                yield Served(url, "PostgreSQL (a private cluster)", postgres=cluster, disk=disk, no_disk=why)
        else:
            file = place / "chaos.sqlite3"
            yield Served(f"sqlite:///{file}", "SQLite", sqlite=file, disk=disk, no_disk=why)


# -- the faults --------------------------------------------------------------------------------------


def workers_of(pid: int) -> list[int]:
    """The server's worker processes (its children that multiprocessing spawned)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            for child in map(int, (task / "children").read_text().split()):
                with contextlib.suppress(OSError):
                    if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                        found.append(child)
    return found


async def kill_worker(run: Run) -> str:
    """SIGKILL one worker; returns once it is killed, noting when the server had started another."""
    before = workers_of(run.server_pid)
    if not before:
        return "no worker process found"
    os.kill(before[0], 9)
    killed = time.monotonic()
    deadline = killed + RECOVERY_LIMIT
    while time.monotonic() < deadline:
        now = workers_of(run.server_pid)
        if len(now) >= len(before) and before[0] not in now:
            new = (set(now) - set(before)).pop()
            return f"worker {before[0]} killed; a new one ({new}) after {time.monotonic() - killed:.1f} s"
        await asyncio.sleep(0.05)
    return f"worker {before[0]} killed; none started in its place within {RECOVERY_LIMIT:.0f} s"


async def restart_postgres(run: Run) -> str:
    assert run.served.postgres is not None
    done = await asyncio.to_thread(run.served.postgres.ctl, "-w", "-m", "fast", "restart")
    return "pg_ctl restart -m fast" + ("" if done.returncode == 0 else f" failed: {done.stderr.strip()[-200:]}")


async def stop_postgres(run: Run) -> str:
    cluster = run.served.postgres
    assert cluster is not None
    await asyncio.to_thread(cluster.ctl, "-w", "-m", "fast", "stop")
    try:
        await asyncio.sleep(run.options.hold)
    finally:  # however the run ends, the server is left running
        done = await asyncio.to_thread(cluster.ctl, "-w", "start")
    return f"stopped for {run.options.hold:g} s" + ("" if done.returncode == 0 else f"; start failed: {done.stderr}")


def fill(folder: Path) -> int:
    """Fill the filesystem of ``folder`` with a file (``filler``): the bytes written."""
    written = 0
    with (folder / "filler").open("wb", buffering=0) as filler:
        for size in (1 << 20, 1 << 12, 1 << 9):
            chunk = b"\0" * size
            try:
                while True:
                    written += filler.write(chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
    return written


async def disk_full(run: Run) -> str:
    """Fill the database's disk for ``--hold`` seconds, then free it (PostgreSQL started again if it
    stopped meanwhile: a full disk may stop it for good)."""
    disk = run.served.disk
    assert disk is not None
    try:
        written = await asyncio.to_thread(fill, disk)
        await asyncio.sleep(run.options.hold)
    finally:
        (disk / "filler").unlink(missing_ok=True)
    note = f"{written / 1e6:.1f} MB written, the disk full for {run.options.hold:g} s"
    cluster = run.served.postgres
    if cluster is not None and not await asyncio.to_thread(cluster.running):
        await asyncio.to_thread(cluster.ctl, "-w", "start")
        note += "; PostgreSQL had stopped and was started again"
    return note


@contextlib.contextmanager
def read_only_files(file: Path) -> Iterator[None]:
    """The SQLite file, its journal files and its folder without write permission, restored after."""
    paths = [file.parent, *(p for p in (file, *file.parent.glob(file.name + "-*")) if p.exists())]
    modes = {p: p.stat().st_mode & 0o7777 for p in paths}
    try:
        for path, mode in modes.items():
            path.chmod(mode & ~0o222)
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def admin(run: Run, sql: str) -> None:
    """Run ``sql`` on the PostgreSQL server (as the URL's user, on its ``postgres`` database)."""
    url = make_url(run.served.url).set(database="postgres")
    engine = create_engine(url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with engine.connect() as connection:
            connection.execute(text(sql))
    finally:
        engine.dispose()


async def read_only(run: Run) -> str:
    """The store read-only for ``--hold`` seconds."""
    hold = run.options.hold
    if run.served.sqlite is not None:
        with read_only_files(run.served.sqlite):
            killed = await kill_worker(run)  # SQLite reads a file's mode when it opens it: a new worker does
            await asyncio.sleep(hold)
        return f"the SQLite file and its folder without write permission for {hold:g} s, and {killed}"
    name = make_url(run.served.url).database
    ended = f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
    await asyncio.to_thread(admin, run, f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    try:
        await asyncio.to_thread(admin, run, ended)
        await asyncio.sleep(hold)
    finally:
        await asyncio.to_thread(admin, run, f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
    return f"the database read-only for {hold:g} s (its sessions ended at the start)"


INJECT: dict[str, Callable[[Run], Awaitable[str]]] = {
    "kill": kill_worker,
    "restart": restart_postgres,
    "stop": stop_postgres,
    "disk": disk_full,
    "readonly": read_only,
}


# -- the run -----------------------------------------------------------------------------------------


@dataclass
class Window:
    """A stretch of the run: the baseline or a fault and the load after it, with the tally's counters as
    they stood when it began."""

    name: str
    began: float
    requests: int
    errors: Counter[str]
    statuses: Counter[int]
    recovery: float | None = None
    writes: float | None = None
    """Seconds from the cause gone to a new client's practice game started, 201 (``None``: not within the limit)."""
    probes: list[str] = field(default_factory=list)
    """The games that measured it."""
    """Seconds from the cause gone to ``GET /api/session`` 200 (``None``: not within the limit)."""
    gone: float = 0.0
    """When the cause went (``time.perf_counter``)."""
    note: str = ""


@dataclass
class Run:
    options: argparse.Namespace
    served: Served
    base: str
    server_pid: int
    tally: LiveTally = field(default_factory=LiveTally)
    """Every player's, the classic games' and the live matches' alike."""
    windows: list[Window] = field(default_factory=list)

    def begin(self, name: str) -> Window:
        window = Window(name, time.perf_counter(), self.tally.requests, +self.tally.errors, +self.tally.statuses)
        self.windows.append(window)
        return window


async def answers(base: str, window: Window) -> None:
    """Poll, as new clients without a cookie, until one gets ``GET /api/session`` 200 (the window's
    ``recovery``) and then starts a practice game, 201 (its ``writes``, and the game in its ``probes``):
    seconds from now, ``None`` if not within :data:`RECOVERY_LIMIT`."""
    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, timeout=2) as client:
        while time.perf_counter() - started < RECOVERY_LIMIT:
            client.cookies.clear()
            with contextlib.suppress(httpx.HTTPError):
                session = await client.get("/api/session")
                if session.status_code == 200:
                    if window.recovery is None:
                        window.recovery = time.perf_counter() - started
                    body = {"variant": "classic", "practice": True}
                    made = await client.post("/api/games", json=body, headers={"X-CSRF-Token": session.json()["csrf"]})
                    if made.status_code == 201:
                        window.writes = time.perf_counter() - started
                        window.probes.append(made.json()["id"])
                        return
            await asyncio.sleep(0.05)


async def keep_playing(run: Run, stop: asyncio.Event) -> None:
    """``--players`` players playing games of classic until ``stop`` is set."""

    async def one(number: int) -> None:
        player = Player(run.base, run.tally, run.options.think, run.options.seed * 1_000_003 + number, PATIENCE)
        try:
            while not stop.is_set():
                if await player.start():
                    break
            while not stop.is_set():
                await player.break_classic()
        finally:
            await player.close()

    await asyncio.gather(*(one(n) for n in range(run.options.players)))


async def keep_matching(run: Run, stop: asyncio.Event) -> None:
    """``--matches`` live matches at once, each between two new players following its stream, one after
    another until ``stop`` is set (a match under way is played out)."""

    async def pair(number: int) -> None:
        for round_ in itertools.count():
            if stop.is_set():
                return
            seed = run.options.seed * 1_000_003 + 2 * (number + 1_000 * round_)
            first, second = (Player(run.base, run.tally, run.options.think, seed + k, PATIENCE) for k in range(2))
            try:
                if all(await asyncio.gather(first.start(kind=None), second.start(kind=None))):
                    await play_match(first, second, CLASSIC, "classic", 2, random.Random(seed))
            finally:
                await first.close()
                await second.close()

    await asyncio.gather(*(pair(n) for n in range(run.options.matches)))


async def chaos(run: Run, faults: list[str]) -> None:
    """The load, the baseline, then each fault, its recovery measured, and the load after it."""
    stop = asyncio.Event()
    load = asyncio.gather(keep_playing(run, stop), keep_matching(run, stop))
    try:
        baseline = run.begin("none (the baseline)")
        baseline.recovery, baseline.writes, baseline.gone = 0.0, 0.0, baseline.began
        await asyncio.sleep(run.options.baseline)
        for fault in faults:
            window = run.begin(FAULTS[fault])
            print(f"{window.name} ...", flush=True)
            window.note = await INJECT[fault](run)
            window.gone = time.perf_counter()
            await answers(run.base, window)
            print(
                f"... {window.note}; answering again after {window.recovery} s, writing {window.writes} s", flush=True
            )
            await asyncio.sleep(run.options.settle)
    finally:
        stop.set()
        await load


def machine_load() -> str:
    """The load average over the last minute, as /proc/loadavg says."""
    with contextlib.suppress(OSError, IndexError):
        return Path("/proc/loadavg").read_text().split()[0]
    return "?"


def faults_of(options: argparse.Namespace, served: Served) -> tuple[list[str], list[str]]:
    """The faults to inject here, and a note for each one asked that cannot be."""
    asked = [f.strip() for f in options.faults.split(",") if f.strip()]
    kept, skipped = [], []
    for fault in asked:
        if fault in POSTGRES_ONLY and served.postgres is None:
            continue
        if fault == "disk" and served.disk is None:
            skipped.append(f"disk full: not injected ({served.no_disk})")
            continue
        kept.append(fault)
    return kept, skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=16, help="players at once (default 16)")
    parser.add_argument("--matches", type=int, default=4, help="live matches at once, two players each (4)")
    parser.add_argument("--think", type=float, default=0.1, help="a player's mean pause before a request (0.1 s)")
    parser.add_argument("--hold", type=float, default=3.0, help="seconds a fault lasts (default 3)")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds of load after each recovery (5)")
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds of load before the first fault (5)")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes (default 2)")
    parser.add_argument("--postgres", action="store_true", help="a private PostgreSQL cluster, not SQLite")
    parser.add_argument("--db", metavar="URL", help="a PostgreSQL server this script may restart and stop")
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"which, in order (default {','.join(FAULTS)})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-save", action="store_true")
    options = parser.parse_args()
    if options.postgres and options.db:
        parser.error("--postgres and --db do not go together")
    unknown = {f.strip() for f in options.faults.split(",")} - set(FAULTS) - {""}
    if unknown or options.players < 1 or options.workers < 1 or min(options.hold, options.settle, options.think) < 0:
        parser.error(f"--faults takes {', '.join(FAULTS)}; --players, --workers 1 or more; times 0 or more")
    signal.signal(signal.SIGTERM, interrupted)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        folder.chmod(0o755)  # the user postgres goes through it to a private cluster's files
        with database(options, folder) as served:
            faults, skipped = faults_of(options, served)
            prefix = UNPRIVILEGED if ROOT and shutil.which("setpriv") else []
            load_before = machine_load()
            try:
                with server(served.url, options.workers, folder / "serve.log", prefix) as (base, pid):
                    print(f"keypeg serve --workers {options.workers} on {served.label}: {base}")
                    run = Run(options, served, base, pid)
                    cpu = Cpu(pid, None)  # a restart changes the database server's processes: among the others
                    started = time.perf_counter()
                    with cpu.measure():
                        asyncio.run(chaos(run, faults))
                    seconds = time.perf_counter() - started
            except KeyboardInterrupt:
                raise SystemExit("stopped; so is the server") from None
            checked = check(served.url, run.tally.games, run.tally.finished)
            matches = live_check(served.url, CLASSIC, run.tally.matches)
            log = (folder / "serve.log").read_text(errors="replace")
    summary(options, served, run, checked, matches, skipped, seconds, cpu, load_before, log)


def summary(
    options: argparse.Namespace,
    served: Served,
    run: Run,
    checked: Checked,
    matches: LiveChecked,
    skipped: list[str],
    seconds: float,
    cpu: Cpu,
    load_before: str,
    log: str,
) -> None:
    tally, windows = run.tally, run.windows
    ends = [w.began for w in windows[1:]] + [float("inf")]

    def window_of(moment: float) -> int:
        return next(k for k, end in enumerate(ends) if moment < end)

    lost, half = Counter[int](), Counter[int]()
    for public_id, count in checked.lost.items():
        for moment in tally.acknowledged[public_id][-count:]:
            lost[window_of(moment)] += 1
    unseen = Counter(window_of(moment) for moment in tally.lost_at)
    for public_id in checked.half_written:
        half[window_of(tally.touched.get(public_id, windows[0].began))] += 1
    rows = []
    acknowledged = sorted(t for times in tally.acknowledged.values() for t in times)
    after = [(tally.requests, tally.errors, tally.statuses)] if windows else []
    marks = [(w.requests, w.errors, w.statuses) for w in windows[1:]] + after
    for k, (window, (requests, errors, statuses)) in enumerate(zip(windows, marks, strict=True)):
        failed = errors - window.errors
        refused = sum(n for s, n in (statuses - window.statuses).items() if 400 <= s < 500 and s != 429)
        if refused:
            failed["other 4xx"] = refused
        recovery, writes = ("never" if t is None else f"{t:.2f}" for t in (window.recovery, window.writes))
        moved = min((t for t in acknowledged if t > window.gone), default=None)
        again = "-" if k == 0 else "never" if moved is None else f"{moved - window.gone:.2f}"
        tries = f"{requests - window.requests:,}"
        rows.append(
            [
                window.name,
                recovery,
                writes,
                again,
                tries,
                error_kinds(failed),
                str(lost[k]),
                str(half[k]),
                str(unseen[k]),
            ]
        )
    unrecovered = [w.name for w in windows if w.writes is None]
    probes = sum(len(w.probes) for w in windows)
    ok = not checked.problems and not unrecovered and not matches.problems and not tally.lost
    cores = os.cpu_count() or 1
    on_disk = f" on a tmpfs of {DISK_MB['postgresql' if served.postgres else 'sqlite']} MB" if served.disk else ""
    notes = [
        "",
        f"{options.players} players, each with its own session and connection, pausing {options.think:g} s on "
        f"average before each request, played games of classic as codebreaker against `keypeg serve --workers "
        f"{options.workers}` on {served.label}{on_disk}, "
        f"over loopback, for {seconds:.0f} s: {options.baseline:g} s of baseline, then each fault, "
        f"its recovery and {options.settle:g} s of load. A player tries again a request that got no answer, "
        f"a 5xx or a 429 (backoff 0.05 s doubling to 2 s, for up to {PATIENCE:.0f} s), sends each guess with "
        "its row (never applied twice), and reads its game back when a guess went unanswered; its ledger "
        "holds every move a 2xx answer acknowledged. **Recovery**: from the fault's cause gone (at once for a "
        "killed worker) until a client without a cookie gets `GET /api/session` 200; **writes again**: until such "
        "a client starts a practice game, 201 (a session and a game written); **moves again**: until "
        "the players' first move acknowledged after it (their backoff included); **tries**: requests "
        "sent in the window, retries included; failures by kind: `refused` (nothing listening), `reset` "
        "(the connection dropped), `timeout`, or the status; **moves lost**: acknowledged moves the database "
        "does not have, by when they were acknowledged; **half-written**: games stored half-written; **live moves "
        f"unseen**: live moves acknowledged that the other player's stream did not show within "
        f"{DELIVERY_TIMEOUT:.0f} s, by when they were sent.",
        "",
        *[f"- {w.name}: {w.note}." for w in windows[1:]],
        *[f"- {note}." for note in skipped],
        f"- Checked in the database: {checked.found:,} of the {checked.created:,} games acknowledged are there "
        f"with {checked.moves:,} acknowledged moves; moves lost: **{sum(checked.lost.values())}**; games "
        f"half-written (of all {checked.stored_games:,} stored): **{len(checked.half_written)}**; games the "
        f"client never heard of (a create whose answer was lost, left unfinished): {checked.unknown - probes:,}; "
        f"games given up by a player: {tally.outcomes['given up']:,}; tries sent again: {tally.retries:,} of "
        f"{tally.requests:,}.",
        f"- Live matches, {options.matches} at once (2 games of classic each, both players following the match's "
        f"stream, which a player opens again when it fails or ends early): {matches.right:,} of the "
        f"{matches.matches:,} played are stored over, with exactly the codes, guesses and points the players saw "
        f"({matches.moves:,} guesses); moves that never reached the other player's stream: **{len(tally.lost)}**; "
        f"streams opened again: {sum(f.reconnects for f in tally.streams):,}: "
        f"{'**all right**' if ok else '**wrong**'}.",
        f"- Competing load on the machine ({cores} cores): load average {load_before} before the run, "
        f"{machine_load()} at its end; over the {seconds:.0f} s, the server's processes used {cpu.server:.1f} s "
        f"of CPU, this client {cpu.client:.1f} s, other processes {cpu.others:.1f} s"
        f"{' (the database server among them)' if served.postgres else ''}, idle "
        f"{max(0.0, cores * seconds - cpu.machine):.1f} s.",
        f"- The server's log: {log.count('Traceback')} tracebacks, {log.count(' 500 ')} answers 500 logged.",
        *[f"- Problem: {problem}" for problem in (checked.problems + matches.problems + tally.lost)[:5]],
    ]
    command = (
        f"python benchmarks/chaos.py --players {options.players} --think {options.think:g} --hold {options.hold:g}"
    )
    command += " --postgres" if options.postgres else (" --db URL" if options.db else "")
    title = f"The web app through faults, under load: {'PostgreSQL' if served.postgres else 'SQLite'}"
    columns = ["fault", "recovery s", "writes again s", "moves again s", "tries", "failures by kind", "moves lost"]
    columns += ["half-written", "live moves unseen"]
    report("web", title, command, notes, columns, rows, save=not options.no_save, section=True)
    for problem in (checked.problems + matches.problems + tally.lost + tally.failures)[:20]:
        print(f"problem: {problem}")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
