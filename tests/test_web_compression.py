"""The style sheets and modules are sent compressed to a browser that takes gzip (most of a page's bytes);
the pages are not (they hold a CSRF token beside text from the request: compressing them together would
let an attacker read the token by sizes, BREACH)."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from keypeg.web import create_app


def test_static_files_are_compressed_and_pages_are_not(tmp_path: Path) -> None:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'k.sqlite3'}"), base_url="https://keypeg.test")
    asked = {"Accept-Encoding": "gzip"}
    for name in ("keypeg.css", "board.js", "live.js"):
        sent = client.get(f"/static/{name}", headers=asked)
        assert sent.status_code == 200 and sent.headers["content-encoding"] == "gzip"
        assert int(sent.headers["content-length"]) < len(sent.content) / 2  # the bytes sent, decoded by httpx
        assert "accept-encoding" in sent.headers["vary"].lower()
        assert sent.headers["content-security-policy"].startswith("default-src 'self'")
    plain = client.get("/static/keypeg.css", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and len(plain.content) == int(plain.headers["content-length"])
    for path in ("/", "/players", "/live/new"):
        assert "content-encoding" not in client.get(path, headers=asked).headers
