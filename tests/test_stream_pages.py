"""The page a live stream brings (``?page=true``, what the pages' scripts open): at each change the page
of the room (or match) exactly as its GET renders it for the same session (the same CSRF token, the same
escaping), so a browser needs no request for it (review M5); the JSON stream of bots and ``keypeg room``
is unchanged, and a state whose page reads more than the stream has (a room over) brings none."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import app_in_thread
from keypeg.web import create_app

BODY = {"pegs": 3, "colors": 4, "rows": 6, "rounds": 1, "move_seconds": 86_400}
CLOCK = re.compile(r'(data-room-clock="|data-seconds-left=")[\d.]+"|\d+:\d\d(:\d\d)?')
"""The clock, a second further on between two renderings: left out of the comparison."""


class Player:
    def __init__(self, client: httpx.Client) -> None:
        self.client = client
        self.headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}

    def post(self, path: str, body: object = None) -> Any:
        answer = self.client.post(path, json=body, headers=self.headers)
        assert answer.status_code in (200, 201), answer.text
        return answer.json()

    def first_state(self, path: str) -> dict[str, Any]:
        """The first state a stream sends."""
        with self.client.stream("GET", path) as answer:
            for line in answer.iter_lines():
                if line.startswith("data: "):
                    state: dict[str, Any] = json.loads(line[6:])
                    return state
        raise AssertionError("no state")


def main_of(html: str) -> str:
    found = re.search(r"<main[^>]*>.*</main>", html, re.S)
    assert found is not None
    return CLOCK.sub("-", found.group(0))


@pytest.fixture
def base(tmp_path: Path) -> Iterator[str]:
    """The app served on a real server (its streams' event loop is one)."""
    with app_in_thread(create_app(f"sqlite:///{tmp_path / 'pages.sqlite3'}")) as address:
        yield address


def test_a_rooms_stream_brings_its_page_as_the_get_renders_it(base: str) -> None:
    ann, kim = (Player(httpx.Client(base_url=base, timeout=30)) for _ in range(2))
    room = ann.post("/api/rooms", BODY | {"nickname": "<b>Ann</b>"})
    public_id = room["id"]
    kim.post(f"/api/rooms/{public_id}/join", {"token": room["token"], "nickname": "Kim & <i>co</i>"})
    ann.post(f"/api/rooms/{public_id}/start")
    kim.post(f"/api/rooms/{public_id}/guesses", {"guess": "AAB", "row": 1})
    stream = f"/api/rooms/{public_id}/stream"
    for player in (ann, kim):
        state = player.first_state(f"{stream}?page=true")
        page = player.client.get(f"/rooms/{public_id}").text
        assert main_of(state["page"]) == main_of(page)  # the same <main>: its forms' CSRF token, its escaping
        assert player.headers["X-CSRF-Token"] in state["page"]
        assert "&lt;i&gt;co&lt;/i&gt;" in state["page"] and "<i>co</i>" not in state["page"]
        assert f'data-version="{state["version"]}"' in state["page"]
        assert re.search(r"<title>[^<]*Room · keypeg</title>", state["page"])
    plain = kim.first_state(stream)
    assert "page" not in plain and plain["version"] == state["version"]  # the JSON stream, as ever
    ann.post(f"/api/rooms/{public_id}/close")
    assert "page" not in ann.first_state(f"{stream}?page=true")  # over: the rating line is read by the GET


def test_a_matchs_stream_brings_its_page_as_the_get_renders_it(base: str) -> None:
    ann, bob = (Player(httpx.Client(base_url=base, timeout=30)) for _ in range(2))
    made = ann.post("/api/live", {"pegs": 3, "colors": 4, "rows": 6, "games": 2, "nickname": "Ann"})
    public_id = made["id"]
    events = f"/api/live/{public_id}/events?page=true"
    assert "page" not in ann.first_state(events)  # the invitation's token: read by the GET
    bob.post(f"/api/live/{public_id}/join", {"token": made["token"], "nickname": "Bob"})
    formed = 0
    for player in (ann, bob):
        state = player.first_state(events)
        assert main_of(state["page"]) == main_of(player.client.get(f"/live/{public_id}").text)
        forms = state["page"].count('name="csrf"')  # the codemaker's form, the codebreaker's none yet
        assert state["page"].count(f'name="csrf" value="{player.headers["X-CSRF-Token"]}"') == forms
        formed += forms
    assert formed, "no form to carry the CSRF token"
    assert "page" not in bob.first_state(f"/api/live/{public_id}/events")


@pytest.mark.parametrize("kind", ["match", "room"])
def test_a_stream_ends_once_its_session_logs_out_and_goes_on_while_it_holds(
    base: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stream checks the session it was opened with (every few seconds: made quick here); logged out (or
    logged in anew) in another tab, the stream ends, and the page's script opens it again as the new
    session; while the session holds, it goes on."""
    from keypeg.web import live

    monkeypatch.setattr(live, "KEEPALIVE", 0.05)
    monkeypatch.setattr(live, "SESSION_CHECK", 0.0)
    ann, kim = (Player(httpx.Client(base_url=base, timeout=30)) for _ in range(2))
    made = ann.client.post("/api/players", json={"name": "ann", "password": "long enough pw"}, headers=ann.headers)
    assert made.status_code == 201, made.text
    ann.headers = {"X-CSRF-Token": made.json()["csrf"]}
    if kind == "match":
        public_id = ann.post("/api/live", {"pegs": 3, "colors": 4, "games": 2})["id"]
        stream = f"/api/live/{public_id}/events?page=true"
    else:
        room = ann.post("/api/rooms", BODY)
        kim.post(f"/api/rooms/{room['id']}/join", {"token": room["token"], "nickname": "Kim"})
        stream = f"/api/rooms/{room['id']}/stream?page=true"
    for player, logs_out in ((kim, False), (ann, True)):
        alive = 0
        with player.client.stream("GET", stream) as answer:
            assert answer.status_code == 200
            for line in answer.iter_lines():
                if line != "event: alive":
                    continue
                alive += 1
                assert alive < 600, "the stream went on for a session logged out"
                if alive == 20:  # many checks passed: the session holds
                    if not logs_out:
                        break
                    player.post("/api/logout")
            else:
                assert logs_out, "a stream whose session holds ended"
        assert alive >= 20
