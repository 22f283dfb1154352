"""A resignation names the game it gives up: sent twice (a double click, a retry whose answer was lost),
the second is a conflict and never gives away the next game, on the API and the page's form alike."""

from __future__ import annotations

import re
from pathlib import Path

from test_live_ratings import move, seated


def test_a_resignation_sent_twice_gives_up_one_game_only(tmp_path: Path) -> None:
    ann, bob, match = seated(f"sqlite:///{tmp_path / 'resign.sqlite3'}")
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    first = move(bob, f"/api/live/{match}/resign", {"game": 1})
    assert first["over"] is False and len(first["played"]) == 1  # type: ignore[arg-type]
    again = bob.post(f"/api/live/{match}/resign", {"game": 1})
    assert again.status_code == 409 and "game 1 is over already" in again.json()["error"]  # type: ignore[attr-defined]
    after = bob.view(match)
    assert after["over"] is False and after["turn"] == "bob" and len(after["played"]) == 1  # type: ignore[arg-type]
    assert bob.post(f"/api/live/{match}/resign", {"game": 3}).status_code == 409  # type: ignore[attr-defined]


def test_the_pages_give_up_form_names_its_game(tmp_path: Path) -> None:
    ann, bob, match = seated(f"sqlite:///{tmp_path / 'resign.sqlite3'}")
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    page = bob.client.get(f"/live/{match}").text
    form = re.search(r'<form[^>]*action="/live/[^"]+/resign".*?</form>', page, re.S)
    assert form is not None and 'name="game" value="1"' in form.group(0)
    csrf = re.search(r'name="csrf" value="([^"]+)"', form.group(0))
    assert csrf is not None
    sent = {"csrf": csrf.group(1), "game": "1"}
    assert bob.client.post(f"/live/{match}/resign", data=sent, follow_redirects=False).status_code == 303
    twice = bob.client.post(f"/live/{match}/resign", data=sent, follow_redirects=False)
    assert twice.status_code == 409 and bob.view(match)["turn"] == "bob"


def test_a_resignation_without_its_game_sent_twice_never_gives_away_the_next_game(tmp_path: Path) -> None:
    ann, bob, match = seated(f"sqlite:///{tmp_path / 'resign.sqlite3'}")
    move(ann, f"/api/live/{match}/secret", {"code": "ABC"})
    future = bob.post(f"/api/live/{match}/resign", {"game": 2})
    assert future.status_code == 409 and "game 2 has not started" in future.json()["error"]  # type: ignore[attr-defined]
    assert move(bob, f"/api/live/{match}/resign")["over"] is False
    again = bob.post(f"/api/live/{match}/resign")  # bob now makes game 2's code: nothing is given away
    assert again.status_code == 400 and "name it (game 2)" in again.json()["error"]  # type: ignore[attr-defined]
    after = bob.view(match)
    assert len(after["played"]) == 1 and after["turn"] == "bob"  # type: ignore[arg-type]
    given = move(bob, f"/api/live/{match}/resign", {"game": 2})  # named: the codemaker gives game 2 away
    assert given["over"] is True and len(given["played"]) == 2  # type: ignore[arg-type]
