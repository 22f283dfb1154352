"""The store: games kept as they are played, stats, top 10, history; bad databases; kill and concurrency."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from keypeg import Feedback, Rules, find_variant
from keypeg.cli import cli
from keypeg.store import Store, StoreError

KEYPEG = [sys.executable, "-m", "keypeg.cli"]


def sqlite_url(tmp_path: Path, name: str = "k.sqlite3") -> str:
    return f"sqlite:///{tmp_path / name}"


def record(
    store: Store, player: str, guesses: list[tuple[str, Feedback]], *, rules: Rules | None = None, rated: bool = True
) -> int:
    rules = rules or Rules(4, 6)
    game = store.games.start(player, rules, role="breaker", secret=guesses[-1][0], rated=rated)
    for number, (guess, feedback) in enumerate(guesses, 1):
        store.games.update(game, keep=number - 1, moves=[(guess, feedback)])  # a guess at a time, as played
    solved = guesses[-1][1] == rules.win
    store.games.update(game, keep=len(guesses), moves=[], outcome="solved" if solved else "out of rows")
    return game


def exercise(store: Store) -> None:
    """The same checks on any database."""
    win = Feedback(4, 0)
    slow = record(store, "ann", [("AABB", Feedback(1, 0)), ("CCDD", Feedback(0, 1)), ("ABCD", win)])
    fast = record(store, "bob", [("AABB", Feedback(1, 1)), ("ABCD", win)])
    record(store, "bob", [("AAAA", Feedback(0, 0))], rules=Rules(4, 6, rows=1))
    record(store, "cy", [("ABCDE", Feedback(5, 0))], rules=Rules(5, 8))
    top = store.records.top(Rules(4, 6), minimum=1)
    assert [(r.player, r.average) for r in top] == [("bob", 2.0), ("ann", 3.0)]  # fewest guesses first
    assert [r.player for r in store.records.top(Rules(5, 8), minimum=1)] == ["cy"]
    assert store.records.top(Rules(4, 6)) == []  # nobody has the rated games needed
    assert [(r.player, r.average) for r in store.records.top(Rules(4, 6, rows=1), minimum=1)] == [
        ("bob", 2.0)
    ]  # lost: 1 + 1
    stats = store.records.stats("bob")
    assert (stats.games, stats.wins, stats.best, stats.worst, stats.score) == (2, 1, 2, 2, 2.0)
    assert stats.trend == [2, 2]  # the lost game of one row counts as 2
    assert game_ids_differ(slow, fast)
    game = store.games.record(slow)
    assert [m.guess for m in game.moves] == ["AABB", "CCDD", "ABCD"]
    assert game.outcome == "solved" and game.seconds is not None and game.seconds >= 0
    assert [g.player for g in store.games.history(limit=2)] == ["cy", "bob"]
    with pytest.raises(StoreError, match="unknown player"):
        store.records.stats("nobody")
    with pytest.raises(StoreError, match="no game"):
        store.games.record(10_000)


def game_ids_differ(*ids: int) -> bool:
    return len(set(ids)) == len(ids)


def test_sqlite_store(tmp_path: Path) -> None:
    exercise(Store(sqlite_url(tmp_path)))


def test_postgresql_store() -> None:
    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    store = Store(url)
    with store.engine.begin() as connection:  # start from empty tables
        from sqlalchemy import text

        connection.execute(text("TRUNCATE guesses, games, matches, players RESTART IDENTITY CASCADE"))
    exercise(store)


def test_passwords_are_hashed(tmp_path: Path) -> None:
    store = Store(sqlite_url(tmp_path))
    store.players.set_password("ann", "s3cret!")
    raw = sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT password_hash FROM players").fetchone()[0]
    assert "s3cret" not in raw and raw.startswith("$argon2")
    assert store.players.check_password("ann", "s3cret!") and not store.players.check_password("ann", "guess")


def test_schema_is_created_and_upgraded_once(tmp_path: Path) -> None:
    Store(sqlite_url(tmp_path))
    Store(sqlite_url(tmp_path))  # opening again is harmless
    tables = {r[0] for r in sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT name FROM sqlite_master")}
    assert {"players", "games", "guesses", "matches", "alembic_version"} <= tables


def test_a_database_from_a_newer_keypeg(tmp_path: Path) -> None:
    Store(sqlite_url(tmp_path))
    connection = sqlite3.connect(tmp_path / "k.sqlite3")
    connection.execute("UPDATE alembic_version SET version_num = '9999'")
    connection.commit()
    with pytest.raises(StoreError, match="newer keypeg"):
        Store(sqlite_url(tmp_path))


def test_a_corrupt_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "k.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    before = path.read_bytes()
    with pytest.raises(StoreError, match="cannot use the database"):
        Store(sqlite_url(tmp_path))
    assert path.read_bytes() == before
    result = CliRunner().invoke(cli, ["history", "--db", sqlite_url(tmp_path)])
    assert result.exit_code == 1 and "Traceback" not in result.output and "k.sqlite3" in result.stderr


def test_a_read_only_spell_ends_and_the_store_writes_again(tmp_path: Path) -> None:
    """While the file is read-only, the connections SQLite opens are read-only for good (root ignores
    chmod: they are opened with mode=ro here); once it is writable again, the next write works, without a
    new Store: a failed connection is discarded, and the pooled ones opened with it."""
    from sqlalchemy import event

    from keypeg.store import StoreUnavailableError

    path = tmp_path / "k.sqlite3"
    store = Store(sqlite_url(tmp_path))
    read_only = False

    @event.listens_for(store.engine, "do_connect")
    def opened(_dialect: object, _record: object, _args: object, options: dict[str, object]) -> object:
        return sqlite3.connect(f"file:{path}?mode=ro", uri=True, **options) if read_only else None  # type: ignore[call-overload]

    store.engine.dispose()  # the handles opened before the spell are gone (a busy server opens new ones)
    read_only = True
    held = [store.engine.connect() for _ in range(3)]  # the pool fills with read-only handles
    for connection in held:
        connection.close()
    with pytest.raises(StoreUnavailableError, match="readonly"):
        store.games.start("ann", Rules(4, 6), role="breaker", secret="ABCD")
    read_only = False
    games = [store.games.start("ann", Rules(4, 6), role="breaker", secret="ABCD") for _ in range(4)]
    assert len(set(games)) == 4 and len(Store(sqlite_url(tmp_path)).games.history(limit=None)) == 4


@pytest.mark.parametrize("url", ["nonsense://", "postgresql+nodriver://x/y", "sqlite:////proc/no/such/k.db"])
def test_bad_urls(url: str) -> None:
    with pytest.raises(StoreError):
        Store(url)
    result = CliRunner().invoke(cli, ["top", "--db", url])
    assert result.exit_code in (1, 2) and "Traceback" not in result.output and result.stderr.strip()


def test_a_new_user_plays_and_sees_the_records(tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--db", sqlite_url(tmp_path)]
    for secret, guesses in (("BADC", ["AABB", "BADC"]), ("ABCD", ["ABCD"]), ("FFFF", ["AAAA", "BBBB", "FFFF"])):
        result = runner.invoke(cli, ["play", "-p", "4", "-c", "6", "--secret", secret, "--player", "ann", *db],
                               input="\n".join(guesses) + "\n")  # fmt: skip
        assert result.exit_code == 0, result.stderr
    stats = json.loads(runner.invoke(cli, ["stats", "--player", "ann", "--all-variants", "--json", *db]).stdout)
    assert (stats["games"], stats["wins"], stats["best"], stats["worst"], stats["trend"]) == (3, 3, 1, 3, [2, 1, 3])
    top = json.loads(runner.invoke(cli, ["top", "-p", "4", "-c", "6", "--json", *db]).stdout)["top"]
    assert top == []  # games with --secret are practice games
    history = runner.invoke(cli, ["history", *db])
    assert history.exit_code == 0 and "ann" in history.stdout and "practice" in history.stdout
    game_id = str(Store(sqlite_url(tmp_path)).games.history("ann")[-1].id)
    replay = runner.invoke(cli, ["replay", game_id, *db])
    assert "AABB" in replay.stdout and "coach:" in replay.stdout
    exported = runner.invoke(cli, ["export", "--player", "ann", "--format", "json", *db])
    assert len(json.loads(exported.stdout)) == 3
    csv_text = runner.invoke(cli, ["export", "--player", "ann", *db]).stdout
    assert csv_text.splitlines()[0].startswith("id,player,variant,pegs") and len(csv_text.splitlines()) == 4
    chart = tmp_path / "trend.png"
    assert runner.invoke(cli, ["stats", "--player", "ann", "--plot", str(chart), *db]).exit_code == 0
    assert chart.read_bytes()[:4] == b"\x89PNG"


def test_solve_games_are_recorded_and_wrong_passwords_refused(tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--db", sqlite_url(tmp_path)]
    store = Store(sqlite_url(tmp_path))
    store.players.set_password("ann", "pw")
    refused = runner.invoke(cli, ["play", "--secret", "RGBY", "--player", "ann", *db], input="RGBY\n",
                            env={"KEYPEG_PASSWORD": "nope"})  # fmt: skip
    assert refused.exit_code == 2 and "wrong password" in refused.stderr
    allowed = runner.invoke(cli, ["play", "--secret", "RGBY", "--player", "ann", *db], input="RGBY\n",
                            env={"KEYPEG_PASSWORD": "pw"})  # fmt: skip
    assert allowed.exit_code == 0
    rules = find_variant("classic").rules
    from keypeg import score
    from keypeg.knowledge import Knowledge
    from keypeg.play.levels import level_strategy

    strategy, knowledge, lines = level_strategy(3, rules), Knowledge(rules), []
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        feedback = score(rules.parse("KKWW"), guess)
        lines.append(f"{feedback.black} {feedback.white}")
        knowledge = knowledge.add(guess, feedback)
    solved = runner.invoke(cli, ["solve", "--player", "bob", *db], input="\n".join(lines) + "\n")
    assert solved.exit_code == 0
    game = store.games.history("bob")[0]
    assert game.role == "maker" and game.outcome == "solved" and game.level == 3
    assert len(game.moves) == 0 and store.games.record(game.id).guesses == len(lines)


@pytest.mark.parametrize(
    ("command", "move"), [(["play", "--secret", "RGBY"], "RRGG"), (["solve"], "1 0"), (["match", "-g", "2"], "RRGG")]
)
def test_an_unrecorded_game_still_needs_the_players_password(tmp_path: Path, command: list[str], move: str) -> None:
    db = ["--db", sqlite_url(tmp_path)]
    Store(sqlite_url(tmp_path)).players.set_password("ann", "pw")
    args = [*command, "--player", "ann", "--password-stdin", "--no-record", *db]
    refused = CliRunner().invoke(cli, args, input=f"wrong\n{move}\nq\n")
    assert refused.exit_code == 2 and refused.stderr.startswith("error: wrong password for 'ann'"), refused.output
    assert refused.stdout == ""
    allowed = CliRunner().invoke(cli, args, input=f"pw\n{move}\n")
    assert allowed.stdout and "wrong password" not in allowed.stderr, allowed.output


def test_a_game_left_unrecorded_never_says_it_is_recorded(tmp_path: Path) -> None:
    db = ["--db", sqlite_url(tmp_path)]
    unrecorded = CliRunner().invoke(cli, ["solve", "--player", "bob", "--no-record", *db], input="1 0\n")
    assert unrecorded.exit_code == 1 and "recorded" not in unrecorded.stderr, unrecorded.stderr
    assert "You stopped the game." in unrecorded.stderr and not Store(sqlite_url(tmp_path)).games.history()
    recorded = CliRunner().invoke(cli, ["solve", "--player", "bob", *db], input="1 0\n")
    assert "it is recorded as resigned" in recorded.stderr
    assert [g.outcome for g in Store(sqlite_url(tmp_path)).games.history("bob")] == ["resigned"]


def test_moves_taken_back_are_replaced_and_a_game_is_found_by_its_public_id(tmp_path: Path) -> None:
    store = Store(sqlite_url(tmp_path))
    game = store.games.start("ann", Rules(4, 6), role="maker", public_id="abc")
    three = [("AABB", Feedback(0, 1)), ("CCDD", Feedback(1, 0)), ("EEFF", Feedback(0, 0))]
    assert store.games.update(game, keep=0, moves=three) == 1
    store.games.update(game, keep=1, moves=[("CCDE", Feedback(1, 1))], expect=1)  # two scores undone, one given
    assert [(m.number, m.guess) for m in store.games.record(game).moves] == [(1, "AABB"), (2, "CCDE")]
    assert store.games.record(game).guesses == 2
    assert store.games.owned("abc") == (game, "ann")
    with pytest.raises(StoreError, match="no such game"):
        store.games.owned("abd")
    store.web_sessions.new("h" * 64, "token")
    assert store.web_sessions.get("h" * 64) == ("token", None)
    store.web_sessions.bind("h" * 64, "ANN")
    assert store.web_sessions.get("h" * 64) == ("token", "ann") and store.web_sessions.get("x" * 64) is None


def test_games_matches_and_live_matches_are_compared_and_swapped_by_version(tmp_path: Path) -> None:
    """One token for every record: an integer version, bumped at every write; a writer naming another
    version is refused (MovedOnError) and writes nothing."""
    from keypeg.store import MovedOnError

    store = Store(sqlite_url(tmp_path))
    game = store.games.start("ann", Rules(4, 6), role="breaker", secret="ABCD")
    assert store.games.saved(game).version == 0
    one = store.games.update(game, keep=0, moves=[("AABB", Feedback(0, 0))], expect=0)
    two = store.games.update(game, keep=0, moves=[("CCDD", Feedback(1, 0))], expect=one)  # undone, guessed again
    assert (one, two) == (1, 2) and store.games.saved(game).version == 2
    with pytest.raises(MovedOnError, match="elsewhere"):  # the same guess count, an older version
        store.games.update(game, keep=1, moves=[("EEFF", Feedback(0, 0))], expect=one)
    assert [m.guess for m in store.games.record(game).moves] == ["CCDD"]
    store.games.update(game, keep=1, moves=[], outcome="resigned")  # no expect: written whatever the version
    assert store.games.saved(game).version == 3

    match = store.matches.save("{}", player="ann", public_id="m1")
    assert store.matches.owned("m1") == (match, "ann", "{}", 0)
    assert store.matches.save('{"a": 1}', match, expect=0) == match
    with pytest.raises(MovedOnError):
        store.matches.save('{"b": 2}', match, expect=0)
    store.matches.save('{"c": 3}', match)  # the terminal's match, kept whatever the version
    assert store.matches.owned("m1")[2:] == ('{"c": 3}', 2)

    live = store.live.start("ann", "{}", "l1")
    assert store.live.get("l1").version == 0
    assert store.live.save(live, '{"a": 1}', 0, opponent="bob") == 1
    with pytest.raises(MovedOnError):
        store.live.save(live, '{"b": 2}', 0)
    assert store.live.get("l1").state == '{"a": 1}'


def _insert_an_old_game(connection: Any) -> None:
    """Game 1 of player 1, classic, one guess scored, as an earlier schema kept it (no state, no version)."""
    connection.exec_driver_sql(
        "INSERT INTO games (id, player_id, variant, pegs, colors, repeats, blanks, rows, role, guesses, started_at)"
        " VALUES (1, 1, '4x6', 4, 6, 1, 0, 12, 'breaker', 1, '2026-01-01')"
    )
    connection.exec_driver_sql(
        "INSERT INTO guesses (game_id, number, guess, black, white, made_at) VALUES (1, 1, 'AABB', 1, 0, '2026-01-01')"
    )


def test_games_gain_a_version_on_upgrade(tmp_path: Path) -> None:
    """A database at schema 0007 (games compared by guess count) gains the games' version, 0 for every
    game kept, and its games go on from there."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from keypeg.store.database import MIGRATIONS

    url = sqlite_url(tmp_path)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(url).begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0007")
        connection.exec_driver_sql(
            "INSERT INTO players (id, name, key, created_at) VALUES (1, 'ann', 'ann', '2026-01-01')"
        )
        _insert_an_old_game(connection)
    store = Store(url)
    assert store.games.saved(1).version == 0
    assert store.games.update(1, keep=1, moves=[("ABCD", Feedback(4, 0))], outcome="solved", expect=0) == 1
    assert store.games.record(1).outcome == "solved" and [m.guess for m in store.games.record(1).moves] == [
        "AABB",
        "ABCD",
    ]


