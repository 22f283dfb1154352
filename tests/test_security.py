"""The trust boundary: the secret stays the codemaker's, one name is one player, text from outside is text,
and the files keypeg makes are private."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import free_port
from keypeg import Rules, find_variant
from keypeg.cli import cli
from keypeg.play.codemakers import FixedCodemaker, RandomCodemaker
from keypeg.play.sessions import BreakSession
from keypeg.services.recording import GameKeeper
from keypeg.store import Store, StoreError
from keypeg.text import visible

CLASSIC = find_variant("classic").rules


def invoke(args: list[str], url: str, stdin: str = "", **env: str) -> Result:
    result = CliRunner().invoke(cli, [*args], input=stdin, env={"KEYPEG_DB": url, **env})
    assert "Traceback" not in result.output + result.stderr
    return result


def notations(rules: Rules, code: str) -> set[str]:
    """Every way the secret could be written: own symbols, letters, digits, either case, spaced or not."""
    colors = rules.parse(code).colors
    own = rules.format(colors)
    letters = "".join(chr(ord("A") + c) for c in colors)
    digits = "".join(str(c + 1) for c in colors)
    found = {own, letters, digits, own.lower(), letters.lower()}
    found |= {" ".join(form) for form in list(found)}
    found.add(json.dumps(list(colors)))
    return found


def in_progress(url: str, rules: Rules, secret: str, guesses: list[str], player: str = "ann") -> int:
    game = BreakSession(rules, FixedCodemaker(rules.parse(secret)))
    keeper = GameKeeper.start(Store(url), player, game)
    for guess in guesses:
        game.guess(guess)
        keeper.sync(game)
    assert keeper.game_id is not None and not game.is_over
    return keeper.game_id


# -- the secret ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "secret", "guesses"),
    [(Rules(6, 9), "IHGFED", ["AABBCC", "ABCDEF"]), (CLASSIC, "KWYB", ["RRGG"])],
    ids=["6x9-letters", "classic-symbols"],
)
def test_no_command_shows_the_secret_of_a_game_in_progress(
    tmp_path: Path, rules: Rules, secret: str, guesses: list[str]
) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    game_id = in_progress(url, rules, secret, guesses)
    forms = notations(rules, secret)
    outputs = []
    for args in (
        ["history"],
        ["history", "--json"],
        ["history", "--player", "ann", "--json"],
        ["replay", str(game_id)],
        ["replay", str(game_id), "--json"],
        ["export", "--player", "ann"],
        ["export", "--player", "ann", "--format", "json"],
        ["stats", "--player", "ann", "--all-variants", "--json"],
        ["top", "-p", str(rules.pegs), "-c", str(rules.colors), "--json"],
        ["play", "--resume", str(game_id), "--player", "bob"],  # someone else's game: refused
        ["solve", "--resume", str(game_id), "--player", "ann"],  # the wrong kind: refused
    ):
        result = invoke(args, url)
        outputs.append(result.output + result.stderr)
    exported = tmp_path / "games.json"
    invoke(["export", "--player", "ann", "--format", "json", "-o", str(exported)], url)
    outputs.append(exported.read_text())
    for text in outputs:
        assert not [form for form in forms if form in text], text
    # once the game is over, the secret is shown
    finished = invoke(["play", "--resume", str(game_id), "--player", "ann"], url, stdin=f"{secret}\n")
    assert finished.exit_code == 0
    assert Store(url).games.record(game_id).secret == secret
    assert secret in invoke(["replay", str(game_id)], url).output


def test_the_match_file_never_holds_the_secret(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    save = tmp_path / "m.json"
    invoke(["match", "--player", "kim", "--save", str(save), "--games", "2"], url, stdin="RRGG\n")
    text = save.read_text()
    (game,) = Store(url).games.history("kim")
    assert game.outcome == "resigned" and game.secret is not None  # leaving resigns: now it may be seen
    state = json.loads(text)
    assert state["current_game"] is None and "secret" not in text.lower()


# -- one name, one player -----------------------------------------------------------------------------

TWINS = ["ANN", "Ann", " ann", "ann ", "\uff41\uff4e\uff4e", "\u0430nn", "\u0391NN", "a\u200bnn", "ann\u200d"]
TWINS += ["an\u00adn", "ann\u202e", "ann\t", "ann\n", "ann\u034f", "ann\ufe0f", "a\ufe00nn", "ann\u180b"]
TWINS += ["ann\u3164", "ann\u1160", "ann\uffa0", "ann\u17b4", "ann\u2800", "ann\U00016fe4", "ann\U0001d159"]
TWINS += ["ann \u0301", "\u0301ann"]
"""Names that look like ann, or hide characters around it: each is ann or is refused."""


@pytest.mark.parametrize("name", TWINS, ids=[n.encode("unicode_escape").decode() for n in TWINS])
def test_a_name_trick_cannot_reach_a_protected_account(tmp_path: Path, name: str) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    store = Store(url)
    store.players.set_password("ann", "right")
    before = sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT id, name, password_hash FROM players").fetchall()
    played = invoke(["play", "--secret", "RGBY", "--player", name], url, stdin="RGBY\n", KEYPEG_PASSWORD="wrong")
    assert played.exit_code == 2 and played.stderr.count("\n") == 1
    assert "wrong password" in played.stderr or "name" in played.stderr
    changed = invoke(["player", name, "--password"], url, KEYPEG_NEW_PASSWORD="mine, all mine")
    assert changed.exit_code == 2
    after = sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT id, name, password_hash FROM players").fetchall()
    assert after == before and Store(url).games.history() == []
    assert store.players.check_password("ann", "right")


def test_changing_a_password_needs_the_old_one(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    assert invoke(["player", "ann", "--password"], url, KEYPEG_NEW_PASSWORD="first one").exit_code == 0
    refused = invoke(["player", "ann", "--password"], url, KEYPEG_NEW_PASSWORD="second one", KEYPEG_PASSWORD="bad")
    assert refused.exit_code == 2 and "wrong password" in refused.stderr
    piped = invoke(["player", "ANN", "--password", "--password-stdin"], url, stdin="first one\nsecond one\n")
    assert piped.exit_code == 0, piped.stderr
    store = Store(url)
    assert store.players.check_password("ann", "second one") and not store.players.check_password("ann", "first one")
    played = invoke(
        ["play", "--secret", "RGBY", "--player", "Ann", "--password-stdin"], url, stdin="second one\nRGBY\n"
    )
    assert played.exit_code == 0 and played.stdout.splitlines() == ["4 0"]
    assert [g.player for g in store.games.history()] == ["ann"]  # the name first given


def test_the_command_line_takes_the_same_password_rule(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    for weak, why in (("short", "8 characters"), ("Qwerty123", "most common")):
        refused = invoke(["player", "ann", "--password"], url, KEYPEG_NEW_PASSWORD=weak)
        assert refused.exit_code == 2 and why in refused.stderr and weak not in refused.stderr
        assert refused.stderr.count("\n") == 1
    assert not Store(url).players.has_password("ann")


def test_serve_believes_forwarded_addresses_only_from_the_proxies_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from keypeg.web.app import app_from_environment

    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    started: list[dict[str, object]] = []
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: started.append(kwargs))
    for name in ("KEYPEG_HTTPS", "KEYPEG_TRUST_PROXY"):
        monkeypatch.setenv(name, "")  # serve sets them for its workers: put back after the test
    port = ["--port", str(free_port())]  # serve checks the port is free: never a fixed one
    assert invoke(["serve", *port], url).exit_code == 0
    assert started[-1]["proxy_headers"] is False and os.environ["KEYPEG_TRUST_PROXY"] == ""
    assert app_from_environment().state.trusted_proxies == ()
    assert invoke(["serve", *port, "--trust-proxy", "10.0.0.1", "--trust-proxy", "fd00::/8"], url).exit_code == 0
    assert started[-1]["proxy_headers"] is True and started[-1]["forwarded_allow_ips"] == ["10.0.0.1", "fd00::/8"]
    monkeypatch.setenv("KEYPEG_DB", url)
    assert [str(network) for network in app_from_environment().state.trusted_proxies] == ["10.0.0.1/32", "fd00::/8"]
    loose = ["--trust-proxy", " 10.0.0.1/8", "--trust-proxy", "fd00::1/128"]  # one form for the app and uvicorn
    assert invoke(["serve", *port, *loose], url).exit_code == 0
    assert (
        started[-1]["forwarded_allow_ips"] == ["10.0.0.0/8", "fd00::1"] == os.environ["KEYPEG_TRUST_PROXY"].split(",")
    )
    bad = invoke(["serve", *port, "--trust-proxy", "the proxy"], url)
    assert bad.exit_code == 2 and "--trust-proxy" in bad.stderr and len(started) == 3


def test_the_password_is_never_an_argument() -> None:
    for command in ("play", "solve", "match", "player", "room"):
        params = {p.name for p in cli.commands[command].params}
        assert "password" not in params or cli.commands[command].params[0].name == "name"
        for param in cli.commands[command].params:
            assert not (param.name and "password" in param.name and not getattr(param, "is_flag", False))


# -- text from outside is text ------------------------------------------------------------------------

PAYLOADS = [
    "[/]",
    "[bold red]loud[/]",
    "[link=http://evil.example]click[/link]",
    "a\x1b[2Jb",
    "t\x1b]0;pwned\x07x",
    "back\x08space",
    "cr\rover",
    "bell\x07",
]
RAW = ("\x1b", "\x07", "\x08", "\r")


def squash(text: str) -> str:
    """Text without spaces, line breaks and table rules: a cell's content however the table wrapped it."""
    return re.sub(r"[\s│┃]", "", text)


