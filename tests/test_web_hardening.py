"""What a hostile review of the web app found, each kept fixed: links from other sites keep the session,
login attempts sent at once are limited, bounded computer moves, no ranked guests, a request sent twice
applied once, no stray games from racing requests, bounded request bodies, unknown fields refused, a
guest's games kept when they register, sessions that end."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import unavailable
from keypeg import Rules
from keypeg.limits import WEB_BODY_LIMIT
from keypeg.play import sessions as play_sessions
from keypeg.play.sessions import SolveSession, session_from_state
from keypeg.services.accounts import LOGIN_FREE_PER_NAME_AND_ADDRESS, REGISTRATION_LIMIT_PER_ADDRESS
from keypeg.store import Store
from keypeg.web import create_app

SITE = "https://keypeg.test"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


def client(url: str) -> tuple[TestClient, dict[str, str]]:
    browser = TestClient(create_app(url), base_url=SITE)
    return browser, {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}


def test_the_session_cookie_survives_a_link_from_another_site(url: str) -> None:
    browser, _ = client(url)
    cookie = browser.cookies.get("keypeg_session")
    page = browser.get("/", headers={"Referer": "https://elsewhere.example/", "Sec-Fetch-Site": "cross-site"})
    assert (
        page.status_code == 200 and "set-cookie" not in page.headers and browser.cookies.get("keypeg_session") == cookie
    )
    fresh = TestClient(create_app(url), base_url=SITE).get("/api/session")
    assert "samesite=lax" in fresh.headers["set-cookie"].lower()


def test_login_attempts_sent_at_once_are_limited(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("keypeg.services.accounts.LOGIN_DELAY_START", timedelta(hours=1))  # a slow machine's
    app = create_app(url)  # seconds between the attempts and the last check never end the delay
    owner = TestClient(app, base_url=SITE)
    token = owner.get("/api/session").json()["csrf"]
    owner.post("/api/players", json={"name": "victim", "password": "right one"}, headers={"X-CSRF-Token": token})
    answers: list[int] = []

    def attempt() -> None:
        browser = TestClient(app, base_url=SITE)
        csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
        answers.append(
            browser.post("/api/login", json={"name": "victim", "password": "wrong"}, headers=csrf).status_code
        )

    threads = [threading.Thread(target=attempt) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers.count(401) <= LOGIN_FREE_PER_NAME_AND_ADDRESS
    assert answers.count(429) >= 12 - LOGIN_FREE_PER_NAME_AND_ADDRESS
    # From that address, once failures past the free ones count, even the right password must wait. (A
    # refused attempt counts nothing, and the burst's may all have been refused at once: a few more.)
    browser, csrf = client(url)
    for _ in range(LOGIN_FREE_PER_NAME_AND_ADDRESS + 1):
        wrong = browser.post("/api/login", json={"name": "victim", "password": "wrong"}, headers=csrf)
        if wrong.status_code == 429:
            break
    refused = browser.post("/api/login", json={"name": "victim", "password": "right one"}, headers=csrf)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    owner = TestClient(app, base_url=SITE, client=("192.0.2.7", 50000))  # the owner elsewhere: not locked out
    csrf = {"X-CSRF-Token": owner.get("/api/session").json()["csrf"]}
    assert owner.post("/api/login", json={"name": "victim", "password": "right one"}, headers=csrf).status_code == 200


def test_forwarded_addresses_are_believed_only_from_the_proxies_named(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("keypeg.services.accounts.LOGIN_DELAY_START", timedelta(hours=1))  # never over mid-test

    def failures_until_throttled(app: object, forwarded: str, peer: str = "127.0.0.1") -> int:
        browser = TestClient(app, base_url=SITE, client=(peer, 50000))  # type: ignore[arg-type]
        csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"], "X-Forwarded-For": forwarded}
        for count in range(LOGIN_FREE_PER_NAME_AND_ADDRESS + 1):
            if browser.post("/api/login", json={"name": "ann", "password": "wrong"}, headers=csrf).status_code == 429:
                return count
        return count + 1

    Store(url).players.set_password("ann", "right one")
    untrusting = create_app(url)  # by default no proxy: a client cannot choose the address it is counted as
    assert failures_until_throttled(untrusting, "198.51.100.1") == LOGIN_FREE_PER_NAME_AND_ADDRESS
    assert failures_until_throttled(untrusting, "198.51.100.2") == 0  # the same peer: still slowed down
    proxied = create_app(url, trust_proxies=("127.0.0.0/8",))  # behind a proxy: each client its own count
    assert failures_until_throttled(proxied, "198.51.100.3, 127.0.0.2") == LOGIN_FREE_PER_NAME_AND_ADDRESS
    assert failures_until_throttled(proxied, "198.51.100.4") == LOGIN_FREE_PER_NAME_AND_ADDRESS
    assert failures_until_throttled(proxied, "198.51.100.4") == 0
    stranger = "203.0.113.9"  # not a proxy named: its own address is counted, whatever it forwards
    assert failures_until_throttled(proxied, "198.51.100.5", peer=stranger) == LOGIN_FREE_PER_NAME_AND_ADDRESS
    assert failures_until_throttled(proxied, "198.51.100.6", peer=stranger) == 0


def test_registrations_are_capped_per_address_with_retry_after(url: str) -> None:
    browser, csrf = client(url)
    for number in range(REGISTRATION_LIMIT_PER_ADDRESS):
        made = browser.post("/api/players", json={"name": f"p{number}", "password": "long enough pw"}, headers=csrf)
        assert made.status_code == 201
        csrf = {"X-CSRF-Token": made.json()["csrf"]}
    refused = browser.post("/api/players", json={"name": "one more", "password": "long enough pw"}, headers=csrf)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "too many registrations" in refused.json()["error"]


def test_a_right_password_does_not_count_as_a_failure(url: str) -> None:
    browser, csrf = client(url)
    csrf = {
        "X-CSRF-Token": browser.post(
            "/api/players", json={"name": "ann", "password": "long enough pw"}, headers=csrf
        ).json()["csrf"]
    }
    for _ in range(LOGIN_FREE_PER_NAME_AND_ADDRESS + 3):
        answer = browser.post("/api/login", json={"name": "ann", "password": "long enough pw"}, headers=csrf)
        assert answer.status_code == 200
        csrf = {"X-CSRF-Token": answer.json()["csrf"]}


def test_a_loaded_game_does_not_think_again(monkeypatch: pytest.MonkeyPatch) -> None:
    game = SolveSession(Rules(4, 6), level=3)
    first = game.guess()
    state, _ = game.to_state()
    assert state["guess"] == str(first)

    def no_thinking(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("the guess was worked out again")

    monkeypatch.setattr("keypeg.play.levels.advise_with", no_thinking)
    again = session_from_state(json.loads(json.dumps(state)), None)
    assert isinstance(again, SolveSession) and again.guess() == first
    assert again.to_state()[0] == state  # saving it again thinks no more
    assert state["keypeg_session"] == play_sessions.STATE_VERSION


def test_a_move_sent_twice_is_applied_once(url: str) -> None:
    browser, csrf = client(url)
    game = browser.post("/api/games", json={"variant": "classic"}, headers=csrf).json()
    first = browser.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG", "row": 1}, headers=csrf)
    again = browser.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG", "row": 1}, headers=csrf)
    assert first.status_code == 200 and again.status_code == 409 and "row 1" in again.json()["error"]
    assert len(browser.get(f"/api/games/{game['id']}").json()["history"]) == 1
    page = browser.get(f"/play/{game['id']}").text
    form = page.split('action="/play/')[1]
    token = form.split('name="csrf" value="')[1].split('"')[0]
    for _ in range(2):  # a double click on the page's form: the second changes nothing
        browser.post(f"/play/{game['id']}/guess", data={"csrf": token, "code": "BBYY", "row": "2"})
    assert len(browser.get(f"/api/games/{game['id']}").json()["history"]) == 2


def test_racing_next_on_a_match_makes_no_stray_game(url: str) -> None:
    browser, csrf = client(url)
    match = browser.post("/api/matches", json={"pegs": 2, "colors": 3, "games": 4}, headers=csrf).json()
    browser.post(f"/api/games/{match['game']}/resign", headers=csrf)
    answers: list[int] = []

    def next_game() -> None:
        answers.append(browser.post(f"/api/matches/{match['id']}/next", headers=csrf).status_code)

    threads = [threading.Thread(target=next_game) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers.count(200) == 1 and set(answers) <= {200, 409}
    assert len(Store(url).games.history(limit=None)) == 2  # the first game and exactly one next


def test_request_bodies_are_bounded(url: str) -> None:
    browser, csrf = client(url)
    big = b'{"variant": "classic", "pad": "' + b"x" * (WEB_BODY_LIMIT + 10) + b'"}'
    declared = browser.post("/api/games", content=big, headers={**csrf, "Content-Type": "application/json"})
    assert declared.status_code == 413 and declared.json()["error"]

    def chunks() -> object:
        for _ in range(WEB_BODY_LIMIT // 1000 + 2):
            yield b"x" * 1000

    streamed = browser.post("/api/games", content=chunks(), headers={**csrf, "Content-Type": "application/json"})
    assert streamed.status_code == 413
    assert browser.post("/api/games", json={"variant": "classic"}, headers=csrf).status_code == 201


def test_unknown_fields_are_refused(url: str) -> None:
    browser, csrf = client(url)
    misspelt = browser.post("/api/games", json={"variant": "classic", "practise": True}, headers=csrf)
    assert misspelt.status_code == 422 and "practise" in misspelt.json()["error"]
    page_csrf = browser.get("/").text.split('name="csrf" value="')[1].split('"')[0]
    made = browser.post("/play", data={"csrf": page_csrf, "variant": "classic", "practice": "no"})
    assert ">not rated<" in made.text and "Hint" not in made.text  # "no" is not a practice game (a guest's: unrated)


def test_a_guest_who_registers_keeps_their_games(url: str) -> None:
    browser, csrf = client(url)
    game = browser.post("/api/games", json={"variant": "classic"}, headers=csrf).json()
    browser.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG"}, headers=csrf)
    made = browser.post("/api/players", json={"name": "newcomer", "password": "long enough pw"}, headers=csrf)
    assert made.status_code == 201
    assert browser.get(f"/api/games/{game['id']}").status_code == 200
    (record,) = Store(url).games.history("newcomer", limit=None)
    assert record.guesses == 1


def test_web_sessions_end(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.store import web_sessions

    browser, _ = client(url)
    assert browser.get("/api/session").json()["csrf"]
    token = browser.cookies.get("keypeg_session")
    monkeypatch.setattr(web_sessions, "WEB_SESSION_LIFETIME", timedelta(seconds=-1))
    renewed = browser.get("/api/session")
    assert renewed.status_code == 200 and browser.cookies.get("keypeg_session") != token  # a new session


def test_a_failing_store_is_503_not_a_missing_game(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.store import StoreUnavailableError
    from keypeg.store.games import Games
    from keypeg.store.live import LiveMatches

    browser, csrf = client(url)
    game = browser.post("/api/games", json={"variant": "classic"}, headers=csrf).json()
    assert browser.get("/api/games/nosuchgame").status_code == 404

    def down(*_args: object, **_kwargs: object) -> object:
        raise StoreUnavailableError("cannot use the database: connection refused")

    monkeypatch.setattr(Games, "owned", down)
    monkeypatch.setattr(LiveMatches, "get", down)
    failed = browser.get(f"/api/games/{game['id']}")
    assert failed.status_code == 503 and unavailable(failed.json()["error"])
    assert browser.get("/api/live/anything").status_code == 503


@pytest.mark.parametrize("https", [True, False])
def test_hsts_only_behind_https(url: str, https: bool) -> None:
    browser = TestClient(create_app(url, https=https), base_url="https://keypeg.test")
    for path in ("/", "/api/session", "/api/games/none", "/static/keypeg.css"):
        sent = browser.get(path).headers.get("Strict-Transport-Security")
        assert sent == ("max-age=31536000" if https else None), path
