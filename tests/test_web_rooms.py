"""Rooms' pages without a browser (TestClient): a room made with the form, joined by its link, started and
played with plain forms; a spectator's page holds the progress as key pegs but never a guess or the code
of the round in play, which every page shows once the round ends; a refused move is shown on the room's
page with why; the host kicks (the kicked player may not come back) and closes; your rooms are listed on
the form's page and the Players page.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from conftest import NOISE, code_shown
from keypeg.variants import find_variant
from keypeg.web.app import create_app

SITE = "https://keypeg.test"
RULES = find_variant("3x4").rules


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "web.sqlite3"


def token_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found is not None, "a page without a form token"
    return found.group(1)


class Person:
    """A browser without JavaScript: its cookie and its pages' CSRF token."""

    def __init__(self, app: FastAPI) -> None:
        self.client = TestClient(app, base_url=SITE)
        self.status = 0
        self.csrf = token_of(self.client.get("/").text)

    def post(self, path: str, **fields: str) -> str:
        answer = self.client.post(path, data={"csrf": self.csrf, **fields})
        self.status = answer.status_code
        return str(answer.text)

    def get(self, path: str) -> str:
        answer = self.client.get(path)
        assert answer.status_code == 200, f"{path}: {answer.status_code}"
        return str(answer.text)


def code_in_play(db: Path) -> str:
    """The code of the round in play, read from the store (what the server keeps)."""
    with sqlite3.connect(db) as connection:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(rooms)")}
        hidden = "secret" if "secret" in columns else "NULL"  # the private side of the round in play
        state, secret = connection.execute(f"SELECT state, {hidden} FROM rooms ORDER BY id DESC LIMIT 1").fetchone()
    code: str = json.loads(secret)["code"] if secret else json.loads(state)["current"]["code"]
    return code


def make_room(ann: Person, **settings: str) -> tuple[str, str]:
    """Ann (a guest, "Ann") makes a room with the form: its page's address and its join link."""
    fields = {"variant": "3x4", "rounds": "1", "maker": "computer", "move_seconds": "3600", "nickname": "Ann"}
    html = ann.post("/rooms/new", **(fields | settings))
    assert ann.status == 200, html
    join = re.search(r'id="join-link" type="text" readonly value="https://keypeg\.test(/rooms/[^"]+)"', html)
    room = re.search(r'data-room-events="/api/rooms/([^/"]+)/stream"', html)
    assert join is not None and room is not None, html
    return f"/rooms/{room.group(1)}", join.group(1).replace("&amp;", "&")


def join(person: Person, link: str, nickname: str) -> str:
    page = person.get(link)
    assert "Join the room" in page
    token = re.search(r'name="token" value="([^"]+)"', page)
    assert token is not None
    return person.post(link.split("?")[0], token=token.group(1), nickname=nickname)


def test_a_room_played_with_plain_forms_shows_a_spectator_key_pegs_only(db: Path) -> None:
    app = create_app(f"sqlite:///{db}")
    ann, bob, eve = Person(app), Person(app), Person(app)
    room, link = make_room(ann)
    assert "A room, waiting to start" in ann.get(room)
    assert "Waiting for the host to start" in join(bob, link, "Bob")
    assert "Start the room" not in bob.get(room) and "Kick" not in bob.get(room)
    started = ann.post(f"{room}/start")
    assert ann.status == 200 and "Round 1 of 1" in started
    code = code_in_play(db)
    guess = next(c for c in ("AAA", "BBB", "CCC") if c != code)
    played = bob.post(f"{room}/guess", code=guess, row="1")
    assert "Guess 1: " in played and f", {guess}:" in played, "Bob's board shows his guess"
    assert "pb-row played" in bob.get(room)  # a reload: his board comes back
    watching = eve.get(room)
    assert "you are watching" in watching and "rm-card" in watching, "the spectator sees the progress"
    assert "Bob (guest)" in watching and "1 of 10" in watching
    assert "pb-row played" not in watching and 'class="peg' not in watching, "no guess, no code for a spectator"
    plain = NOISE.sub("-", watching)
    assert guess not in plain and not code_shown(RULES, code, watching)
    assert "pb-row played" not in ann.get(room).split("The others")[1], "a player never sees another's guesses"
    for person in (ann, bob):
        person.post(f"{room}/guess", code=code, row=str(2 if person is bob else 1))
        assert person.status == 200
    over = eve.get(room)
    assert "The room is over" in over and "The final standing" in over
    assert code_shown(RULES, code, over), "the code is shown to all once its round ends"
    assert f", {guess}:" in over, "every board of the ended round, with its guesses"