@pytest.mark.parametrize("payload", PAYLOADS, ids=[p.encode("unicode_escape").decode() for p in PAYLOADS])
def test_markup_and_escapes_come_out_literally(tmp_path: Path, payload: str) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    guessed = invoke(["play", "--secret", "RGBY", "--no-record"], url, stdin=f"{payload}\nRGBY\n")
    assert guessed.exit_code == 0 and (visible(payload) in guessed.stderr or repr(payload)[1:-1] in guessed.stderr)
    named = invoke(["play", "--secret", "RGBY", "--player", payload], url, stdin="RGBY\n")
    for result in (guessed, named):
        assert not any(raw in result.output + result.stderr for raw in RAW)
    if named.exit_code != 0:  # a name with control characters is refused in one line
        assert named.exit_code == 2 and named.stderr.startswith("error: ") and named.stderr.count("\n") == 1
        return
    for args in (["history"], ["stats", "--player", payload], ["replay", "1"]):
        shown = invoke(args, url, COLUMNS="250")  # wide enough that no cell wraps
        assert shown.exit_code == 0
        assert squash(visible(payload)) in squash(shown.stdout)  # literal
    assert json.loads(invoke(["history", "--json"], url).stdout)[0]["player"] == payload


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=1, max_size=40))
def test_any_name_is_refused_in_one_line_or_shown_literally(tmp_path: Path, text: str) -> None:
    url = f"sqlite:///{tmp_path / 'h.sqlite3'}"
    played = invoke(["play", "--secret", "RGBY", "--player", text], url, stdin="RGBY\n")
    output = played.output + played.stderr
    assert not any(raw in output for raw in RAW)
    if played.exit_code != 0:
        assert played.exit_code == 2 and played.stderr.startswith("error: ") and played.stderr.count("\n") == 1
        return
    name = Store(url).games.history(limit=1)[0].player
    shown = invoke(["stats", "--player", text, "--all-variants"], url, COLUMNS="250")
    assert shown.exit_code == 0 and squash(visible(name, 64)) in squash(shown.stdout)


