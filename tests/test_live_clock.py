"""The clock of a live match and the holes it closes (issue 28): a player who keeps the page open and never
moves forfeits when their time runs out (and a watcher's stream shows it without a request); a creator
waiting for a friend never does, and the clock starts when the second player sits; the time control's
limits are the same on the API and the form; a match kept before clocks still loads; the "last game"
panel shows the game that just ended, even one given away before its code was set; and two racing
"set code" requests leave one game, not an orphan."""

from __future__ import annotations

import json
import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from conftest import app_in_thread, code_shown, wait_until
from keypeg import Rules
from keypeg.errors import ConflictError, RefusedError
from keypeg.limits import LIVE_MOVE_DEFAULT, LIVE_MOVE_SECONDS
from keypeg.play.live import LiveMatch
from keypeg.services import live as live_service
from keypeg.services.live_bus import LiveBus
from keypeg.store import MovedOnError, Store
from keypeg.store.models import GameRow, MatchRow
from keypeg.web import create_app

RULES = Rules(3, 5)
START = datetime(2026, 1, 1, tzinfo=UTC)


def later(seconds: float) -> datetime:
    return START + timedelta(seconds=seconds)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'clock.sqlite3'}"


class Player:
    """A browser of the API: its cookie and CSRF header."""

    def __init__(self, client: TestClient, name: str) -> None:
        self.client = client
        csrf = client.get("/api/session").json()["csrf"]
        made = client.post(
            "/api/players", json={"name": name, "password": "long enough pw"}, headers={"X-CSRF-Token": csrf}
        )
        self.headers = {"X-CSRF-Token": made.json()["csrf"]}

    def post(self, path: str, body: object = None) -> object:
        return self.client.post(path, json=body, headers=self.headers)

    def view(self, match: str) -> dict[str, object]:
        answer = self.client.get(f"/api/live/{match}")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())


def two_players(url: str, **body: object) -> tuple[Player, Player, str]:
    """Ann's match (3x5, 2 games, ``body`` added) with Bob seated."""
    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    bob = Player(TestClient(app, base_url="https://keypeg.test"), "bob")
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2, **body}).json()  # type: ignore[attr-defined]
    bob.post(f"/api/live/{made['id']}/join", {"token": made["token"]})
    return ann, bob, made["id"]


def rewind(url: str, match: str, seconds: float) -> None:
    """Move the stored start of the turn being played ``seconds`` back, as if that long had passed."""
    store = Store(url)
    record = store.live.get(match)
    state = json.loads(record.state)
    began = datetime.fromisoformat(state["clock"]["began"])
    state["clock"]["began"] = (began - timedelta(seconds=seconds)).isoformat()
    store.live.save(record.id, json.dumps(state), record.version)


# -- the play layer, with the time passed in ---------------------------------------------------------------


def test_the_clock_forfeits_whoever_must_act_when_their_time_runs_out() -> None:
    live = LiveMatch.new(RULES, games=2, first="ann", move_seconds=30)
    live.join("bob", now=START)
    assert live.deadline() == later(30) and live.late(later(29.9)) is None
    assert live.late(later(30)) == "ann"  # the codemaker never set a code
    live.time_out("ann", None, later(31))
    assert live.points() == {"ann": 0, "bob": 0} and live.turn() == "bob"  # game 2: bob's code, his clock
    assert "ran out of time (30 s a move)" in live.notes[-1].text
    assert live.deadline() == later(61)
    game = live.set_secret("bob", "ABC")
    live.started(5, now=later(40))
    live.guess("ann", game, "AAA", now=later(65))  # each move restarts the clock: 30 s from this guess
    assert live.late(later(94)) is None and live.late(later(95)) == "ann"
    live.time_out("ann", game, later(95))
    assert live.points() == {"ann": 0, "bob": RULES.rows + 1} and live.is_over and live.deadline() is None


def test_the_creator_waiting_never_forfeits_and_the_clock_starts_when_the_second_player_sits() -> None:
    live = LiveMatch.new(RULES, games=2, first="ann", move_seconds=60)
    assert live.deadline() is None and live.late(later(10 * 86_400)) is None  # ten days alone: no clock
    live.join("bob", now=later(10 * 86_400))
    assert live.deadline() == later(10 * 86_400 + 60) and live.late(later(10 * 86_400 + 59)) is None


@pytest.mark.parametrize("seconds", [LIVE_MOVE_SECONDS[0] - 1, LIVE_MOVE_SECONDS[1] + 1, 0, -30, True])
def test_a_time_control_out_of_range_is_refused(seconds: int) -> None:
    with pytest.raises(RefusedError, match="a move's time is from 30 to 86,400 seconds"):
        LiveMatch.new(RULES, games=2, first="ann", move_seconds=seconds)


