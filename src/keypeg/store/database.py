"""The store as a unit of work: it opens the database, brings its schema up to date (Alembic), and hands
out the repositories, one for each kind of record kept."""

from __future__ import annotations

import atexit
import errno
import functools
import os
import stat
import weakref
from pathlib import Path
from typing import Any

from platformdirs import user_data_dir
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError

from keypeg.store.daily import DailyGames
from keypeg.store.errors import BadStoreAddressError, StoreUnavailableError
from keypeg.store.games import Games
from keypeg.store.keys import ServerKeys
from keypeg.store.live import LiveMatches
from keypeg.store.matches import Matches
from keypeg.store.players import Players
from keypeg.store.plumbing import Plumbing
from keypeg.store.ratings import Ratings
from keypeg.store.records import Records
from keypeg.store.rooms import Rooms
from keypeg.store.web_sessions import WebSessions
from keypeg.text import quoted, visible

__all__ = ["Store", "default_url", "safe_url"]

MIGRATIONS = Path(__file__).parent / "migrations"
POOL_SIZE = 15
"""Connections a process keeps to a database server (a web worker's requests share them)."""


_engines: weakref.WeakSet[Engine] = weakref.WeakSet()
"""The stores' engines, closed at exit (:func:`_close_engines`)."""


@atexit.register
def _close_engines() -> None:
    """Close the pooled connections at exit, whatever way the process exits (the ``keypeg`` script
    skips tearing objects down): SQLite folds its write-ahead log into the database file then, so
    the file alone holds every game."""
    for engine in list(_engines):
        engine.dispose()


def safe_url(url: str) -> str:
    """``url`` fit to print: its password, if any, written as ``***``."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        parsed = None
    secretive = "@" in url or "pass" in url.lower() or "secret" in url.lower()
    if parsed is None:
        return "the database URL given (password hidden)" if secretive else visible(url, 400)
    if any("pass" in key.lower() or "secret" in key.lower() for key in parsed.query):
        return f"the {parsed.drivername} database URL given (password hidden)"
    return visible(parsed.render_as_string(hide_password=True), 400)


def default_url() -> str:
    """``$KEYPEG_DB``, or a SQLite file in the user's data folder."""
    url = os.environ.get("KEYPEG_DB")
    if url:
        return url
    folder = Path(user_data_dir("keypeg"))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'keypeg.sqlite3'}"


