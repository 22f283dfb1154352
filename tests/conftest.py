"""Shared test settings: a hypothesis profile without deadlines (the first kernel call JIT-compiles)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "keypeg",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("keypeg")


import os  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402

import pytest  # noqa: E402

import cheap_hashes  # noqa: E402

cheap_hashes.install()  # argon2 at its lowest cost here and (environment()) in the processes tests start

os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
"""The processes the tests start (commands, servers: hundreds) read keypeg's compiled modules instead of
compiling its sources each time, as they would where bytecode may not be written."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After a test's fixtures are torn down: stop the chromium the browser test modules share
    (browser_support.launch) once the next test uses none."""
    yield
    if nextitem is None or "browser" not in getattr(nextitem, "fixturenames", ()):
        support = sys.modules.get("browser_support")
        if support is not None:
            support.close_browser()


def pytest_sessionstart(session: pytest.Session) -> None:
    """The tests of Ctrl-C need it heard: a shell's background job starts with SIGINT ignored, and
    Python and every process it starts keep it ignored."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def private_database(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test plays into a database of its own, never the user's."""
    folder = tmp_path_factory.mktemp("db")
    monkeypatch.setenv("KEYPEG_DB", f"sqlite:///{folder / 'keypeg.sqlite3'}")
    monkeypatch.setenv("KEYPEG_PLAYER", "tester")
    monkeypatch.delenv("KEYPEG_PASSWORD", raising=False)


@pytest.fixture(autouse=True)
def private_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in a folder of its own: files a command writes by default (a match file) stay there."""
    monkeypatch.chdir(tmp_path_factory.mktemp("cwd"))


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test keeps what it caches (solved trees, the web's analyses) in a folder of its own, never the
    user's cache (nor state folder); a test that names a cache folder sets ``KEYPEG_CACHE`` itself."""
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("KEYPEG_STATE", str(tmp_path_factory.mktemp("state")))  # a guest's seats (keypeg room)


# -- a real server ------------------------------------------------------------------------------------

import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import urllib.error  # noqa: E402
import urllib.request  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager, suppress  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

SOURCE = Path(__file__).resolve().parent.parent / "src"
"""The keypeg under test: every process a test starts imports this one, whatever folder it runs in."""
CHILDREN = Path(__file__).resolve().parent / "children"
"""Its ``sitecustomize.py`` runs first in every process a test starts: cheap password hashes (cheap_hashes)."""


