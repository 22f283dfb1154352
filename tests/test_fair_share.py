"""Fair shares of the server (issue 28): limits per session and per address on open event streams, requests
that change something and analyses worked out (429 with Retry-After), one analysis at a time per worker
and the next ones waiting their turn, and no session row for a visitor who only looks."""

from __future__ import annotations

import contextlib
import queue
import re
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.responses import StreamingResponse
from fastapi.testclient import TestClient

from conftest import app_in_thread, wait_until
from keypeg.limits import (
    WEB_ANALYSES_PER_SESSION,
    WEB_BUSY_RETRY,
    WEB_STREAMS_PER_ADDRESS,
    WEB_STREAMS_PER_SESSION,
    WEB_WRITES_PER_ADDRESS,
    WEB_WRITES_PER_SESSION,
)
from keypeg.services.accounts import ThrottledError
from keypeg.services.fair_share import FairShare, Who
from keypeg.web import create_app
from keypeg.web.fair_share import STREAMS

SITE = "https://keypeg.test"
TINY = {"pegs": 2, "colors": 3}


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept analyses go to a folder of the test's own."""
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path / "cache"))


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def sessions_kept(url: str) -> int:
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        return int(db.execute("SELECT count(*) FROM web_sessions").fetchone()[0])


def token_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, "a page without a form token"
    return found.group(1)


def session_client(app: object, **kwargs: object) -> tuple[TestClient, dict[str, str]]:
    """A browser of the API with a session: its CSRF header."""
    client = TestClient(app, base_url=SITE, **kwargs)  # type: ignore[arg-type]
    return client, {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}


def posts(app: object) -> list[str]:
    """Every address the app takes a POST at, its parameters filled in with ``x``."""
    found = []
    for route in app.routes:  # type: ignore[attr-defined]
        for inner in getattr(getattr(route, "original_router", None), "routes", [route]):
            if "POST" in (getattr(inner, "methods", None) or ()):
                found.append(re.sub(r"\{[^}]+\}", "x", inner.path))
    return found


