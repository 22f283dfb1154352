"""Live matches between two people: the play layer's rules (turns, points, forfeits, who sees a code),
the API from two players and a spectator, and the live streams (server-sent events) of a real server:
every move reaches the other side, a dropped stream resumes the same state, and neither the
codebreaker's nor a spectator's stream ever holds a code before its game ends."""

from __future__ import annotations

import json
import os
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from conftest import app_in_thread, code_shown, keypeg_serve, unavailable, wait_until
from keypeg import Rules, score
from keypeg.errors import IllegalMoveError
from keypeg.knowledge import Knowledge
from keypeg.play import live as live_rules
from keypeg.play.live import LiveMatch
from keypeg.store import Store
from keypeg.web import create_app

RULES = Rules(3, 5)
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_turns_points_and_what_each_viewer_sees() -> None:
    live = LiveMatch.new(RULES, games=2, first="ann")
    with pytest.raises(IllegalMoveError):
        live.set_secret("ann", "ABC")  # nobody to play yet
    live.join("bob", now=NOW)
    with pytest.raises(IllegalMoveError):
        live.join("cid", now=NOW)
    with pytest.raises(IllegalMoveError):
        live.set_secret("bob", "ABC")  # ann makes the first code
    game = live.set_secret("ann", "EDA")
    live.started(7, now=NOW)
    for viewer in ("bob", None, "cid"):
        assert not code_shown(RULES, "EDA", json.dumps(live.view(viewer, game, NOW)))
    assert live.view("ann", game, NOW)["current"]["secret"] == "EDA"
    with pytest.raises(IllegalMoveError):
        live.guess("ann", game, "EDA", now=NOW)  # the codemaker does not guess
    guesses = ["AAB", "CCD", "EDA"]
    for code in guesses:
        assert live.guess("bob", game, code, now=NOW) == score(RULES.parse("EDA"), RULES.parse(code))
    assert live.points() == {"ann": 3, "bob": 0} and live.roles() == ("bob", "ann")
    game = live.set_secret("bob", "BBB")
    live.started(8, now=NOW)
    live.resign("ann", game, NOW)  # the codebreaker gives up: the code held through every row
    assert live.points() == {"ann": 3, "bob": RULES.rows + 1} and live.is_over
    assert live.view(None, None, NOW)["winner"] == "bob"
    again = LiveMatch.from_state(json.loads(json.dumps(live.to_state())))
    assert again.points() == live.points() and again.notes == live.notes and again.is_over
    waiting = LiveMatch.new(RULES, games=2, first="bob")
    assert live_rules.standing("bob", [again, waiting]) == live_rules.Standing(1, 1, 0, 0, RULES.rows + 1, 3)
    assert live_rules.standing("ann", [again]) == live_rules.Standing(1, 0, 1, 0, 3, RULES.rows + 1)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'live.sqlite3'}"


class Player:
    """A browser of the API: its cookie and CSRF header."""

    def __init__(self, client: TestClient | httpx.Client, name: str | None = None) -> None:
        self.client = client
        self.headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
        if name is not None:
            made = client.post("/api/players", json={"name": name, "password": "long enough pw"}, headers=self.headers)
            self.headers = {"X-CSRF-Token": made.json()["csrf"]}

    def post(self, path: str, body: object = None) -> httpx.Response:
        return self.client.post(path, json=body, headers=self.headers)


def break_code(player: Player, match: str, rules: Rules) -> list[dict[str, object]]:
    """Guess, by the scores the server gives, until the game ends; the states seen."""
    seen = []
    history: list[tuple[object, object]] = []
    while True:
        guess = Knowledge(rules, tuple(history)).codes(limit=1)[0]  # type: ignore[arg-type]
        state = player.post(f"/api/live/{match}/guesses", {"code": str(guess)}).json()
        seen.append(state)
        current = state.get("current")
        if not current or current["number"] != len(state["played"]) + 1:
            return seen
        last = current["history"][-1]
        history.append((guess, rules.check_feedback(__import__("keypeg").Feedback(last["black"], last["white"]))))