class Store:
    """A connection to keypeg's database; the schema is brought up to date when it opens. Its records are
    reached through one repository each: ``players``, ``games``, ``records`` (leaderboards and
    statistics), ``matches``, ``live`` (matches between two people), ``daily``, ``web_sessions`` and
    ``keys``.

    >>> from keypeg import Feedback, Rules
    >>> store = Store("sqlite://")
    >>> game = store.games.start("ann", Rules(4, 6), role="breaker", secret="ABCD")
    >>> store.games.update(game, keep=0, moves=[("ABCD", Feedback(4, 0))], outcome="solved", expect=0)
    1
    >>> store.games.record(game).guesses, store.games.record(game).secret
    (1, 'ABCD')
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self.shown_url = safe_url(self.url)
        """The URL as printed (never with its password)."""
        try:
            self.engine: Engine = create_engine(self.url, **_engine_options(self.url))
        except (ArgumentError, NoSuchModuleError, ValueError) as error:
            raise BadStoreAddressError(f"bad database URL {self.shown_url!r}: {visible(error)}") from None
        except ModuleNotFoundError as error:
            driver = f"{error.name} (pip install 'keypeg[postgres]')" if error.name == "psycopg" else error.name
            raise BadStoreAddressError(f"the driver for {self.shown_url!r} is not installed: {driver}") from None
        _engines.add(self.engine)
        if self.engine.dialect.name == "sqlite":
            _private_file(self.engine.url.database)
            event.listen(self.engine, "connect", _sqlite_pragmas)
            event.listen(self.engine, "begin", _sqlite_begin)
        plumbing = Plumbing(self.engine, self.shown_url)
        plumbing.guarded(self._upgrade)
        self.players = Players(plumbing)
        self.games = Games(plumbing)
        self.records = Records(plumbing, self.games)
        self.matches = Matches(plumbing)
        self.live = LiveMatches(plumbing)
        self.daily = DailyGames(plumbing)
        self.web_sessions = WebSessions(plumbing)
        self.keys = ServerKeys(plumbing)
        self.rooms = Rooms(plumbing)
        self.ratings = Ratings(plumbing)

    def _upgrade(self) -> None:
        if self._schema_version() == _head_revision():
            return  # the usual case, without loading Alembic
        from alembic import command
        from alembic.config import Config
        from alembic.runtime.migration import MigrationContext
        from alembic.script import ScriptDirectory

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        known = {rev.revision for rev in ScriptDirectory.from_config(config).walk_revisions()}
        with self.engine.begin() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
            if current is not None and current not in known:
                raise StoreUnavailableError(
                    f"the database {self.shown_url!r} was written by a newer keypeg (schema {current!r}); "
                    "upgrade keypeg"
                )
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    def _schema_version(self) -> str | None:
        """The schema revision the database is at (``None`` for a new database)."""
        try:
            with self.engine.connect() as connection:
                return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except DatabaseError:
            return None


@functools.cache
def _head_revision() -> str:
    """The newest schema revision keypeg knows: revision files are named by their id (``0002_...``)."""
    return max(path.name.split("_")[0] for path in (MIGRATIONS / "versions").glob("[0-9]*_*.py"))


def _private_file(path: str | None) -> None:
    """Create the SQLite file readable by its owner only (it holds password hashes); a folder that does
    not exist is not made (a mistyped URL would otherwise start a new, empty database somewhere), and a
    path that is a folder or a device is refused, its mode untouched."""
    if path and path.startswith("file:"):  # a URI: file:/path/to/db?mode=...
        path = path.removeprefix("file:").split("?", 1)[0].removeprefix("//localhost")
    if not path or path == ":memory:":
        return
    file = Path(path)
    try:
        if file.exists():
            found = file.stat()
            if not stat.S_ISREG(found.st_mode):  # a folder (/tmp!) or a device is never a database, nor chmodded
                raise BadStoreAddressError(f"{quoted(path)} is not a database file (it is a folder or a device)")
            if found.st_mode & 0o077 and found.st_uid == os.getuid():
                file.chmod(0o600)  # a database file an earlier keypeg made readable by everyone
        elif file.parent.is_dir():
            os.close(os.open(file, os.O_CREAT | os.O_WRONLY, 0o600))  # SQLite gives its -wal and -shm files this mode
        else:
            raise BadStoreAddressError(f"no folder {quoted(str(file.parent))} for the database {quoted(path)}")
    except OSError as error:  # a name too long is bad input; anything else a failure here
        kind = BadStoreAddressError if error.errno == errno.ENAMETOOLONG else StoreUnavailableError
        raise kind(f"cannot create the database file {quoted(path)}: {error.strerror or error}") from None


def _engine_options(url: str) -> dict[str, Any]:
    if url.startswith("sqlite"):
        return {"connect_args": {"timeout": 15}}
    # At most 15 connections per process, as SQLAlchemy's default (5 kept, 10 more), but all 15 kept
    # once opened: a web worker busy with more than 5 requests otherwise opened and closed a connection
    # for every few requests (a server process forked and ended each time, on PostgreSQL).
    return {"pool_pre_ping": True, "pool_size": POOL_SIZE, "max_overflow": 0}


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    connection.isolation_level = None  # transactions are begun explicitly, below
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=15000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: Any) -> None:
    """Take the write lock when a transaction starts, so two processes queue instead of failing
    (a read transaction that later writes cannot wait for the lock in WAL mode)."""
    connection.exec_driver_sql("BEGIN IMMEDIATE")
