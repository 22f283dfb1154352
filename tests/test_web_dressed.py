"""The app's outermost own layer (web/app.py's ``Dressed``, plain ASGI): every answer carries the security
headers, an error escaping the app is a plain 500 (a page for a page's address) that carries them too, and
a live match's event stream streams through it: its first event arrives while the stream is still open."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi.responses import PlainTextResponse
from fastapi.testclient import TestClient

from conftest import app_in_thread
from keypeg.web import create_app
from keypeg.web.app import SECURITY_HEADERS

SITE = "https://keypeg.test"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'dressed.sqlite3'}"


def dressed(headers: httpx.Headers) -> bool:
    return all(headers.get(name) == value for name, value in SECURITY_HEADERS.items())


@pytest.mark.parametrize(("path", "page"), [("/api/boom", False), ("/boom", True)])
def test_an_error_escaping_the_app_is_a_plain_500_with_every_header(url: str, path: str, page: bool) -> None:
    app = create_app(url, https=True)

    def boom() -> None:
        raise RuntimeError("a bug: never shown to the client")

    app.add_api_route(path, boom)
    answer = TestClient(app, base_url=SITE, raise_server_exceptions=False).get(path)
    assert answer.status_code == 500 and dressed(answer.headers), answer.headers
    assert answer.headers["Strict-Transport-Security"] == "max-age=31536000"
    assert "never shown" not in answer.text and "Traceback" not in answer.text
    if page:
        assert answer.headers["content-type"].startswith("text/html") and "internal error" in answer.text
    else:
        assert answer.json() == {"error": "internal error; please report it"}


def test_a_header_the_answer_sets_itself_is_kept(url: str) -> None:
    app = create_app(url)
    app.add_api_route("/api/cached", lambda: PlainTextResponse("x", headers={"Cache-Control": "max-age=60"}))
    answer = TestClient(app, base_url=SITE).get("/api/cached")
    assert answer.headers.get_list("Cache-Control") == ["max-age=60"]
    assert answer.headers["X-Frame-Options"] == "DENY"


def test_a_live_stream_streams_through_it_with_every_header(url: str) -> None:
    maker = TestClient(create_app(url), base_url=SITE)
    csrf = maker.get("/api/session").json()["csrf"]
    made = maker.post("/api/live", json={"pegs": 3, "colors": 5, "games": 2}, headers={"X-CSRF-Token": csrf})
    assert made.status_code == 201, made.text
    events = f"/api/live/{made.json()['id']}/events"
    with (
        app_in_thread(create_app(url)) as base,
        httpx.Client(base_url=base, timeout=httpx.Timeout(30)) as viewer,
        viewer.stream("GET", events) as answer,
    ):
        assert answer.status_code == 200 and dressed(answer.headers), answer.headers
        for line in answer.iter_lines():  # the stream never ends by itself: an event read is one streamed
            if line == "event: state":
                break
