"""Who gets rated (review of issue 30: H2, M1, M2, M3, L3, L4, L11): a kicked player's pairs, trivial rules,
a pair's events a day, seeding games left unfinished, provisional ratings, ranks, and reserved names."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from keypeg.cli import cli
from keypeg.errors import KeypegError
from keypeg.play.ratings import Rating, idle, update
from keypeg.rules import Rules
from keypeg.services import accounts, games, ratings
from keypeg.store import Store
from keypeg.web import create_app

T0 = datetime(2026, 11, 1, 12, tzinfo=UTC)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")


def test_a_host_who_kicks_a_player_ahead_takes_a_loss_and_the_others_pairs_with_them_are_left_out(
    store: Store,
) -> None:
    """H2: the kicked bob is not rated; ann (host) loses to him; cy's result against him is left out."""
    ratings.record(store, "match", "warm", [["bob"], ["cy"]], at=T0 - timedelta(days=1))
    bob = ratings.rating_of(store, "bob")
    assert bob is not None
    made = {c.player: c for c in ratings.record(store, "room", "r", [["ann"], ["cy"]], at=T0, losses=[("ann", "bob")])}
    assert set(made) == {"ann", "cy"}
    cy_before = made["cy"].before
    assert made["ann"].after == update(Rating(), [(idle(bob.rating, 1), 0.0), (cy_before, 1.0)])  # lost to bob
    assert made["cy"].after == update(cy_before, [(Rating(), 0.0)])  # cy meets ann only
    assert ratings.rating_of(store, "bob") == bob  # bob never moves
    assert ratings.recompute(store) == []
    assert ratings.record(store, "room", "r", [["ann"], ["cy"]], losses=[("ann", "bob")]) == list(made.values())


def test_trivial_rules_are_never_rated_and_say_so(store: Store) -> None:
    """M1: a match or room on rules of fewer than 1,296 codes (classic's size) is not rated; its end says why."""
    assert ratings.big_enough(Rules(4, 6)) and ratings.big_enough(Rules(5, 8, repeats=False))
    assert not ratings.big_enough(Rules(1, 2)) and not ratings.big_enough(Rules(4, 5))
    note = ratings.note(store, "room", "x", Rules(1, 2))
    assert note is not None and note.startswith("not rated: ") and "1,296" in note and "\n" not in note


def test_a_pair_counts_in_three_events_a_utc_day(store: Store) -> None:
    """M1 (t/farm.py): dan and gus's fourth event of a UTC day is not rated (stored so, and said); the next
    day counts again; in a room, each pair on its own (the others' pairs still count)."""
    for n in range(3):
        assert ratings.record(store, "match", f"m{n}", [["dan"], ["gus"]], at=T0 + timedelta(minutes=n))
        assert ratings.note(store, "match", f"m{n}", Rules(4, 6)) == "rated: 2 players' ratings changed"
    assert ratings.record(store, "match", "m3", [["dan"], ["gus"]], at=T0 + timedelta(minutes=5)) == []
    assert ratings.note(store, "match", "m3", Rules(4, 6)) == (
        "not rated: players' results count at most 3 times a day (UTC) for each pair"
    )
    room = {
        c.player: c for c in ratings.record(store, "room", "r", [["dan"], ["gus"], ["cy"]], at=T0 + timedelta(hours=1))
    }
    assert set(room) == {"dan", "gus", "cy"}
    dan = room["dan"]
    assert dan.after == update(dan.before, [(room["cy"].before, 1.0)])  # dan meets cy only
    assert (ratings.note(store, "room", "r", Rules(4, 6)) or "").startswith("partly rated: ")
    tomorrow = T0.replace(hour=0) + timedelta(days=1)
    assert ratings.record(store, "match", "m4", [["gus"], ["dan"]], at=tomorrow)  # a new UTC day
    assert ratings.recompute(store) == []
    dan_now = ratings.rating_of(store, "dan")
    assert dan_now is not None and dan_now.results == 5


