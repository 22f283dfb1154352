"""A live match between people is rated when it ends, whichever way it ends (its last game broken, a
resignation, a forfeit on time), exactly once, and guests never: the use cases call the ratings, the
faces do nothing of their own."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from keypeg.services import ratings
from keypeg.store import Store
from keypeg.web import create_app
from test_live_clock import Player, rewind


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(ratings, "MIN_CODES", 1)  # these 3x5 matches rated as classic's would be
    return f"sqlite:///{tmp_path / 'rated.sqlite3'}"


def seated(url: str, first: str = "ann", second: str = "bob") -> tuple[Player, Player, str]:
    """``first``'s match of 2 games of 3x5 with ``second`` seated (``None``: a guest)."""
    app = create_app(url)
    clients = [TestClient(app, base_url="https://keypeg.test") for _ in range(2)]
    ann = Player(clients[0], first)
    bob = Player(clients[1], second)
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()  # type: ignore[attr-defined]
    joined = bob.post(f"/api/live/{made['id']}/join", {"token": made["token"]})
    assert joined.status_code == 200, joined.text  # type: ignore[attr-defined]
    return ann, bob, made["id"]


def move(player: Player, path: str, body: object = None) -> dict[str, object]:
    answer = player.post(path, body)
    assert answer.status_code == 200, answer.text  # type: ignore[attr-defined]
    return dict(answer.json())  # type: ignore[attr-defined]


def test_a_match_played_to_its_end_is_rated_once_winner_up_loser_down(url: str) -> None:
    ann, bob, match = seated(url)
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    move(bob, f"/api/live/{match}/guesses", {"code": "AAA"})
    move(bob, f"/api/live/{match}/guesses", {"code": "CCC"})
    move(bob, f"/api/live/{match}/guesses", {"code": "ABC"})  # ann: 3 points
    store = Store(url)
    assert ratings.rating_of(store, "ann") is None  # not over: nothing rated yet
    move(bob, f"/api/live/{match}/secret", {"code": "EDC"})
    last = move(ann, f"/api/live/{match}/guesses", {"code": "EDC"})  # bob: 1 point; ann wins 3-1
    assert last["over"] is True
    ann_now, bob_now = ratings.rating_of(store, "ann"), ratings.rating_of(store, "bob")
    assert ann_now is not None and bob_now is not None
    assert ann_now.rating.rating > 1500 > bob_now.rating.rating
    assert ann_now.results == bob_now.results == 1
    ann.view(match), bob.view(match)  # every later read of the finished match rates nothing again
    assert [c.event_id for c in ratings.changes(store, "ann")] == [match]
    assert ratings.recompute(store) == []


def test_a_match_ended_by_a_resignation_or_on_time_is_rated(url: str) -> None:
    ann, bob, match = seated(url)
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    move(bob, f"/api/live/{match}/resign")  # the code held: ann scores rows + 1
    rewind(url, match, 10_000)  # bob never sets game 2's code: he forfeits it at the next read
    assert ann.view(match)["over"] is True
    store = Store(url)
    after = {c.player: c for c in ratings.changes(store, "ann") + ratings.changes(store, "bob")}
    assert after["ann"].change > 0 > after["bob"].change
    assert ratings.result_count(store) == 1 and ratings.recompute(store) == []


def test_a_match_with_a_guest_is_not_rated(url: str) -> None:
    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    guest = TestClient(app, base_url="https://keypeg.test")
    csrf = {"X-CSRF-Token": guest.get("/api/session").json()["csrf"]}
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()  # type: ignore[attr-defined]
    assert guest.post(f"/api/live/{made['id']}/join", json={"token": made["token"]}, headers=csrf).status_code == 200
    match = made["id"]
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    assert guest.post(f"/api/live/{match}/guesses", json={"code": "ABC"}, headers=csrf).status_code == 200
    assert guest.post(f"/api/live/{match}/secret", json={"code": "BBB"}, headers=csrf).status_code == 200
    assert move(ann, f"/api/live/{match}/guesses", {"code": "BBB"})["over"] is True
    store = Store(url)
    assert ratings.rating_of(store, "ann") is None and ratings.result_count(store) == 0


def test_a_rating_that_failed_when_the_match_ended_is_written_at_its_next_read(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg.errors import UnavailableError

    ann, bob, match = seated(url)
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    move(bob, f"/api/live/{match}/guesses", {"code": "ABC"})
    move(bob, f"/api/live/{match}/secret", {"code": "EDC"})
    record_live = ratings.record_live

    def down(*args: object, **kwargs: object) -> object:
        raise UnavailableError("the store is down")

    monkeypatch.setattr(ratings, "record_live", down)
    assert move(ann, f"/api/live/{match}/guesses", {"code": "AAA"})["over"] is False
    last = move(ann, f"/api/live/{match}/resign")  # the match ends while the ratings cannot be written
    assert last["over"] is True
    store = Store(url)
    assert ratings.result_count(store) == 0
    monkeypatch.setattr(ratings, "record_live", record_live)
    bob.view(match)
    assert ratings.result_count(store) == 1 and ratings.recompute(store) == []
    bob.view(match)
    assert ratings.result_count(store) == 1