def test_a_match_kept_before_clocks_loads_with_the_default_and_its_clock_starts_when_loaded(url: str) -> None:
    live = LiveMatch.new(RULES, games=2, first="ann")
    live.join("bob", now=START)
    old = live.to_state()
    del old["clock"]
    loaded = LiveMatch.from_state(old)
    assert loaded.move_seconds == LIVE_MOVE_DEFAULT and loaded.turn_began is None and loaded.turn() == "ann"
    assert loaded.catch_up(None, later(5)) and loaded.deadline() == later(5 + LIVE_MOVE_DEFAULT)
    assert not loaded.catch_up(None, later(6))  # started once

    ann, _, match = two_players(url)
    store = Store(url)
    record = store.live.get(match)
    kept = json.loads(record.state)
    del kept["clock"]
    store.live.save(record.id, json.dumps(kept), record.version)
    shown = ann.view(match)
    assert shown["move_seconds"] == LIVE_MOVE_DEFAULT and shown["turn"] == "ann"
    assert LIVE_MOVE_DEFAULT - 5 < float(shown["seconds_left"]) <= LIVE_MOVE_DEFAULT  # type: ignore[arg-type]
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200  # type: ignore[attr-defined]


# -- through the API and the pages ----------------------------------------------------------------------


def test_a_connected_player_who_never_moves_forfeits(url: str) -> None:
    ann, bob, match = two_players(url, move_seconds=30)
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200  # type: ignore[attr-defined]
    assert bob.view(match)["turn"] == "bob"  # bob keeps looking at the page, and never guesses
    rewind(url, match, 31)
    seen = bob.view(match)  # his own request finds his time run out
    assert seen["scores"] == {"ann": RULES.rows + 1, "bob": 0} and seen["turn"] == "bob"  # game 2: his code
    assert "bob ran out of time (30 s a move) and forfeited" in seen["notes"][-1]["text"]  # type: ignore[index]
    assert 25 < float(seen["seconds_left"]) <= 30  # type: ignore[arg-type]
    assert seen["last"]["code"] == "EDA" and seen["last"]["number"] == 1  # type: ignore[index]
    page = ann.client.get(f"/live/{match}").text
    assert "ran out of time" in page and "30 s a move" in page


def test_each_guess_restarts_the_clock_even_when_the_match_moved_on_meanwhile(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move whose compare-and-swap finds the match moved on is made again, in a new transaction, on what
    is stored then (nothing of the first try stays): the guess is taken once, and times the clock."""
    from keypeg.store.live import LiveWrite

    ann, bob, match = two_players(url)
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200  # type: ignore[attr-defined]
    rewind(url, match, LIVE_MOVE_DEFAULT - 20)
    assert float(bob.view(match)["seconds_left"]) <= 20  # type: ignore[arg-type]
    guessed = bob.post(f"/api/live/{match}/guesses", {"code": "AAB", "row": 1}).json()  # type: ignore[attr-defined]
    assert guessed["seconds_left"] > LIVE_MOVE_DEFAULT - 5 and ann.view(match)["seconds_left"] == pytest.approx(
        guessed["seconds_left"], abs=5
    )
    rewind(url, match, LIVE_MOVE_DEFAULT - 20)
    real, moved = LiveWrite.save, []

    def save_once_moved_on(write: LiveWrite, *args: object, **kwargs: object) -> int:
        if not moved:  # another request wrote the match between the guess's read and its write
            moved.append(True)
            raise MovedOnError("the match was moved on elsewhere meanwhile")
        return real(write, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(LiveWrite, "save", save_once_moved_on)
    guessed = bob.post(f"/api/live/{match}/guesses", {"code": "ABC", "row": 2}).json()  # type: ignore[attr-defined]
    assert moved and len(guessed["current"]["history"]) == 2
    assert float(ann.view(match)["seconds_left"]) > LIVE_MOVE_DEFAULT - 5  # type: ignore[arg-type]


def test_a_guess_whose_match_could_not_be_written_is_not_stored_at_all(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guess and the match's new state are one transaction: when the match's write fails (503), the
    game did not take the guess either (its row is free: the same guess sent again is taken), and the
    match, its version and its clock are as they were."""
    from keypeg.store import StoreUnavailableError
    from keypeg.store.live import LiveWrite

    ann, bob, match = two_players(url)
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200  # type: ignore[attr-defined]
    rewind(url, match, LIVE_MOVE_DEFAULT - 20)
    before = ann.view(match)

    def down(*_args: object, **_kwargs: object) -> int:
        raise StoreUnavailableError("the database is down")

    with monkeypatch.context() as outage:
        outage.setattr(LiveWrite, "save", down)
        refused = bob.post(f"/api/live/{match}/guesses", {"code": "AAB", "row": 1})
        assert refused.status_code == 503  # type: ignore[attr-defined]
    seen = ann.view(match)
    assert seen["current"]["history"] == [] and seen["version"] == before["version"]  # type: ignore[index]
    assert float(seen["seconds_left"]) <= 20  # type: ignore[arg-type]
    guessed = bob.post(f"/api/live/{match}/guesses", {"code": "AAB", "row": 1}).json()  # type: ignore[attr-defined]
    assert len(guessed["current"]["history"]) == 1 and guessed["seconds_left"] > LIVE_MOVE_DEFAULT - 5


def test_the_creator_who_left_the_waiting_page_does_not_lose_when_the_friend_joins(url: str) -> None:
    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    bob = Player(TestClient(app, base_url="https://keypeg.test"), "bob")
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2}).json()  # type: ignore[attr-defined]
    with Store(url).engine.begin() as connection:  # made a day ago, and ann has not been back since
        day_ago = datetime.now(UTC) - timedelta(days=1)
        connection.execute(update(MatchRow).values(started_at=day_ago))
    joined = bob.post(f"/api/live/{made['id']}/join", {"token": made["token"]}).json()  # type: ignore[attr-defined]
    assert joined["scores"] == {"ann": 0, "bob": 0} and joined["played"] == [] and joined["turn"] == "ann"
    assert LIVE_MOVE_DEFAULT - 5 < joined["seconds_left"] <= LIVE_MOVE_DEFAULT  # her clock starts now
    assert ann.view(made["id"])["notes"] == []