def _game_rows(path: Path) -> list[tuple]:  # type: ignore[type-arg]
    connection = sqlite3.connect(path, timeout=10)
    try:
        return connection.execute("SELECT id, outcome, guesses FROM games ORDER BY id").fetchall()
    finally:
        connection.close()


def test_killing_a_game_loses_at_most_the_guess_being_typed(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    Store(url)
    env = {**os.environ, "KEYPEG_DB": url, "KEYPEG_PLAYER": "kim"}
    args = [*KEYPEG, "play", "-p", "4", "-c", "6", "--secret", "FEDC"]
    process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                               text=True)  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    for guess in ("AABB", "CCDD"):
        process.stdin.write(guess + "\n")
        process.stdin.flush()
        process.stdout.readline()  # its score: the guess is made
    process.stdin.write("AB")  # half typed
    process.stdin.flush()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (_game_rows(tmp_path / "k.sqlite3") or [(0, None, 0)])[0][2] != 2:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    ((game_id, outcome, guesses),) = _game_rows(tmp_path / "k.sqlite3")
    assert outcome is None and guesses == 2
    assert [m.guess for m in Store(url).games.record(game_id).moves] == ["AABB", "CCDD"]


@pytest.mark.slow
def test_two_processes_playing_at_once_keep_all_their_games(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    Store(url)
    guesses = "AAAA\nBBBB\nCCCC\nDDDD\nEEEE\nABCD\n" * 1
    processes = []
    for player in ("p1", "p2"):
        env = {**os.environ, "KEYPEG_DB": url, "KEYPEG_PLAYER": player}
        for _ in range(3):
            processes.append(subprocess.Popen([*KEYPEG, "play", "-p", "4", "-c", "6", "--secret", "ABCD"],
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                              env=env, text=True))  # fmt: skip
    for process in processes:
        process.communicate(guesses, timeout=120)
        assert process.returncode == 0
    store = Store(url)
    games = store.games.history(limit=None, with_moves=True)
    assert len(games) == 6
    assert sorted(g.player for g in games) == ["p1"] * 3 + ["p2"] * 3
    assert all(g.outcome == "solved" and len(g.moves) == 6 for g in games)


def test_match_games_are_recorded(tmp_path: Path) -> None:
    import random

    from keypeg import score
    from keypeg.game import random_code
    from keypeg.knowledge import Knowledge
    from keypeg.play.levels import level_strategy

    rules = find_variant("classic").rules
    secret = random_code(rules, random.Random(5))
    strategy, knowledge, lines = level_strategy(3, rules), Knowledge(rules), [str(secret)]
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        feedback = score(rules.parse("KKWW"), guess)
        lines.append(f"{feedback.black} {feedback.white}")
        knowledge = knowledge.add(guess, feedback)
    url = sqlite_url(tmp_path)
    result = CliRunner().invoke(
        cli, ["match", "--seed", "5", "--player", "kim", "--db", url], input="\n".join(lines) + "\n"
    )
    assert result.exit_code == 0, result.stderr
    games = Store(url).games.history(limit=None)
    assert sorted(g.role for g in games) == ["breaker", "maker"]
    assert all(g.player == "kim" and g.outcome == "solved" for g in games)  # the name given, not "you"
    rows = sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT DISTINCT match_id FROM games").fetchall()
    assert len(rows) == 1 and rows[0][0] is not None
    state = sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT state FROM matches").fetchone()[0]
    assert len(json.loads(state)["played"]) == 2


def test_games_of_the_same_rules_are_grouped_and_labelled_one_way(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path)
    store = Store(url)
    classic = find_variant("classic").rules
    won = [("ABCD", Feedback(4, 0))]
    for rules in (Rules(4, 6), classic, Rules(4, 6, name="classic (changed)"), Rules(4, 6, rows=12, name="4x6")):
        record(store, "ann", won, rules=rules)
    old = record(store, "ann", won)
    with sqlite3.connect(tmp_path / "k.sqlite3") as connection:  # as an earlier keypeg kept it: no rules
        connection.execute("UPDATE games SET rules = NULL WHERE id = ?", (old,))
    record(store, "ann", won, rules=classic.replace(rows=8, name="classic (changed)"))
    record(store, "ann", won, rules=Rules(4, 6, rows=10))
    assert [g.variant for g in store.games.history("ann")] == ["4x6", "4x6, 8 rows", *["classic"] * 5]
    db = ["--db", url]

    def stats(*args: str) -> dict[str, dict[str, object]]:
        result = CliRunner().invoke(cli, ["stats", "--player", "ann", "--json", *args, *db])
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)["by_variant"]  # type: ignore[no-any-return]

    assert {k: v["games"] for k, v in stats("-v", "classic").items()} == {"classic": 5}
    assert {k: v["games"] for k, v in stats("-p", "4", "-c", "6").items()} == {"classic": 5}
    assert {k: v["games"] for k, v in stats("--all-variants").items()} == {"4x6": 1, "4x6, 8 rows": 1, "classic": 5}
    shown = CliRunner().invoke(cli, ["stats", "--player", "ann", "-p", "4", "-c", "6", "--rows", "8", *db]).stdout
    assert "4x6, 8 rows" in shown and "classic" not in shown
    for args in (["-p", "4", "-c", "6"], ["-v", "classic"], ["-v", "4x6", "--rows", "12"]):
        top = json.loads(CliRunner().invoke(cli, ["top", "--json", *args, *db]).stdout)
        assert top["variant"] == "classic", args
    empty = CliRunner().invoke(cli, ["top", "-p", "4", "-c", "6", "--rows", "9", *db]).stdout
    assert "of 4x6, 9 rows yet" in empty
    exported = CliRunner().invoke(cli, ["export", "--player", "ann", "--format", "json", *db]).stdout
    assert [g["variant"] for g in json.loads(exported)][:5] == ["classic"] * 5


