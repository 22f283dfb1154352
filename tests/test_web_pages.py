"""The web app's HTML pages and the API's help and match endpoints, through FastAPI's TestClient: whole
games through plain forms, the secret never in a page before the end, CSRF and origin on every form,
ownership, escaping, and no inline script or style anywhere (the Content-Security-Policy forbids them)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from keypeg import Rules, find_variant, score
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.play import codemakers
from keypeg.store import Store
from keypeg.web import create_app

CLASSIC = find_variant("classic").rules
SITE = "https://keypeg.test"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


def browser(url: str) -> tuple[TestClient, str]:
    """A browser on the home page: its cookie, and the CSRF token of the page's forms."""
    client = TestClient(create_app(url), base_url=SITE)
    return client, token_of(client.get("/").text)


def token_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, "a page without a form token"
    return found.group(1)


def error_of(html: str) -> str:
    found = re.search(r'class="error" role="alert">([^<]*)<', html)
    assert found is not None, "no error shown"
    return found.group(1)


def known_secret(monkeypatch: pytest.MonkeyPatch, seed: int, rules: Rules = CLASSIC) -> str:
    monkeypatch.setattr(codemakers.random, "SystemRandom", lambda: random.Random(seed))
    return str(random_code(rules, random.Random(seed)))


def in_any_notation(secret: str, rules: Rules, text: str) -> bool:
    code = rules.parse(secret)
    letters = "".join(chr(65 + c) for c in code.colors)
    return secret in text or letters in text


def assert_clean(html: str) -> None:
    """No inline script, no inline style, no event-handler attribute."""
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "inline script"
    assert not re.search(r"\sstyle=", html), "inline style"
    assert not re.search(r"<[^>]*\son[a-z]+=", html), "inline event handler"


@pytest.mark.parametrize("path", ["/", "/match", "/players", "/top", "/top?variant=super"])
def test_every_page_renders_without_inline_code(url: str, path: str) -> None:
    client, _ = browser(url)
    page = client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert_clean(page.text)
    for label in re.findall(r'<a href="(/[a-z]*)"', page.text):  # the navigation's links all answer
        assert client.get(label).status_code in (200, 404 if label in ("/analyse", "/strategies") else 200)


