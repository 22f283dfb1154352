"""The daily puzzle's days (issue 28): a failed or resigned attempt ends the streak, and an attempt belongs
to its day: after that UTC day it can no longer be won (in a process that held it, on the web, in the
terminal), it counts as not broken on its day's board and for the streak, and it is closed so when next
loaded."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from keypeg.cli import cli
from keypeg.cli.terminal import Terminal
from keypeg.errors import RefusedError
from keypeg.play import daily
from keypeg.play.daily import KEY_NAME, DayOverError, daily_secret
from keypeg.play.sessions import BreakSession
from keypeg.services.daily import daily_board, daily_view, start_daily, streak
from keypeg.services.recording import continue_game
from keypeg.store import Store
from keypeg.variants import find_variant
from keypeg.web import create_app
from keypeg.web.errors import status_of

CLASSIC = find_variant("classic")
CODES = ("RRRR", "GGGG", "BBBB", "YYYY", "RRGG", "BBYY", "RGRG", "BYBY", "GRGR", "YBYB", "RGBY", "YBGR", "GBRY")


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'daily.sqlite3'}"


def on_day(monkeypatch: pytest.MonkeyPatch, day: str) -> None:
    monkeypatch.setattr(daily, "today", lambda: day)


def wrong(game: BreakSession) -> list[str]:
    """Twelve guesses that do not break ``game``'s code."""
    return [code for code in CODES if code != str(game.codemaker.reveal())][:12]


def play(store: Store, player: str, how: str) -> None:
    """``player``'s attempt at today's puzzle: ``won`` at once, ``resigned`` after a guess, ``lost`` out of
    rows, or ``begun`` (one guess, unfinished)."""
    game, keeper = start_daily(store, player, CLASSIC)
    guesses = {"won": [str(game.codemaker.reveal())], "lost": wrong(game)}.get(how, wrong(game)[:1])
    for guess in guesses:
        game.guess(guess)
    if how == "resigned":
        game.resign()
    keeper.sync(game)


def test_a_failed_or_resigned_attempt_ends_the_streak(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(url)
    for day in ("2026-11-20", "2026-11-21"):
        on_day(monkeypatch, day)
        for player in ("ann", "bob", "cid"):
            play(store, player, "won")
    on_day(monkeypatch, "2026-11-22")
    play(store, "ann", "resigned")
    play(store, "bob", "lost")
    play(store, "cid", "begun")
    for player in ("ann", "bob"):
        assert streak(store, player, CLASSIC, "2026-11-21") == 2
        assert streak(store, player, CLASSIC) == 0  # today's attempt failed: no run up to yesterday
        assert daily_view(store, CLASSIC, None, player).streak == 0
        assert streak(store, player, CLASSIC, "2026-11-23") == 0  # nor the next day, not played yet
    assert streak(store, "cid", CLASSIC) == 2  # under way today: the run up to yesterday
    assert streak(store, "cid", CLASSIC, "2026-11-23") == 0  # left unfinished when its day ended


def test_an_attempt_belongs_to_its_day(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(url)
    on_day(monkeypatch, "2026-11-22")
    play(store, "ann", "won")
    on_day(monkeypatch, "2026-11-23")
    game, keeper = start_daily(store, "ann", CLASSIC)
    game.guess(wrong(game)[0])
    keeper.sync(game)
    on_day(monkeypatch, "2026-11-24")  # midnight (UTC) passes with the game held
    with pytest.raises(DayOverError, match="puzzle of 2026-11-23 is over") as late:
        game.guess(game.codemaker.reveal())
    assert isinstance(late.value, RefusedError) and status_of(late.value) == 400
    (result,) = daily_board(store, "2026-11-23", CLASSIC)
    assert (result.player, result.solved, result.guesses) == ("ann", False, 1)  # on its day's board, not broken
    view = daily_view(store, CLASSIC, "2026-11-23", "ann")
    assert view.played and not view.solved and view.grid is not None and ": X/12" in view.grid
    assert streak(store, "ann", CLASSIC) == 0
    (record,) = store.daily.games("2026-11-23 classic")
    with pytest.raises(DayOverError):  # loaded to go on: closed as not broken, kept, and refused
        continue_game(store, record.id, "ann")
    assert store.games.record(record.id).outcome == "resigned"
    shown, _ = continue_game(store, record.id, "ann", over_ok=True)
    assert shown.is_over and not shown.outcome().solved  # type: ignore[union-attr]
    fresh, _ = start_daily(store, "ann", CLASSIC)  # today's puzzle is another attempt
    assert isinstance(fresh.codemaker, daily.DailyCodemaker) and fresh.codemaker.day == "2026-11-24"


def test_the_web_refuses_a_move_after_the_day_and_shows_the_attempt_lost(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    on_day(monkeypatch, "2026-11-23")
    browser = TestClient(create_app(url), base_url="https://keypeg.test")
    csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
    made = browser.post("/api/players", json={"name": "ann", "password": "long enough pw"}, headers=csrf)
    csrf = {"X-CSRF-Token": made.json()["csrf"]}
    game = browser.post("/api/daily", json={"variant": "classic"}, headers=csrf).json()["id"]
    secret = str(daily_secret(Store(url).keys.server_key(KEY_NAME), "2026-11-23", CLASSIC))
    first = next(code for code in CODES if code != secret)
    assert browser.post(f"/api/games/{game}/guesses", json={"code": first}, headers=csrf).status_code == 200
    on_day(monkeypatch, "2026-11-24")
    late = browser.post(f"/api/games/{game}/guesses", json={"code": secret}, headers=csrf)
    assert late.status_code == 400 and "puzzle of 2026-11-23 is over" in late.json()["error"]
    again = browser.post(f"/api/games/{game}/guesses", json={"code": secret, "row": 2}, headers=csrf)
    assert again.status_code == 400 and "is over" in again.json()["error"]  # closed by now: still refused
    shown = browser.get(f"/api/games/{game}").json()
    assert shown["status"] == "lost" and len(shown["history"]) == 1
    assert "ended before the code was broken" in browser.get(f"/play/{game}").text  # not "You resigned."
    state = browser.get("/api/daily?variant=classic&day=2026-11-23").json()
    assert state["played"] and state["streak"] == 0 and "X/12" in state["grid"]
    assert [(r["player"], r["solved"]) for r in state["board"]] == [("ann", False)]


def test_the_terminal_stops_an_attempt_whose_day_ended(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    on_day(monkeypatch, "2026-11-23")
    store = Store(url)
    secret = str(daily_secret(store.keys.server_key(KEY_NAME), "2026-11-23", CLASSIC))
    first = next(code for code in CODES if code != secret)
    read = Terminal.read

    def midnight_before_guess_two(terminal: Terminal, prompt: str) -> str | None:
        if prompt.startswith("guess 2"):
            on_day(monkeypatch, "2026-11-24")
        return read(terminal, prompt)

    monkeypatch.setattr(Terminal, "read", midnight_before_guess_two)
    played = CliRunner().invoke(cli, ["daily", "--db", url, "--player", "ann"], input=f"{first}\n{secret}\n")
    assert played.exit_code == 2 and "puzzle of 2026-11-23 is over" in played.output, played.output
    (record,) = store.daily.games("2026-11-23 classic")
    assert record.outcome == "resigned" and record.guesses == 1  # kept as not broken
    resumed = CliRunner().invoke(cli, ["play", "--resume", str(record.id), "--db", url, "--player", "ann"])
    assert resumed.exit_code == 2 and "over" in resumed.output