def test_a_refused_move_is_shown_on_the_room_with_why(db: Path) -> None:
    app = create_app(f"sqlite:///{db}")
    ann, bob, eve = Person(app), Person(app), Person(app)
    room, link = make_room(ann)
    refused = ann.post(f"{room}/start")
    assert ann.status >= 400 and 'role="alert"' in refused, "one player cannot start"
    wrong = bob.post(f"{room}/join", token="not-the-token", nickname="Bob")
    assert bob.status == 403 and 'role="alert"' in wrong
    join(bob, link, "Bob")
    ann.post(f"{room}/start")
    outsider = eve.post(f"{room}/guess", code="AAA", row="1")
    assert eve.status == 403 and "only the room" in outsider
    late = eve.get(link)
    assert "The room has started" in late and "Join the room" not in late
    bad = ann.post("/rooms/new", variant="3x4", rounds="0", maker="computer", move_seconds="3600")
    assert ann.status == 400 and 'role="alert"' in bad and "Make the room" in bad
    assert ann.post("/rooms/new", variant="3x4", rounds="2", maker="nobody", move_seconds="60") and ann.status == 400


def test_the_host_kicks_and_closes_and_rooms_are_listed(db: Path) -> None:
    app = create_app(f"sqlite:///{db}")
    ann, bob, cat = Person(app), Person(app), Person(app)
    room, link = make_room(ann, rounds="3")
    join(bob, link, "Bob")
    join(cat, link, "Cat")
    lobby = ann.get(room)
    whom = re.search(r'name="whom" value="([^"]+)"><button type="submit" aria-label="Remove Bob', lobby)
    assert whom is not None, lobby
    ann.post(f"{room}/kick", whom=whom.group(1))
    assert ann.status == 200
    assert "you are watching" in bob.get(room) and "Bob (guest) was removed by the host" in bob.get(room)
    refused = join(bob, link, "Bob")
    assert bob.status == 403 and 'role="alert"' in refused, "a kicked player may not come back"
    ann.post(f"{room}/start")
    cat.post(f"{room}/leave")
    assert "take your seat back" in cat.get(room)
    closed = ann.post(f"{room}/close")
    assert ann.status == 200 and "The room is over" in closed
    assert "Leave the room" not in closed and "Close the room" not in closed
    last = closed.split('class="rm-standing"')[1].split("</tbody>")[0].split("<tr")[-1]  # the standing's last line
    assert "Ann (guest)" in last and "forfeits: closed the room early" in last
    assert f'href="{room}"' in ann.get("/rooms/new"), "the form's page lists your rooms"


def test_a_registered_players_rooms_are_on_the_players_page(db: Path) -> None:
    app = create_app(f"sqlite:///{db}")
    ann, bob = Person(app), Person(app)
    headers = {"X-CSRF-Token": ann.client.get("/api/session").json()["csrf"]}
    assert ann.client.post("/api/players", json={"name": "ann", "password": "a long enough password"}, headers=headers)
    ann.csrf = token_of(ann.client.get("/").text)
    room, link = make_room(ann)
    join(bob, link, "Bob")
    ann.post(f"{room}/start")
    players = ann.get("/players")
    assert "Your rooms" in players and f'href="{room}"' in players and "(in play)" in players


def test_a_shared_first_place_is_told_as_shared(db: Path) -> None:
    """The host closes round 1 at once (review G4: the round counts, the host's board beaten by every other):
    Bob and Cat share first place, and the page says so instead of naming one winner."""
    app = create_app(f"sqlite:///{db}")
    ann, bob, cat = Person(app), Person(app), Person(app)
    room, link = make_room(ann)
    join(bob, link, "Bob")
    join(cat, link, "Cat")
    ann.post(f"{room}/start")
    closed = ann.post(f"{room}/close")
    assert ann.status == 200 and "The room is over: Bob (guest) and Cat (guest) share first place" in closed
    assert "wins" not in closed.split("</h1>")[0]


def test_a_room_closed_in_the_lobby_says_so_and_shows_no_standing(db: Path) -> None:
    """Closed before its start, a room names no winner and shows no standing (review: 'ann and Bob share
    first place' after no round)."""
    app = create_app(f"sqlite:///{db}")
    ann, bob = Person(app), Person(app)
    room, link = make_room(ann)
    join(bob, link, "Bob")
    closed = ann.post(f"{room}/close")
    assert ann.status == 200 and "The room was closed before it started" in closed.split("</h1>")[0]
    assert "share first place" not in closed and 'class="rm-standing"' not in closed
    assert 'data-say="The room was closed before it started."' in closed


def test_a_refused_nickname_shows_the_join_form_again_with_why(db: Path) -> None:
    """A nickname taken in the room: the join page again, saying why, the name typed kept and focused
    (review: the room's page came back as a spectator's, with no name field)."""
    app = create_app(f"sqlite:///{db}")
    ann, bob = Person(app), Person(app)
    _, link = make_room(ann)
    refused = join(bob, link, "ANN")
    assert bob.status == 409 and 'role="alert"' in refused and "taken here" in refused
    assert re.search(r'name="nickname"[^>]*value="ANN"[^>]*autofocus', refused) and "Join the room" in refused
    assert "Waiting for the host to start" in join(bob, link, "Bob")
