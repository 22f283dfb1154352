"""The application layer: each use case loads, acts and saves, and says what went wrong by kind; each
face maps the kinds in one table (the web to statuses, the command line to exit codes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import unavailable
from keypeg import Feedback, Rules, find_variant
from keypeg.errors import (
    ConflictError,
    ForbiddenError,
    IllegalMoveError,
    InconsistentScoreError,
    InvalidCodeError,
    KeypegError,
    NotFoundError,
    RefusedError,
    TooLargeError,
    UnavailableError,
)
from keypeg.play.codemakers import FixedCodemaker
from keypeg.play.sessions import BreakSession, SolveSession
from keypeg.services import games, matches
from keypeg.services.recording import NotKeptError, PlayedElsewhereError
from keypeg.services.stores import Store
from keypeg.store import StoreUnavailableError
from keypeg.store.games import Games
from keypeg.web import create_app

MINI = find_variant("mini").rules


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'services.sqlite3'}")


def practice(rules: Rules, secret: str) -> BreakSession:
    return BreakSession.new(rules, FixedCodemaker(rules.parse(secret)), practice=True)


def test_a_game_is_its_players_alone(store: Store) -> None:
    opened = games.start(store, "ann", practice(MINI, "1234"), public=True)
    assert opened.public_id is not None
    assert games.load(store, "ann", opened.public_id).game.rules == MINI
    for stranger in ("bob", None):
        with pytest.raises(NotFoundError, match="no such game"):
            games.load(store, stranger, opened.public_id)
    with pytest.raises(NotFoundError, match="no such game"):
        games.load(store, "ann", "no-such-id")


def test_a_move_is_saved_and_a_stale_copy_is_a_conflict(store: Store) -> None:
    opened = games.start(store, "ann", practice(MINI, "1234"), public=True)
    assert opened.public_id is not None
    first, second = (games.load(store, "ann", opened.public_id) for _ in range(2))
    assert games.guess(first, "1111", row=1) == Feedback(1, 0)
    assert [g for g, _ in games.load(store, "ann", opened.public_id).game.history] == [MINI.parse("1111")]
    with pytest.raises(PlayedElsewhereError) as stale:  # read before the first wrote: its move is not kept
        games.guess(second, "2222")
    assert isinstance(stale.value, ConflictError) and stale.value.game_id == first.keeper.game_id
    again = games.load(store, "ann", opened.public_id)
    with pytest.raises(games.RowPlayedError):  # the same request sent twice is applied once
        games.guess(again, "1111", row=1)
    games.undo(again)  # an undo then a guess leaves as many guesses as before: still a new version
    stale_again = games.load(store, "ann", opened.public_id)
    games.guess(again, "3333")
    with pytest.raises(PlayedElsewhereError):
        games.guess(stale_again, "4444")


def test_a_store_that_fails_during_a_move_is_unavailable(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    opened = games.start(store, "ann", practice(MINI, "1234"), public=True)

    def down(*_args: object, **_kwargs: object) -> None:
        raise StoreUnavailableError("cannot use the database: disk I/O error")

    monkeypatch.setattr(Games, "update", down)
    with pytest.raises(NotKeptError) as failed:
        games.guess(opened, "1111")
    assert isinstance(failed.value, UnavailableError) and not isinstance(failed.value, ConflictError)


def test_moves_the_rules_refuse_are_refused(store: Store) -> None:
    opened = games.start(store, "ann", SolveSession(MINI, level=3), public=True)
    with pytest.raises(IllegalMoveError):
        games.guess(opened, "1234")  # the computer guesses in this game
    guess = opened.game.guess()
    games.score(opened, "0 0")  # none of the guess's colours: a code with one of them cannot fit
    assert not set(guess.colors) & set(opened.game.guess().colors)
    resigned = games.start(store, "ann", practice(MINI, "1234"))
    games.resign(resigned)
    for again in (lambda: games.guess(resigned, "1234"), lambda: games.resign(resigned)):
        with pytest.raises(RefusedError, match="over"):
            again()
    with pytest.raises(TooLargeError):
        games.new_session(Rules(8, 10), "maker")


def test_a_match_counts_a_game_once_and_only_when_it_is_over(store: Store) -> None:
    public_id = matches.start_against_computer(store, "ann", MINI, 2, 3)
    with pytest.raises(NotFoundError):
        matches.load(store, "bob", public_id)
    opened = matches.load(store, "ann", public_id)
    with pytest.raises(ConflictError, match="finish this game first"):
        matches.next_game(store, "ann", opened)
    game_id = matches.view(store, opened).game
    assert game_id is not None
    game = games.load(store, "ann", game_id)
    games.resign(game)
    first, second = (matches.load(store, "ann", public_id) for _ in range(2))
    matches.next_game(store, "ann", first)
    with pytest.raises(ConflictError):  # read before the first counted it: one request counts a game
        matches.next_game(store, "ann", second)
    shown = matches.view(store, matches.load(store, "ann", public_id))
    assert len(shown.played) == 1 and shown.game not in (None, game_id) and not shown.over


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (NotFoundError("x"), 404, 2),
        (ForbiddenError("x"), 403, 2),
        (ConflictError("x"), 409, 1),
        (RefusedError("x"), 400, 2),
        (UnavailableError("x"), 503, 1),
        (TooLargeError("x"), 400, 2),
        (InvalidCodeError("x"), 400, 2),
        (InconsistentScoreError("x", None), 409, 2),
        (KeypegError("x"), 400, 2),
    ],
)
def test_each_face_maps_each_kind_in_one_table(error: KeypegError, status: int, code: int) -> None:
    from keypeg.cli.common import exit_code
    from keypeg.web.errors import status_of

    assert (status_of(error), exit_code(error)) == (status, code)


def test_a_store_outage_during_a_web_move_is_503_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url="https://keypeg.test")
    csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
    game = browser.post("/api/games", json={"variant": "mini", "practice": True}, headers=csrf).json()
    moves = f"/api/games/{game['id']}"
    first = browser.post(f"{moves}/guesses", json={"code": "1111"}, headers=csrf)
    assert first.status_code == 200

    def down(*_args: object, **_kwargs: object) -> None:
        raise StoreUnavailableError("cannot use the database: disk I/O error")

    with monkeypatch.context() as outage:  # every write of a game, in its own transaction or a move's
        outage.setattr("keypeg.store.games.update_game", down)
        failed = browser.post(f"{moves}/guesses", json={"code": "2222"}, headers=csrf)
        assert failed.status_code == 503 and unavailable(failed.json()["error"])
    kept = browser.get(moves).json()
    assert kept["history"] == first.json()["history"]  # the refused move is not half-kept
    assert browser.post(f"{moves}/guesses", json={"code": "2222", "row": 2}, headers=csrf).status_code == 200
    stale = browser.post(f"{moves}/guesses", json={"code": "3333", "row": 2}, headers=csrf)
    assert stale.status_code == 409  # the same move sent again: applied once


@pytest.mark.parametrize("count", [0, 1, 3, 22, 998])
def test_a_match_of_the_web_has_an_even_number_of_games_within_the_limit(store: Store, count: int) -> None:
    from keypeg.services import live

    with pytest.raises(RefusedError, match="even number of games"):
        matches.start_against_computer(store, "ann", MINI, count, 3)
    with pytest.raises(RefusedError, match="even number of games"):
        live.create(store, "ann", MINI, count)


def test_the_match_forms_refuse_what_the_api_refuses(tmp_path: Path) -> None:
    browser = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url="https://keypeg.test")
    csrf = browser.get("/api/session").json()["csrf"]
    for form in ("/match", "/live"):
        refused = browser.post(form, data={"csrf": csrf, "variant": "mini", "games": "998"})
        assert refused.status_code == 400 and "even number of games" in refused.text
    api = browser.post("/api/matches", json={"variant": "mini", "games": 998}, headers={"X-CSRF-Token": csrf})
    assert api.status_code == 422


def test_a_terminal_game_whose_move_is_not_kept_stops_and_can_be_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from keypeg.cli import cli

    db = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    update, calls = Games.update, []

    def fails_second(self: Games, *args: object, **kwargs: object) -> int:
        calls.append(1)
        if len(calls) == 3:  # the start and the first guess are kept, the second guess is not
            raise StoreUnavailableError("cannot use the database: disk I/O error")
        return update(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Games, "update", fails_second)
    args = ["play", "-p", "3", "-c", "4", "--secret", "DDD", "--player", "ann", "--db", db]
    stopped = CliRunner().invoke(cli, args, input="AAA\nBBB\nCCC\n")
    error = [line for line in stopped.stderr.splitlines() if line.startswith("error:")]
    assert stopped.exit_code == 1 and len(error) == 1, stopped.stderr
    assert "stops here, unfinished" in error[0] and "--resume 1" in error[0] and "disk I/O error" in error[0]
    monkeypatch.setattr(Games, "update", update)
    resumed = CliRunner().invoke(cli, ["play", "--resume", "1", "--player", "ann", "--db", db], input="DDD\n")
    assert resumed.exit_code == 0 and resumed.stdout.split() == ["3", "0"]  # one row kept, then broken
    assert Store(db).games.record(1).guesses == 2


def test_a_guests_games_are_practice_once_adopted_and_never_reach_the_top(store: Store) -> None:
    from keypeg.services.accounts import register, welcome

    guest = "guest-0123456789ab"
    for _ in range(6):  # a guest's lucky rated games, kept only when they went well
        game = store.games.start(guest, MINI, role="breaker", secret="1234", rated=True)
        store.games.update(game, keep=0, moves=[("1234", Feedback(4, 0))], outcome="solved")
    assert store.records.top(MINI, minimum=1) == []  # a guest is never ranked
    player = register(store, "Lucky", "correct horse battery")
    welcome(store, guest, player)
    kept = store.games.history(player, limit=None)
    assert len(kept) == 6 and not any(g.rated for g in kept)  # kept in the history, as practice
    assert store.records.top(MINI, minimum=1) == []


def test_a_guests_game_adopted_at_login_is_shown_as_it_counts(tmp_path: Path) -> None:
    browser = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url="https://keypeg.test")
    csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
    game = browser.post("/api/games", json={"variant": "classic"}, headers=csrf).json()
    assert game["rated"] is False  # a guest's game never counts, though it is played without help
    browser.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG"}, headers=csrf)
    made = browser.post("/api/players", json={"name": "Lucky", "password": "correct horse battery"}, headers=csrf)
    csrf = {"X-CSRF-Token": made.json()["csrf"]}
    shown = browser.get(f"/api/games/{game['id']}").json()
    assert shown["rated"] is False and shown["status"] == "playing"  # kept as practice: it never counts
    page = browser.get(f"/play/{game['id']}").text
    assert ">not rated<" in page and ">rated<" not in page


def test_a_day_before_any_puzzle_is_refused_not_a_crash(tmp_path: Path) -> None:
    browser = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url="https://keypeg.test")
    csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
    made = browser.post("/api/players", json={"name": "Early", "password": "correct horse battery"}, headers=csrf)
    assert made.status_code == 201
    for day in ("0001-01-01", "1999-12-31"):
        refused = browser.get("/api/daily", params={"day": day})
        assert refused.status_code == 400 and "no daily puzzle before" in refused.json()["error"], day
