"""Ratings kept in the store (keypeg.services.ratings over keypeg.store.ratings): idempotence, guests left
out, seeding from the levels, and recomputation equal to what was recorded (SQLite, and PostgreSQL when
KEYPEG_TEST_POSTGRES names a server)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keypeg.errors import KeypegError
from keypeg.play.ratings import Rating, update
from keypeg.rules import Rules
from keypeg.services import games, ratings
from keypeg.store import Store

T0 = datetime(2026, 11, 1, 12, tzinfo=UTC)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        yield Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")
    else:
        yield Store(request.getfixturevalue("postgres"))


def test_a_match_is_rated_once(store: Store) -> None:
    first = ratings.record(store, "match", "m1", [["ann"], ["bob"]], at=T0)
    again = ratings.record(store, "match", "m1", [["bob"], ["ann"]], at=T0 + timedelta(days=1))
    assert {c.player: c.after for c in first} == {c.player: c.after for c in again}
    ann = ratings.rating_of(store, "ann")
    assert ann is not None and ann.results == 1 and ann.provisional
    assert ann.rating == update(Rating(), [(Rating(), 1.0)])
    assert [c.event_id for c in ratings.changes(store, "ann")] == ["m1"]
    assert store.ratings.count() == 1


def test_guests_are_never_rated(store: Store) -> None:
    assert ratings.record(store, "match", "m2", [["guest-0123456789ab"], ["bob"]], at=T0) == []
    made = ratings.record(store, "room", "r1", [["ann"], ["guest-0123456789ab", "bob"], ["cy"]], at=T0)
    assert sorted(c.player for c in made) == ["ann", "bob", "cy"]
    assert ratings.rating_of(store, "guest-0123456789ab") is None
    assert ratings.leaderboard(store)[0].player == "ann"
    assert ratings.recompute(store) == []


def test_a_room_is_pairwise_by_place(store: Store) -> None:
    made = {c.player: c for c in ratings.record(store, "room", "r2", [["ann", "bob"], ["cy"]], at=T0)}
    assert made["ann"].after == made["bob"].after == update(Rating(), [(Rating(), 0.5), (Rating(), 1.0)])
    assert made["cy"].change < 0


def test_kinds_and_places_are_checked(store: Store) -> None:
    with pytest.raises(KeypegError):
        ratings.record(store, "solo", "1", [["ann"], ["bob"]])
    with pytest.raises(KeypegError):
        ratings.record(store, "match", "2", [["ann"], ["ANN"]])
    assert store.ratings.count() == 0


def test_idleness_grows_the_deviation_by_stored_days(store: Store) -> None:
    ratings.record(store, "match", "a", [["ann"], ["bob"]], at=T0)
    after_first = ratings.rating_of(store, "ann")
    made = {c.player: c for c in ratings.record(store, "match", "b", [["ann"], ["bob"]], at=T0 + timedelta(days=30))}
    assert after_first is not None and made["ann"].before.rd > after_first.rating.rd
    assert ratings.recompute(store) == []


def test_a_tampered_rating_shows_as_drift(store: Store) -> None:
    ratings.record(store, "match", "a", [["ann"], ["bob"]], at=T0)
    from sqlalchemy import update as sql_update

    from keypeg.store.models import PlayerRatingRow

    with store.engine.begin() as connection:
        connection.execute(
            sql_update(PlayerRatingRow).values(rating=PlayerRatingRow.rating + 1).where(PlayerRatingRow.rating > 1500)
        )
    drift = ratings.recompute(store)
    assert [d.player for d in drift] == ["ann"]


def test_first_solo_games_seed_against_the_levels(tmp_path: Path) -> None:
    """Solo games played as every face plays them (services.games: a rated game of classic, no level
    stored for a codebreaker's game) seed the rating; practice games do not."""
    from keypeg.play.sessions import BreakSession

    store = Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")
    rules = ratings.SEED_RULES

    def played(*, broken: bool, practice: bool = False) -> None:
        while True:  # a secret no level guesses first, so one guess beats them all
            session = games.new_session(rules, "breaker", practice=practice)
            assert isinstance(session, BreakSession)
            secret = str(session.codemaker.reveal())
            if all(ratings.level_guesses(n, rules, secret) > 1 for n in range(1, 5)):
                break
        opened = games.start(store, "ann", session, public=True)
        assert session.rated is not practice
        if broken:
            games.guess(opened, secret)  # one guess: better than every level
        else:
            games.guess(opened, "AABB" if secret != "AABB" else "CCDD")
            games.resign(opened)  # not broken: worse than every level
        games.save(opened)

    played(broken=True)
    for _ in range(5):  # the sixth is not counted: only the first five seed
        played(broken=False)
    played(broken=True, practice=True)
    made = ratings.seed(store, "ann")
    assert len(made) == ratings.SEED_GAMES and {c.kind for c in made} == {"solo"}
    assert ratings.seed(store, "ann") == []  # counted once
    first = made[0]
    assert first.after.rating > first.before.rating  # one guess beats every level
    assert all(c.after.rating < c.before.rating for c in made[1:])  # a code not broken loses to every level
    assert ratings.recompute(store) == []
    ratings.record(store, "match", "m", [["bob"], ["ann"]], at=datetime.now(UTC))
    ann = ratings.rating_of(store, "ann")
    assert ann is not None and ann.results == ratings.SEED_GAMES + 1


def test_level_ratings_are_shipped_and_ordered() -> None:
    levels = ratings.level_ratings()
    assert set(levels) == {"level 1", "level 2", "level 3", "level 4"}
    assert levels["level 4"].rating > levels["level 3"].rating > levels["level 2"].rating > levels["level 1"].rating


names = st.sampled_from(["ann", "bob", "cy", "dee", "eve", "guest-00000000000a"])
events = st.lists(
    st.tuples(
        st.sampled_from(["match", "room"]),
        st.lists(names, min_size=2, max_size=5, unique=True),
        st.lists(st.integers(0, 3), min_size=5, max_size=5),
        st.integers(0, 5 * 24 * 60),
    ),
    min_size=1,
    max_size=8,
)


@pytest.fixture(scope="module")
def reused(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(f"sqlite:///{tmp_path_factory.mktemp('r') / 'k.sqlite3'}")


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(events)
def test_recording_one_by_one_equals_recomputing(reused: Store, played: list) -> None:
    from sqlalchemy import text

    store = reused
    with store.engine.begin() as connection:  # every example from empty tables (one schema made once)
        for table in ("rating_changes", "player_ratings", "rating_results", "players"):
            connection.execute(text(f"DELETE FROM {table}"))
    at = T0
    for n, (kind, players, groups, minutes) in enumerate(played):
        at += timedelta(minutes=minutes)
        by_group: dict[int, list[str]] = {}
        for player, group in zip(players, groups, strict=False):
            by_group.setdefault(group, []).append(player)
        ratings.record(store, kind, f"e{n}", [by_group[k] for k in sorted(by_group)], at=at)
    assert ratings.recompute(store) == []
    assert ratings.rating_of(store, "guest-00000000000a") is None


def test_recording_equals_recomputing_on_postgresql(postgres: str) -> None:
    store = Store(postgres)
    at = T0
    for n, places in enumerate([[["ann"], ["bob"]], [["bob", "cy"], ["ann"]], [["cy"], ["dee"], ["ann", "bob"]]]):
        at += timedelta(hours=30)
        ratings.record(store, "room", f"p{n}", places, at=at)
    assert ratings.recompute(store) == []
    assert len(ratings.leaderboard(store)) == 4


def test_a_live_match_is_rated_by_points_once_over(tmp_path: Path) -> None:
    from types import SimpleNamespace
    from typing import Any

    store = Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")

    def live(over: bool, points: dict[str, int]) -> Any:
        return SimpleNamespace(is_over=over, rules=Rules(4, 6), match=SimpleNamespace(points=lambda: points))

    assert ratings.record_live(store, "lm1", live(False, {"ann": 3, "bob": 1})) == []
    made = {c.player: c for c in ratings.record_live(store, "lm1", live(True, {"ann": 3, "bob": 1}), at=T0)}
    assert made["ann"].change > 0 > made["bob"].change
    drawn = {c.player: c for c in ratings.record_live(store, "lm2", live(True, {"ann": 2, "cy": 2}), at=T0)}
    assert drawn["cy"].change > 0 > drawn["ann"].change  # a draw with a stronger player
    assert ratings.record_live(store, "lm3", live(True, {"guest-0123456789ab": 1, "bob": 0})) == []


def test_results_recorded_at_once_stay_replayable(store: Store) -> None:
    """Results sharing players, recorded from many threads at once (each event twice): each is rated once,
    one after the other, and replaying them gives the stored ratings."""
    from concurrent.futures import ThreadPoolExecutor

    players = ["ann", "bob", "cy", "dee"]
    events = [(n, [[players[n % 4]], [players[(n + 1) % 4], players[(n + 2) % 4]]]) for n in range(12)]
    with ThreadPoolExecutor(8) as pool:  # a day each: a pair counts in 3 events a day at most
        list(pool.map(lambda e: ratings.record(store, "room", f"t{e[0]}", e[1], at=T0 + timedelta(e[0])), events * 2))
    assert store.ratings.count() == 12
    assert ratings.recompute(store) == []
    assert sum(p.results for p in ratings.leaderboard(store)) == 12 * 3
