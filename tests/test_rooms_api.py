"""Rooms, the JSON API end to end (/api/rooms): sessions and CSRF as /api/live, a guest's seat, the
errors' statuses, OpenAPI, and the room's event stream on a real server (every move reaches the
followers; a spectator's stream never holds a guess or a code of the round in play)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from conftest import app_in_thread, wait_until
from keypeg.web import create_app
from keypeg.web import live as web_live

BODY = {"pegs": 3, "colors": 4, "rows": 6, "rounds": 1}


class Quiet:
    """A fan-out that tells nobody (the tests read a room straight from the store)."""

    def changed(self, kind: str, key: int) -> None:
        pass


def code_in_play(url: str, public_id: str) -> str:
    """The code of the room's round in play, read from the store (no face shows it)."""
    from keypeg.services import rooms
    from keypeg.store import Store

    current = rooms.shared(Store(url), Quiet(), public_id).room.current
    assert current is not None and current.code is not None
    return current.code


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

    def get(self, path: str) -> Any:
        return self.client.get(path).json()


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'rooms.sqlite3'}"


def test_a_room_through_the_api(url: str) -> None:
    app = create_app(url)
    ann, bob = (Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", "bob"))
    guest, eve = (Player(TestClient(app, base_url="https://keypeg.test")) for _ in range(2))
    assert ann.client.post("/api/rooms", json=BODY).status_code == 403  # no CSRF token
    assert ann.post("/api/rooms", BODY | {"maker": "anyone"}).status_code == 422
    assert ann.post("/api/rooms", BODY | {"move_seconds": 1}).status_code == 400
    made = ann.post("/api/rooms", BODY | {"rounds": 2})
    assert made.status_code == 201
    room = made.json()
    public_id, token = room["id"], room["token"]
    assert room["join"] == f"/rooms/{public_id}/join?token={token}" and room["watch"] == f"/rooms/{public_id}"
    assert room["room"]["status"] == "waiting" and room["host"] == "ann" and room["you"] == "ann"
    assert eve.client.get("/api/rooms/nope").status_code == 404
    assert bob.post(f"/api/rooms/{public_id}/join", {"token": "0" * 32}).status_code == 403
    assert bob.post(f"/api/rooms/{public_id}/join", {"token": token}).json()["you"] == "bob"
    joined = guest.post(f"/api/rooms/{public_id}/join", {"token": token, "nickname": "Kim"}).json()
    assert joined["seats"][2]["name"] == "Kim (guest)" and joined["seats"][2]["guest"]
    assert bob.post(f"/api/rooms/{public_id}/start").status_code == 403  # only the host
    assert eve.post(f"/api/rooms/{public_id}/start").status_code == 403
    started = ann.post(f"/api/rooms/{public_id}/start").json()
    assert started["room"]["status"] == "playing" and started["round"]["number"] == 1
    assert eve.post(f"/api/rooms/{public_id}/join", {"token": token}).status_code == 400  # started
    first = bob.post(f"/api/rooms/{public_id}/guesses", {"guess": "AAB", "row": 1})
    assert first.status_code == 200 and first.json()["board"]["rows"][0]["guess"] == "AAB"
    assert bob.post(f"/api/rooms/{public_id}/guesses", {"guess": "AAB", "row": 1}).status_code == 409
    assert bob.post(f"/api/rooms/{public_id}/guesses", {"guess": "AAX"}).status_code == 400
    assert eve.post(f"/api/rooms/{public_id}/guesses", {"guess": "AAB"}).status_code == 403
    watched = eve.get(f"/api/rooms/{public_id}")
    assert watched["you"] is None and watched["board"] is None and "join" not in watched["links"]
    assert (
        "AAB" not in json.dumps(watched)
        and watched["round"]["boards"][1]["rows"] == first.json()["round"]["boards"][1]["rows"]
    )
    assert ann.post(f"/api/rooms/{public_id}/code", {"code": "ABC"}).status_code == 400  # the computer's round
    assert bob.post(f"/api/rooms/{public_id}/kick", {"player": "ann"}).status_code == 403
    kicked = ann.post(f"/api/rooms/{public_id}/kick", {"player": "bob"}).json()
    assert kicked["seats"][1]["status"] == "kicked" and kicked["links"]["token"] != token  # the link renewed
    assert bob.post(f"/api/rooms/{public_id}/join", {"token": token}).status_code == 403
    left = guest.post(f"/api/rooms/{public_id}/leave").json()
    assert left["seats"][2]["status"] == "left"
    assert left["links"]["token"] != token  # a player who left sees the new one, and the old one takes them back
    assert guest.post(f"/api/rooms/{public_id}/join", {"token": token}).json()["seats"][2]["status"] == "present"
    resigned = ann.post(f"/api/rooms/{public_id}/resign").json()  # every board over: round 2, the guest back in it
    assert resigned["last_round"]["boards"][0]["ended"] == "resigned" and resigned["round"]["number"] == 2
    boards = {b["player"]: b["ended"] for b in resigned["round"]["boards"]}  # the kicked bob's given up at once
    assert boards == {"ann": None, "bob": "absent", joined["seats"][2]["player"]: None}
    stale = guest.post(f"/api/rooms/{public_id}/guesses", {"guess": "ABC", "row": 1, "round": 1})
    assert stale.status_code == 409 and "round 1" in stale.json()["error"]  # a guess of round 1, after it (F8)
    played = guest.post(f"/api/rooms/{public_id}/guesses", {"guess": "ABC", "row": 1, "round": 2})
    assert played.status_code == 200 and played.json()["board"]["rows"][0]["guess"] == "ABC"
    if not played.json()["board"]["over"]:  # the page's form names the round too
        assert '<input type="hidden" name="round" value="2">' in guest.client.get(f"/rooms/{public_id}").text
    closed = ann.post(f"/api/rooms/{public_id}/close").json()
    assert closed["over"] and closed["room"]["closed"] and closed["last_round"]["closed"]
    assert "AAB" in json.dumps(eve.get(f"/api/rooms/{public_id}")["rounds"])  # ended: shown to all
    paths = eve.get("/openapi.json")["paths"]
    for path in ("", "/{room_id}", "/{room_id}/join", "/{room_id}/guesses", "/{room_id}/stream", "/{room_id}/kick"):
        assert f"/api/rooms{path}" in paths


def test_a_seated_player_comes_back_by_any_of_the_rooms_links_and_a_kicked_one_sees_none(url: str) -> None:
    """A player who left takes their seat back by the room's first link after a kick renewed it (M6); a
    stranger with an old link, and the kicked player, are refused; the kicked player is shown no join link
    (JSON, page, stream: L10)."""
    app = create_app(url)
    ann, cat, dan, eve = (
        Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", "cat", "dan", "eve")
    )
    room = ann.post("/api/rooms", BODY | {"rounds": 2}).json()
    public_id, old = room["id"], room["token"]
    for player in (cat, dan):
        assert player.post(f"/api/rooms/{public_id}/join", {"token": old}).status_code == 200
    ann.post(f"/api/rooms/{public_id}/start")
    assert cat.post(f"/api/rooms/{public_id}/leave").status_code == 200
    renewed = ann.post(f"/api/rooms/{public_id}/kick", {"player": "dan"}).json()["links"]
    assert renewed["token"] != old
    assert eve.post(f"/api/rooms/{public_id}/join", {"token": old}).status_code == 403  # a stranger's old link
    assert dan.post(f"/api/rooms/{public_id}/join", {"token": old}).status_code == 403
    assert dan.post(f"/api/rooms/{public_id}/join", {"token": renewed["token"]}).status_code == 403
    back = cat.post(f"/api/rooms/{public_id}/join", {"token": old})
    assert back.status_code == 200 and back.json()["seats"][1]["status"] == "present"
    assert "join" in back.json()["links"]
    seen = dan.get(f"/api/rooms/{public_id}")
    assert seen["you"] == "dan" and set(seen["links"]) == {"watch"}
    page = dan.client.get(f"/rooms/{public_id}").text
    assert renewed["token"] not in page and old not in page
    with dan.client.stream("GET", f"/api/rooms/{public_id}/stream") as answer:
        for line in answer.iter_lines():
            if line.startswith("data: "):
                assert set(json.loads(line[6:])["links"]) == {"watch"}
                break


class Stream:
    """A follower of a room's stream, in a thread: the views and keep-alives it received."""

    def __init__(self, client: httpx.Client, public_id: str) -> None:
        self.states: list[dict[str, Any]] = []
        self.alive: list[dict[str, Any]] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, args=(client, public_id), daemon=True)
        self.thread.start()

    def run(self, client: httpx.Client, public_id: str) -> None:
        try:
            with client.stream("GET", f"/api/rooms/{public_id}/stream", timeout=httpx.Timeout(30)) as answer:
                kind = ""
                for line in answer.iter_lines():
                    if line.startswith("event: "):
                        kind = line[7:]
                    elif line.startswith("data: "):
                        (self.states if kind == "state" else self.alive).append(json.loads(line[6:]))
                    if self.stop.is_set():
                        return
        except httpx.HTTPError:
            return

    def reached(self, version: int) -> bool:
        return any(s["version"] >= version for s in self.states)


