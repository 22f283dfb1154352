"""``keypeg backup`` and ``keypeg restore``: a backup taken while games are being played restores every
game acknowledged before it began (SQLite, and PostgreSQL when ``$KEYPEG_TEST_POSTGRES`` names a server);
a backup is private, never written over unasked (nor a link), and made only of a database that is there;
a restore refuses junk, a backup that is not whole, a database that holds records and one that another
program has open, and fails whole; a backup of an older schema is brought up to date."""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import keypeg_serve, wait_until
from keypeg import Feedback, find_variant
from keypeg.cli import cli
from keypeg.services import games
from keypeg.store import GameRecord, Store
from keypeg.store.models import Base

CLASSIC = find_variant("classic").rules
SECRET = "RGBY"


def sqlite_url(folder: Path, name: str) -> str:
    return f"sqlite:///{folder / name}"


@pytest.fixture
def postgres() -> Iterator[Callable[[], str]]:
    """The URL of a new database on the PostgreSQL server of ``$KEYPEG_TEST_POSTGRES``, dropped afterwards."""
    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    made: list[str] = []

    def new() -> str:
        name = f"keypeg_backup_{secrets.token_hex(4)}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        made.append(name)
        return make_url(url).set(database=name).render_as_string(hide_password=False)

    try:
        yield new
    finally:
        with admin.connect() as connection:
            for name in made:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def opened(url: str) -> Iterator[Store]:
    """The store at ``url``, its connections closed after the block (a restore refuses a database held open)."""
    store = Store(url)
    try:
        yield store
    finally:
        store.engine.dispose()


def keypeg(*args: str) -> tuple[int, str]:
    """``keypeg ARGS`` in this process: its exit code and output (stdout and stderr)."""
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def exported(db: Path) -> list[str]:
    """The lines of a backup of the SQLite database ``db`` exported as PostgreSQL's is: a header, a line per
    row in the order of the foreign keys, and last the end line that counts them."""
    tables = [t.name for t in Base.metadata.sorted_tables]
    with closing(sqlite3.connect(db)) as source:
        schema = source.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        columns = {t: [c[1] for c in source.execute(f'PRAGMA table_info("{t}")')] for t in tables}
        rows = [[t, list(row)] for t in tables for row in source.execute(f'SELECT * FROM "{t}" ORDER BY rowid')]
    header = {"format": "keypeg-backup", "version": 1, "schema": schema, "tables": columns}
    end = {"rows": {t: sum(row[0] == t for row in rows) for t in tables}}
    return [json.dumps(header), *map(json.dumps, rows), json.dumps(end)]


def play_one(store: Store, player: str, number: int) -> int:
    """A rated game of ``player`` played to the end in three writes (started, a guess, the winning guess)."""
    game = store.games.start(player, CLASSIC, role="breaker", secret=SECRET, rated=True, public_id=games.new_id())
    store.games.update(game, keep=0, moves=[("RRGG", Feedback(1, 1))], expect=0)
    last = [("GGBB", Feedback(1, 1))] if number % 2 else []
    store.games.update(game, keep=1, moves=[*last, (SECRET, Feedback(4, 0))], outcome="solved", expect=1)
    return game


class Load(threading.Thread):
    """Players registering and playing games, one after another, until told to stop (at most ``limit``
    games): :attr:`finished` lists the games whose last write was acknowledged, in order."""

    def __init__(self, url: str, limit: int = 5000) -> None:
        super().__init__(daemon=True)
        self.store, self.limit = Store(url), limit
        self.finished: list[int] = []
        self.players: list[str] = []
        self.enough, self.stop = threading.Event(), threading.Event()
        self.failure: BaseException | None = None

    def run(self) -> None:
        try:
            for number in range(self.limit):
                if self.stop.is_set():
                    return
                player = f"p{number // 4}"
                if number % 4 == 0:
                    self.store.players.set_password(player, f"password {number}")
                    self.players.append(player)
                self.finished.append(play_one(self.store, player, number))
                if len(self.finished) >= 20:
                    self.enough.set()
        except BaseException as error:  # the test says it
            self.failure = error
            self.enough.set()


