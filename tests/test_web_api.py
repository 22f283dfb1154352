"""The web app's JSON API: sessions, CSRF and origin checks, ownership, every game move, errors as
JSON, and the secret never in a response before the game ends."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Mount

from keypeg import Rules, find_variant, score
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.play import codemakers
from keypeg.play.levels import level_strategy
from keypeg.store import Store
from keypeg.web import create_app

CLASSIC = find_variant("classic").rules


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


def client(url: str) -> tuple[TestClient, dict[str, str]]:
    """A browser: its session cookie, and the CSRF header its page would send."""
    browser = TestClient(create_app(url), base_url="https://keypeg.test")
    token = browser.get("/api/session").json()["csrf"]
    return browser, {"X-CSRF-Token": token}


def known_secret(monkeypatch: pytest.MonkeyPatch, seed: int) -> str:
    """The next computer secret, known to the test (still drawn as the operating system's randomness)."""
    monkeypatch.setattr(codemakers.random, "SystemRandom", lambda: random.Random(seed))
    return str(random_code(CLASSIC, random.Random(seed)))


def test_a_session_has_a_csrf_token_and_a_private_cookie(url: str) -> None:
    browser = TestClient(create_app(url), base_url="https://keypeg.test")
    first = browser.get("/api/session")
    assert first.status_code == 200 and first.json()["player"] is None and len(first.json()["csrf"]) > 20
    cookie = first.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie
    assert browser.get("/api/session").json()["csrf"] == first.json()["csrf"]  # the same session
    for header in ("content-security-policy", "x-content-type-options", "x-frame-options"):
        assert header in first.headers
    assert "frame-ancestors 'none'" in first.headers["content-security-policy"]


def test_a_whole_game_as_codebreaker_never_shows_the_secret_before_the_end(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = known_secret(monkeypatch, 3)
    browser, csrf = client(url)
    made = browser.post("/api/games", json={"variant": "classic"}, headers=csrf)
    assert made.status_code == 201, made.text
    game = made.json()
    assert game["status"] == "playing" and game["rows_left"] == 12 and "secret" not in game
    assert not game["rated"]  # a guest's game never counts (ranked means committed)
    responses = [made]
    wrong = [c for c in ("RRRR", "GGGG", "BBBB") if c != secret][:2]
    for code in wrong:
        answer = browser.post(f"/api/games/{game['id']}/guesses", json={"code": code}, headers=csrf)
        assert answer.status_code == 200 and answer.json()["status"] == "playing"
        truth = score(CLASSIC.parse(secret), CLASSIC.parse(code))
        assert (answer.json()["black"], answer.json()["white"]) == (truth.black, truth.white)
        responses += [answer, browser.get(f"/api/games/{game['id']}")]
    for response in responses:  # bodies and headers, in every notation
        seen = response.text + str(response.headers)
        letters = "".join(chr(65 + c) for c in CLASSIC.parse(secret).colors)
        assert secret not in seen and letters not in seen
    won = browser.post(f"/api/games/{game['id']}/guesses", json={"code": secret}, headers=csrf).json()
    assert won["status"] == "won" and won["secret"] == secret and won["rows_left"] == 9
    board = browser.get(f"/api/games/{game['id']}").json()
    assert [m["guess"] for m in board["history"]] == [*wrong, secret]
    (record,) = Store(url).games.history(limit=None)
    assert record.outcome == "solved" and not record.rated and record.player.startswith("guest-")


def test_the_computer_breaks_your_code_and_a_contradiction_is_refused(url: str) -> None:
    browser, csrf = client(url)
    rules = Rules(4, 6)
    game = browser.post("/api/games", json={"pegs": 4, "colors": 6, "role": "maker"}, headers=csrf).json()
    assert game["role"] == "maker" and game["guess"]
    mine, knowledge = rules.parse("FEDC"), Knowledge(rules)
    first = rules.parse(game["guess"])
    feedback = score(mine, first)
    wrong = {"black": feedback.black + 1 if feedback.black < 3 else 0, "white": 0}
    strategy = level_strategy(3, rules)
    given = {"black": feedback.black, "white": feedback.white}
    answer = browser.post(f"/api/games/{game['id']}/scores", json=given, headers=csrf)
    assert answer.status_code == 200
    knowledge = knowledge.add(first, feedback)
    while answer.json()["status"] == "playing":
        guess = rules.parse(answer.json()["guess"])
        assert guess == strategy.next_guess(knowledge)  # level 3, as in the terminal
        feedback = score(mine, guess)
        answer = browser.post(
            f"/api/games/{game['id']}/scores", json={"black": feedback.black, "white": feedback.white}, headers=csrf
        )
        knowledge = knowledge.add(guess, feedback)
    assert answer.json()["status"] == "lost" and answer.json()["secret"] == "FEDC"  # the computer broke it
    other = browser.post("/api/games", json={"pegs": 4, "colors": 6, "role": "maker"}, headers=csrf).json()
    liar = browser.post(f"/api/games/{other['id']}/scores", json=wrong, headers=csrf)
    refused = browser.post(f"/api/games/{other['id']}/scores", json={"black": 5, "white": 0}, headers=csrf)
    assert liar.status_code in (200, 409) and refused.status_code == 400 and "error" in refused.json()


def test_state_changes_need_the_csrf_token_and_our_origin(url: str) -> None:
    browser, csrf = client(url)
    assert browser.post("/api/games", json={}).status_code == 403
    assert browser.post("/api/games", json={}, headers={"X-CSRF-Token": "forged"}).status_code == 403
    foreign = {**csrf, "Origin": "https://evil.example"}
    assert browser.post("/api/games", json={}, headers=foreign).json()["error"].startswith("requests from another")
    assert browser.post("/api/games", json={}, headers={**csrf, "Origin": "null"}).status_code == 403
    assert browser.post("/api/games", json={}, headers={**csrf, "Origin": "https://keypeg.test"}).status_code == 201
    stranger = TestClient(create_app(url), base_url="https://keypeg.test")
    assert stranger.post("/api/games", json={}).status_code == 401


def test_a_game_is_its_players_only(url: str) -> None:
    ann, ann_csrf = client(url)
    bob, bob_csrf = client(url)
    game = ann.post("/api/games", json={}, headers=ann_csrf).json()
    for response in (
        bob.get(f"/api/games/{game['id']}"),
        bob.post(f"/api/games/{game['id']}/guesses", json={"code": "RGBY"}, headers=bob_csrf),
        bob.post(f"/api/games/{game['id']}/resign", headers=bob_csrf),
        ann.get("/api/games/nosuchgame"),
        ann.get("/api/games/1"),  # the store's own ids mean nothing here
    ):
        assert response.status_code == 404 and response.json() == {"error": "no such game"}
    assert len(game["id"]) >= 20


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/games", {"pegs": 0}),
        ("/api/games", {"variant": "nonesuch"}),
        ("/api/games", {"variant": ""}),
        ("/api/games", {"role": "judge"}),
        ("/api/games", {"pegs": 10**40}),
        ("/api/games", {"pegs": 15, "colors": 36, "role": "maker"}),
        ("/api/games", "not json"),
        ("/api/games/x/guesses", {"code": "RGBY"}),
    ],
)
def test_bad_requests_are_json_4xx(url: str, path: str, body: object) -> None:
    browser, csrf = client(url)
    response = browser.post(path, json=body, headers=csrf)
    assert 400 <= response.status_code < 500 and set(response.json()) == {"error"}
    assert "Traceback" not in response.text