# -- private files ------------------------------------------------------------------------------------


def test_the_database_is_private_and_a_url_password_never_printed(tmp_path: Path) -> None:
    path = tmp_path / "new" / "k.sqlite3"
    with pytest.raises(StoreError, match="no folder"):  # a mistyped folder is not made
        Store(f"sqlite:///{path}")
    path.parent.mkdir()
    Store(f"sqlite:///{path}")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    old = tmp_path / "old.sqlite3"
    old.touch(mode=0o644)
    os.chmod(old, 0o644)
    Store(f"sqlite:///{old}")
    assert stat.S_IMODE(old.stat().st_mode) == 0o600
    result = invoke(["history"], "postgresql+psycopg://kim:hunter2secret@127.0.0.1:1/none")
    assert result.exit_code in (1, 2) and "hunter2secret" not in result.output + result.stderr
    assert "***" in result.stderr


def test_a_random_secret_is_not_in_the_public_state(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    game = BreakSession.new(Rules(6, 9), RandomCodemaker.draw(Rules(6, 9)))
    keeper = GameKeeper.start(Store(url), "ann", game)
    assert keeper.game_id is not None
    secret = str(game.codemaker.reveal())
    row = sqlite3.connect(tmp_path / "k.sqlite3").execute("SELECT state FROM games").fetchone()[0]
    assert not [form for form in notations(Rules(6, 9), secret) if form in row]


LINE = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
    min_size=1,
    max_size=60,
)