def comparable(record: GameRecord) -> tuple[object, ...]:
    return (
        record.id,
        record.player,
        record.rules,
        record.secret,
        record.outcome,
        record.guesses,
        record.rated,
        record.public_id,
        record.started_at,
        record.ended_at,
        [(m.number, m.guess, m.feedback) for m in record.moves],
    )


def backup_during_load(source: str, target: str, folder: Path) -> None:
    load = Load(source)
    load.start()
    try:
        assert load.enough.wait(120), "the load made no 20 games"
        assert load.failure is None, load.failure
        acknowledged, players = list(load.finished), list(load.players)  # before the backup begins
        code, said = keypeg("backup", str(folder / "during.bak"), "--db", source)
        assert code == 0, said
        wait_until(lambda: len(load.finished) > len(acknowledged) + 1, 60)  # the load goes on after the backup
    finally:
        load.stop.set()
        load.join(60)
    assert load.failure is None, load.failure
    assert len(load.finished) > len(acknowledged)

    code, said = keypeg("restore", str(folder / "during.bak"), "--db", target)
    assert code == 0, said
    kept, restored = Store(source), Store(target)
    for game in acknowledged:
        assert comparable(restored.games.record(game)) == comparable(kept.games.record(game))
    done = set(acknowledged)
    for player in players:
        assert restored.players.check_password(player, f"password {int(player[1:]) * 4}")
        if all(g.id in done for g in kept.games.history(player, limit=None)):  # the records of every game
            assert restored.records.stats(player) == kept.records.stats(player)
    held = restored.games.history(limit=None, with_moves=True)
    for record in held:  # nothing half-written: each game as one of its writes left it (one in play at the copy too)
        assert record.guesses == len(record.moves)
        assert record.outcome == ("solved" if record.moves and record.moves[-1].guess == SECRET else None)
    assert restored.games.start("newcomer", CLASSIC, role="breaker") == max(r.id for r in held) + 1  # ids go on


def test_a_sqlite_backup_taken_while_games_are_played_restores_every_game_acknowledged_before_it(
    tmp_path: Path,
) -> None:
    backup_during_load(sqlite_url(tmp_path, "live.sqlite3"), sqlite_url(tmp_path, "restored.sqlite3"), tmp_path)


def test_a_postgresql_backup_taken_while_games_are_played_restores_every_game_acknowledged_before_it(
    tmp_path: Path, postgres: Callable[[], str]
) -> None:
    backup_during_load(postgres(), postgres(), tmp_path)


def test_a_backup_restores_into_the_other_kind_of_database(tmp_path: Path, postgres: Callable[[], str]) -> None:
    source, middle, last = sqlite_url(tmp_path, "a.sqlite3"), postgres(), sqlite_url(tmp_path, "c.sqlite3")
    game = play_one(Store(source), "ann", 1)
    assert keypeg("backup", str(tmp_path / "a.bak"), "--db", source)[0] == 0
    assert keypeg("restore", str(tmp_path / "a.bak"), "--db", middle)[0] == 0
    assert keypeg("backup", str(tmp_path / "b.bak"), "--db", middle)[0] == 0
    assert (tmp_path / "b.bak").read_bytes().startswith(b'{"format": "keypeg-backup"')
    *rows, end = (tmp_path / "b.bak").read_text().splitlines()
    assert json.loads(end) == {
        "rows": {**dict.fromkeys(Base.metadata.tables, 0), "players": 1, "games": 1, "guesses": 3}
    }
    (tmp_path / "cut.bak").write_text("\n".join(rows) + "\n")  # an export cut at a line break
    code, said = keypeg("restore", str(tmp_path / "cut.bak"), "--db", sqlite_url(tmp_path, "cut.sqlite3"))
    cut = "(it is cut short: no end line counts its rows)"
    assert (code, said) == (2, f"error: '{tmp_path / 'cut.bak'}' is not a whole keypeg backup {cut}\n")
    assert keypeg("restore", str(tmp_path / "b.bak"), "--db", last)[0] == 0
    assert comparable(Store(last).games.record(game)) == comparable(Store(source).games.record(game))
    assert Store(middle).games.start("bob", CLASSIC, role="breaker") == game + 1  # the ids go on


