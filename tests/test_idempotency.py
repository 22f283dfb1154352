"""Starting a game is idempotent: a create request retried with its ``Idempotency-Key`` (the API) or its
form's hidden key (the Play page) answers the game the first one started, and starts nothing."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from keypeg import find_variant
from keypeg.services import games
from keypeg.store import Store
from keypeg.store.game_keys import KeyTakenError
from keypeg.store.models import GameKeyRow, GameRow
from keypeg.store.plumbing import now
from keypeg.web import create_app
from test_web_hardening import SITE, client

CLASSIC = find_variant("classic").rules


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


def count(store: Store, table: type[GameRow] | type[GameKeyRow]) -> int:
    with store.engine.connect() as connection:
        return int(connection.scalar(select(func.count()).select_from(table)) or 0)


def test_a_create_retried_with_its_key_answers_the_same_game_and_starts_nothing(url: str) -> None:
    browser, csrf = client(url)
    keyed = {**csrf, "Idempotency-Key": "retry-me-1"}
    first = browser.post("/api/games", json={"variant": "classic", "role": "maker"}, headers=keyed)
    again = browser.post("/api/games", json={"variant": "classic", "role": "maker"}, headers=keyed)
    assert first.status_code == again.status_code == 201, again.text
    assert again.json() == first.json() and "idempotent-replayed" not in first.headers
    assert again.headers["idempotent-replayed"] == "true"
    assert count(Store(url), GameRow) == 1
    other = browser.post("/api/games", json={"variant": "classic", "role": "maker"}, headers=csrf)  # no key
    assert other.status_code == 201 and other.json()["id"] != first.json()["id"]
    assert count(Store(url), GameRow) == 2


def test_a_replay_shows_the_game_as_it_is_now(url: str) -> None:
    browser, csrf = client(url)
    keyed = {**csrf, "Idempotency-Key": "k"}
    game = browser.post("/api/games", json={}, headers=keyed).json()
    browser.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG"}, headers=csrf)
    again = browser.post("/api/games", json={}, headers=keyed)
    assert again.status_code == 201 and again.json()["id"] == game["id"]
    assert [m["guess"] for m in again.json()["history"]] == ["RRGG"]


def test_the_key_with_another_request_is_a_conflict(url: str) -> None:
    browser, csrf = client(url)
    keyed = {**csrf, "Idempotency-Key": "one-key"}
    assert browser.post("/api/games", json={"variant": "classic"}, headers=keyed).status_code == 201
    clash = browser.post("/api/games", json={"variant": "classic", "practice": True}, headers=keyed)
    assert clash.status_code == 409
    assert clash.json() == {
        "error": "this idempotency key started a game of other settings: a new game needs a new key"
    }
    assert count(Store(url), GameRow) == 1


def test_keys_are_each_players_own(url: str) -> None:
    """Another player's request with the same key starts a game of their own: a key guessed finds nothing."""
    ann, ann_csrf = client(url)
    bob, bob_csrf = client(url)
    mine = ann.post("/api/games", json={}, headers={**ann_csrf, "Idempotency-Key": "guessable"}).json()
    theirs = bob.post("/api/games", json={}, headers={**bob_csrf, "Idempotency-Key": "guessable"})
    assert theirs.status_code == 201 and "idempotent-replayed" not in theirs.headers
    assert theirs.json()["id"] != mine["id"] and count(Store(url), GameRow) == 2


@pytest.mark.parametrize("key", ["", "x" * 101, "tab\there", "caf\u00e9"])
def test_a_bad_key_is_a_400_and_starts_nothing(url: str, key: str) -> None:
    browser, csrf = client(url)
    headers: dict[str, str | bytes] = {**csrf, "Idempotency-Key": key.encode()}  # as sent: UTF-8 bytes
    refused = browser.post("/api/games", json={}, headers=headers)
    assert refused.status_code == 400, refused.text
    assert refused.json() == {"error": "an idempotency key is 1 to 100 printable ASCII characters"}
    assert count(Store(url), GameRow) == 0
    longest = browser.post("/api/games", json={}, headers={**csrf, "Idempotency-Key": "~" * 100})
    assert longest.status_code == 201


def test_a_key_finds_its_game_for_24_hours_and_old_keys_are_pruned(url: str) -> None:
    browser, csrf = client(url)
    first = browser.post("/api/games", json={}, headers={**csrf, "Idempotency-Key": "old"}).json()
    store = Store(url)
    with store.engine.begin() as connection:
        connection.execute(update(GameKeyRow).values(created_at=now() - timedelta(hours=24, minutes=1)))
    later = browser.post("/api/games", json={}, headers={**csrf, "Idempotency-Key": "old"})
    assert later.status_code == 201 and "idempotent-replayed" not in later.headers
    assert later.json()["id"] != first["id"]
    assert count(store, GameKeyRow) == 1  # the expired key was pruned as the new one was written


def test_the_key_is_written_with_the_game_or_neither_is(tmp_path: Path) -> None:
    """A key taken makes the start fail whole: no game is left without its key."""
    store = Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")
    store.games.start("ann", CLASSIC, role="breaker", public_id="a" * 22, key=("k", "digest"))
    with pytest.raises(KeyTakenError):
        store.games.start("ann", CLASSIC, role="breaker", public_id="b" * 22, key=("k", "digest"))
    assert count(store, GameRow) == count(store, GameKeyRow) == 1
    found = store.games.keyed("ann", "k")
    assert found is not None and found.public_id == "a" * 22 and store.games.keyed("bob", "k") is None


def test_two_requests_with_one_key_at_once_start_one_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The request that loses the race to write its key answers the game the other one started."""
    store = Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")
    first = games.start_new(store, "ann", CLASSIC, "breaker", key="k")
    looked = store.games.keyed
    answers = iter([None])  # the second request looks before the first has written its key
    monkeypatch.setattr(store.games, "keyed", lambda player, key: next(answers, looked(player, key)))
    second = games.start_new(store, "ann", CLASSIC, "breaker", key="k")
    assert second.replayed and second.public_id == first.public_id and count(store, GameRow) == 1


def test_the_play_form_carries_a_fresh_key_and_a_form_sent_twice_starts_one_game(url: str) -> None:
    browser = TestClient(create_app(url), base_url=SITE)
    page = browser.get("/").text
    fields = dict(re.findall(r'<input type="hidden" name="(csrf|key)" value="([^"]+)"', page))
    assert len(fields["key"]) >= 20 and fields["key"] not in browser.get("/").text
    form = {**fields, "variant": "classic", "role": "breaker"}
    first, again = browser.post("/play", data=form), browser.post("/play", data=form)
    assert first.url == again.url and "/play/" in str(first.url)
    assert count(Store(url), GameRow) == 1