def test_a_guests_nickname_follows_the_rooms_rule(url: str) -> None:
    """One nickname rule for live matches and rooms: 1-32 characters, never the computer's label, a
    registered player's name or a look-alike, nor the name the other seat is shown by."""
    app = create_app(url)
    Player(TestClient(app, base_url="https://keypeg.test"), "ann")  # registered
    kim, lee = (Player(TestClient(app, base_url="https://keypeg.test")) for _ in range(2))
    rules = {"pegs": 3, "colors": 4, "games": 2}
    for nickname, status in (("computer", 400), ("level 2", 400), ("ANN", 409), ("Ann", 409), ("k" * 33, 422)):
        answer = kim.post("/api/live", rules | {"nickname": nickname})
        assert answer.status_code == status, (nickname, answer.text)
    made = kim.post("/api/live", rules | {"nickname": "Kim"}).json()
    for nickname in ("Kim", "KIM", "ann"):
        answer = lee.post(f"/api/live/{made['id']}/join", {"token": made["token"], "nickname": nickname})
        assert answer.status_code == 409, (nickname, answer.text)
    joined = lee.post(f"/api/live/{made['id']}/join", {"token": made["token"], "nickname": "Lee"})
    assert joined.status_code == 200 and joined.json()["names"] == {
        s: n for s, n in zip(joined.json()["seats"], ["Kim (guest)", "Lee (guest)"], strict=True)
    }


def test_a_whole_match_between_two_players_and_a_spectator(url: str) -> None:
    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    bob = Player(TestClient(app, base_url="https://keypeg.test"), "bob")
    eve = Player(TestClient(app, base_url="https://keypeg.test"))
    guest = Player(TestClient(app, base_url="https://keypeg.test"))
    other = guest.post("/api/live", {"pegs": 3, "colors": 5, "games": 2, "nickname": "<b>Zoe</b>"}).json()
    assert other["names"][other["seats"][0]] == "<b>Zoe</b> (guest)"
    page = guest.client.get(f"/live/{other['id']}").text
    assert "&lt;b&gt;Zoe&lt;/b&gt; (guest)" in page and "<b>Zoe" not in page
    assert guest.post("/api/live", {"games": 2, "nickname": "bad\u202ename"}).status_code == 400
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2, "nickname": "ignored: ann is registered"})
    assert made.status_code == 201
    match, token = made.json()["id"], made.json()["token"]
    assert bob.post(f"/api/live/{match}/join", {"token": "0" * 32}).status_code == 403
    assert ann.post(f"/api/live/{match}/join", {"token": token}).json()["seats"] == ["ann"]  # no game with oneself
    assert bob.post(f"/api/live/{match}/join", {"token": token}).json()["seats"] == ["ann", "bob"]
    assert eve.post(f"/api/live/{match}/join", {"token": token}).status_code == 400  # the seat is taken
    assert eve.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 403
    assert bob.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 400  # not his turn
    refused = ann.post(f"/api/live/{match}/secret", {"code": "EDAX"})
    assert refused.status_code == 400 and "EDAX" not in refused.text
    watched: list[str] = []
    for maker, breaker, code in ((ann, bob, "EDA"), (bob, ann, "CEB")):
        assert maker.post(f"/api/live/{match}/secret", {"code": code}).status_code == 200
        assert maker.client.get(f"/api/live/{match}").json()["current"]["secret"] == code
        pages = [p.client.get(f"/live/{match}") for p in (maker, breaker, eve)]
        assert [p.status_code for p in pages] == [200, 200, 200]
        assert "Your turn" in pages[1].text and "Waiting for" in pages[0].text
        watched = [eve.client.get(f"/api/live/{match}").text, pages[2].text, pages[1].text]
        seen = [json.dumps(s) for s in break_code(breaker, match, RULES)]
        after = eve.client.get(f"/api/live/{match}").json()  # the game is over: now its code is shown
        assert after["last"]["code"] == code and after["last"]["broken"]
        for text in seen[:-1] + watched:
            assert not code_shown(RULES, code, text)
    final = eve.client.get(f"/api/live/{match}").json()
    assert final["over"] and sum(final["scores"].values()) == sum(g["guesses"] for g in final["played"])
    for name, player in (("ann", ann), ("bob", bob)):
        games = player.client.get("/api/history").json()
        assert len(games) == 2 and {g["player"] for g in games} == {"ann", "bob"}
        assert {g["maker"] for g in games} == {"ann", "bob"}, name
    assert len(Store(url).games.history(limit=None)) == 2
    listing = ann.client.get("/live")
    assert listing.status_code == 200 and f"/live/{match}" in listing.text
    winner = final["winner"]
    for name, player in (("ann", ann), ("bob", bob)):
        mine, theirs = final["scores"][name], final["scores"]["bob" if name == "ann" else "ann"]
        record = (
            "1 won, 0 lost, 0 drawn"
            if winner == name
            else "0 won, 0 lost, 1 drawn"
            if winner is None
            else "0 won, 1 lost"
        )
        page = player.client.get("/players").text
        assert f"1 finished: {record}" in page and f"{mine} points for you, {theirs} against" in page


# -- a real server and its live streams -------------------------------------------------------------