@settings(max_examples=40, deadline=None)
@given(line=LINE)
def test_any_line_of_the_play_protocol_is_refused_literally_or_played(line: str) -> None:
    """Any line is refused (the game goes on, and RGBY breaks the code), played, or is the command that
    resigns ('q', 'quit', 'exit', any case: the secret is printed, exit 1)."""
    from keypeg.cli.play import QUIT

    result = CliRunner().invoke(cli, ["play", "--secret", "RGBY", "--no-record"], input=f"{line}\nRGBY\n")
    output = result.output + result.stderr
    assert "Traceback" not in output and not any(raw in output for raw in RAW)
    if line.strip().lower() in QUIT:
        assert result.exit_code == 1 and result.stdout.splitlines() == ["RGBY"]
    else:
        assert result.exit_code == 0 and result.stdout.splitlines()[-1] == "4 0"
    if result.stderr:
        assert all(len(message) <= 600 for message in result.stderr.splitlines())


@settings(max_examples=40, deadline=None)
@given(line=LINE)
def test_any_line_of_the_solve_protocol_is_refused_literally_or_taken(line: str) -> None:
    result = CliRunner().invoke(cli, ["solve", "-p", "3", "-c", "3", "--no-record"], input=f"{line}\n")
    output = result.output + result.stderr
    assert "Traceback" not in output and not any(raw in output for raw in RAW)
    assert result.exit_code in (0, 1)