def test_the_clock_starts_when_the_second_player_sits(url: str) -> None:
    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    made = ann.post("/api/live", {"pegs": 3, "colors": 5, "games": 2, "move_seconds": 300}).json()  # type: ignore[attr-defined]
    assert made["deadline"] is None and made["seconds_left"] is None and made["move_seconds"] == 300
    assert "Time left for this move" not in ann.client.get(f"/live/{made['id']}").text
    bob = Player(TestClient(app, base_url="https://keypeg.test"), "bob")
    assert "with 5 min a move" in bob.client.get(made["invite"]).text  # told before sitting down
    joined = bob.post(f"/api/live/{made['id']}/join", {"token": made["token"]}).json()  # type: ignore[attr-defined]
    deadline = datetime.fromisoformat(joined["deadline"])
    assert timedelta(seconds=295) < deadline - datetime.now(UTC) <= timedelta(seconds=300)
    page = ann.client.get(f"/live/{made['id']}").text
    assert re.search(r'data-seconds-left="(29\d|300)(\.\d)?">[45]:\d\d</strong>', page) and "5 min a move" in page
    assert "<title>(Your turn) Live match · keypeg</title>" in page
    assert "<title>Live match · keypeg</title>" in bob.client.get(f"/live/{made['id']}").text


def test_a_watchers_stream_moves_on_when_the_time_runs_out_without_any_request(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream reads the match again as the move awaited runs out (not only at its keep-alives): a
    spectator's page shows the forfeit though nobody sends a request."""
    import httpx

    from keypeg.web import live as web_live
    from test_live import Stream

    monkeypatch.setattr(web_live, "KEEPALIVE", 60.0)  # no keep-alive check within the test
    with app_in_thread(create_app(url)) as base:
        _, _, match = two_players(url)
        rewind(url, match, LIVE_MOVE_DEFAULT - 1.5)  # ann, to set the code, has 1.5 s left
        eve = httpx.Client(base_url=base, timeout=30)
        stream = Stream(eve, match)
        wait_until(lambda: any(s["notes"] for s in list(stream.states)), 15)
        forfeited = [s for s in stream.states if s["notes"]]
        assert forfeited, f"the stream never moved on: {stream.states[-1:]}"
        assert "ann ran out of time" in forfeited[0]["notes"][-1]["text"]  # type: ignore[index]
        assert forfeited[0]["turn"] == "bob"  # game 2: bob's code to set, his clock running
        stream.stop.set()


def form_csrf(client: TestClient, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found
    return found.group(1)


def test_the_api_and_the_form_take_the_same_time_controls(url: str) -> None:
    app = create_app(url)
    ann = Player(TestClient(app, base_url="https://keypeg.test"), "ann")
    low, high = LIVE_MOVE_SECONDS
    for seconds in (low - 1, high + 1, 10**12):
        refused = ann.post("/api/live", {"games": 2, "move_seconds": seconds})
        assert refused.status_code == 400, seconds  # type: ignore[attr-defined]
        assert refused.json()["error"].startswith("a move's time is from 30 to 86,400 seconds")  # type: ignore[attr-defined]
    for seconds in (low, high):
        made = ann.post("/api/live", {"games": 2, "move_seconds": seconds})
        assert made.status_code == 201 and made.json()["move_seconds"] == seconds  # type: ignore[attr-defined]
    assert ann.post("/api/live", {"games": 2}).json()["move_seconds"] == LIVE_MOVE_DEFAULT  # type: ignore[attr-defined]
    csrf = form_csrf(ann.client, "/live")
    for text in (str(low - 1), str(high + 1), "99999999999", "1e3", "<b>"):
        form = ann.client.post("/live", data={"csrf": csrf, "variant": "classic", "games": "2", "move_seconds": text})
        assert form.status_code == 400 and "<b>" not in form.text, text
        assert "time" in re.findall(r'<p class="error" role="alert">([^<]*)<', form.text)[0], text
    for seconds in (low, high):
        form = ann.client.post(
            "/live", data={"csrf": csrf, "variant": "classic", "games": "2", "move_seconds": str(seconds)}
        )
        assert form.status_code == 200 and f"{'30 s' if seconds == low else '1 day'} a move" in form.text
    offered = re.findall(r'<option value="(\d+)"( selected)?>', ann.client.get("/live").text)
    assert [int(v) for v, _ in offered if int(v) >= low] == [30, 60, 120, 300, 3600, 86400]
    assert ("120", " selected") in offered


def test_the_last_game_panel_after_a_codemaker_gives_up_before_setting_a_code(url: str) -> None:
    ann, bob, match = two_players(url)
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200  # type: ignore[attr-defined]
    bob.post(f"/api/live/{match}/resign")  # game 1 ends, its code shown
    assert ann.view(match)["last"]["code"] == "EDA"  # type: ignore[index]
    assert bob.post(f"/api/live/{match}/resign", {"game": 2}).status_code == 200  # type: ignore[attr-defined]
    last = ann.view(match)["last"]
    assert last == {"number": 2, "codemaker": "bob", "codebreaker": "ann", "code": None, "broken": True, "history": []}
    page = ann.client.get(f"/live/{match}").text
    assert "Game 2: bob set no code, and scores nothing for it" in page and not code_shown(RULES, "EDA", page)


def test_two_racing_set_code_requests_leave_exactly_one_game(url: str) -> None:
    """Sent at once, two codes for the same game: one is set, the other is a conflict (the moves of a match
    take turns, each its one transaction: the second reads the code set), and the match has one game."""
    ann, bob, match = two_players(url)
    store = Store(url)
    bus = LiveBus(store)
    both_ready = threading.Barrier(2, timeout=30)
    outcomes: list[str] = []

    def send(code: str) -> None:
        both_ready.wait()
        try:
            live_service.set_code(store, bus, match, "ann", code)
            outcomes.append("set")
        except ConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=send, args=(code,)) for code in ("EDA", "ABC")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(outcomes) == ["conflict", "set"]
    with store.engine.connect() as connection:
        games = connection.execute(select(GameRow.id).where(GameRow.match_id == store.live.get(match).id)).all()
    assert len(games) == 1
    assert ann.view(match)["current"]["secret"] in ("EDA", "ABC")  # type: ignore[index]
    assert len(bob.client.get("/api/history").json()) == 1  # no orphan game in the codebreaker's history


def test_a_set_code_that_lost_the_race_in_the_store_writes_nothing(url: str) -> None:
    _, _, match = two_players(url)
    store = Store(url)
    record = store.live.get(match)
    fields = {"role": "breaker", "secret": "EDA", "state": "{}", "maker": "ann"}
    store.live.start_game(record.id, record.version, lambda game: f'{{"game": {game}}}', "bob", RULES, **fields)
    with pytest.raises(MovedOnError):
        store.live.start_game(record.id, record.version, lambda game: f'{{"game": {game}}}', "bob", RULES, **fields)
    assert len(store.games.history("bob", limit=None)) == 1


def test_a_code_sent_again_is_a_conflict_that_changes_nothing(url: str) -> None:
    ann, _, match = two_players(url)
    assert ann.post(f"/api/live/{match}/secret", {"code": "EDA"}).status_code == 200  # type: ignore[attr-defined]
    before = Store(url).live.get(match)
    again = ann.post(f"/api/live/{match}/secret", {"code": "ABC"})  # its answer lost, sent again (or another tab)
    assert again.status_code == 409 and "set already" in again.json()["error"]  # type: ignore[attr-defined]
    assert Store(url).live.get(match) == before and len(Store(url).games.history(limit=None)) == 1
    assert ann.view(match)["current"]["secret"] == "EDA"  # type: ignore[index]