def test_an_unfinished_seeding_game_counts_as_not_broken(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """M2 (t/s8.py): a rated classic game left after one guess is counted (13, a loss to every level) in
    its place among the first five, and stays counted so when finished later; recompute replays it."""
    monkeypatch.setattr(ratings, "level_guesses", lambda level, rules, secret: 4 + level)  # the levels, quickly
    opened = games.start(store, "eve", games.new_session(ratings.SEED_RULES, "breaker"), public=True)
    games.guess(opened, "AABB")
    games.save(opened)
    (game,) = store.games.history("eve")
    assert game.outcome is None and game.secret is None  # in play: its secret stays hidden from the history
    made = ratings.seed(store, "eve")
    assert [c.event_id for c in made] == [str(game.id)] and made[0].after.rating < made[0].before.rating
    assert ratings.seed(store, "eve") == [] and ratings.recompute(store) == []


def test_a_rating_is_provisional_until_five_results_against_people(store: Store) -> None:
    """M3: RD under 110 from seeding and rooms is not enough: 5 results against people are."""
    from keypeg.play.ratings import provisional

    assert provisional(Rating(1500, 80), 4) and not provisional(Rating(1500, 80), 5)
    assert provisional(Rating(1500, 120), 9)
    assert ratings.PlayerRating("eve", Rating(1500, 88), 6, T0, people=1).provisional  # t/s8.py's eve
    for n in range(5):
        ratings.record(store, "match", f"p{n}", [["ann"], [f"o{n}"]], at=T0 + timedelta(days=n))
        ann = ratings.rating_of(store, "ann")
        assert ann is not None and ann.people == n + 1
    ranked = {p.player: p for p in ratings.leaderboard(store, limit=None)}
    assert ranked["ann"].people == 5 and ranked["o1"].people == 1 and ranked["o1"].provisional


def test_the_api_gives_a_players_rank(store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """L3: GET /api/ratings/{player} has the player's rank on the leaderboard (null for nobody, and for a
    provisional rating: N7)."""
    ratings.record(store, "match", "m", [["ann"], ["bob"]], at=T0)
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'k.sqlite3'}"), base_url="https://keypeg.test")
    assert client.get("/api/ratings/bob").json()["rating"]["rank"] is None  # provisional: no rank
    monkeypatch.setattr(ratings, "provisional", lambda rating, people: False)
    assert client.get("/api/ratings/bob").json()["rating"]["rank"] == 2
    assert client.get("/api/ratings/ANN").json()["rating"]["rank"] == 1
    nobody = client.get("/api/ratings/nobody")
    assert nobody.status_code == 404 and nobody.json()["error"] == "no player named 'nobody'"


def test_provisional_ratings_are_listed_after_the_established_ones_with_no_rank(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """N7 (t/cap.py): a provisional rating, however high, is listed after every established one, marked ?,
    with no rank, on every face: the service, GET /api/ratings, `keypeg ratings`, `keypeg top --ratings` and
    the web's /top. Here 2 results against people establish a rating."""
    monkeypatch.setattr(ratings, "provisional", lambda rating, people: people < 2)
    for n in range(2):
        ratings.record(store, "match", f"ab{n}", [["ann"], ["bob"]], at=T0 + timedelta(days=n))
    ratings.record(store, "match", "cd", [["cy"], ["dan"]], at=T0 + timedelta(days=3))
    board = ratings.leaderboard(store)
    assert [p.player for p in board] == ["ann", "bob", "cy", "dan"]
    assert board[2].rating.rating > board[1].rating.rating  # cy above bob by rating, listed below him
    assert [rank for rank, _ in ratings.ranked(board)] == [1, 2, None, None]
    assert ratings.rank_of(store, "cy") is None and ratings.rank_of(store, "bob") == 2
    assert [p.player for p in ratings.leaderboard(store, provisional=False)] == ["ann", "bob"]
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    client = TestClient(create_app(url), base_url="https://keypeg.test")
    api = client.get("/api/ratings").json()["ratings"]
    assert [(p["player"], p["rank"], p["provisional"]) for p in api] == [
        ("ann", 1, False),
        ("bob", 2, False),
        ("cy", None, True),
        ("dan", None, True),
    ]
    rows = [re.sub(r"<[^>]+>", " ", line) for line in client.get("/top").text.split("<tr>") if "<td>" in line][-4:]
    assert [row.split()[0].isdigit() for row in rows] == [True, True, False, False]  # ranked, then no rank
    assert "?" in rows[2] and "(provisional)" in rows[2] and "?" not in rows[1]
    runner = CliRunner()
    for args in (["ratings"], ["top", "--ratings"]):
        shown = runner.invoke(cli, [*args, "--json", "--db", url]).output
        listed = json.loads(shown)["ratings"]
        assert [(p["player"], p.get("rank")) for p in listed] == [("ann", 1), ("bob", 2), ("cy", None), ("dan", None)]
        table = runner.invoke(cli, [*args, "--db", url], env={"COLUMNS": "200"}).output
        rows = [line.split("│") for line in table.splitlines() if "│" in line]
        assert [(row[0].strip(), row[1].strip(), row[2].strip().endswith("?")) for row in rows] == [
            ("1", "ann", False),
            ("2", "bob", False),
            ("", "cy", True),
            ("", "dan", True),
        ]


def test_the_cli_top_ratings_shows_both_and_an_unknown_player_is_an_error(store: Store, tmp_path: Path) -> None:
    """L4: `keypeg top --ratings` prints the top 10 and the rating leaderboard; `ratings --player nobody`
    is a one-line error, exit 2; a room's id is never cut."""
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    room = "OAxIzq-ox3ATUiqH-PL7aQ"
    ratings.record(store, "room", room, [["ann"], ["bob"]], at=T0)
    runner = CliRunner()
    both = runner.invoke(cli, ["top", "--ratings", "--db", url], env={"COLUMNS": "200"})
    assert both.exit_code == 0 and "rated games of classic" in both.output and "top 10: ratings" in both.output
    lines = both.output.splitlines()  # nobody ranked: the top's one line above the table, never beside its title
    assert "classic yet" in lines[0] and "top 10: ratings" not in lines[0] and "top 10: ratings" in lines[1]
    listed = json.loads(runner.invoke(cli, ["top", "--ratings", "--json", "--db", url]).output)
    assert listed["top"]["variant"] == "classic" and [p["player"] for p in listed["ratings"]] == ["ann", "bob"]
    nobody = runner.invoke(cli, ["ratings", "--player", "nobody", "--db", url])
    assert nobody.exit_code == 2 and "no player named" in nobody.output and nobody.output.count("\n") == 1
    narrow = runner.invoke(cli, ["ratings", "--player", "ann", "--db", url], env={"COLUMNS": "80"})
    assert narrow.exit_code == 0 and room in narrow.output.replace("\n", "").replace(" ", "")


@pytest.mark.parametrize("name", ["computer", "Level 1", "LEVEL 4", "level1", "l\u0435vel 2", "\uff4c\uff45vel 3"])
def test_the_computers_labels_cannot_be_registered(store: Store, name: str) -> None:
    """L11: the computer's labels in results (any case, spacing, look-alike) are no person's name."""
    with pytest.raises(KeypegError, match="kept for the computer"):
        accounts.register(store, name, "long enough password")
    with pytest.raises(KeypegError, match="kept for the computer"):
        accounts.ensure_player(store, name)
    assert ratings.reserved(name) and not ratings.reserved("level 5") and not ratings.reserved("computers")


class _Feed:
    def changed(self, kind: str, key: int) -> None:
        pass


def test_a_room_on_trivial_rules_ends_saying_it_was_not_rated(store: Store) -> None:
    """M1: the answer that ends a room on rules of fewer than 1,296 codes says it was not rated, and why."""
    from keypeg.services import rooms

    feed = _Feed()
    public_id = rooms.create(store, "dan", Rules(1, 2), rounds=1)
    rooms.join(store, feed, public_id, "gus", rooms.invite_token(store, public_id))
    rooms.start(store, feed, public_id, "dan")
    rooms.resign(store, feed, public_id, "gus")
    for code in "AB":  # the guess that ends the room answers it
        ended = rooms.guess(store, feed, public_id, "dan", code)
        if ended["over"]:
            break
    assert ended["over"] and ended["rating"].startswith("not rated: rules of fewer than 1,296 codes")
    view = rooms.snapshot(store, feed, public_id, "dan")
    assert view["over"] and view["rating"] == ended["rating"]
    assert ratings.rating_of(store, "dan") is None


def test_the_end_of_a_rated_event_says_how_many_ratings_changed(store: Store) -> None:
    """Newcomer's run: a rated room or match said nothing ("rating": null), so nobody could tell it counted;
    now its line says how many players' ratings changed (one, when the host kicked the only other player)."""
    ratings.record(store, "match", "m", [["ann"], ["bob"]], at=T0)
    assert ratings.note(store, "match", "m", Rules(4, 6)) == "rated: 2 players' ratings changed"
    ratings.record(store, "room", "r", [["ann"]], losses=[("ann", "bob")], at=T0 + timedelta(days=1))
    assert ratings.note(store, "room", "r", Rules(4, 6)) == "rated: 1 player's rating changed"
    assert ratings.note(store, "room", "nothing", Rules(4, 6)) is None  # not recorded (yet)
