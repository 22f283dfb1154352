"""Ratings in the faces: ``keypeg ratings`` (--recompute, --player), ``keypeg top --ratings``, the Players
page's rating and its changes, the top page's rating leaderboard, and ``GET /api/ratings``."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from keypeg.cli import cli
from keypeg.services import ratings
from keypeg.store import Store
from keypeg.web import create_app

SITE = "https://keypeg.test"
T0 = datetime(2026, 11, 1, 12, tzinfo=UTC)
HOSTILE = "[bold]<b>x</b>"


def rated_store(url: str) -> Store:
    store = Store(url)
    ratings.record(store, "match", "m1", [["ann"], ["bob"]], at=T0)
    ratings.record(store, "room", "r1", [[HOSTILE], ["ann", "guest-0123456789ab"], ["bob"]], at=T0 + timedelta(days=1))
    return store


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_the_cli_leaderboard_player_and_recompute(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    rated_store(url)
    board = run("ratings", "--db", url)
    assert board.exit_code == 0, board.output
    assert HOSTILE in board.output and "guest-" not in board.output  # a name is shown as it is, never as markup
    listed = json.loads(run("top", "--ratings", "--json", "--db", url).output)
    assert [p["player"] for p in listed["ratings"]][:1] == [HOSTILE] and listed["ratings"][0]["provisional"]
    one = run("ratings", "--player", "ann", "--db", url)
    assert one.exit_code == 0 and "provisional" in one.output and "room r1" in one.output
    clean = run("ratings", "--recompute", "--db", url)
    assert clean.exit_code == 0 and "no drift" in clean.output


def test_the_cli_shows_drift_and_fails(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    store = rated_store(url)
    from sqlalchemy import text

    with store.engine.begin() as connection:
        connection.execute(text("UPDATE player_ratings SET rd = rd + 5"))
    drift = run("ratings", "--recompute", "--db", url)
    assert drift.exit_code == 1 and "drift" in drift.output and "ann" in drift.output


def test_the_web_shows_ratings(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    rated_store(url)
    client = TestClient(create_app(url), base_url=SITE)
    top = client.get("/top")
    assert top.status_code == 200 and "By rating" in top.text
    assert "[bold]&lt;b&gt;x&lt;/b&gt;" in top.text and "<b>x</b>" not in top.text
    assert "(provisional)" in top.text
    api = client.get("/api/ratings").json()
    assert [p["player"] for p in api["ratings"]] == [HOSTILE, "ann", "bob"]
    one = client.get("/api/ratings/ann").json()
    assert one["rating"]["results"] == 2 and [c["event"] for c in one["changes"]] == ["r1", "m1"]
    for path in (HOSTILE, quote(HOSTILE, safe="")):  # a name holding "/" is found too
        hostile = client.get(f"/api/ratings/{path}")
        assert hostile.status_code == 200 and hostile.json()["rating"]["player"] == HOSTILE
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/players").text)
    assert csrf is not None
    client.post("/players/register", data={"csrf": csrf.group(1), "name": "Cy", "password": "long enough"})
    assert "Your rating" not in client.get("/players").text
    store = Store(url)
    ratings.record(store, "match", "m2", [["cy"], ["bob"]], at=T0 + timedelta(days=2))
    ratings.record(store, "room", "r2", [["ann"], ["cy"]], at=T0 + timedelta(days=3))
    mine = client.get("/players").text
    assert "Your rating" in mine and "(provisional)" in mine and "a room" in mine and "a live match" in mine
    assert re.search(r'class="gain">\+\d', mine) and re.search(r'class="loss">-\d', mine)