def test_a_whole_game_through_the_forms_keeps_the_secret_until_the_end(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = known_secret(monkeypatch, 5)
    client, csrf = browser(url)
    started = client.post("/play", data={"csrf": csrf, "variant": "classic", "role": "breaker"})
    assert started.status_code == 200 and "/play/" in str(started.url)
    board_url = str(started.url)
    pages = [started.text]
    history: list[tuple[str, object]] = []
    while True:
        guess = str(Knowledge(CLASSIC, tuple(history)).codes(limit=1)[0])  # type: ignore[arg-type]
        moved = client.post(f"{board_url}/guess", data={"csrf": csrf, "code": guess})
        assert moved.status_code == 200
        history.append((CLASSIC.parse(guess), score(CLASSIC.parse(secret), CLASSIC.parse(guess))))
        if guess == secret:
            break
        pages.append(moved.text)
        assert_clean(moved.text)
        shown = history[-1][1]
        assert f"{shown.black} black, {shown.white} white" in moved.text  # type: ignore[attr-defined]
    for html in pages:
        assert not in_any_notation(secret, CLASSIC, html)
    assert "You broke the code" in moved.text and in_any_notation(secret, CLASSIC, moved.text)
    (record,) = Store(url).games.history(limit=None)
    assert record.outcome == "solved" and not record.rated and record.guesses == len(history)  # a guest's game


def test_a_bad_guess_shows_the_board_with_the_reason(url: str) -> None:
    client, csrf = browser(url)
    board_url = str(client.post("/play", data={"csrf": csrf, "variant": "classic"}).url)
    refused = client.post(f"{board_url}/guess", data={"csrf": csrf, "code": "<script>x</script>"})
    assert refused.status_code == 400 and "<script>x" not in refused.text
    assert "&lt;" in error_of(refused.text) or "unknown" in error_of(refused.text)
    assert_clean(refused.text)


def test_the_computer_breaks_your_code_and_a_wrong_score_is_named(url: str) -> None:
    rules = Rules(3, 4)
    secret = rules.parse("ABC")
    client, csrf = browser(url)
    started = client.post("/play", data={"csrf": csrf, "variant": "", "pegs": "3", "colors": "4", "role": "maker"})
    board_url, page = str(started.url), started.text
    assert "How the computer chose its guess" in page and "codes fit" in page
    lied = False
    for _ in range(rules.rows):
        guess = re.search(r'data-guess="([^"]+)"', page)
        assert guess is not None
        code = guess.group(1)
        truth = score(secret, rules.parse(code))
        if not lied and truth.black < 2:  # a score no code can fit with the truth so far is refused
            wrong = client.post(f"{board_url}/score", data={"csrf": csrf, "black": "3", "white": "1"})
            assert wrong.status_code == 400 and "key pegs" in error_of(wrong.text)
            lied = True
        answer = client.post(f"{board_url}/score", data={"csrf": csrf, "black": truth.black, "white": truth.white})
        assert answer.status_code == 200, error_of(answer.text)
        page = answer.text
        if truth.black == 3:
            break
    assert "The computer broke your code" in page
    (record,) = Store(url).games.history(limit=None)
    assert record.role == "maker" and record.outcome == "solved"


def test_a_contradicting_score_is_refused_with_the_likely_mistake(url: str) -> None:
    client, csrf = browser(url)
    board_url = str(client.post("/play", data={"csrf": csrf, "variant": "classic", "role": "maker"}).url)
    assert client.post(f"{board_url}/score", data={"csrf": csrf, "black": "0", "white": "0"}).status_code == 200
    # the first two guesses share colours; all-zero then a full colour match cannot both be true
    again = client.post(f"{board_url}/score", data={"csrf": csrf, "black": "0", "white": "0"})
    third = client.post(f"{board_url}/score", data={"csrf": csrf, "black": "0", "white": "0"})
    refused = [p for p in (again, third) if p.status_code == 409]
    assert refused, "scoring every guess 0,0 on classic cannot go on for three guesses"
    assert "guess" in error_of(refused[0].text)


def test_forms_need_the_token_and_our_origin(url: str) -> None:
    client, csrf = browser(url)
    assert client.post("/play", data={"csrf": "forged", "variant": "classic"}).status_code == 403
    assert client.post("/play", data={"variant": "classic"}).status_code == 422
    foreign = client.post("/play", data={"csrf": csrf}, headers={"Origin": "https://evil.example"})
    assert foreign.status_code == 403 and "another site" in foreign.text
    stranger = TestClient(create_app(url), base_url=SITE)
    assert stranger.post("/play", data={"csrf": csrf, "variant": "classic"}).status_code == 403
    assert Store(url).games.history(limit=None) == []


def test_a_game_page_is_its_players_only(url: str) -> None:
    client, csrf = browser(url)
    board_url = str(client.post("/play", data={"csrf": csrf, "variant": "classic"}).url)
    other, other_csrf = browser(url)
    assert other.get(board_url).status_code == 404
    assert other.post(f"{board_url}/guess", data={"csrf": other_csrf, "code": "RGBY"}).status_code == 404
    assert other.post(f"{board_url}/resign", data={"csrf": other_csrf}).status_code == 404
    assert "text/html" in other.get(board_url).headers["content-type"]
    assert client.get(board_url).status_code == 200


def test_help_is_for_practice_games_and_keeps_them_unrated(url: str) -> None:
    client, csrf = browser(url)
    headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
    rated = client.post("/api/games", json={"variant": "classic"}, headers=headers).json()
    refused = client.post(f"/api/games/{rated['id']}/help/hint", headers=headers)
    assert refused.status_code == 400 and "practice" in refused.json()["error"]
    assert client.post(f"/api/games/{rated['id']}/undo", headers=headers).status_code == 400
    game = client.post("/api/games", json={"variant": "classic", "practice": True}, headers=headers).json()
    assert not game["rated"]
    hint = client.post(f"/api/games/{game['id']}/help/hint", headers=headers).json()
    assert CLASSIC.parse(hint["guess"])
    client.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG"}, headers=headers)
    explained = client.post(f"/api/games/{game['id']}/help/explain", headers=headers).json()
    history = ((CLASSIC.parse("RRGG"), score(CLASSIC.parse("RRGG"), CLASSIC.parse("RRGG"))),)
    assert explained["candidates"] >= 1 and len(explained["ranked"]) >= 1
    first = explained["ranked"][0]
    assert sum(first["parts"].values()) == explained["candidates"] and first["largest"] == max(first["parts"].values())
    coach = client.post(f"/api/games/{game['id']}/help/coach", headers=headers).json()
    assert coach["guess"] == "RRGG" and coach["review"]
    undone = client.post(f"/api/games/{game['id']}/undo", headers=headers).json()
    assert undone["history"] == [] and not undone["rated"]
    assert history  # the reference above: a guess scored against itself is a win
    page = client.post(f"/play/{game['id']}/help", data={"csrf": csrf, "kind": "explain"})
    assert page.status_code == 200 and "Codes left after each answer" in page.text


def test_the_computers_reasoning_matches_the_candidates(url: str) -> None:
    client, _ = browser(url)
    headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
    game = client.post("/api/games", json={"pegs": 3, "colors": 5, "role": "maker"}, headers=headers).json()
    rules = Rules(3, 5)
    secret = rules.parse("EDA")
    history = []
    for _ in range(3):
        guess = rules.parse(game["guess"])
        truth = score(secret, guess)
        if truth.black == 3:
            break
        history.append((guess, truth))
        game = client.post(
            f"/api/games/{game['id']}/scores", json={"black": truth.black, "white": truth.white}, headers=headers
        ).json()
        if game["status"] != "playing":
            break
        reasoning = client.get(f"/api/games/{game['id']}/reasoning").json()
        reference = sum(
            all(score(rules.code(c), g) == f for g, f in history)
            for c in __import__("itertools").product(range(5), repeat=3)
        )
        assert reasoning["candidates"] == reference and reasoning["guess"] == game["guess"]


def test_a_match_against_the_computer_through_the_api(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules(3, 3)
    client, _ = browser(url)
    headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
    made = client.post("/api/matches", json={"pegs": 3, "colors": 3, "games": 2, "level": 2}, headers=headers)
    assert made.status_code == 201, made.text
    match = made.json()
    assert match["played"] == [] and not match["over"]
    early = client.post(f"/api/matches/{match['id']}/next", headers=headers)
    assert early.status_code == 409  # the first game is not over
    # game 1: the computer made the code, we break it (reading nothing but our scores)
    game_id, history = match["game"], []
    while True:
        guess = Knowledge(rules, tuple(history)).codes(limit=1)[0]
        moved = client.post(f"/api/games/{game_id}/guesses", json={"code": str(guess)}, headers=headers).json()
        history.append((guess, rules.check_feedback(__import__("keypeg").Feedback(moved["black"], moved["white"]))))
        if moved["status"] != "playing":
            break
    assert moved["status"] == "won"
    match = client.post(f"/api/matches/{match['id']}/next", headers=headers).json()
    assert match["played"][0] == {
        "codemaker": "computer",
        "guesses": len(history),
        "broken": True,
        "points": len(history),
    }
    # game 2: the computer breaks our code
    secret = rules.parse("CAB")
    game = client.get(f"/api/games/{match['game']}").json()
    assert game["role"] == "maker"
    while game["status"] == "playing":
        truth = score(secret, rules.parse(game["guess"]))
        game = client.post(
            f"/api/games/{game['id']}/scores", json={"black": truth.black, "white": truth.white}, headers=headers
        ).json()
    final = client.post(f"/api/matches/{match['id']}/next", headers=headers).json()
    assert final["over"] and final["you"] == final["played"][1]["points"] and final["computer"] == len(history)
    assert final.get("winner") == (
        "you" if final["you"] > final["computer"] else "computer" if final["you"] < final["computer"] else None
    )
    assert client.post(f"/api/matches/{match['id']}/next", headers=headers).status_code == 409
    stranger, _ = browser(url)
    assert stranger.get(f"/api/matches/{match['id']}").status_code == 404
    assert stranger.get(f"/match/{match['id']}").status_code == 404
    page = client.get(f"/match/{match['id']}")
    assert page.status_code == 200 and "The match is over" in page.text
    assert len(Store(url).games.history(limit=None)) == 2


def test_a_hostile_name_is_shown_as_text(url: str) -> None:
    client, csrf = browser(url)
    name = "<img src=x onerror=alert(1)>"
    made = client.post("/players/register", data={"csrf": csrf, "name": name, "password": "long enough"})
    assert made.status_code == 200, made.text
    assert "&lt;img src=x onerror=alert(1)&gt;" in made.text and "<img src=x" not in made.text
    assert_clean(made.text)


def test_register_log_out_and_in_through_the_forms(url: str) -> None:
    client, csrf = browser(url)
    short = client.post("/players/register", data={"csrf": csrf, "name": "ann", "password": "short"})
    assert short.status_code == 400 and "8 characters" in error_of(short.text)
    common = client.post("/players/register", data={"csrf": csrf, "name": "ann", "password": "Password123"})
    assert common.status_code == 400 and "most common" in error_of(common.text)  # the API's rule, the same
    made = client.post("/players/register", data={"csrf": csrf, "name": "ann", "password": "correct horse"})
    assert "Signed in as <strong>ann</strong>" in made.text
    assert client.post("/players/logout", data={"csrf": csrf}).status_code == 403  # a new session, a new token
    out = client.post("/players/logout", data={"csrf": token_of(made.text)})
    assert "Playing as a guest" in out.text
    again = token_of(out.text)
    wrong = client.post("/players/login", data={"csrf": again, "name": "ANN", "password": "nope"})
    assert wrong.status_code == 401 and "wrong name or password" in error_of(wrong.text)
    back = client.post("/players/login", data={"csrf": again, "name": "ANN", "password": "correct horse"})
    assert back.status_code == 200 and "Signed in as <strong>ann</strong>" in back.text


def test_the_computer_thinks_only_on_games_small_enough_for_a_request(url: str) -> None:
    from keypeg.limits import WEB_THINK_LIMIT

    client, csrf = browser(url)
    headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
    huge = {"pegs": 15, "colors": 26}
    assert Rules(15, 26).size > WEB_THINK_LIMIT
    for body in ({**huge, "role": "maker"}, {**huge, "practice": True}):
        refused = client.post("/api/games", json=body, headers=headers)
        assert refused.status_code == 400 and "too many" in refused.json()["error"]
    match = client.post("/api/matches", json={**huge, "games": 2}, headers=headers)
    assert match.status_code == 400
    page = client.post("/play", data={"csrf": csrf, "variant": "", "pegs": "15", "colors": "26", "role": "maker"})
    assert page.status_code == 400 and "too many" in error_of(page.text)
    rated = client.post("/api/games", json=huge, headers=headers)  # breaking the computer's code needs no thinking
    assert rated.status_code == 201
    guessed = client.post(f"/api/games/{rated.json()['id']}/guesses", json={"code": "A" * 15}, headers=headers)
    assert guessed.status_code == 200 and guessed.json()["rows_left"] == 11


@pytest.mark.parametrize("kind", ["rooms", "live"])
def test_log_in_from_a_join_page_and_come_back_to_it(url: str, kind: str) -> None:
    """The join page's 'log in' link carries the page back (``next``): the login or registration returns
    there, never to another site; a refused registration keeps the name in the form that was sent."""
    from urllib.parse import unquote

    host, _ = browser(url)
    made = host.post(
        f"/api/{kind}",
        json={"pegs": 3, "colors": 4, "nickname": "Ann"} | ({"rounds": 1} if kind == "rooms" else {"games": 2}),
        headers={"X-CSRF-Token": host.get("/api/session").json()["csrf"]},
    ).json()
    join_link = f"/{kind}/{made['id']}/join?token={made['token']}"
    client, csrf = browser(url)
    page = client.get(join_link).text
    found = re.search(r'href="/players\?next=([^"]+)">log in</a>', page)
    assert found is not None and unquote(found.group(1).replace("&amp;", "&")) == join_link
    players = client.get(f"/players?next={found.group(1)}").text
    assert players.count(f'name="next" value="{join_link.replace("&", "&amp;")}"') == 2  # both forms
    weak = client.post(
        "/players/register", data={"csrf": csrf, "name": "kim", "password": "Password123", "next": join_link}
    )
    assert weak.status_code == 400
    assert re.search(r'action="/players/register".*?name="name" value="kim"', weak.text, re.S)
    assert not re.search(
        r'action="/players/login".*?name="name" value="kim".*?action="/players/register"', weak.text, re.S
    )
    back = client.post(
        "/players/register",
        data={"csrf": csrf, "name": "kim", "password": "correct horse", "next": join_link},
        follow_redirects=False,
    )
    assert back.status_code == 303 and back.headers["location"] == join_link
    for elsewhere in ("//evil.example/x", "/\\evil.example", "https://evil.example/", "/a b", "rooms"):
        other, other_csrf = browser(url)
        assert 'name="next"' not in other.get("/players", params={"next": elsewhere}).text
        answer = other.post(
            "/players/register",
            data={"csrf": other_csrf, "name": f"lee{len(elsewhere)}", "password": "correct horse", "next": elsewhere},
            follow_redirects=False,
        )
        assert answer.status_code == 303 and answer.headers["location"] == "/players", elsewhere