class Stream:
    """A follower of a match's live stream, in a thread: the states it received."""

    def __init__(self, client: httpx.Client, match: str) -> None:
        self.states: list[dict[str, object]] = []
        self.raw: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, args=(client, match), daemon=True)
        self.thread.start()

    def run(self, client: httpx.Client, match: str) -> None:
        try:
            with client.stream("GET", f"/api/live/{match}/events", timeout=httpx.Timeout(30, read=30)) as answer:
                kind = ""  # the event's name: a state, or a keep-alive ("alive")
                for line in answer.iter_lines():
                    self.raw.append(line)
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: ") and kind == "state":
                        self.states.append(json.loads(line[6:]))
                    if self.stop.is_set():
                        return
        except httpx.HTTPError:
            return  # the server stopped at the end of the test

    def wait_for(self, seen: dict[str, object], timeout: float = 30.0) -> dict[str, object]:
        """The first state the stream received that is as far on as ``seen`` (a state some player was
        answered with): the same games played and at least the same guesses in the game being played."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = [s for s in list(self.states) if progress(s) >= progress(seen)]
            if found:
                return found[0]
            time.sleep(0.005)
        raise AssertionError(f"{progress(seen)} never arrived; last {self.states[-1:]}")


def progress(state: dict[str, object]) -> tuple[int, int, int]:
    current = state.get("current") or {}
    return len(state["played"]), int(bool(current)), len(current.get("history", []))  # type: ignore[arg-type, union-attr]


def play_streamed(base: str) -> None:
    """Two players and a spectator on ``base``: each move reaches the others' streams; a dropped stream
    resumes the same state; no stream but the codemaker's holds the code before its game ends."""
    ann, bob, eve = (Player(httpx.Client(base_url=base, timeout=30)) for _ in range(3))
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()
    match = made["id"]
    bob.post(f"/api/live/{match}/join", {"token": made["token"]})
    streams = {name: Stream(p.client, match) for name, p in (("ann", ann), ("bob", bob), ("eve", eve))}
    for maker, breaker, code, maker_name in ((ann, bob, "EDA", "ann"), (bob, ann, "CEB", "bob")):
        set_code = maker.post(f"/api/live/{match}/secret", {"code": code}).json()
        for stream in streams.values():
            assert stream.wait_for(set_code)["turn"] != maker_name  # the codebreaker's turn now, everywhere
        for state in break_code(breaker, match, RULES):
            for stream in streams.values():
                arrived = stream.wait_for(state)
                if progress(arrived) == progress(state):  # the move itself, as the player was told it
                    assert arrived["scores"] == state["scores"]
                    shown = dict(arrived.get("current") or {})
                    shown.pop("secret", None)
                    told = dict(state.get("current") or {})
                    told.pop("secret", None)
                    assert shown == told
        for name, stream in streams.items():
            if name != maker_name:
                during = [json.dumps(s) for s in stream.states if s.get("current")]
                assert not any(code_shown(RULES, code, text) for text in during)
    streams["eve"].stop.set()
    again = Stream(eve.client, match)  # a spectator who lost the connection comes back to the same state
    final = again.wait_for({"played": [0, 0], "current": None})
    assert final["over"] and final["scores"] == streams["ann"].states[-1]["scores"]


@pytest.mark.slow
def test_live_streams_on_one_worker(tmp_path: Path) -> None:
    with keypeg_serve(f"sqlite:///{tmp_path / 'live.sqlite3'}", tmp_path) as running:
        play_streamed(running.base)


@pytest.mark.slow
def test_live_streams_across_two_workers_on_postgresql(tmp_path: Path) -> None:
    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    store = Store(url)
    with store.engine.begin() as connection:
        from sqlalchemy import text

        connection.execute(text("TRUNCATE guesses, games, matches, web_sessions RESTART IDENTITY CASCADE"))
    with keypeg_serve(url, tmp_path, workers=2) as running:
        play_streamed(running.base)


def _down(*_args: object, **_kwargs: object) -> object:
    from keypeg.store import StoreUnavailableError

    raise StoreUnavailableError("cannot use the database: connection refused")


def _moved_on(*_args: object, **_kwargs: object) -> object:
    from keypeg.store import MovedOnError

    raise MovedOnError("the match was moved on elsewhere meanwhile")


