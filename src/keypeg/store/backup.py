"""Backups of the store, and restoring one.

A SQLite store is copied by SQLite's online backup API, in one step: a consistent snapshot taken while a
server goes on writing (WAL). The backup is a SQLite database itself. Any other store (PostgreSQL) is
exported as JSON lines, read in one repeatable-read transaction: a header naming the format, the schema
revision and each table's columns, then one line per row, ``[table, [values]]``, table by table in the
order of their foreign keys, and last an end line counting each table's rows, ``{"rows": {table: n}}``.
A backup is only made of a database that is there with keypeg's schema in it: none is made to back up.

Restoring first checks that the file is whole: an exported one ends with its end line and holds the rows
it counts, a SQLite one passes SQLite's integrity check, and either has every table of its schema. It then
refuses a SQLite database that another program (a server) has open, and reads the backup into the store
in one transaction: keypeg's tables of the target dropped (refused unless they are empty or ``force``),
the schema built to the backup's revision, the rows inserted, PostgreSQL's id sequences moved past them,
then the schema upgraded to this keypeg's. A failure at any point rolls it all back: the target is left
as it was.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any, TypeGuard

from sqlalchemy import Boolean, Connection, DateTime, MetaData, Table, create_engine, func, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from keypeg.errors import NotFoundError, RefusedError
from keypeg.store.database import MIGRATIONS, Store, default_url, safe_url
from keypeg.store.errors import StoreError, StoreUnavailableError
from keypeg.store.models import Base
from keypeg.text import quoted, visible

__all__ = [
    "FORMAT",
    "BackupSummary",
    "DatabaseInUseError",
    "NoDatabaseError",
    "NotABackupError",
    "Progress",
    "TargetNotEmptyError",
    "backed_up_store",
    "restore",
    "write_backup",
]

FORMAT = "keypeg-backup"
"""The header's ``format`` of an exported backup (JSON lines)."""
VERSION = 1
"""The version of the exported format."""
SQLITE_MAGIC = b"SQLite format 3\x00"
BATCH = 1000
"""Rows read or inserted at a time."""
VERSIONS = "alembic_version"

Progress = Callable[[str], None]
"""Told what is being done now, for long work."""


class NotABackupError(StoreError, ValueError):
    """A file that is not a keypeg backup (or is damaged, or from a newer keypeg)."""


class TargetNotEmptyError(StoreError, RefusedError):
    """A restore into a store that holds records, not forced."""


class NoDatabaseError(StoreError, NotFoundError):
    """A database to back up that is not there: a SQLite file missing, or no keypeg schema in it."""


class DatabaseInUseError(StoreError, RefusedError):
    """A restore into a SQLite database that another program (a server) has open."""


@dataclass
class BackupSummary:
    """What a backup holds: its schema revision and the rows of each table."""

    schema: str
    rows: dict[str, int] = field(default_factory=dict)


def backed_up_store(url: str | None) -> Store:
    """The store at ``url`` (``None``: the default one) to back up, which must be there with keypeg's schema
    in it (:class:`NoDatabaseError`): opening it never makes a SQLite file, nor builds a schema."""
    url = url or default_url()
    file = _sqlite_file(url)
    if file is not None and not file.is_file():
        raise NoDatabaseError(f"no database file {quoted(str(file))} to back up")
    try:
        engine = create_engine(url, poolclass=NullPool)
    except (ArgumentError, ValueError, ImportError):
        return Store(url)  # which refuses the URL, saying why
    try:
        with engine.connect() as connection:
            held = inspect(connection).has_table(VERSIONS)
    except SQLAlchemyError as error:
        reason = getattr(error, "orig", None) or error
        raise StoreUnavailableError(f"cannot back up {safe_url(url)!r}: {visible(reason, 200)}") from None
    finally:
        engine.dispose()
    if not held:
        raise NoDatabaseError(f"the database {safe_url(url)!r} has no keypeg schema: nothing to back up")
    return Store(url)


def _sqlite_file(url: str) -> Path | None:
    """The file of a SQLite database URL (``None`` for another database, one in memory, or a bad URL)."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return None
    name = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or name in {"", ":memory:"}:
        return None
    if parsed.query.get("uri") == "true":  # file:/path/to/db, its options in the URL's query
        name = name.removeprefix("file:").removeprefix("//localhost")
        return None if parsed.query.get("mode") == "memory" or name == ":memory:" else Path(name)
    return Path(name)


def write_backup(store: Store, out: IO[bytes], progress: Progress) -> BackupSummary:
    """Write a backup of ``store`` to ``out``: SQLite's own copy of a SQLite store, JSON lines of any other."""
    try:
        if store.engine.dialect.name == "sqlite":
            return _copy_sqlite(store, out, progress)
        return _export(store, out, progress)
    except (SQLAlchemyError, sqlite3.Error) as error:
        reason = getattr(error, "orig", None) or error
        raise StoreUnavailableError(f"cannot back up {store.shown_url!r}: {visible(reason, 200)}") from None