def test_a_backup_is_private_and_replaces_a_file_only_when_forced(tmp_path: Path) -> None:
    url, file = sqlite_url(tmp_path, "k.sqlite3"), tmp_path / "k.bak"
    play_one(Store(url), "ann", 0)
    file.write_text("keep me")
    code, said = keypeg("backup", str(file), "--db", url)
    assert (code, said) == (2, f"error: '{file}' exists: --force replaces it\n")
    assert file.read_text() == "keep me"
    code, said = keypeg("backup", str(file), "--force", "--db", url)
    assert code == 0 and said.startswith("backed up 1 player, 1 game, 2 guesses, 0 matches (schema ")
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    with sqlite3.connect(f"{file.as_uri()}?mode=ro", uri=True) as copy:  # a SQLite database that opens alone
        assert copy.execute("SELECT count(*) FROM guesses").fetchone() == (2,)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


def test_a_restore_refuses_what_is_not_a_backup_and_leaves_the_database_alone(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path, "target.sqlite3")
    other = sqlite3.connect(tmp_path / "other.sqlite3")
    other.execute("CREATE TABLE notes (text TEXT)")
    other.commit()
    other.close()
    files = {
        "junk": b"\x00\x01 not a backup at all",
        "empty": b"",
        "json": b'{"format": "something else"}\n',
        "other.sqlite3": (tmp_path / "other.sqlite3").read_bytes(),
    }
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
        code, said = keypeg("restore", str(tmp_path / name), "--db", url)
        assert code == 2 and said.startswith(f"error: '{tmp_path / name}' is not a keypeg backup"), said
        assert said.count("\n") == 1
    code, said = keypeg("restore", str(tmp_path / "missing"), "--db", url)
    assert code == 2 and "cannot read" in said
    assert not (tmp_path / "target.sqlite3").exists()  # the database is not even opened


def test_a_restore_refuses_a_database_that_holds_records_unless_forced(tmp_path: Path) -> None:
    source, target = sqlite_url(tmp_path, "a.sqlite3"), sqlite_url(tmp_path, "b.sqlite3")
    ann = play_one(Store(source), "ann", 0)
    with opened(target) as store:
        store.players.set_password("zed", "password zed")
    assert keypeg("backup", str(tmp_path / "a.bak"), "--db", source)[0] == 0
    code, said = keypeg("restore", str(tmp_path / "a.bak"), "--db", target)
    assert code == 2
    assert (
        said
        == "error: the database holds records already (players): restore into an empty one, or --force replaces them\n"
    )
    with opened(target) as store:
        assert store.players.check_password("zed", "password zed")
    assert keypeg("restore", str(tmp_path / "a.bak"), "--force", "--db", target)[0] == 0
    assert Store(target).games.record(ann).player == "ann"
    assert [g.player for g in Store(target).games.history(limit=None)] == ["ann"]
    assert Store(target).players.registered("zed") is None


def test_a_restore_that_fails_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    """A whole backup whose row of a game is damaged, forced over a database with records: the records are
    all still there, and nothing of the backup is."""
    target = sqlite_url(tmp_path, "b.sqlite3")
    with opened(target) as store:
        zed = play_one(store, "zed", 0)
    play_one(Store(sqlite_url(tmp_path, "a.sqlite3")), "ann", 0)
    lines = [line if not line.startswith('["games"') else '["games", [1]]' for line in exported(tmp_path / "a.sqlite3")]
    damaged = tmp_path / "damaged.bak"
    damaged.write_text("\n".join(lines) + "\n")
    code, said = keypeg("restore", str(damaged), "--force", "--db", target)
    assert (code, said) == (2, "error: a row of games in the backup does not match its columns\n")
    assert [g.id for g in Store(target).games.history(limit=None)] == [zed]
    assert Store(target).players.registered("ann") is None