def test_revision_files_are_named_by_their_id() -> None:
    """The store skips Alembic when the database is at the newest revision, found by file name."""
    import importlib

    from keypeg.store.database import MIGRATIONS, _head_revision

    files = sorted((MIGRATIONS / "versions").glob("[0-9]*_*.py"))
    for path in files:
        module = importlib.import_module(f"keypeg.store.migrations.versions.{path.stem}")
        assert module.revision == path.name.split("_")[0]
    assert _head_revision() == files[-1].name.split("_")[0]


def test_an_old_database_is_upgraded(tmp_path: Path) -> None:
    """A database at the first schema gains the session state when keypeg opens it."""
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine

    from keypeg.store.database import MIGRATIONS

    url = sqlite_url(tmp_path)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with create_engine(url).begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.exec_driver_sql("INSERT INTO players (id, name, created_at) VALUES (1, 'old', '2026-01-01')")
        for number, name in enumerate(("Ann", "ANN", "bad\x1bname"), 2):  # twins and a name refused today
            connection.exec_driver_sql(
                "INSERT INTO players (id, name, created_at) VALUES (?, ?, '2026-01-01')", (number, name)
            )
        _insert_an_old_game(connection)
    store = Store(url)
    old = store.games.record(1)
    assert [m.guess for m in old.moves] == ["AABB"] and not old.rated and store.games.saved(1).state is None
    assert old.rules == Rules(4, 6, rows=12) and old.variant == "classic"  # kept in letters, as it was
    assert (
        store.players.registered("ann") == store.players.registered("aNN") == "Ann"
    )  # the first of the twins keeps the name
    game = record(store, "ann", [("ABCD", Feedback(4, 0))])
    assert store.games.record(game).outcome == "solved" and store.games.record(game).player == "Ann"


def test_a_postgresql_connection_gone_bad_is_discarded() -> None:
    """A PostgreSQL session left in a bad state (here: read-only for good, as after a read-only spell)
    fails one request, then is discarded: the next write gets a fresh connection, without a new Store."""
    from keypeg.store import StoreUnavailableError

    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    store = Store(url)
    store.engine.dispose()
    with store.engine.connect() as connection:  # the pool's one connection, read-only from now on
        connection.exec_driver_sql("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        connection.commit()
    with pytest.raises(StoreUnavailableError):
        store.games.start("ann", Rules(4, 6), role="breaker", secret="ABCD")
    game = store.games.start("ann", Rules(4, 6), role="breaker", secret="ABCD")
    assert store.games.record(game).player == "ann"