def test_a_huge_bad_line_is_not_echoed_whole(tmp_path: Path) -> None:
    import subprocess
    import sys

    line = "[/]" + "x" * 10_000_000
    result = subprocess.run(
        [sys.executable, "-m", "keypeg", "play", "--secret", "RGBY", "--no-record"],
        input=f"{line}\nRGBY\n".encode(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0 and result.stdout.decode().splitlines() == ["4 0"]
    assert len(result.stderr) < 2_000 and b"Traceback" not in result.stderr


def test_emoji_codes_and_backslashes_are_shown_as_typed() -> None:
    result = CliRunner().invoke(cli, ["play", "--secret", "RGBY", "--no-record"], input=":B:\n\\[x\nRGBY\n")
    assert result.exit_code == 0 and "':B:'" in result.stderr and "\\\\[" in result.stderr
    assert "\U0001f171" not in result.stderr  # no B emoji


def test_a_second_copy_of_a_game_stops_without_showing_the_secret(tmp_path: Path) -> None:
    import subprocess
    import sys

    from keypeg.services.recording import continue_game

    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    game_id = in_progress(url, CLASSIC, "KWYB", ["RRGG"])
    env = {**os.environ, "KEYPEG_DB": url, "KEYPEG_PLAYER": "ann"}
    terminal_a = subprocess.Popen(
        [sys.executable, "-m", "keypeg", "play", "--resume", str(game_id)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )  # fmt: skip
    assert terminal_a.stdin is not None and terminal_a.stdout is not None
    terminal_a.stdin.write("GGBB\n")
    terminal_a.stdin.flush()
    assert terminal_a.stdout.readline().strip()  # its score: A has played a guess
    copy_b, keeper_b = continue_game(Store(url), game_id, "ann")  # terminal B
    copy_b.guess("BBYY")
    keeper_b.sync(copy_b)
    out, err = terminal_a.communicate("q\n", timeout=60)  # A resigns: its copy is stale
    assert terminal_a.returncode == 1 and "elsewhere" in err and err.startswith("error:")
    assert "KWYB" not in out + err
    assert Store(url).games.record(game_id).outcome is None and Store(url).games.record(game_id).secret is None


@pytest.mark.parametrize("record", [[], ["--no-record"]], ids=["recorded", "unrecorded"])
def test_password_stdin_never_takes_the_password_for_a_move(tmp_path: Path, record: list[str]) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    result = invoke(["play", "--secret", "RGBY", "--player", "bob", "--password-stdin", *record], url,
                    stdin="Hunter2-secret!\nRGBY\n")  # fmt: skip
    assert result.exit_code == 0 and "Hunter2" not in result.output + result.stderr


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://kim:hunter2secret@127.0.0.1:1/none",
        "postgresql+psycopg://127.0.0.1:1/none?user=kim&password=hunter2secret",
        "postgresql://host:port/db?password=hunter2secret",
    ],
)
def test_a_url_password_is_never_printed(url: str) -> None:
    for args in (["history"], ["play", "--secret", "RGBY"]):
        result = invoke(args, url, stdin="RGBY\n")
        assert result.exit_code in (0, 1, 2) and "hunter2secret" not in result.output + result.stderr


def test_a_sqlite_uri_database_is_private_too(tmp_path: Path) -> None:
    path = tmp_path / "u.db"
    Store(f"sqlite:///file:{path}?uri=true")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_hand_edited_database_is_one_line_naming_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    invoke(["play", "--secret", "RGBY", "--player", "ann"], url, stdin="RGBY\n")
    connection = sqlite3.connect(tmp_path / "k.sqlite3")
    connection.execute("UPDATE games SET started_at = 'garbage'")
    connection.commit()
    for args in (["history"], ["replay", "1"], ["stats", "--player", "ann"], ["export", "--player", "ann"]):
        result = invoke(args, url)
        assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "k.sqlite3" in result.stderr
    connection.execute("UPDATE games SET started_at = '2026-01-01', rows = 0")
    connection.execute("UPDATE players SET name = 'a' || char(27) || '[2Jb'")
    connection.commit()
    result = invoke(["history"], url)
    assert result.exit_code == 1 and "damaged" in result.stderr


def test_csv_export_cells_are_text_not_formulas_or_escapes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    invoke(["play", "--secret", "RGBY", "--player", "=cmd|x"], url, stdin="RGBY\n")
    connection = sqlite3.connect(tmp_path / "k.sqlite3")
    connection.execute("UPDATE games SET secret = 'R' || char(27) || '[2J'")  # a hand-edited database
    connection.commit()
    exported = invoke(["export", "--player", "=cmd|x"], url)
    assert exported.exit_code == 0 and "\x1b" not in exported.output and "R\\x1b[2J" in exported.output
    assert exported.output.splitlines()[1].split(",")[1] == "'=cmd|x"


@pytest.mark.parametrize("command", [["history"], ["serve", "--port", "1"]])  # serve opens the store first
def test_a_database_path_that_is_a_folder_is_refused_and_left_as_it_was(tmp_path: Path, command: list[str]) -> None:
    folder = tmp_path / "shared"
    folder.mkdir(mode=0o1777)
    os.chmod(folder, 0o1777)  # like /tmp: everyone's
    with pytest.raises(StoreError, match="not a database file"):
        Store(f"sqlite:///{folder}")
    result = invoke(command, f"sqlite:///{folder}")
    assert result.exit_code == 2 and "not a database file" in result.stderr
    assert stat.S_IMODE(folder.stat().st_mode) == 0o1777 and not any(folder.iterdir())
