"""A guest who logs in or registers during a live match keeps the seat (review M8, as in rooms): the seat
and its games become the player's, still shown as the guest's and never rated (what was played as a
guest is not)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from keypeg.web import create_app

PW = "long enough pw"


class Player:
    def __init__(self, client: TestClient, name: str | None = None) -> None:
        self.client = client
        self.headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
        if name is not None:
            self.register(name)

    def register(self, name: str) -> None:
        made = self.post("/api/players", {"name": name, "password": PW})
        assert made.status_code == 201, made.text
        self.headers = {"X-CSRF-Token": made.json()["csrf"]}

    def post(self, path: str, body: object = None) -> Any:
        return self.client.post(path, json=body, headers=self.headers)


def test_a_guest_who_registers_keeps_the_live_seat_unrated(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'live.sqlite3'}")
    ann, guest = (Player(TestClient(app, base_url="https://keypeg.test"), n) for n in ("ann", None))
    made = guest.post("/api/live", {"pegs": 4, "colors": 6, "games": 2, "nickname": "gg"}).json()
    match = f"/api/live/{made['id']}"
    assert ann.post(f"{match}/join", {"token": made["token"]}).status_code == 200
    guest.register("gee")
    seen = guest.client.get(match).json()
    assert seen["you"] == "gee" and seen["seats"] == ["gee", "ann"] and seen["names"]["gee"] == "gg (guest)"
    players = {"gee": guest, "ann": ann}
    for _ in range(2):  # each game: its codemaker sets the code, its breaker gives it up
        view = guest.client.get(match).json()
        assert players[view["codemaker"]].post(f"{match}/secret", {"code": "ABCD"}).status_code == 200
        assert players[view["codebreaker"]].post(f"{match}/resign").status_code == 200
    assert guest.client.get(match).json()["over"]
    listed = guest.client.get("/live").text  # the player's matches: this one among them, and in the record
    assert f"/live/{made['id']}" in listed and "1 finished" in guest.client.get("/players").text
    for name in ("gee", "ann"):
        rating = guest.client.get(f"/api/ratings/{name}").json()
        assert rating["rating"] is None and rating["changes"] == [], rating
