"""The daily puzzle: one secret per preset and UTC day from the store's key, the same for everyone; one
attempt per player (across processes and front ends); the grid to share never shows the code; streaks;
the CLI and the web on the same store."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import score
from keypeg.play import daily
from keypeg.play.daily import FIRST_DAY, KEY_NAME, daily_secret, share_grid
from keypeg.services.daily import daily_board, start_daily, streak
from keypeg.store import PlayedAlreadyError, Store
from keypeg.variants import VARIANTS, find_variant
from keypeg.web import create_app
from reference import secret_hidden

CLASSIC = find_variant("classic")


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'daily.sqlite3'}"


def on_day(monkeypatch: pytest.MonkeyPatch, day: str) -> None:
    monkeypatch.setattr(daily, "today", lambda: day)


def win(store: Store, player: str, variant: str = "classic", guesses: tuple[str, ...] = ()) -> None:
    """Play ``player``'s attempt: the ``guesses`` (one that happens to be the day's secret, a random code
    of a store's own key, changed by a peg so the game goes on), then the secret."""
    game, keeper = start_daily(store, player, find_variant(variant))
    secret, rules = game.codemaker.reveal(), game.rules
    for guess in guesses:
        if rules.parse(guess) == secret:
            colors = list(secret.colors)
            colors[0] = (colors[0] + 1) % rules.num_colors
            guess = str(rules.code(colors))
        game.guess(guess)
        keeper.sync(game)
    game.guess(game.codemaker.reveal())
    keeper.sync(game)


@settings(max_examples=60, deadline=None)
@given(
    key=st.binary(min_size=32, max_size=32),
    day=st.dates(min_value=FIRST_DAY).map(lambda d: d.isoformat()),
    name=st.sampled_from(sorted(VARIANTS)),
)
def test_a_daily_secret_is_a_legal_code_and_the_same_each_time(key: bytes, day: str, name: str) -> None:
    variant = VARIANTS[name]
    secret = daily_secret(key, day, variant)
    assert variant.rules.adopt(secret) == secret  # a code of the preset (no repeats where there are none)
    assert daily_secret(key, day, variant) == secret


def test_secrets_change_with_the_day_the_preset_and_the_key() -> None:
    days = [f"2026-11-{d:02d}" for d in range(1, 31)]
    key = bytes(range(32))
    assert len({str(daily_secret(key, d, CLASSIC)) for d in days}) > 15
    other = bytes(32)
    assert sum(daily_secret(key, d, CLASSIC) != daily_secret(other, d, CLASSIC) for d in days) > 25
    mini = find_variant("mini")  # the same code space as classic: still its own secret
    assert sum(daily_secret(key, d, CLASSIC) != daily_secret(key, d, mini) for d in days) > 25
    with pytest.raises(Exception, match="YYYY-MM-DD"):
        daily_secret(key, "23/11/2026", CLASSIC)