def test_the_rooms_stream_follows_every_move(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web_live, "KEEPALIVE", 0.2)  # the one stream of live matches and rooms
    app = create_app(url)
    with app_in_thread(app) as base:
        ann, bob, eve = (Player(httpx.Client(base_url=base, timeout=30)) for _ in range(3))
        made = ann.post("/api/rooms", BODY | {"maker": "turns"}).json()
        public_id = made["id"]
        bob.post(f"/api/rooms/{public_id}/join", {"token": made["token"]})
        streams = {"ann": Stream(ann.client, public_id), "bob": Stream(bob.client, public_id)}
        streams["eve"] = Stream(eve.client, public_id)
        assert wait_until(lambda: all(s.states for s in streams.values()), 30)
        ann_id = ann.get(f"/api/rooms/{public_id}")["you"]
        views = [ann.post(f"/api/rooms/{public_id}/start").json()]
        views.append(ann.post(f"/api/rooms/{public_id}/code", {"code": "DCB"}).json())
        for guess in ("AAA", "BBB", "DCB"):
            views.append(bob.post(f"/api/rooms/{public_id}/guesses", {"guess": guess}).json())
            assert wait_until(lambda: all(s.reached(views[-1]["version"]) for s in streams.values()), 30)
        assert views[-1]["last_round"]["code"] == "DCB" and views[-1]["round"]["maker"] != ann_id
        assert wait_until(lambda: any(a["version"] >= views[-1]["version"] for a in streams["eve"].alive), 30)
        for name, stream in streams.items():
            for state in stream.states:
                if state["round"] is None or state["round"]["number"] != 1:
                    continue
                text = json.dumps(dict(state, rounds=None, last_round=None))
                assert '"DCB"' not in text or name == "ann"  # the code only to its maker
                assert '"AAA"' not in text or name == "bob"  # a guess only to its player
        for stream in streams.values():
            stream.stop.set()