def _copy_sqlite(store: Store, out: IO[bytes], progress: Progress) -> BackupSummary:
    progress("copying the database")
    copy = sqlite3.connect(":memory:")
    try:
        source = store.engine.raw_connection()
        try:
            source.driver_connection.backup(copy)  # type: ignore[union-attr]
        finally:
            source.close()
        summary = BackupSummary(str(copy.execute(f"SELECT version_num FROM {VERSIONS}").fetchone()[0]))
        for (name,) in copy.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
            if name != VERSIONS and not name.startswith("sqlite_"):
                summary.rows[name] = int(copy.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
        progress("writing the backup")
        out.write(copy.serialize())
        return summary
    finally:
        copy.close()


def _rollback_journal(image: bytes) -> bytes:
    """A SQLite database's bytes marked as of a rollback journal, not of WAL (header bytes 18 and 19): SQLite
    opens a copy of a WAL database in memory only so."""
    if len(image) < 20 or image[18:20] != b"\x02\x02":
        return image
    return image[:18] + b"\x01\x01" + image[20:]


def _export(store: Store, out: IO[bytes], progress: Progress) -> BackupSummary:
    with store.engine.connect() as connection:
        connection.execution_options(isolation_level="REPEATABLE READ")
        with connection.begin():  # one snapshot of every table
            metadata = MetaData()
            metadata.reflect(connection, only=lambda name, _: name in Base.metadata.tables)  # keypeg's tables only
            summary = BackupSummary(str(connection.execute(text(f"SELECT version_num FROM {VERSIONS}")).scalar_one()))
            tables = metadata.sorted_tables
            header = {
                "format": FORMAT,
                "version": VERSION,
                "schema": summary.schema,
                "tables": {t.name: [c.name for c in t.columns] for t in tables},
            }
            out.write(json.dumps(header).encode() + b"\n")
            for table in tables:
                progress(f"exporting {table.name}")
                query = select(table).order_by(*table.primary_key.columns)
                count = 0
                for row in connection.execution_options(yield_per=BATCH).execute(query):
                    out.write(json.dumps([table.name, list(row)], default=_plain).encode() + b"\n")
                    count += 1
                summary.rows[table.name] = count
            out.write(json.dumps({"rows": summary.rows}).encode() + b"\n")  # last: the backup is whole
            return summary


def _plain(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    raise TypeError(f"a value of type {type(value).__name__} in the database")


# -- restoring ----------------------------------------------------------------------------------------


@dataclass
class _Backup:
    """A backup read: its schema revision, and its rows table by table (in the order of foreign keys)."""

    schema: str
    columns: dict[str, list[str]]
    rows: Callable[[list[str]], Iterator[tuple[str, list[Any]]]]
    """The rows, ``(table, values)``, given the target's tables in the order of their foreign keys."""


def restore(url: str | None, path: Path, *, force: bool, progress: Progress) -> BackupSummary:
    """Restore the backup at ``path`` into the store at ``url`` (which must be empty unless ``force``: its
    records are replaced), then bring its schema up to date; all in one transaction."""
    progress("checking the backup")
    with _open_backup(path) as backup:
        _check_revision(backup.schema, path)
        _check_tables(backup, path)
        _check_unused(url or default_url())
        store = Store(url)
        try:
            with store.engine.begin() as connection:
                return _restore(connection, backup, force, progress)
        except SQLAlchemyError as error:
            reason = getattr(error, "orig", None) or error
            raise StoreUnavailableError(f"cannot restore into {store.shown_url!r}: {visible(reason, 200)}") from None
        finally:
            store.engine.dispose()  # its connections closed: the database is left to others


def _restore(connection: Connection, backup: _Backup, force: bool, progress: Progress) -> BackupSummary:
    ours = set(Base.metadata.tables) | {VERSIONS}
    found = MetaData()
    found.reflect(connection, only=lambda name, _: name in ours)
    held = [t.name for t in found.sorted_tables if t.name != VERSIONS and connection.scalar(_count(t))]
    if held and not force:
        raise TargetNotEmptyError(f"the database holds records already ({', '.join(held)})")
    progress("building the schema of the backup")
    found.drop_all(connection)
    _migrate(connection, backup.schema)
    target = MetaData()
    target.reflect(connection)
    tables = [t for t in target.sorted_tables if t.name != VERSIONS]
    summary = BackupSummary(backup.schema, {t.name: 0 for t in tables})
    batch: list[dict[str, Any]] = []
    current: Table | None = None
    for name, values in backup.rows([t.name for t in tables]):
        table = target.tables[name]
        if current is not table:
            _insert(connection, current, batch)
            current, batch = table, []
            progress(f"restoring {name}")
        batch.append(_decoded(table, backup.columns[name], values))
        summary.rows[name] += 1
        if len(batch) >= BATCH:
            _insert(connection, current, batch)
            batch = []
    _insert(connection, current, batch)
    if connection.dialect.name == "postgresql":
        for table in tables:
            if "id" in table.c and table.c.id.primary_key:
                connection.execute(
                    text(
                        "SELECT setval(pg_get_serial_sequence(:t, 'id'), COALESCE(MAX(id), 1), MAX(id) IS NOT NULL) "
                        f'FROM "{table.name}"'
                    ),
                    {"t": table.name},
                )
    progress("upgrading the schema")
    _migrate(connection, "head")
    return summary


def _count(table: Table) -> Any:
    return select(func.count()).select_from(table)


def _insert(connection: Connection, table: Table | None, rows: list[dict[str, Any]]) -> None:
    if table is not None and rows:
        connection.execute(table.insert(), rows)


def _decoded(table: Table, columns: list[str], values: list[Any]) -> dict[str, Any]:
    """A row of the backup as the target's columns take it: times from text (UTC when they say no zone,
    as SQLite keeps them), booleans from 0 and 1."""
    if not isinstance(values, list) or len(values) != len(columns) or not set(columns) <= set(table.c.keys()):
        raise NotABackupError(f"a row of {table.name} in the backup does not match its columns")
    row = {}
    for name, value in zip(columns, values, strict=True):
        kind = table.c[name].type
        if isinstance(kind, DateTime) and isinstance(value, str):
            try:
                value = datetime.fromisoformat(value)
            except ValueError:
                raise NotABackupError(f"a time of {table.name} that is not one: {visible(value, 40)!r}") from None
            if value.tzinfo is None:
                value = value.replace(tzinfo=UTC)
        elif isinstance(kind, Boolean) and isinstance(value, int):
            value = bool(value)
        row[name] = value
    return row


def _migrate(connection: Connection, revision: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _check_tables(backup: _Backup, path: Path) -> None:
    """Refuse a backup that lacks a table or column of its schema, or has one the schema has not (the
    tables of a scratch database built to its revision)."""
    scratch = create_engine("sqlite://")
    try:
        with scratch.begin() as connection:
            _migrate(connection, backup.schema)
            schema = MetaData()
            schema.reflect(connection)
    finally:
        scratch.dispose()
    wanted = {t.name: {c.name for c in t.columns} for t in schema.sorted_tables if t.name != VERSIONS}
    unknown = sorted(set(backup.columns) - set(wanted))
    if unknown:
        raise NotABackupError(f"the backup has tables its schema {backup.schema!r} has not: {', '.join(unknown)}")
    missing = [name for name in wanted if name not in backup.columns]
    missing += [
        f"{name}.{c}" for name in wanted if name in backup.columns for c in wanted[name] - {*backup.columns[name]}
    ]
    if missing:
        lacks = visible(", ".join(sorted(missing)), 200)
        raise NotABackupError(f"{quoted(str(path))} is not a whole keypeg backup (it lacks {lacks} of its schema)")


def _check_unused(url: str) -> None:
    """Refuse to restore into a SQLite database (in WAL mode, as keypeg keeps it) that another connection has
    open: SQLite lets a database out of WAL mode only when no other has it open, so that is tried (and
    undone), at once, before anything is changed."""
    file = _sqlite_file(url)
    if file is None or not file.is_file():
        return
    try:
        probe = sqlite3.connect(f"{file.resolve().as_uri()}?mode=rw", uri=True, timeout=0, isolation_level=None)
    except sqlite3.Error:
        return  # the store says why it cannot open it
    try:
        if probe.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
            probe.execute("PRAGMA journal_mode=DELETE")
            probe.execute("PRAGMA journal_mode=WAL")
        locked = False
    except sqlite3.Error as error:  # anything but a lock: the store says what is wrong with the file
        locked = "locked" in str(error)
    finally:
        probe.close()
    if locked:
        raise DatabaseInUseError(
            f"another program has the database {quoted(str(file))} open (a server?): stop it before a restore"
        )


def _check_revision(schema: str, path: Path) -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if schema not in {rev.revision for rev in ScriptDirectory.from_config(config).walk_revisions()}:
        raise NotABackupError(
            f"{quoted(str(path))} is a backup of schema {visible(schema, 20)!r}, which this keypeg does not know "
            "(a newer keypeg's?)"
        )


class _open_backup:
    """The backup at a path, read (:class:`NotABackupError` for any other file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown = quoted(str(path))
        self._closing: list[Callable[[], None]] = []

    def __enter__(self) -> _Backup:
        try:
            with self.path.open("rb") as probe:
                head = probe.read(len(SQLITE_MAGIC))
        except OSError as error:
            raise NotABackupError(f"cannot read {self.shown}: {error.strerror or error}") from None
        return self._sqlite() if head == SQLITE_MAGIC else self._lines()

    def __exit__(self, *_: object) -> None:
        for close in self._closing:
            close()

    def _not_one(self, why: str = "") -> NotABackupError:
        return NotABackupError(f"{self.shown} is not a keypeg backup{f' ({why})' if why else ''}")

    def _not_whole(self, why: str) -> NotABackupError:
        return NotABackupError(f"{self.shown} is not a whole keypeg backup ({why})")

    def _sqlite(self) -> _Backup:
        source = sqlite3.connect(":memory:")
        self._closing.append(source.close)
        try:
            source.deserialize(_rollback_journal(self.path.read_bytes()))
            damage = [line for (line,) in source.execute("PRAGMA integrity_check(1)")]
        except (sqlite3.Error, OSError) as error:
            raise self._not_whole(f"SQLite cannot check it: {visible(error, 100)}") from None
        if damage != ["ok"]:
            raise self._not_whole(f"SQLite finds it damaged: {visible(' '.join(damage), 100)}")
        try:
            schema = str(source.execute(f"SELECT version_num FROM {VERSIONS}").fetchone()[0])
            names = [n for (n,) in source.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            columns = {
                n: [c[1] for c in source.execute(f'PRAGMA table_info("{n}")')]
                for n in names
                if n != VERSIONS and not n.startswith("sqlite_")
            }
        except (sqlite3.Error, TypeError, OSError):
            raise self._not_one("a SQLite database, not one of keypeg's") from None

        def rows(order: list[str]) -> Iterator[tuple[str, list[Any]]]:
            for name in order:
                if name in columns:
                    listed = ", ".join(f'"{c}"' for c in columns[name])
                    for values in source.execute(f'SELECT {listed} FROM "{name}" ORDER BY rowid'):
                        yield name, list(values)

        return _Backup(schema, columns, rows)

    def _lines(self) -> _Backup:
        handle = self.path.open("rb")
        self._closing.append(handle.close)
        try:
            header = json.loads(handle.readline())
        except (ValueError, UnicodeError):
            raise self._not_one() from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise self._not_one()
        schema, columns = header.get("schema"), header.get("tables")
        if header.get("version") != VERSION or not isinstance(schema, str) or not _named_lists(columns):
            raise self._not_one("a header this keypeg cannot read")
        start = handle.tell()
        for _ in self._rows(handle, columns):  # read through once: the file is whole before anything is changed
            pass
        handle.seek(start)
        return _Backup(schema, columns, lambda _order: self._rows(handle, columns))

    def _rows(self, handle: IO[bytes], columns: dict[str, list[str]]) -> Iterator[tuple[str, list[Any]]]:
        """The rows after the header, up to the end line, which must be last and count them all."""
        read = dict.fromkeys(columns, 0)
        counted: object = None
        for number, line in enumerate(handle, 2):
            if not line.strip():
                continue
            if counted is not None:
                raise self._not_whole(f"line {number} follows its end line")
            try:
                item = json.loads(line)
                if isinstance(item, dict):
                    counted = item["rows"]
                    continue
                name, values = item
            except (ValueError, UnicodeError, TypeError, KeyError):
                raise self._not_one(f"line {number} is damaged") from None
            if not isinstance(name, str) or name not in columns:
                raise self._not_one(f"line {number} names no table of the header")
            read[name] += 1
            yield name, values
        if counted is None:
            raise self._not_whole("it is cut short: no end line counts its rows")
        if counted != read:
            raise self._not_whole(f"its end line counts other rows than it holds: {visible(counted, 200)}")


def _named_lists(value: object) -> TypeGuard[dict[str, list[str]]]:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, list) and all(isinstance(c, str) for c in v) for k, v in value.items()
    )