def test_two_players_on_one_day_share_the_secret_and_the_next_day_differs(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(url)
    on_day(monkeypatch, "2026-11-23")
    ann, _ = start_daily(store, "ann", CLASSIC)
    bob, _ = start_daily(store, "bob", CLASSIC)
    assert ann.codemaker.reveal() == bob.codemaker.reveal()
    assert ann.codemaker.reveal() == daily_secret(store.keys.server_key(KEY_NAME), "2026-11-23", CLASSIC)
    assert Store(url).keys.server_key(KEY_NAME) == store.keys.server_key(KEY_NAME)  # kept, not made again
    on_day(monkeypatch, "2026-11-24")
    tomorrow, _ = start_daily(store, "ann", CLASSIC)
    assert tomorrow.codemaker.reveal() == daily_secret(store.keys.server_key(KEY_NAME), "2026-11-24", CLASSIC)
    assert not ann.rated and not ann.helps  # no help, and never on the general top 10


def test_one_attempt_a_day_continued_if_cut_off(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(url)
    on_day(monkeypatch, "2026-11-23")
    game, keeper = start_daily(store, "ann", CLASSIC)
    game.guess("RRGG")
    keeper.sync(game)
    again, _ = start_daily(store, "ANN", CLASSIC)  # the same player, in another process: the same game
    assert [str(g) for g, _ in again.history] == ["RRGG"] and again.codemaker.reveal() == game.codemaker.reveal()
    again.guess(again.codemaker.reveal())
    _.sync(again)
    with pytest.raises(PlayedAlreadyError, match="one attempt a day"):
        start_daily(store, "ann", CLASSIC)
    start_daily(store, "ann", find_variant("super"))  # another preset's puzzle is another attempt


def test_attempts_started_at_once_make_one_game(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    on_day(monkeypatch, "2026-11-23")
    Store(url).players.ensure("ann")
    outcomes: list[str] = []

    def attempt() -> None:
        try:
            start_daily(Store(url), "ann", CLASSIC)
            outcomes.append("started")
        except PlayedAlreadyError:
            outcomes.append("refused")

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    games = Store(url).daily.games("2026-11-23 classic")
    assert len(games) == 1
    assert outcomes.count("started") >= 1  # the others continue it, or are refused if it raced


def test_the_grid_shows_key_pegs_never_the_code(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(url)
    on_day(monkeypatch, "2026-11-23")
    win(store, "ann", guesses=("RRGG", "BBYY", "WKWK"))
    (record,) = store.daily.games("2026-11-23 classic")
    moves = [(m.guess, m.feedback) for m in store.games.record(record.id).moves]
    grid = share_grid("2026-11-23", CLASSIC, moves, solved=True)
    head, *rows = grid.splitlines()
    assert head == "keypeg daily 2026-11-23 classic: 4/12"
    assert rows[-1] == "●●●●" and all(set(r) <= set("●○·") and len(r) == 4 for r in rows)
    secret = str(daily_secret(store.keys.server_key(KEY_NAME), "2026-11-23", CLASSIC))
    assert secret not in grid and not set(secret) & set(grid.replace("keypeg daily", "").replace("classic", ""))
    for (guess, feedback), row in zip(moves, rows, strict=True):
        truth = score(CLASSIC.rules.parse(secret), CLASSIC.rules.parse(guess))
        assert (row.count("●"), row.count("○")) == (truth.black, truth.white) == (feedback.black, feedback.white)


def test_the_days_board_and_streaks(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(url)
    for day in ("2026-11-20", "2026-11-21", "2026-11-23"):
        on_day(monkeypatch, day)
        win(store, "ann")
    on_day(monkeypatch, "2026-11-23")
    win(store, "bob", guesses=("RRGG",))
    game, keeper = start_daily(store, "cid", CLASSIC)
    game.resign()
    keeper.sync(game)
    board = daily_board(store, "2026-11-23", CLASSIC)
    assert [(r.player, r.solved, r.guesses) for r in board] == [("ann", True, 1), ("bob", True, 2), ("cid", False, 0)]
    assert streak(store, "ann", CLASSIC, "2026-11-23") == 1  # the 22nd was missed
    assert streak(store, "ann", CLASSIC, "2026-11-22") == 2  # not played yet today: the run up to yesterday
    assert streak(store, "ann", CLASSIC, "2026-11-24") == 1
    assert streak(store, "cid", CLASSIC, "2026-11-23") == 0 and streak(store, "nobody", CLASSIC) == 0


def test_the_cli_plays_the_same_puzzle(url: str) -> None:
    run = [sys.executable, "-m", "keypeg", "daily", "--db", url, "--player", "ann"]
    store = Store(url)
    secret = str(daily_secret(store.keys.server_key(KEY_NAME), daily.today(), CLASSIC))
    played = subprocess.run(run, input=f"RRGG\n{secret}\n", capture_output=True, text=True, timeout=120)
    assert played.returncode == 0, played.stderr
    assert "keypeg daily" in played.stdout and ": 2/12" in played.stdout and "●●●●" in played.stdout
    again = subprocess.run(run, input=f"{secret}\n", capture_output=True, text=True, timeout=120)
    assert again.returncode == 2 and again.stderr.startswith("error:") and "one attempt a day" in again.stderr
    board = subprocess.run([*run, "--board", "--json"], capture_output=True, text=True, timeout=120)
    assert (
        board.returncode == 0 and '"streak": 1' in board.stdout and secret_hidden(board.stdout, secret, CLASSIC.rules)
    )


def test_the_web_plays_the_same_puzzle_for_registered_players(url: str) -> None:
    browser = TestClient(create_app(url), base_url="https://keypeg.test")
    csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
    guest = browser.post("/api/daily", json={"variant": "classic"}, headers=csrf)
    assert guest.status_code == 401 and "log in" in guest.json()["error"]
    csrf = {
        "X-CSRF-Token": browser.post(
            "/api/players", json={"name": "ann", "password": "long enough pw"}, headers=csrf
        ).json()["csrf"]
    }
    started = browser.post("/api/daily", json={"variant": "classic"}, headers=csrf)
    assert started.status_code == 201 and not started.json()["rated"]
    game = started.json()["id"]
    store = Store(url)
    secret = str(daily_secret(store.keys.server_key(KEY_NAME), daily.today(), CLASSIC))
    state = browser.get("/api/daily?variant=classic").json()
    assert not state["played"] and state["game"] == game and secret_hidden(str(state), secret, CLASSIC.rules)
    page = browser.get(f"/play/{game}").text
    assert "the daily puzzle of" in page and secret_hidden(page, secret, CLASSIC.rules)
    assert browser.post(f"/api/games/{game}/help/hint", headers=csrf).status_code == 400
    won = browser.post(f"/api/games/{game}/guesses", json={"code": secret}, headers=csrf).json()
    assert won["status"] == "won"
    state = browser.get("/api/daily?variant=classic").json()
    assert state["played"] and state["grid"].endswith("●●●●") and state["streak"] == 1
    assert state["board"][0]["player"] == "ann" and state["board"][0]["guesses"] == 1
    assert browser.post("/api/daily", json={"variant": "classic"}, headers=csrf).status_code == 409
    shown = browser.get("/daily?variant=classic")
    assert shown.status_code == 200 and "Streak: 1 day" in shown.text
    assert "classic: 1 day in a row" in browser.get("/players").text  # the streak on the player's page
    assert re.search(r'<pre class="grid"[^>]*>keypeg daily', shown.text)
    assert Store(url).records.top(CLASSIC.rules, minimum=1) == []  # the daily is not a rated game of the top 10