def test_a_store_down_during_a_live_move_is_503_and_a_match_moved_on_is_409(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg.store.live import LiveWrite

    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    bob = Player(TestClient(app, base_url="https://keypeg.test"), "bob")
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()
    match = made["id"]
    bob.post(f"/api/live/{match}/join", {"token": made["token"]})
    with monkeypatch.context() as outage:  # the move's write (the new game, with the match's) fails
        outage.setattr(LiveWrite, "start_game", _down)
        refused = ann.post(f"/api/live/{match}/secret", {"code": "EDA"})
        assert refused.status_code == 503 and unavailable(refused.json()["error"])
        page_csrf = ann.client.get(f"/live/{match}").text.split('name="csrf" value="')[1].split('"')[0]
        form = ann.client.post(f"/live/{match}/secret", data={"csrf": page_csrf, "code": "EDA"})
        assert form.status_code == 503 and unavailable(form.text)
    with monkeypatch.context() as moved:  # another request moved the match on, every time: a conflict
        moved.setattr(LiveWrite, "save", _moved_on)
        conflict = ann.post(f"/api/live/{match}/secret", {"code": "EDA"})
        assert conflict.status_code == 409 and "reload" in conflict.json()["error"]
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200
    with monkeypatch.context() as outage:  # the game's write fails as the codebreaker guesses
        outage.setattr(LiveWrite, "update_game", _down)
        refused = bob.post(f"/api/live/{match}/guesses", {"code": "ABC", "row": 1})
        assert refused.status_code == 503 and unavailable(refused.json()["error"])
    assert bob.post(f"/api/live/{match}/guesses", {"code": "ABC", "row": 1}).json()["current"]["history"]
    assert bob.post(f"/api/live/{match}/guesses", {"code": "ABC", "row": 1}).status_code == 409  # sent twice


def test_following_a_match_while_the_store_is_down_is_503_not_404(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.store.live import LiveMatches

    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    match = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()["id"]
    assert ann.client.get("/api/live/nosuchmatch/events").status_code == 404
    eve = Player(TestClient(app, base_url="https://keypeg.test"))  # a spectator, with a guest's cookie
    nobody = TestClient(app, base_url="https://keypeg.test")  # a spectator with no cookie
    monkeypatch.setattr(LiveMatches, "get", _down)
    for path in (f"/api/live/{match}/events", "/api/live/nosuchmatch/events", f"/api/live/{match}"):
        for client in (ann.client, eve.client, nobody):
            failed = client.get(path)
            assert failed.status_code == 503 and unavailable(failed.json()["error"]), path


class Failing:
    """A read of ``LiveMatches`` (``get``, or ``within``: a stream's shared read) that fails (the store down)
    the next ``left`` times one of them is called, then works."""

    def __init__(self, real: object) -> None:
        self.real, self.left, self.lock = real, 0, threading.Lock()

    def get(self, real: object = None) -> object:
        """The method to put in place of ``LiveMatches.get`` (or of ``real``, sharing the count)."""

        def get(matches: object, public_id: str, *more: object, **named: object) -> object:
            with self.lock:
                down = self.left > 0
                self.left -= down
            if down:
                _down()
            return (real or self.real)(matches, public_id, *more, **named)  # type: ignore[operator]

        return get


def test_a_stream_survives_a_store_down_for_a_moment(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """An open stream whose reads find the store down (a change announced, or the store's own failure)
    sends keep-alives, reads again and, once the store is back, delivers the next change (it ended at the
    first store error before); a store down for good ends it (the page's script reconnects)."""

    from keypeg.store.live import LiveMatches
    from keypeg.web import live as web_live

    monkeypatch.setattr(web_live, "KEEPALIVE", 0.2)
    monkeypatch.setattr(web_live, "STORE_BACKOFF", 0.05)
    failing = Failing(LiveMatches.get)
    monkeypatch.setattr(LiveMatches, "get", failing.get())
    monkeypatch.setattr(LiveMatches, "within", failing.get(LiveMatches.within))
    app = create_app(url)
    with app_in_thread(app) as base:
        ann, bob = (Player(httpx.Client(base_url=base, timeout=30)) for _ in range(2))
        made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()
        match = made["id"]
        joined = bob.post(f"/api/live/{match}/join", {"token": made["token"]}).json()
        stream = Stream(bob.client, match)
        stream.wait_for(joined)
        store_id = Store(url).live.get(match).id
        failing.left = web_live.STORE_RETRIES  # as many reads in a row as a stream takes
        app.state.live_feed.bus.wake(store_id)  # a change announced: the stream reads the match (keep-alives do not)
        assert wait_until(lambda: failing.left <= 0, 30), "the stream stopped reading the match"
        assert "event: alive" in stream.raw  # keep-alives meanwhile (the page's script watches for them)
        set_code = ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).json()
        assert stream.wait_for(set_code, timeout=10)["turn"] == joined["seats"][1] and stream.thread.is_alive()
        failing.left = 10**9  # down for good: the stream ends, soon
        app.state.live_feed.bus.wake(store_id)
        stream.thread.join(timeout=30)
        assert not stream.thread.is_alive()
        failing.left = 0