def test_every_change_and_stream_is_counted_and_nothing_else(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    share = FairShare()
    counted: list[str] = []
    monkeypatch.setattr(share, "write", lambda who: counted.append("write"))
    monkeypatch.setattr(share, "stream", lambda who: (counted.append("stream"), contextlib.nullcontext())[1])
    app = create_app(url, share=share)
    browser = TestClient(app, base_url=SITE)
    changes = [path for path in posts(app) if path != "/api/analyse"]
    starts = ["/api/games", "/play", "/api/live", "/live", "/api/daily", "/daily", "/api/matches", "/match"]
    assert set(starts) | {"/api/live/x/join", "/api/games/x/resign", "/api/login", "/players/register"} < set(changes)
    for path in changes:  # each is a route's address
        browser.post(path)
    browser.get("/api/live/x/events")
    assert counted == ["write"] * len(changes) + ["stream"]
    streaming = []  # every route answering with an event stream (a live match's, a room's) is one counted
    for route in app.routes:  # type: ignore[attr-defined]
        for inner in getattr(getattr(route, "original_router", None), "routes", [route]):
            if getattr(inner, "response_class", None) is StreamingResponse:
                streaming.append(re.sub(r"\{[^}]+\}", "x", inner.path))
    assert {"/api/live/x/events", "/api/rooms/x/stream"} <= set(streaming)
    assert [path for path in streaming if STREAMS.fullmatch(path) is None] == []
    browser.post("/api/analyse", json={**TINY, "scored": ["AB 9 9"]})  # counted by its gate, if worked out
    for path in ["/api/games/x", "/api/session", "/", "/play", "/live", "/api/strategies"]:
        browser.get(path)
    assert len(counted) == len(changes) + 1


# -- no session row for a visitor who only looks ---------------------------------------------------


PUBLIC = ["/", "/strategies?variant=3x4", "/analyse", "/players", "/top", "/daily", "/live", "/match", "/api/session"]


def test_cookieless_views_keep_no_session_and_the_first_form_still_works(url: str) -> None:
    app = create_app(url)
    TestClient(app, base_url=SITE).get("/api/session")  # the store made, and its key
    before = sessions_kept(url)
    for _ in range(3):
        for path in PUBLIC:
            assert TestClient(app, base_url=SITE).get(path).status_code == 200, path
    assert sessions_kept(url) == before  # a visitor who only looks writes nothing

    visitor = TestClient(app, base_url=SITE)
    home = visitor.get("/")
    refused = visitor.post("/play", data={"csrf": "not-the-token", "variant": "classic"}, follow_redirects=False)
    assert refused.status_code == 403 and sessions_kept(url) == before  # CSRF checked: nothing kept
    started = visitor.post("/play", data={"csrf": token_of(home.text), "variant": "classic"}, follow_redirects=False)
    assert started.status_code == 303 and started.headers["location"].startswith("/play/")
    assert visitor.get(started.headers["location"]).status_code == 200  # the game is the visitor's
    assert sessions_kept(url) == before + 1  # kept once needed, with the token its pages carry
    again = visitor.post("/play", data={"csrf": token_of(home.text), "variant": "classic"}, follow_redirects=False)
    assert again.status_code == 303 and sessions_kept(url) == before + 1


def test_a_pending_session_is_signed_and_its_csrf_token_checked(url: str) -> None:
    app = create_app(url)
    browser = TestClient(app, base_url=SITE)
    csrf = browser.get("/api/session").json()["csrf"]
    assert browser.post("/api/games", json={}).status_code == 403  # no CSRF header
    assert browser.post("/api/games", json={}, headers={"X-CSRF-Token": csrf + "x"}).status_code == 403
    made = browser.post("/api/games", json={"practice": True}, headers={"X-CSRF-Token": csrf})
    assert made.status_code == 201
    cookie = browser.cookies["keypeg_session"]
    made_when, mark, signature = cookie.split(".")
    forged = TestClient(app, base_url=SITE, cookies={"keypeg_session": f"{made_when}.{mark}x.{signature}"})
    assert forged.post("/api/games", json={}, headers={"X-CSRF-Token": csrf}).status_code == 401  # names nothing
    assert "set-cookie" in forged.get("/api/session").headers  # a new session, not the forged one


# -- moves -----------------------------------------------------------------------------------------------


def test_a_burst_of_moves_past_the_limit_is_refused_and_a_players_pace_is_not(url: str) -> None:
    clock = Clock()
    app = create_app(url, share=FairShare(clock=clock))
    fast, headers = session_client(app)
    burst, _ = WEB_WRITES_PER_SESSION
    answers = [fast.post("/api/games/nosuchgame/guesses", json={"code": "RRGG"}, headers=headers) for _ in range(burst)]
    assert {a.status_code for a in answers} == {404}  # each counted, none refused
    refused = fast.post("/api/games/nosuchgame/undo", headers=headers)
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
    assert refused.json()["error"].startswith("too many changes")
    form = fast.post("/play/nosuchgame/guess", data={"csrf": token_of(fast.get("/").text), "code": "RRGG"})
    assert form.status_code == 429 and "text/html" in form.headers["content-type"] and "Retry-After" in form.headers
    clock.now += 1  # ten a second come back
    assert fast.post("/api/games/nosuchgame/undo", headers=headers).status_code == 404

    steady, steady_headers = session_client(app)  # the same address, another session: a player's pace

    def new_game() -> dict[str, Any]:
        answer = steady.post("/api/games", json={"practice": True, "rows": 100}, headers=steady_headers)
        assert answer.status_code == 201
        return dict(answer.json())

    game, guessed = new_game(), False
    for n in range(3 * burst):
        clock.now += 0.5  # two moves a second, a fast human's pace
        if n % 10 == 9:  # and a new game now and then
            game, guessed = new_game(), False
        elif guessed:  # the guess taken back
            assert steady.post(f"/api/games/{game['id']}/undo", headers=steady_headers).status_code == 200
            guessed = False
        else:
            answer = steady.post(f"/api/games/{game['id']}/guesses", json={"code": "RRGG"}, headers=steady_headers)
            assert answer.status_code == 200
            guessed = answer.json()["status"] == "playing"
            if not guessed:  # the guess broke the code (1 secret in 1,296): the player starts another game
                game = new_game()


def test_a_burst_of_games_and_live_matches_started_is_refused(url: str) -> None:
    clock = Clock()
    app = create_app(url, share=FairShare(clock=clock))
    starter, headers = session_client(app)
    burst, _ = WEB_WRITES_PER_SESSION
    for n in range(burst):
        if n % 2:
            assert starter.post("/api/games", json={"practice": True}, headers=headers).status_code == 201
        else:
            assert starter.post("/api/live", json={"games": 2}, headers=headers).status_code == 201
    for path, body in [("/api/games", {"practice": True}), ("/api/live", {"games": 2}), ("/api/matches", {})]:
        refused = starter.post(path, json=body, headers=headers)
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1", path
    page = starter.post("/play", data={"csrf": token_of(starter.get("/").text), "variant": "classic"})
    assert page.status_code == 429 and "text/html" in page.headers["content-type"]
    other, other_headers = session_client(app)  # another player at the same address starts as ever
    assert other.post("/api/games", json={"practice": True}, headers=other_headers).status_code == 201
    clock.now += 1
    assert starter.post("/api/games", json={"practice": True}, headers=headers).status_code == 201


def test_changes_are_limited_per_address_whatever_the_cookies(url: str) -> None:
    app = create_app(url, share=FairShare(clock=Clock()), trust_proxies=("127.0.0.1",))  # behind a proxy
    proxy = TestClient(app, base_url=SITE, client=("127.0.0.1", 50000))
    burst, _ = WEB_WRITES_PER_ADDRESS
    paths = ["/api/games/x/guesses", "/api/games", "/api/live", "/api/live/x/join", "/play", "/api/login"]

    def post(n: int, address: str) -> int:
        proxy.cookies.clear()  # no session: only the address counts
        path = paths[n % len(paths)]
        return proxy.post(path, json={}, headers={"X-Forwarded-For": address}).status_code

    assert 429 not in {post(n, "198.51.100.7") for n in range(burst)}
    refused = proxy.post("/api/games", json={}, headers={"X-Forwarded-For": "198.51.100.7"})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert 429 not in {post(n, f"2001:db8:1:2::{n:x}") for n in range(burst)}  # one home's IPv6 addresses...
    assert post(1, "2001:db8:1:2:ffff::1") == 429  # ... are one /64, counted as one
    assert post(0, "203.0.113.9") == 401  # another address is not limited (no session: 401)


# -- analyses ----------------------------------------------------------------------------------------


def test_analyses_worked_out_past_the_limit_are_refused_but_cached_answers_are_not(url: str) -> None:
    app = create_app(url, share=FairShare(clock=Clock()))
    browser, _ = session_client(app)
    burst, _ = WEB_ANALYSES_PER_SESSION
    assert browser.get("/api/strategies", params=TINY).json()["results"][0]["cached"] is False  # one worked out
    for _ in range(burst - 1):
        assert browser.post("/api/analyse", json={**TINY, "scored": ["AB 0 1"]}).status_code == 200
    refused = browser.post("/api/analyse", json={**TINY, "scored": ["AB 0 1"]})
    assert refused.status_code == 429 and refused.headers["Retry-After"] == "2"
    assert refused.json()["error"].startswith("too many analyses")
    page = browser.get("/analyse", params={**TINY, "scored": "AB 0 1"})
    assert page.status_code == 429 and "text/html" in page.headers["content-type"]
    assert browser.get("/strategies", params={"pegs": 2, "colors": 4}).status_code == 429  # a tree to build
    cached = browser.get("/api/strategies", params=TINY)
    assert cached.status_code == 200 and all(s["cached"] for s in cached.json()["results"])
    assert browser.get("/strategies", params=TINY).status_code == 200
    assert browser.post("/api/analyse", json={**TINY, "scored": ["AB 9 9"]}).status_code == 400  # bad input as ever


def test_a_worker_analyses_one_request_at_once_and_the_next_wait_their_turn_fairly(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg.analysis import tree

    share = FairShare(waiting=3)
    app = create_app(url, share=share)
    assert TestClient(app).get("/api/strategies", params=TINY).status_code == 200  # kept for later
    entered: queue.Queue[tuple[int, int]] = queue.Queue()
    release = {
        (2, 4): threading.Event(),
        (2, 5): threading.Event(),
        (3, 2): threading.Event(),
        (4, 2): threading.Event(),
    }
    build = tree.build_tree

    def held(strategy: object, rules: object, *args: object, **kwargs: object) -> object:
        size = (rules.pegs, rules.colors)  # type: ignore[attr-defined]
        if not release[size].is_set():
            entered.put(size)
            assert release[size].wait(60)
        return build(strategy, rules, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree, "build_tree", held)
    answers: list[int] = []

    def ask(address: str, pegs: int, colors: int) -> threading.Thread:
        """A client at ``address`` asks in a thread for trees to build; the number waiting is awaited."""
        client = TestClient(app, client=(address, 50000))
        waiting = share.waiting()
        asked = threading.Thread(
            target=lambda: answers.append(
                client.get("/api/strategies", params={"pegs": pegs, "colors": colors}).status_code
            )
        )
        asked.start()
        wait_until(lambda: not asked.is_alive() or share.waiting() != waiting or not entered.empty(), 60)
        return asked

    def next_in() -> tuple[int, int]:
        return entered.get(timeout=60)

    a, b, d = "198.51.100.7", "203.0.113.9", "192.0.2.1"
    asked = [ask(a, 2, 4)]
    try:
        assert next_in() == (2, 4)  # the busy client holds the place
        asked.append(ask(a, 3, 2))  # and asks again at once: it waits
        asked.append(ask(b, 2, 5))  # another client waits behind it
        assert share.waiting() == 2
        same_address = TestClient(app, client=(b, 50001))  # one waiting a client: refused at once, no waiting
        busy = same_address.post("/api/analyse", json={**TINY, "scored": ["AB 0 1"]})
        assert busy.status_code == 429 and busy.headers["Retry-After"] == str(WEB_BUSY_RETRY)
        assert "busy" in busy.json()["error"]
        asked.append(ask(d, 4, 2))
        assert share.waiting() == 3
        late = TestClient(app, client=("192.0.2.99", 50000))  # the line is full: refused at once
        assert late.get("/strategies", params={"pegs": 3, "colors": 3}).status_code == 429
        assert late.get("/api/strategies", params=TINY).status_code == 200  # a cached answer never waits
        player, headers = session_client(app)  # light requests answer meanwhile
        game = player.post("/api/games", json={"practice": True}, headers=headers)
        assert game.status_code == 201
        guess = player.post(f"/api/games/{game.json()['id']}/guesses", json={"code": "RRGG"}, headers=headers)
        assert guess.status_code == 200 and player.get("/api/session").status_code == 200

        release[(2, 4)].set()
        assert next_in() == (2, 5)  # the other client first: never the same one twice in a row while others wait
        release[(2, 5)].set()
        assert next_in() == (3, 2)  # then in the order they came
        release[(3, 2)].set()
        assert next_in() == (4, 2)
    finally:
        for event in release.values():
            event.set()
        for thread in asked:
            thread.join(60)
    assert answers == [200] * 4 and share.waiting() == 0
    assert TestClient(app).post("/api/analyse", json={**TINY, "scored": ["AB 0 1"]}).status_code == 200  # free again


def test_an_analysis_that_waited_its_turn_still_has_its_whole_budget(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.requests import Request

    from keypeg.analysis import tree
    from keypeg.analysis.compare import Comparison
    from keypeg.rules import Rules
    from keypeg.web import analysis_api

    share = FairShare()
    app = create_app(url, share=share)
    entered, release = threading.Event(), threading.Event()
    build = tree.build_tree

    def held(strategy: object, rules: Rules, *args: object, **kwargs: object) -> object:
        if rules.colors == 4 and not release.is_set():
            entered.set()
            assert release.wait(60)
        return build(strategy, rules, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(tree, "build_tree", held)
    found: dict[str, object] = {}

    def ask(address: str, rules: Rules) -> threading.Thread:
        scope = {"type": "http", "app": app, "method": "GET", "path": "/", "headers": [], "client": (address, 1)}

        def run() -> None:
            try:
                found[address] = analysis_api.strategies(Request(scope), rules)
            except Exception as error:  # looked at below
                found[address] = error

        asked = threading.Thread(target=run)
        asked.start()
        return asked

    asked = [ask("198.51.100.7", Rules(2, 4))]
    try:
        assert entered.wait(60), "the first analysis never started"
        asked.append(ask("203.0.113.9", Rules(2, 5)))
        wait_until(lambda: share.waiting() != 0, 60)
        assert share.waiting() == 1
        now = time.monotonic
        monkeypatch.setattr(time, "monotonic", lambda: now() + 60)  # it waits a minute, far past a budget
    finally:
        release.set()
        for thread in asked:
            thread.join(60)
    waited = found["203.0.113.9"]
    assert isinstance(waited, Comparison) and waited.summaries, waited
    assert not [why for _, why in waited.left_out if "left" in why]  # no budget spent waiting


def test_an_analysis_waits_a_bounded_time_then_is_refused_and_leaves_the_line() -> None:
    share = FairShare(patience=0.05)
    with share.analysis(Who(None, "198.51.100.7")) as holder:
        holder()
        with pytest.raises(ThrottledError, match="busy") as refused, share.analysis(Who(None, "203.0.113.9")) as gate:
            gate()
        assert refused.value.retry_after == WEB_BUSY_RETRY and share.waiting() == 0
    with share.analysis(Who(None, "203.0.113.9")) as gate:  # the place is free again, at once
        gate()
        assert share.waiting() == 0


# -- event streams ------------------------------------------------------------------------------------


@pytest.fixture
def server(url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """The app behind a proxy it trusts (the loopback), served by uvicorn in a thread; a stream notices a
    client gone within a second. The address and the port."""
    from keypeg.web import live as web_live

    monkeypatch.setattr(web_live, "KEEPALIVE", 1.0)
    with app_in_thread(create_app(url, trust_proxies=("127.0.0.1",))) as base:
        yield base, int(base.rsplit(":", 1)[1])


def open_stream(
    port: int, match: str, address: str, cookie: str | None = None, path: str = "/api/live/{}/events"
) -> tuple[socket.socket, str]:
    """An event stream of ``match`` (a room's with ``path="/api/rooms/{}/stream"``) asked for by a client at
    ``address`` (forwarded by the proxy): the connection, and the answer's status line and headers."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=30)
    lines = [f"GET {path.format(match)} HTTP/1.1", "Host: keypeg.test", f"X-Forwarded-For: {address}"]
    lines += [f"Cookie: keypeg_session={cookie}"] if cookie else []
    conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        assert chunk, "the server closed the connection"
        head += chunk
    return conn, head.split(b"\r\n\r\n")[0].decode()


def test_event_streams_are_limited_per_address_and_per_session(server: tuple[str, int]) -> None:
    base, port = server
    ann = httpx.Client(base_url=base, timeout=30)
    csrf = {"X-CSRF-Token": ann.get("/api/session").json()["csrf"]}
    match = ann.post("/api/live", json={"pegs": 3, "colors": 5, "games": 2}, headers=csrf).json()["id"]
    held: list[socket.socket] = []
    try:
        for _ in range(WEB_STREAMS_PER_ADDRESS):
            conn, head = open_stream(port, match, "198.51.100.7")
            held.append(conn)
            assert head.startswith("HTTP/1.1 200"), head
        conn, head = open_stream(port, match, "198.51.100.7")
        conn.close()
        assert head.startswith("HTTP/1.1 429") and "retry-after:" in head.lower(), head
        conn, head = open_stream(port, match, "203.0.113.9")  # another address still gets its stream
        held.append(conn)
        assert head.startswith("HTTP/1.1 200"), head

        held.pop(0).close()  # one page closed: its place is free again once the server notices
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            conn, head = open_stream(port, match, "198.51.100.7")
            held.append(conn)
            if head.startswith("HTTP/1.1 200"):
                break
            held.pop().close()
        assert head.startswith("HTTP/1.1 200"), head

        cookie = ann.cookies["keypeg_session"]
        for _ in range(WEB_STREAMS_PER_SESSION):
            conn, head = open_stream(port, match, "192.0.2.1", cookie)
            held.append(conn)
            assert head.startswith("HTTP/1.1 200"), head
        conn, head = open_stream(port, match, "192.0.2.2", cookie)  # the same session from elsewhere
        conn.close()
        assert head.startswith("HTTP/1.1 429"), head
        conn, head = open_stream(port, match, "192.0.2.1")  # the same address, another visitor
        held.append(conn)
        assert head.startswith("HTTP/1.1 200"), head
    finally:
        for conn in held:
            conn.close()
        ann.close()


def test_a_rooms_streams_are_limited_per_address(server: tuple[str, int]) -> None:
    """README's fair shares hold for rooms' streams too: the 101st from one address is 429."""
    base, port = server
    ann = httpx.Client(base_url=base, timeout=30)
    csrf = {"X-CSRF-Token": ann.get("/api/session").json()["csrf"]}
    room = ann.post("/api/rooms", json={"pegs": 2, "colors": 3, "nickname": "ann"}, headers=csrf).json()["id"]
    held: list[socket.socket] = []
    path = "/api/rooms/{}/stream"
    try:
        for _ in range(WEB_STREAMS_PER_ADDRESS):
            conn, head = open_stream(port, room, "198.51.100.7", path=path)
            held.append(conn)
            assert head.startswith("HTTP/1.1 200"), head
        conn, head = open_stream(port, room, "198.51.100.7", path=path)
        conn.close()
        assert head.startswith("HTTP/1.1 429") and "retry-after:" in head.lower(), head
    finally:
        for conn in held:
            conn.close()
        ann.close()