def test_a_backup_of_an_older_schema_is_brought_up_to_date(tmp_path: Path) -> None:
    """A backup made by the keypeg of schema 0008 (no idempotency keys) restores, and its store takes keys."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from keypeg.store.database import MIGRATIONS

    old = tmp_path / "old.bak"
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(f"sqlite:///{old}").begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0008")
        connection.exec_driver_sql(
            "INSERT INTO players (id, name, key, created_at) VALUES (1, 'ann', 'ann', '2026-01-01')"
        )
        connection.exec_driver_sql(
            "INSERT INTO games (id, player_id, variant, pegs, colors, repeats, blanks, rows, role, guesses, started_at)"
            " VALUES (1, 1, '4x6', 4, 6, 1, 0, 12, 'breaker', 1, '2026-01-01')"
        )
        connection.exec_driver_sql(
            "INSERT INTO guesses (game_id, number, guess, black, white, made_at)"
            " VALUES (1, 1, 'AABB', 1, 0, '2026-01-01')"
        )
    url = sqlite_url(tmp_path, "new.sqlite3")
    code, said = keypeg("restore", str(old), "--db", url)
    assert code == 0 and "(schema 0008)" in said, said
    Store(sqlite_url(tmp_path, "fresh.sqlite3"))  # a new store is made at the current schema
    with sqlite3.connect(tmp_path / "new.sqlite3") as raw, sqlite3.connect(tmp_path / "fresh.sqlite3") as fresh:
        current = fresh.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        assert raw.execute("SELECT version_num FROM alembic_version").fetchone()[0] == current > "0008"  # brought up
    store = Store(url)
    assert [m.guess for m in store.games.record(1).moves] == ["AABB"]
    opened = games.start_new(store, "ann", CLASSIC, "breaker", key="first")
    assert games.start_new(store, "ann", CLASSIC, "breaker", key="first").public_id == opened.public_id


def refused_leaving_the_target(file: Path, target: Path) -> str:
    """What ``keypeg restore FILE --force`` says of a backup it refuses (exit 2, one line): the database at
    ``target`` (zed's, one game) keeps every record."""
    code, said = keypeg("restore", str(file), "--force", "--db", f"sqlite:///{target}")
    assert code == 2 and said.count("\n") == 1, said
    with opened(f"sqlite:///{target}") as store:
        assert [g.player for g in store.games.history(limit=None)] == ["zed"]
        assert store.players.check_password("zed", "password zed")
    return said


def test_a_restore_refuses_an_exported_backup_that_is_not_whole(tmp_path: Path) -> None:
    """An export without its end line (cut at a line break), with rows its end line does not count, or
    without a table of its schema, is refused before the database is touched, forced or not."""
    source, target = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    play_one(Store(f"sqlite:///{source}"), "ann", 0)
    with opened(f"sqlite:///{target}") as store:
        store.players.set_password("zed", "password zed")
        play_one(store, "zed", 0)
    header, *rows, end = exported(source)
    shown = tmp_path / "f.bak"

    def said_of(*lines: str) -> str:
        shown.write_text("\n".join(lines) + "\n")
        return refused_leaving_the_target(shown, target)

    near_empty = '{"format":"keypeg-backup","version":1,"schema":"0010","tables":{"players":["id"]}}'
    whole = f"error: '{shown}' is not a whole keypeg backup"
    assert said_of(near_empty) == f"{whole} (it is cut short: no end line counts its rows)\n"
    assert said_of(header, *rows) == f"{whole} (it is cut short: no end line counts its rows)\n"
    assert said_of(header, *rows[:-1], end).startswith(f"{whole} (its end line counts other rows than it holds: ")
    assert said_of(header, *rows, end, rows[0]) == f"{whole} (line {len(rows) + 3} follows its end line)\n"
    tables = json.loads(header)
    del tables["tables"]["server_keys"], tables["tables"]["players"]
    counts = json.loads(end)
    del counts["rows"]["server_keys"], counts["rows"]["players"]
    kept = [row for row in rows if not row.startswith(('["players"', '["server_keys"'))]
    assert said_of(json.dumps(tables), *kept, json.dumps(counts)) == (
        f"{whole} (it lacks players, server_keys of its schema)\n"
    )
    assert said_of(near_empty, '{"rows": {"players": 0}}').startswith(f"{whole} (it lacks game_keys, games, ")
    (tmp_path / "whole.bak").write_text("\n".join([header, *rows, end]) + "\n")  # the same lines, whole: restored
    code, said = keypeg("restore", str(tmp_path / "whole.bak"), "--force", "--db", f"sqlite:///{target}")
    assert code == 0 and said.startswith("restored 1 player, 1 game, 2 guesses, 0 matches (schema "), said


def test_a_restore_refuses_a_sqlite_backup_that_is_damaged_or_lacks_a_table(tmp_path: Path) -> None:
    """A SQLite backup is checked by SQLite (a page of the players overwritten) and for every table of its
    schema (server_keys dropped) before the database is touched."""
    source, target = tmp_path / "a.sqlite3", tmp_path / "b.sqlite3"
    with opened(f"sqlite:///{target}") as store:
        store.players.set_password("zed", "password zed")
        play_one(store, "zed", 0)
    play_one(Store(f"sqlite:///{source}"), "ann", 0)
    backup = tmp_path / "a.bak"
    assert keypeg("backup", str(backup), "--db", f"sqlite:///{source}")[0] == 0
    with closing(sqlite3.connect(backup)) as copy:
        page = copy.execute("PRAGMA page_size").fetchone()[0]
        root = copy.execute("SELECT rootpage FROM sqlite_master WHERE name = 'players'").fetchone()[0]
    image = backup.read_bytes()
    damaged = tmp_path / "damaged.bak"
    damaged.write_bytes(image[: (root - 1) * page] + bytes(page) + image[root * page :])
    said = refused_leaving_the_target(damaged, target)
    assert said.startswith(f"error: '{damaged}' is not a whole keypeg backup (SQLite finds it damaged: "), said
    with closing(sqlite3.connect(backup)) as copy:
        copy.execute("DROP TABLE server_keys")
        copy.commit()
    said = refused_leaving_the_target(backup, target)
    assert said == f"error: '{backup}' is not a whole keypeg backup (it lacks server_keys of its schema)\n"


def test_a_backup_is_made_only_of_a_keypeg_database_that_is_there(tmp_path: Path) -> None:
    """A SQLite file that is not there is not made, nor a schema built in a database without one; no backup
    file is written."""
    missing = tmp_path / "nonexistent.sqlite3"
    code, said = keypeg("backup", str(tmp_path / "b.bak"), "--db", f"sqlite:///{missing}")
    assert (code, said) == (2, f"error: no database file '{missing}' to back up\n")
    assert not missing.exists()
    code, said = keypeg("backup", str(tmp_path / "b.bak"), "--db", f"sqlite:///{tmp_path}")
    assert (code, said) == (2, f"error: no database file '{tmp_path}' to back up\n")
    empty = tmp_path / "empty.sqlite3"
    empty.touch()
    code, said = keypeg("backup", str(tmp_path / "b.bak"), "--db", f"sqlite:///{empty}")
    assert code == 2 and said == f"error: the database 'sqlite:///{empty}' has no keypeg schema: nothing to back up\n"
    assert empty.read_bytes() == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.sqlite3"]


def test_a_backup_never_replaces_a_link_unless_forced(tmp_path: Path) -> None:
    """A symbolic link at the backup's path, even to nothing, is something there: refused without --force
    (and left as it was); a folder is refused, forced or not."""
    url = sqlite_url(tmp_path, "k.sqlite3")
    play_one(Store(url), "ann", 0)
    dangling, linked = tmp_path / "dangling.bak", tmp_path / "linked.bak"
    dangling.symlink_to(tmp_path / "nowhere")
    (tmp_path / "kept").write_text("keep me")
    linked.symlink_to(tmp_path / "kept")
    for link in (dangling, linked):
        code, said = keypeg("backup", str(link), "--db", url)
        assert (code, said) == (2, f"error: '{link}' exists: --force replaces it\n")
        assert link.is_symlink()
    assert os.readlink(dangling) == str(tmp_path / "nowhere") and not (tmp_path / "nowhere").exists()
    assert (tmp_path / "kept").read_text() == "keep me"
    code, said = keypeg("backup", str(dangling), "--force", "--db", url)
    assert code == 0 and not dangling.is_symlink() and dangling.read_bytes().startswith(b"SQLite format 3")
    (tmp_path / "folder.bak").mkdir()
    for forced in ([], ["--force"]):
        code, said = keypeg("backup", str(tmp_path / "folder.bak"), *forced, "--db", url)
        assert code == 2 and "is a directory" in said and (tmp_path / "folder.bak").is_dir(), said


def test_a_restore_refuses_a_sqlite_database_another_program_has_open(tmp_path: Path) -> None:
    """A server's idle connection to the database (as its pool keeps) makes a restore refuse at once,
    leaving the database as it was; once it is closed, the restore goes on."""
    target = tmp_path / "b.sqlite3"
    url = f"sqlite:///{target}"
    with opened(url) as store:
        store.players.set_password("zed", "password zed")
        play_one(store, "zed", 0)
    play_one(Store(sqlite_url(tmp_path, "a.sqlite3")), "ann", 0)
    assert keypeg("backup", str(tmp_path / "a.bak"), "--db", sqlite_url(tmp_path, "a.sqlite3"))[0] == 0
    server = Store(url)
    assert server.players.check_password("zed", "password zed")  # a connection left open, idle
    code, said = keypeg("restore", str(tmp_path / "a.bak"), "--force", "--db", url)
    assert (code, said) == (
        2,
        f"error: another program has the database '{target}' open (a server?): stop it before a restore\n",
    )
    assert [g.player for g in server.games.history(limit=None)] == ["zed"]
    server.engine.dispose()
    with closing(sqlite3.connect(target)) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone() == ("wal",)  # the probe left it as it was
    code, said = keypeg("restore", str(tmp_path / "a.bak"), "--force", "--db", url)
    assert code == 0, said
    with opened(url) as store:
        assert [g.player for g in store.games.history(limit=None)] == ["ann"]


def test_a_file_that_comes_at_the_path_while_a_backup_is_written_is_kept(tmp_path: Path) -> None:
    """The path is looked at again just before the backup is put there: what came meanwhile stays."""
    from keypeg.storage import ExistingFileError, atomic_writer

    path = tmp_path / "k.bak"
    with pytest.raises(ExistingFileError), atomic_writer(path, replace=False) as out:
        out.write(b"the backup")
        path.write_text("came meanwhile")
    assert path.read_text() == "came meanwhile"
    assert [p.name for p in tmp_path.iterdir()] == ["k.bak"]  # no temporary file left


@pytest.mark.slow
def test_a_restore_is_refused_while_keypeg_serve_has_the_database_open(tmp_path: Path) -> None:
    """A server that has answered keeps its connection to the database: a restore is refused until it stops."""
    target, url = tmp_path / "served.sqlite3", sqlite_url(tmp_path, "served.sqlite3")
    with opened(url) as store:
        store.players.set_password("zed", "password zed")
    play_one(Store(sqlite_url(tmp_path, "a.sqlite3")), "ann", 0)
    assert keypeg("backup", str(tmp_path / "a.bak"), "--db", sqlite_url(tmp_path, "a.sqlite3"))[0] == 0
    with keypeg_serve(url, tmp_path):
        code, said = keypeg("restore", str(tmp_path / "a.bak"), "--force", "--db", url)
        assert (code, said) == (
            2,
            f"error: another program has the database '{target}' open (a server?): stop it before a restore\n",
        )
    code, said = keypeg("restore", str(tmp_path / "a.bak"), "--force", "--db", url)
    assert code == 0, said