def test_every_answer_carries_the_links_the_contract_says(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.services import rooms as room_services

    monkeypatch.setattr(room_services, "_draw", lambda rules: lambda: "CCC")  # no guess below breaks it by chance
    app = create_app(url)
    ann, bob, cy = (Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", "bob", "cy"))
    eve = Player(TestClient(app, base_url="https://keypeg.test"))  # a spectator, no seat
    made = ann.post("/api/rooms", BODY | {"rounds": 2}).json()
    public_id, token = made["id"], made["token"]
    seated = {"watch": f"/rooms/{public_id}", "join": f"/rooms/{public_id}/join?token={token}", "token": token}
    room = f"/api/rooms/{public_id}"
    answers: list[tuple[Player, httpx.Response]] = [
        (bob, bob.post(f"{room}/join", {"token": token})),
        (cy, cy.post(f"{room}/join", {"token": token})),
        (ann, ann.post(f"{room}/start")),
        (bob, bob.post(f"{room}/guesses", {"guess": "AAB", "row": 1})),
        (cy, cy.post(f"{room}/guesses", {"guess": "ABB"})),
        (bob, bob.post(f"{room}/resign")),
        (cy, cy.post(f"{room}/leave")),
        (cy, cy.post(f"{room}/join", {"token": token})),
        (ann, ann.post(f"{room}/kick", {"player": "cy"})),
    ]
    for who in (ann, bob, cy, eve):
        answers.append((who, who.client.get(room)))
    answers.append((ann, ann.post(f"{room}/close")))
    renewed = answers[-1][1].json()["links"]["token"]  # a kick renews the link (review F9)
    assert renewed != token
    for index, (who, answer) in enumerate(answers):
        assert answer.status_code == 200, answer.text
        view = answer.json()
        if index == 8:  # from the kick on, the new link
            seated = {"watch": seated["watch"], "join": f"/rooms/{public_id}/join?token={renewed}", "token": renewed}
        kicked = who is cy and index >= 8  # removed: shown no join link any more (review L10)
        expected = seated if view["you"] is not None and not kicked else {"watch": seated["watch"]}
        assert view["links"] == expected and (who is not eve) == (view["you"] is not None)
        if who is eve:
            assert token not in answer.text


def test_a_room_closed_or_left_before_its_start_stays_readable_as_over(url: str) -> None:
    app = create_app(url)
    ann, bob = (Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", "bob"))
    eve = Player(TestClient(app, base_url="https://keypeg.test"))
    closing = ann.post("/api/rooms", BODY).json()
    assert bob.post(f"/api/rooms/{closing['id']}/join", {"token": closing["token"]}).status_code == 200
    closed = ann.post(f"/api/rooms/{closing['id']}/close")
    assert closed.status_code == 200 and closed.json()["over"] and closed.json()["room"]["rounds"] == 0
    left = ann.post("/api/rooms", BODY).json()
    assert bob.post(f"/api/rooms/{left['id']}/join", {"token": left["token"]}).status_code == 200
    assert bob.post(f"/api/rooms/{left['id']}/leave").json()["room"]["status"] == "waiting"
    emptied = ann.post(f"/api/rooms/{left['id']}/leave")  # the last seat: over, nobody to play
    assert emptied.status_code == 200 and emptied.json()["over"] and emptied.json()["room"]["rounds"] == 0
    for public_id in (closing["id"], left["id"]):
        for who in (ann, bob, eve):
            answer = who.client.get(f"/api/rooms/{public_id}")
            assert answer.status_code == 200 and answer.json()["room"]["status"] == "over"
            assert answer.json()["round"] is None and answer.json()["rounds"] == []
        assert who.client.get(f"/rooms/{public_id}").status_code == 200  # the page too
        for who in (ann, bob):  # closed again, by its host or not, even one who left: the room is over (L7)
            again = who.post(f"/api/rooms/{public_id}/close")
            assert (again.status_code, again.json()["error"]) == (409, "the room is over")
    from keypeg.services import rooms
    from keypeg.store import Store

    store = Store(url)
    assert [r["id"] for r in rooms.rooms_of(store, "ann")] == [left["id"], closing["id"]]
    assert [(r["id"], r["status"]) for r in rooms.rooms_of(store, "bob")] == [(closing["id"], "over")]


def test_no_face_shows_a_board_of_the_round_in_play_and_each_board_is_a_room_game(url: str) -> None:
    from click.testing import CliRunner

    from keypeg.cli import cli
    from keypeg.services import rooms
    from keypeg.store import Store

    app = create_app(url)
    ann, bob = (Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", "bob"))
    pup = Player(TestClient(app, base_url="https://keypeg.test"))  # the sock puppet of F1: a guest
    made = ann.post("/api/rooms", BODY | {"rounds": 2}).json()
    public_id, token = made["id"], made["token"]
    room = f"/api/rooms/{public_id}"
    for who in (bob, pup):
        assert who.post(f"{room}/join", {"token": token, "nickname": "Pup"}).status_code == 200
    ann.post(f"{room}/start")
    store = Store(url)

    def code() -> str:
        return code_in_play(url, public_id)

    def faces_show(secret: str) -> list[str]:
        """What of the room's games every face shows: the API's history, the Players page, keypeg history."""
        found = []
        for who in (ann, bob, pup):
            games = who.get("/api/history")
            found += [f"api {g['id']}" for g in games if g["room"] == public_id or g["secret"] == secret]
        for who in (ann, bob):
            page = who.client.get("/players").text
            found += [f"page: {seen}" for seen in (">a room</a>", f">{secret}<") if seen in page]
        listed = CliRunner().invoke(cli, ["history", "--json"], env={"KEYPEG_DB": url})
        found += [f"cli {g['id']}" for g in json.loads(listed.output) if g["room"] == public_id]
        table = CliRunner().invoke(cli, ["history"], env={"KEYPEG_DB": url}).output
        found += [f"cli table: {line}" for line in table.splitlines() if "room" in line or secret in line]
        return found

    first = code()
    assert pup.post(f"{room}/resign").status_code == 200  # pup's board is over, ann's and bob's are not
    assert faces_show(first) == []
    for who in (ann, bob):
        who.post(f"{room}/resign")
    assert rooms.snapshot(store, Quiet(), public_id, None)["round"]["number"] == 2  # round 1 ended: shown
    (board,) = [g for g in bob.get("/api/history") if g["room"] == public_id]
    assert board["secret"] == first and board["outcome"] == "resigned"
    page = bob.client.get("/players").text
    assert f'<a href="/rooms/{public_id}">a room</a>' in page and "terminal" not in page
    listed = CliRunner().invoke(cli, ["history", "--player", "bob"], env={"KEYPEG_DB": url}).output
    assert "room" in listed and "practice" not in listed


def test_a_fresh_app_whose_first_request_is_a_room_move_answers_at_once(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review G7, through the app: a server restarted (a fresh app, its own store, nothing cached) whose first
    request is a guess in a room answers at once, not after the SQLite write lock it holds times out (here
    a lock is waited on 0.2 s and tried once, so a move that waits on itself fails at once)."""
    import time

    from keypeg.services import rooms as room_services
    from keypeg.store import database, plumbing

    monkeypatch.setattr(room_services, "_draw", lambda rules: lambda: "CCC")
    first = create_app(url)
    ann, bob = (Player(TestClient(first, base_url="https://keypeg.test"), n) for n in ("ann", "bob"))
    made = ann.post("/api/rooms", BODY).json()
    assert bob.post(f"/api/rooms/{made['id']}/join", {"token": made["token"]}).status_code == 200
    assert ann.post(f"/api/rooms/{made['id']}/start").status_code == 200
    pragmas = database._sqlite_pragmas

    def short_wait(connection: Any, record: Any) -> None:
        pragmas(connection, record)
        connection.execute("PRAGMA busy_timeout=200")

    monkeypatch.setattr(database, "_sqlite_pragmas", short_wait)
    monkeypatch.setattr(plumbing, "BUSY_RETRIES", 1)
    restarted = TestClient(create_app(url), base_url="https://keypeg.test", cookies=dict(bob.client.cookies))
    began = time.monotonic()
    answer = restarted.post(
        f"/api/rooms/{made['id']}/guesses", json={"guess": "AAB", "row": 1, "round": 1}, headers=bob.headers
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["board"]["rows"][0]["guess"] == "AAB" and time.monotonic() - began < 5


def test_a_guest_who_logs_in_or_registers_keeps_the_seat(url: str) -> None:
    """M8: a seated guest who registers (or logs in) keeps the seat, its board and the hosting, as the
    player; one whose player is seated already in the room leaves the guest's seat."""
    app = create_app(url)
    browser = lambda: TestClient(app, base_url="https://keypeg.test")  # noqa: E731
    ann, bob = Player(browser(), "ann"), Player(browser(), "bob")
    hal, gh, kim = Player(browser()), Player(browser()), Player(browser())
    room = ann.post("/api/rooms", BODY | {"rounds": 2}).json()
    public_id, token = room["id"], room["token"]
    guest = hal.post(f"/api/rooms/{public_id}/join", {"token": token, "nickname": "hal3"}).json()["you"]
    assert bob.post(f"/api/rooms/{public_id}/join", {"token": token}).status_code == 200
    assert kim.post(f"/api/rooms/{public_id}/join", {"token": token, "nickname": "kim"}).status_code == 200
    ann.post(f"/api/rooms/{public_id}/start")
    first = next(c for c in ("AAB", "ABA") if c != code_in_play(url, public_id))  # one that does not break it
    assert hal.post(f"/api/rooms/{public_id}/guesses", {"guess": first, "row": 1}).status_code == 200
    made = hal.post("/api/players", {"name": "hal3", "password": "long enough pw"})
    assert made.status_code == 201
    hal.headers = {"X-CSRF-Token": made.json()["csrf"]}
    seen = hal.get(f"/api/rooms/{public_id}")
    assert seen["you"] == "hal3" and "join" in seen["links"]
    assert [(s["player"], s["name"], s["guest"], s["status"]) for s in seen["seats"]][1] == (
        "hal3",
        "hal3",
        True,  # still a guest's seat: what was played as a guest is not rated
        "present",
    )
    assert guest not in json.dumps(seen)
    assert seen["board"]["rows"][0]["guess"] == first
    again = hal.post(f"/api/rooms/{public_id}/guesses", {"guess": "ABB", "row": 2})
    assert again.status_code == 200 and [r["guess"] for r in again.json()["board"]["rows"]] == [first, "ABB"]
    # a guest seated where their player sits already: the guest's seat is left
    logged = kim.post("/api/login", {"name": "bob", "password": "long enough pw"})
    assert logged.status_code == 200
    seats = {s["name"]: s["status"] for s in ann.get(f"/api/rooms/{public_id}")["seats"]}
    assert seats == {"ann": "present", "hal3": "present", "bob": "present", "kim (guest)": "left"}
    # a guest host before the start: the player hosts, starts and closes
    hosted = gh.post("/api/rooms", BODY | {"nickname": "gh"}).json()
    assert bob.post(f"/api/rooms/{hosted['id']}/join", {"token": hosted["token"]}).status_code == 200
    made = gh.post("/api/players", {"name": "ghost1", "password": "long enough pw"})
    gh.headers = {"X-CSRF-Token": made.json()["csrf"]}
    started = gh.post(f"/api/rooms/{hosted['id']}/start")
    assert started.status_code == 200 and started.json()["host"] == "ghost1"
    assert gh.post(f"/api/rooms/{hosted['id']}/close").status_code == 200
    from keypeg.services import rooms
    from keypeg.store import Store

    store = Store(url)
    assert [r["id"] for r in rooms.rooms_of(store, "ghost1")] == [hosted["id"]]
    placed = {p for place in rooms.load(store, Quiet(), public_id).room.places() for p in place}
    assert "hal3" not in placed and "ann" in placed


def test_one_nickname_rule_for_guests(url: str) -> None:
    """L5: a guest's nickname is 1 to 32 characters on the form and the API alike, and one that is (or
    looks like) a registered player's name or the name of a player seated in the room is refused in one
    line."""
    app = create_app(url)
    browser = lambda: TestClient(app, base_url="https://keypeg.test")  # noqa: E731
    ann = Player(browser(), "ann")
    kim, kim2, cyr, long_api, long_form, zed = (Player(browser()) for _ in range(6))
    assert kim.post("/api/rooms", BODY | {"nickname": "Ann"}).status_code == 409  # a registered player's name
    room = ann.post("/api/rooms", BODY).json()
    public_id, token = room["id"], room["token"]
    join = f"/api/rooms/{public_id}/join"
    assert kim.post(join, {"token": token, "nickname": "kim"}).status_code == 200
    for player, nickname in ((kim2, "KIM"), (cyr, "\u0430nn"), (zed, "k\u0456m")):  # a Cyrillic a, i
        refused = player.post(join, {"token": token, "nickname": nickname})
        assert refused.status_code == 409, nickname
        assert "nickname" in refused.json()["error"] and "\n" not in refused.json()["error"]
    assert long_api.post(join, {"token": token, "nickname": "x" * 33}).status_code == 422
    schema = ann.get("/openapi.json")["components"]["schemas"]
    assert {schema[s]["properties"]["nickname"]["anyOf"][0]["maxLength"] for s in ("NewRoom", "JoinIn")} == {32}
    form = long_form.client.post(
        f"/rooms/{public_id}/join",
        data={"csrf": long_form.headers["X-CSRF-Token"], "token": token, "nickname": "y" * 33},
    )
    assert form.status_code == 400 and "a nickname is 1 to 32 characters" in form.text
    assert 'maxlength="32"' in long_form.client.get(f"/rooms/{public_id}/join?token={token}").text
    seated = [s["name"] for s in ann.get(f"/api/rooms/{public_id}")["seats"]]
    assert seated == ["ann", "kim (guest)"]


def test_the_computers_labels_are_no_guests_nickname(url: str) -> None:
    """N6 (t/fuzz.py): the names kept for the computer (the one check registration makes: any case, spacing
    or look-alike) are refused as a guest's nickname too, in one line, creating a room or joining one."""
    app = create_app(url)
    browser = lambda: TestClient(app, base_url="https://keypeg.test")  # noqa: E731
    host = Player(browser())  # a guest
    assert host.post("/api/rooms", BODY | {"nickname": "Computer"}).status_code == 400
    room = host.post("/api/rooms", BODY | {"nickname": "hal"}).json()
    for nickname in ("level 1", "LEVEL 4", "Level3", "computer", "l\u0435vel 2"):  # a Cyrillic e
        refused = Player(browser()).post(
            f"/api/rooms/{room['id']}/join", {"token": room["token"], "nickname": nickname}
        )
        assert refused.status_code == 400, nickname
        assert "kept for the computer" in refused.json()["error"] and "\n" not in refused.json()["error"]
    assert (
        Player(browser()).post(f"/api/rooms/{room['id']}/join", {"token": room["token"], "nickname": "lev"}).is_success
    )


def test_a_turns_maker_out_of_time_gets_the_page_and_never_the_code(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """N4 (t/latemaker.py): the computer set the code of a maker whose time ran out: their page (GET, 200) says
    so and shows no code; the API shows them none; once the round ends, the code is in it."""
    from datetime import UTC, datetime, timedelta

    from keypeg.services import rooms

    later = datetime.now(UTC) + timedelta(seconds=31)

    class Clock:
        @staticmethod
        def now(tz: Any = None) -> datetime:
            return later

    app = create_app(url)
    ann, bob = (Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", "bob"))
    made = ann.post("/api/rooms", BODY | {"maker": "turns", "move_seconds": 30}).json()
    bob.post(f"/api/rooms/{made['id']}/join", {"token": made["token"]})
    ann.post(f"/api/rooms/{made['id']}/start")
    monkeypatch.setattr(rooms, "datetime", Clock)
    monkeypatch.setattr(rooms, "_draw", lambda rules: lambda: "DDD")
    page = ann.client.get(f"/rooms/{made['id']}")
    assert page.status_code == 200 and "The computer set the code in your place (your time ran out)" in page.text
    assert "Your code:" not in page.text
    shown = ann.get(f"/api/rooms/{made['id']}")["round"]
    assert shown["code_set"] and shown["maker_ended"] == "timed out" and "code" not in shown
    assert bob.post(f"/api/rooms/{made['id']}/resign").status_code == 200
    assert ann.get(f"/api/rooms/{made['id']}")["rounds"][0]["code"] == "DDD"