def test_bad_moves_are_refused_and_the_game_goes_on(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = known_secret(monkeypatch, 8)
    browser, csrf = client(url)
    game = browser.post("/api/games", json={}, headers=csrf).json()
    moves = f"/api/games/{game['id']}"
    for code in ("RGB", "[/]\x1b[2J", "x" * 200):
        refused = browser.post(f"{moves}/guesses", json={"code": code}, headers=csrf)
        assert refused.status_code == 400 and "\x1b" not in refused.text
    assert browser.post(f"{moves}/scores", json={"black": 1, "white": 0}, headers=csrf).status_code == 400
    resigned = browser.post(f"{moves}/resign", headers=csrf).json()
    assert resigned["status"] == "lost" and resigned["secret"] == secret
    again = browser.post(f"{moves}/guesses", json={"code": secret}, headers=csrf)
    assert again.status_code == 400 and "over" in again.json()["error"]


def test_the_same_move_sent_twice_at_once_is_applied_once(url: str) -> None:
    """Two requests that read the game before either wrote it: the second is refused (409)."""
    from keypeg.services.recording import RecordingError, continue_game

    browser, csrf = client(url)
    game = browser.post("/api/games", json={"practice": True}, headers=csrf).json()
    store = Store(url)
    game_id = store.games.by_public_id(game["id"])
    player = store.games.record(game_id).player
    early, early_keeper = continue_game(store, game_id, player)  # a request that read the game first
    browser.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG"}, headers=csrf)
    early.guess("BBYY")
    with pytest.raises(RecordingError):
        early_keeper.sync(early)
    assert [m["guess"] for m in browser.get(f"/api/games/{game['id']}").json()["history"]] == ["RRGG"]


def served_api(routes: Iterable[Any], prefix: str = "") -> set[str]:
    """Every path under ``/api/`` the app answers, whether its schema shows it or not: its routes, those
    of the routers it includes and of the apps it mounts (a parameter's converter left out, as the schema
    names it)."""
    found = set()
    for route in routes:
        inner = getattr(route, "original_router", None)  # a router included (FastAPI 0.16x)
        context = getattr(route, "include_context", None)
        if inner is not None:
            found |= served_api(inner.routes, prefix + (getattr(context, "prefix", "") or ""))
        elif isinstance(route, Mount) and route.routes:
            found |= served_api(route.routes, prefix + route.path)
        elif isinstance(route, APIRoute) and (prefix + route.path).startswith("/api/"):
            found.add(re.sub(r"\{(\w+):\w+\}", r"{\1}", prefix + route.path))  # as the schema writes {name:path}
    return found


def undocumented_and_unserved(app: FastAPI) -> tuple[set[str], set[str]]:
    """The API paths the app answers that its schema leaves out, and those its schema shows that it does
    not answer."""
    documented = set(TestClient(app).get("/openapi.json").json()["paths"])
    served = served_api(app.routes)
    return served - documented, documented - served


def test_the_api_is_documented() -> None:
    """Every path of the API is in its schema, and the schema shows no path the app does not answer."""
    app = create_app("sqlite://")
    assert undocumented_and_unserved(app) == (set(), set())
    assert {"/api/session", "/api/games", "/api/games/{game_id}", "/api/games/{game_id}/guesses"} <= served_api(
        app.routes
    )


def test_the_documentation_check_sees_a_path_left_out_and_one_made_up() -> None:
    hidden = create_app("sqlite://")
    hidden.add_api_route("/api/hidden", lambda: {}, include_in_schema=False)
    assert undocumented_and_unserved(hidden) == ({"/api/hidden"}, set())
    made_up = create_app("sqlite://")
    schema = made_up.openapi()
    schema["paths"]["/api/made-up"] = schema["paths"]["/api/session"]
    assert undocumented_and_unserved(made_up) == (set(), {"/api/made-up"})


def test_register_log_in_and_out_with_a_new_session_each_time(url: str) -> None:
    browser, csrf = client(url)
    old_cookie = browser.cookies.get("keypeg_session")
    made = browser.post("/api/players", json={"name": "Zoë", "password": "correct horse"}, headers=csrf)
    assert made.status_code == 201 and made.json()["player"] == "Zoë"
    assert browser.cookies.get("keypeg_session") != old_cookie  # a new session at login
    assert browser.post("/api/games", json={}, headers=csrf).status_code == 403  # the old CSRF token is gone
    csrf = {"X-CSRF-Token": made.json()["csrf"]}
    game = browser.post("/api/games", json={}, headers=csrf).json()
    assert Store(url).games.record(Store(url).games.by_public_id(game["id"])).player == "Zoë"
    twin = browser.post("/api/players", json={"name": "ZOË", "password": "long enough pw"}, headers=csrf)
    assert twin.status_code == 409
    guest = browser.post("/api/players", json={"name": "guest-abc", "password": "long enough pw"}, headers=csrf)
    assert guest.status_code == 400
    out = browser.post("/api/logout", headers=csrf).json()
    assert out["player"] is None and browser.get(f"/api/games/{game['id']}").status_code == 404
    csrf = {"X-CSRF-Token": out["csrf"]}
    back = browser.post("/api/login", json={"name": "zoë", "password": "correct horse"}, headers=csrf)
    assert back.status_code == 200 and back.json()["player"] == "Zoë"
    assert browser.get(f"/api/games/{game['id']}").status_code == 200


def test_failed_logins_are_limited_per_name_and_address(url: str) -> None:
    from keypeg.services.accounts import LOGIN_FREE_PER_NAME_AND_ADDRESS

    Store(url).players.set_password("ann", "right")
    browser, csrf = client(url)
    for _ in range(LOGIN_FREE_PER_NAME_AND_ADDRESS):
        wrong = browser.post("/api/login", json={"name": "ann", "password": "wrong"}, headers=csrf)
        assert wrong.status_code == 401 and wrong.json() == {"error": "wrong name or password"}
    other, other_csrf = client(url)  # another browser, but the same name and address: still limited
    limited = other.post("/api/login", json={"name": "ANN", "password": "right"}, headers=other_csrf)
    assert limited.status_code == 429 and "Retry-After" in limited.headers
    unknown = other.post("/api/login", json={"name": "nobody", "password": "x"}, headers=other_csrf)
    assert unknown.status_code == 401 and unknown.json() == {"error": "wrong name or password"}  # same answer


def test_history_and_the_top_10_follow_the_rated_rule(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.limits import MIN_RANKED_GAMES

    browser, csrf = client(url)
    assert browser.get("/api/history").json() == []  # a guest with no game yet

    def play_rated() -> None:
        for seed in range(MIN_RANKED_GAMES):
            secret = known_secret(monkeypatch, seed)
            game = browser.post("/api/games", json={}, headers=csrf).json()
            browser.post(f"/api/games/{game['id']}/guesses", json={"code": secret}, headers=csrf)

    play_rated()  # a guest is never ranked: anyone can be a new guest at will
    assert browser.get("/api/top", params={"variant": "classic"}).json()["top"] == []
    csrf = {
        "X-CSRF-Token": browser.post(
            "/api/players", json={"name": "ann", "password": "long enough pw"}, headers=csrf
        ).json()["csrf"]
    }
    assert len(browser.get("/api/history").json()) == MIN_RANKED_GAMES  # the guest's games came along
    with Store(url).engine.begin() as connection:  # start ann's record afresh for the rest of the test
        from sqlalchemy import text

        connection.execute(text("DELETE FROM guesses"))
        connection.execute(text("DELETE FROM games"))
    play_rated()
    practice = browser.post("/api/games", json={"practice": True}, headers=csrf).json()
    history = browser.get("/api/history").json()
    assert len(history) == MIN_RANKED_GAMES + 1 and history[0]["rated"] is False and history[0]["secret"] is None
    assert practice["id"] and all(g["rated"] and g["outcome"] == "solved" for g in history[1:])
    top = browser.get("/api/top", params={"variant": "classic"}).json()
    assert [(r["games"], r["average"]) for r in top["top"]] == [(MIN_RANKED_GAMES, 1.0)]
    assert "Only rated games count" in top["rule"] and top["label"] == "classic"
    same = browser.get("/api/top", params={"pegs": 4, "colors": 6}).json()  # classic's rules, not its name
    assert same["label"] == "classic" and same["top"] == top["top"]
    assert browser.get("/api/top", params={"pegs": 4, "colors": 6, "rows": 8}).json()["label"] == "4x6, 8 rows"
    assert browser.get("/api/top", params={"pegs": 0}).status_code == 422
    assert browser.get("/api/top", params={"variant": "nonesuch"}).status_code == 400


def test_the_docs_page_lists_every_operation_under_the_sites_policy(url: str) -> None:
    app = create_app(url)
    browser = TestClient(app)
    page = browser.get("/docs")
    assert page.status_code == 200 and "/docs-assets/" not in page.text  # the site's own page, not Swagger UI
    assert page.headers["content-security-policy"].startswith("default-src 'self';")
    schema = app.openapi()
    listed = re.findall(r'<span class="method m-(\w+)">\w+</span> <code>([^<]+)</code>', page.text)
    every = [(method, path) for path, item in schema["paths"].items() for method in item]
    assert sorted(listed) == sorted(every)
    assert "``" not in page.text and "<code>practice</code>" in page.text  # literals drawn as code
    assert '<a href="/docs/try">' in page.text


def test_the_api_tried_in_swagger_ui_needs_no_other_site(url: str) -> None:
    browser = TestClient(create_app(url))
    page = browser.get("/docs/try")
    assert page.status_code == 200 and "/docs-assets/swagger-ui-bundle.js" in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing from a CDN
    assert browser.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    policy = page.headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src" not in policy  # scripts: this site's files only
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page.text, re.S)
    assert scripts and all('src="/' in attributes and not body.strip() for attributes, body in scripts)


def test_a_guests_first_move_can_be_a_match(url: str) -> None:
    browser, csrf = client(url)  # a new guest: no player yet
    made = browser.post("/api/matches", json={"variant": "mini", "games": 2}, headers=csrf)
    assert made.status_code == 201, made.text
    match = made.json()
    assert browser.get(f"/api/matches/{match['id']}").status_code == 200
    assert browser.get(f"/api/games/{match['game']}").json()["status"] == "playing"
    (player,) = {g.player for g in Store(url).games.history(limit=None)}
    assert player.startswith("guest-")