def free_port() -> int:
    """A TCP port free on the loopback now (the system's choice): the one way the tests pick a port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def environment() -> dict[str, str]:
    """This process's environment, with the keypeg under test first on ``PYTHONPATH`` (and :data:`CHILDREN`)."""
    path = os.pathsep.join(p for p in (str(SOURCE), str(CHILDREN), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


@dataclass
class Serving:
    """A running ``keypeg serve``: its address, port, process (the leader of a process group of its own)
    and the file its output goes to."""

    base: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def said(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def keypeg_serve(db: str, folder: Path | None = None, *, workers: int = 1, wait: float = 240.0) -> Iterator[Serving]:
    """``python -m keypeg serve --db DB --workers N`` on a free loopback port, in ``folder`` (a new
    temporary one if not given) with its output in ``serve.log`` there: the one server launcher of the
    tests. Yielded once ``GET /api/session`` answers 200 (a test fails with the log if the server stops
    first, or does not answer within ``wait`` seconds: a busy machine starts it slowly); stopped at the
    end by Ctrl-C to its process group (every worker), killed if it lingers."""
    folder = folder or Path(tempfile.mkdtemp(prefix="keypeg-serve-"))
    port = free_port()
    log = folder / "serve.log"
    command = [sys.executable, "-m", "keypeg", "serve", "--port", str(port), "--db", db, "--workers", str(workers)]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=folder, env=environment(), stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    serving = Serving(f"http://127.0.0.1:{port}", port, process, log)
    try:
        deadline = time.monotonic() + wait
        while True:
            if process.poll() is not None:
                pytest.fail(f"keypeg serve stopped (exit {process.returncode}):\n{serving.said()[-4000:]}")
            with (
                suppress(urllib.error.URLError, OSError),
                urllib.request.urlopen(f"{serving.base}/api/session", timeout=2) as answer,
            ):
                if answer.status == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"keypeg serve did not answer within {wait:.0f} s:\n{serving.said()[-4000:]}")
            time.sleep(0.1)  # polling, up to the deadline
        yield serving
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=20)


def wait_until(condition: Callable[[], object], seconds: float) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass (a deadline for a busy machine, never a pause
    to wait out); whether it holds."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)  # polling, up to the deadline
    return bool(condition())


@contextmanager
def app_in_thread(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread of this process, on a free loopback port (a test may patch the
    app's modules meanwhile): its base address once it accepts connections, stopped at the end."""
    import threading

    import uvicorn

    port = free_port()
    # A stream still open at the end (a follower a test left reading) is cut after 2 s, not waited for.
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), 60)
        assert server.started, "the server did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


# -- a solve game whose code was guessed and scored wrongly -------------------------------------------

from typing import TYPE_CHECKING, NamedTuple  # noqa: E402

if TYPE_CHECKING:
    from keypeg import Code, Feedback, Rules
    from keypeg.play.sessions import SolveSession


class Rescoring(NamedTuple):
    """A solve game (level 3) at its second guess, ``second``, which may be the person's code: the first
    guess scored 0,0; ``wrong``, a wrong score for ``second`` after which the computer plays ``third``,
    whose true score against ``second`` (``truth``) contradicts nothing. Replay it from ``start``."""

    start: SolveSession
    first: Code
    second: Code
    wrong: Feedback
    third: Code
    truth: Feedback


def rescoring_an_earlier_guess(rules: Rules) -> Rescoring:
    """The setting of the tests that rescore a guess all black after later guesses were scored: the
    person's code was guessed second and scored wrongly, and the game went on (see :class:`Rescoring`)."""
    from keypeg import Feedback, score
    from keypeg.play.sessions import SolveSession

    start = SolveSession(rules, level=3)
    first = start.guess()
    start.score(Feedback(0, 0))
    second = start.guess()
    assert start.knowledge().add(second, rules.win).is_consistent  # the person's code may be this guess
    for wrong in rules.feedbacks():  # a wrong score for it, after which the next guess is scored truly
        game = SolveSession.from_state(*start.to_state())
        if wrong == rules.win or not game.knowledge().add(second, wrong).is_consistent:
            continue
        game.score(wrong)
        third = game.guess()
        truth = score(second, third)
        if game.knowledge().add(third, truth).is_consistent:
            return Rescoring(start, first, second, wrong, third, truth)
    pytest.fail("no wrong score found that the next true score does not contradict")


def unavailable(text: str) -> bool:
    """Whether a web answer says the store is down, as the web says it (the server's log has the
    details), without a database's name, path or error."""
    from keypeg.web.app import UNAVAILABLE

    leaked = ("sqlite", "postgres", "connection refused", "disk i/o", ".db", "database '")
    return UNAVAILABLE.split(",")[0] in text and not any(word in text.lower() for word in leaked)


# -- a code kept from a page or a stream --------------------------------------------------------------

import re  # noqa: E402

NOISE = re.compile(r"[A-Za-z0-9_-]{16,}|\d{4}-\d\d-\d\dT[0-9:.+-]+|#[0-9a-fA-F]{3,8}\b|/static/[\w./-]+")
"""Long random runs (ids, tokens, CSRF values), times (a move's deadline, to the microsecond), colours
(``#20232a``) and the static files' names (``icon-192.png``): a code of three or four symbols turns up in
one by chance now and then (3x4's BCB is 232, in the page's theme colour), so they are blanked out before
looking."""


def code_shown(rules: Rules, code: str, text: str) -> list[str]:
    """The notations of ``code`` (as typed, in letters A.., in digits 1..) that ``text`` shows once its
    noise (:data:`NOISE`) is blanked out: none, for a page or a stream that keeps the code."""
    colors = rules.parse(code).colors
    forms = [code, "".join(chr(65 + c) for c in colors), "".join(str(c + 1) for c in colors)]
    plain = NOISE.sub("-", text)
    return [form for form in forms if form in plain]


@pytest.fixture
def postgres() -> Iterator[str]:
    """A fresh, empty database on the PostgreSQL server of ``$KEYPEG_TEST_POSTGRES``, dropped afterwards (a
    test that counts or replays everything stored needs one: the server's own test database holds what
    every other test wrote)."""
    import os
    import secrets

    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"keypeg_fresh_{secrets.token_hex(4)}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
