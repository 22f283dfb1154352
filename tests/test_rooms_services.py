"""Rooms, the use cases on a real store (SQLite, and PostgreSQL when KEYPEG_TEST_POSTGRES names one): a
whole room whose boards are games in their players' history, races between requests, the clock,
leaving, rejoining, kicking and closing, and the ratings recorded once."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from keypeg.errors import ConflictError, ForbiddenError, GameOverError, NotFoundError, RefusedError
from keypeg.rules import Rules
from keypeg.services import rooms
from keypeg.store import Store

RULES = Rules(3, 4, rows=5)


class Feed:
    """Counts the changes announced (as the web's fan-out would wake followers)."""

    def __init__(self) -> None:
        self.changes: list[tuple[str, int]] = []

    def changed(self, kind: str, key: int) -> None:
        self.changes.append((kind, key))


class Clock:
    """The services' clock, moved by the test."""

    def __init__(self) -> None:
        self.at = datetime.now(UTC)

    def now(self, tz: Any = None) -> datetime:
        return self.at

    def skip(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "sqlite":
        yield Store(f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
        return
    url = os.environ.get("KEYPEG_TEST_POSTGRES")
    if not url:
        pytest.skip("no PostgreSQL server here: set KEYPEG_TEST_POSTGRES to a URL (.ci/postgres starts one)")
    found = Store(url)
    with found.engine.begin() as connection:
        from sqlalchemy import text

        connection.execute(text("TRUNCATE guesses, games, room_seats, rooms, players RESTART IDENTITY CASCADE"))
    yield found
    found.engine.dispose()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    found = Clock()
    monkeypatch.setattr(rooms, "datetime", found)
    return found


@pytest.fixture
def rated(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The calls to the ratings' use case (recorded, not rated)."""
    from keypeg.services import ratings

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(ratings, "MIN_CODES", 1)  # these rooms' small rules rated as classic's would be
    monkeypatch.setattr(ratings, "record", lambda store, kind, event, places, **_: calls.append((kind, event, places)))
    return calls


def room_of(store: Store, feed: Feed, players: list[str], **options: Any) -> str:
    public_id = rooms.create(store, players[0], RULES, **options)
    token = rooms.invite_token(store, public_id)
    for player in players[1:]:
        rooms.join(store, feed, public_id, player, token, "Kim" if player.startswith("guest-") else None)
    return public_id


def test_a_whole_room_in_turns_its_games_and_its_ratings(
    store: Store, clock: Clock, rated: list[tuple[Any, ...]]
) -> None:
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "guest-k1"], rounds=1, maker="turns", move_seconds=60)
    with pytest.raises(ForbiddenError):
        rooms.join(store, feed, public_id, "cy", "0" * 32)
    with pytest.raises(NotFoundError):
        rooms.snapshot(store, feed, "no-such-room", None)
    with pytest.raises(ForbiddenError):
        rooms.start(store, feed, public_id, "bob")
    rooms.start(store, feed, public_id, "ann")
    codes = {"ann": "ABC", "bob": "DDA", "guest-k1": "CAB"}
    for number, maker in enumerate(["ann", "bob", "guest-k1"], 1):
        view = rooms.snapshot(store, feed, public_id, maker)
        assert view["round"]["number"] == number and view["round"]["maker"] == maker
        rooms.set_code(store, feed, public_id, maker, codes[maker])
        assert rooms.snapshot(store, feed, public_id, maker)["round"]["code"] == codes[maker]
        watched = rooms.snapshot(store, feed, public_id, None)
        assert "code" not in watched["round"] and watched["board"] is None
        breakers = [p for p in codes if p != maker]
        clock.skip(1)
        rooms.guess(store, feed, public_id, breakers[0], "AAA", row=1)
        rooms.guess(store, feed, public_id, breakers[0], codes[maker], row=2)
        rooms.resign(store, feed, public_id, breakers[1])
        ended = rooms.snapshot(store, feed, public_id, None)["last_round"]
        assert ended["number"] == number and ended["code"] == codes[maker]
        assert ended["boards"][0]["rows"][1]["guess"] == codes[maker] and ended["maker_points"] == 2 + RULES.rows + 1
    final = rooms.snapshot(store, feed, public_id, "bob")
    assert final["over"] and final["room"]["status"] == "over" and final["round"] is None
    # ann: 8 as maker (2 guesses, rows + 1 for the board given up, as in a match), 1 + 1 as breaker; bob 1 + 8
    assert [(s["player"], s["points"]) for s in final["standing"]] == [("ann", 10), ("bob", 9), ("guest-k1", 8)]
    assert rated == [] and final["rating"] == "not rated: a guest played in it"  # N3: a guest's seat, no rating
    # every board is a game of its player's, with its guesses and its code on the private side
    bob = store.games.history("bob")
    assert sorted((g.guesses, g.outcome, g.secret) for g in bob) == [(0, "resigned", "CAB"), (2, "solved", "ABC")]
    assert rooms.rooms_of(store, "bob")[0] | {"names": None} == {
        "id": public_id,
        "names": None,
        "points": [10, 9, 8],
        "places": [1, 2, 3],
        "you": 1,
        "over": True,
        "status": "over",
    }
    assert rooms.rooms_of(store, "nobody") == []
    assert all(kind == "room" for kind, _ in feed.changes) and len(feed.changes) >= 12


def test_two_guesses_sent_at_once_leave_one_and_two_players_at_once_both_stand(store: Store, clock: Clock) -> None:
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "cy"], rounds=1)
    rooms.start(store, feed, public_id, "ann")
    code = rooms.shared(store, feed, public_id).room.current.code  # type: ignore[union-attr]
    wrong = next(c for c in ("AAA", "BBB", "CCC") if c != code)
    gate = threading.Barrier(4, timeout=10)
    answers: list[object] = []
    first = threading.local()
    read = store.rooms.get

    def get(public: str) -> Any:
        """Every request reads the room, then waits for the others to have read it: all at one version."""
        found = read(public)
        if not getattr(first, "done", False):
            first.done = True
            gate.wait()
        return found

    store.rooms.get = get  # type: ignore[method-assign]

    def send(player: str, row: int) -> None:
        try:
            rooms.guess(store, feed, public_id, player, wrong, row=row)
            answers.append((player, "ok"))
        except ConflictError:
            answers.append((player, "conflict"))

    threads = [threading.Thread(target=send, args=a) for a in (("bob", 1), ("bob", 1), ("cy", 1), ("ann", 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.rooms.get = read  # type: ignore[method-assign]
    assert sorted(answers) == [("ann", "ok"), ("bob", "conflict"), ("bob", "ok"), ("cy", "ok")]
    room = rooms.shared(store, feed, public_id).room
    assert room.current is not None and [len(b.guesses) for b in room.current.boards.values()] == [1, 1, 1]
    assert store.games.record(room.current.boards["bob"].game).guesses == 1  # type: ignore[arg-type]
    assert store.games.history("bob") == []  # a board of the round in play is in no history


def test_a_move_is_one_transaction(store: Store, clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.store import rooms as stored

    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob"], rounds=1)
    rooms.start(store, feed, public_id, "ann")
    before = store.rooms.get(public_id)

    def broken(*_: object) -> None:
        raise RuntimeError("the board's write fails")

    monkeypatch.setattr(stored, "_write_board", broken)
    with pytest.raises(Exception, match="board"):
        rooms.guess(store, feed, public_id, "bob", "AAA")
    monkeypatch.undo()
    board = rooms.shared(store, feed, public_id).room.current.boards["bob"]  # type: ignore[union-attr]
    assert store.rooms.get(public_id) == before and store.games.record(board.game).guesses == 0  # type: ignore[arg-type]


def test_the_clock_at_every_load(store: Store, clock: Clock) -> None:
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "cy"], rounds=1, maker="turns", move_seconds=30)
    rooms.start(store, feed, public_id, "ann")
    clock.skip(31)  # ann never sets her code: the computer does, and she scores nothing
    view = rooms.snapshot(store, feed, public_id, "bob")
    assert view["round"]["code_set"] and view["board"]["seconds_left"] == 30.0
    code = rooms.shared(store, feed, public_id).room.current.code  # type: ignore[union-attr]
    wrong = next(c for c in ("AAA", "BBB") if c != code)  # the computer's code is drawn at random
    rooms.guess(store, feed, public_id, "bob", wrong)
    clock.skip(30)  # both breakers late: their boards end, the next round (bob's code) begins
    with pytest.raises(RefusedError):
        rooms.guess(store, feed, public_id, "cy", wrong)  # cy is timed out first, then refused
    view = rooms.snapshot(store, feed, public_id, "cy")
    assert view["last_round"]["maker_ended"] == "timed out" and view["last_round"]["maker_points"] == 0
    assert [b["ended"] for b in view["last_round"]["boards"]] == ["timed out", "timed out"]
    assert view["round"]["number"] == 2 and view["round"]["maker"] == "bob" and not view["round"]["code_set"]
    assert [g.outcome for g in store.games.history("cy")] == ["resigned"]


def test_leave_rejoin_kick_and_close(store: Store, clock: Clock, rated: list[tuple[Any, ...]]) -> None:
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "cy", "guest-z9"], rounds=3)
    token = rooms.invite_token(store, public_id)
    rooms.join(store, feed, public_id, "dan", token)
    rooms.leave(store, feed, public_id, "dan")  # before the start: the seat is freed, the room not his
    assert rooms.rooms_of(store, "dan") == [] and len(rooms.rooms_of(store, "cy")) == 1
    rooms.start(store, feed, public_id, "ann")
    with pytest.raises(RefusedError):
        rooms.join(store, feed, public_id, "dan", token)  # seats only before the start
    rooms.leave(store, feed, public_id, "ann")  # the host leaves: bob hosts
    view = rooms.snapshot(store, feed, public_id, "bob")
    assert view["host"] == "bob" and view["seats"][0]["status"] == "left"
    assert view["round"]["boards"][0]["ended"] == "left"
    assert view["links"]["join"].endswith(token)
    assert "join" not in rooms.snapshot(store, feed, public_id, None)["links"]
    rooms.join(store, feed, public_id, "ann", token)  # back with the same link, from the next round
    with pytest.raises(GameOverError):
        rooms.guess(store, feed, public_id, "ann", "AAA")
    with pytest.raises(ForbiddenError):
        rooms.kick(store, feed, public_id, "ann", "cy")  # no longer the host
    rooms.kick(store, feed, public_id, "bob", "guest-z9")
    with pytest.raises(ForbiddenError):
        rooms.join(store, feed, public_id, "guest-z9", token)
    for player in ("bob", "cy"):
        rooms.resign(store, feed, public_id, player)
    view = rooms.snapshot(store, feed, public_id, "ann")
    assert view["round"]["number"] == 2 and [b["player"] for b in view["round"]["boards"]] == [
        "ann",
        "bob",
        "cy",
        "guest-z9",
    ]
    rooms.resign(store, feed, public_id, "ann")  # her board ends before the room closes: it stays so
    rooms.close(store, feed, public_id, "bob")
    view = rooms.snapshot(store, feed, public_id, None)  # the removed guest's board given up at once (absent)
    assert [b["ended"] for b in view["rounds"][-1]["boards"]] == ["resigned", "closed", "closed", "absent"]
    assert view["over"] and view["room"]["closed"] and view["rounds"][-1]["closed"]
    assert rated == []  # a guest played in it (N3)
    with pytest.raises(ConflictError):  # closing a room over: 409 for anyone (L7)
        rooms.close(store, feed, public_id, "bob")
    assert [g.outcome for g in store.games.history("ann")] == ["resigned", "resigned"]


def test_a_room_that_ends_is_rated_once_and_one_a_guest_played_in_never(
    store: Store, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg.services import ratings

    monkeypatch.setattr(ratings, "MIN_CODES", 1)  # small rules rated as classic's would be

    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "cy"], rounds=1)
    rooms.start(store, feed, public_id, "ann")
    assert ratings.record(store, "room", public_id, []) == []  # not rated while it is played
    for player in ("ann", "cy", "bob"):
        rooms.resign(store, feed, public_id, player)
    assert rooms.snapshot(store, feed, public_id, None)["over"]
    recorded = ratings.record(store, "room", public_id, [])  # what the room's end recorded, found again
    assert sorted(change.player for change in recorded) == ["ann", "bob", "cy"]

    guest = room_of(store, feed, ["ann", "bob", "guest-q"], rounds=1)  # N3: a guest's seat (a second window)
    rooms.start(store, feed, guest, "ann")
    rooms.guess(store, feed, guest, "guest-q", "AAA")
    for player in ("ann", "guest-q", "bob"):
        rooms.resign(store, feed, guest, player)
    view = rooms.snapshot(store, feed, guest, "bob")
    assert view["over"] and view["rating"] == "not rated: a guest played in it"
    assert ratings.record(store, "room", guest, []) == []  # nothing was recorded: nothing found


def test_a_room_ended_by_the_clock_under_a_late_move_is_rated(
    store: Store, clock: Clock, rated: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    feed = Feed()
    monkeypatch.setattr(rooms, "_draw", lambda rules: lambda: "CCC")
    public_id = room_of(store, feed, ["ann", "bob"], rounds=1, move_seconds=30)
    rooms.start(store, feed, public_id, "ann")
    rooms.resign(store, feed, public_id, "ann")  # both played: the round counts
    rooms.guess(store, feed, public_id, "bob", "AAA")
    clock.skip(31)
    with pytest.raises(GameOverError):
        rooms.guess(store, feed, public_id, "bob", "AAB")  # timed out first: the room is over
    assert rooms.snapshot(store, feed, public_id, None)["over"]
    assert rated == [("room", public_id, [["ann", "bob"]])]


def test_a_store_that_is_down_is_unavailable_not_a_missing_room(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.errors import UnavailableError
    from keypeg.store import StoreUnavailableError

    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob"])

    def down(*_: object) -> None:
        raise StoreUnavailableError("cannot use the database: connection refused")

    monkeypatch.setattr(store.rooms, "get", down)
    with pytest.raises(UnavailableError):
        rooms.snapshot(store, feed, public_id, None)


def _in_play(store: Store, feed: Feed, public_id: str) -> tuple[str, list[int]]:
    """The round in play's code and its boards' games (read on the server's side)."""
    current = rooms.shared(store, feed, public_id).room.current
    assert current is not None and current.code is not None
    return current.code, [b.game for b in current.boards.values() if b.game is not None]


ENDINGS = ["resign", "leave", "kick", "time-out", "broken", "out of rows"]


@pytest.mark.parametrize("maker", ["computer", "turns"])
@pytest.mark.parametrize("ending", ENDINGS)
def test_no_reader_of_games_shows_a_board_of_the_round_in_play(
    store: Store, clock: Clock, rated: list[tuple[Any, ...]], ending: str, maker: str
) -> None:
    from keypeg.services import records

    feed = Feed()
    players = ["ann", "bob", "cy", "dan"]
    public_id = room_of(store, feed, players, rounds=1, maker=maker, move_seconds=30)
    rooms.start(store, feed, public_id, "ann")
    if maker == "turns":
        rooms.set_code(store, feed, public_id, "ann", "ABC")  # ann makes round 1: her "made" games
    code, boards = _in_play(store, feed, public_id)
    wrong = next(c for c in ("AAA", "BBB") if c != code)
    others = [p for p in players if p != "bob" and (maker == "computer" or p != "ann")]  # still playing
    for player in others:
        rooms.guess(store, feed, public_id, player, wrong)
    if ending == "resign":
        rooms.resign(store, feed, public_id, "bob")
    elif ending == "leave":
        rooms.leave(store, feed, public_id, "bob")
    elif ending == "kick":
        rooms.kick(store, feed, public_id, "ann", "bob")
    elif ending == "time-out":
        clock.skip(20)
        for player in others:
            rooms.guess(store, feed, public_id, player, wrong)
        clock.skip(11)  # bob's clock runs out, not theirs
    elif ending == "broken":
        rooms.guess(store, feed, public_id, "bob", code)
    else:
        for _ in range(RULES.rows):
            rooms.guess(store, feed, public_id, "bob", wrong)
    view = rooms.snapshot(store, feed, public_id, None)
    bob = next(b for b in view["round"]["boards"] if b["player"] == "bob")
    assert bob["over"] and view["round"]["number"] == 1  # bob's board is over, the others still play
    assert [b["over"] for b in view["round"]["boards"] if b["player"] != "bob"] == [False] * len(others)
    stored = store.rooms.get(public_id)
    assert f'"{code}"' not in stored.state and stored.secret is not None and f'"{code}"' in stored.secret
    for game in boards:  # a game read alone (keypeg replay, show): no secret
        assert store.games.record(game).secret is None
    for player in players:  # the history of every face (API, pages, keypeg history, the Players page)
        for made in (False, True):
            seen = records.history(store, player, limit=None, with_moves=True, made=made)
            assert [g for g in seen if g.room == public_id] == []
            assert all(g.secret != code for g in seen)
        assert records.stats(store, player).games == 0
    for player in others:  # the round ends: everything of it is shown
        rooms.resign(store, feed, public_id, player)
    for game in boards:
        assert store.games.record(game).secret == code
    seen = records.history(store, "ann", limit=None, with_moves=True, made=True)
    assert len([g for g in seen if g.room == public_id]) == (3 if maker == "turns" else 1)
    (board,) = records.history(store, "bob", limit=None, with_moves=True)
    assert board.room == public_id and board.secret == code and board.outcome is not None


def test_a_room_ended_before_its_start_is_not_rated(store: Store, clock: Clock, rated: list[tuple[Any, ...]]) -> None:
    feed = Feed()
    closing = room_of(store, feed, ["ann", "bob", "cy"])
    rooms.close(store, feed, closing, "ann")
    emptied = room_of(store, feed, ["ann", "bob"])
    rooms.leave(store, feed, emptied, "bob")
    rooms.leave(store, feed, emptied, "ann")
    for public_id in (closing, emptied):
        view = rooms.snapshot(store, feed, public_id, None)
        assert view["over"] and view["room"]["rounds"] == 0 and view["standing"]
    assert rated == []  # no round played: no result (a draw of everyone would move their ratings)


# -- review F4, F8, F9, F12, F13, F14 ---------------------------------------------------------------------


def test_six_players_guessing_at_once_are_never_refused_as_busy(store: Store) -> None:
    """F13: the moves of a room take turns on its row's lock: a legal move is never refused because others
    moved at the same time (before, 6 players at once lost the compare-and-swap 8 times in a row: 409)."""
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite's writers are one at a time anyway")
    feed = Feed()
    players = ["p0", "p1", "p2", "p3", "p4", "p5"]
    public_id = room_of(store, feed, players, rounds=4)
    rooms.start(store, feed, public_id, "p0")
    refused: list[str] = []
    played: list[int] = []
    go, stop = threading.Barrier(len(players)), threading.Event()

    def play(player: str) -> None:
        go.wait()
        while not stop.is_set():
            view = rooms.snapshot(store, feed, public_id, player)
            if view["over"]:
                return
            board, round_ = view["board"], view["round"]
            if board is None or board["over"]:
                continue  # the others' boards: wait for the next round
            row = len(board["rows"]) + 1
            try:
                rooms.guess(store, feed, public_id, player, "ABCD"[row % 4] * 3, row, round_["number"])
                played.append(1)
            except ConflictError as error:
                if "busy" in str(error):
                    refused.append(str(error))
                    stop.set()  # the others would wait for this board's end
            except GameOverError:
                pass

    threads = [threading.Thread(target=play, args=(p,), daemon=True) for p in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    stop.set()
    assert refused == [] and len(played) >= 4 * 6
    view = rooms.snapshot(store, feed, public_id, None)
    assert view["over"] and len(view["rounds"]) == 4


def test_a_guess_names_its_round_a_stale_one_is_refused(store: Store) -> None:
    """F8: a guess re-sent after its round ended (the move that ended it) never lands on the next round."""
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob"], rounds=2)
    with pytest.raises(ConflictError, match="round 1 has not started"):
        rooms.guess(store, feed, public_id, "ann", "AAA", 1, 1)  # the room waits for its start
    rooms.start(store, feed, public_id, "ann")
    rooms.resign(store, feed, public_id, "bob")
    for row in range(1, RULES.rows + 1):
        view = rooms.snapshot(store, feed, public_id, "ann")
        if view["round"]["number"] != 1:
            break
        rooms.guess(store, feed, public_id, "ann", "ABCD"[row % 4] * 3, row, 1)
    view = rooms.snapshot(store, feed, public_id, "ann")
    assert view["round"]["number"] == 2 and view["board"]["rows"] == []
    with pytest.raises(ConflictError, match="round 1 is over"):
        rooms.guess(store, feed, public_id, "ann", "AAA", 1, 1)  # round 1's first guess, sent again
    with pytest.raises(ConflictError, match="round 3 has not started"):  # review G2: not "is over"
        rooms.guess(store, feed, public_id, "ann", "AAA", 1, 3)
    assert rooms.snapshot(store, feed, public_id, "ann")["board"]["rows"] == []
    rooms.guess(store, feed, public_id, "ann", "AAA", 1, 2)  # the round in play: played
    assert len(rooms.snapshot(store, feed, public_id, "ann")["board"]["rows"]) == 1


def test_a_room_whose_rating_failed_is_rated_at_its_next_read(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """F4: the rating write failed when the room ended (a store blip): the next read rates it (once)."""
    from keypeg.errors import UnavailableError
    from keypeg.services import ratings

    feed = Feed()
    calls: list[str] = []

    def record(store: Store, kind: str, event: str, places: Any, **_: Any) -> None:
        calls.append(event)
        if len(calls) == 1:
            raise UnavailableError("the store is down for a moment")

    monkeypatch.setattr(ratings, "record", record)
    monkeypatch.setattr(ratings, "MIN_CODES", 1)
    public_id = room_of(store, feed, ["ann", "bob"], rounds=1)
    rooms.start(store, feed, public_id, "ann")
    rooms.resign(store, feed, public_id, "ann")
    rooms.resign(store, feed, public_id, "bob")  # the room ends: its rating fails
    assert calls == [public_id]
    assert rooms.snapshot(store, feed, public_id, None)["over"]
    assert calls == [public_id, public_id]  # rated at the next read
    rooms.snapshot(store, feed, public_id, "ann")
    assert calls == [public_id, public_id]  # and not again


def test_a_room_with_no_round_played_is_not_rated(store: Store, clock: Clock, rated: list[tuple[Any, ...]]) -> None:
    """F14: closed during its first round, or every round run out with nobody moving: not rated."""
    feed = Feed()
    closed = room_of(store, feed, ["ann", "bob"], rounds=2)
    rooms.start(store, feed, closed, "ann")
    rooms.close(store, feed, closed, "ann")  # before anyone moved: only the host's close, not rated
    idle = room_of(store, feed, ["cy", "dan", "eve"], rounds=3, move_seconds=30)
    rooms.start(store, feed, idle, "cy")
    for _ in range(3):
        clock.skip(31)
        rooms.snapshot(store, feed, idle, None)
    assert rooms.snapshot(store, feed, closed, None)["over"] and rooms.snapshot(store, feed, idle, None)["over"]
    assert rated == []


def test_the_host_kicks_a_player_who_left_and_a_kick_renews_the_link(store: Store) -> None:
    """F9: the host kicks a seat whatever its status; the kicked player cannot come back, not even as a
    new guest with the old link (each kick renews it)."""
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "cy"], rounds=1)
    old = rooms.invite_token(store, public_id)
    rooms.kick(store, feed, public_id, "ann", "cy")  # before the start
    new = rooms.invite_token(store, public_id)
    assert new != old and rooms.snapshot(store, feed, public_id, "ann")["links"]["token"] == new
    with pytest.raises(ForbiddenError):
        rooms.join(store, feed, public_id, "guest-cy2", old, "cy")  # a new guest with the old link
    rooms.join(store, feed, public_id, "dan", new)
    rooms.join(store, feed, public_id, "bob", old)  # seated already: the old link changes nothing, refuses nothing
    rooms.start(store, feed, public_id, "ann")
    rooms.leave(store, feed, public_id, "bob")
    rooms.kick(store, feed, public_id, "ann", "bob")  # left: kicked all the same
    view = rooms.snapshot(store, feed, public_id, "ann")
    assert [s["status"] for s in view["seats"]] == ["present", "kicked", "present"]
    with pytest.raises(ForbiddenError):
        rooms.join(store, feed, public_id, "bob", view["links"]["token"])
    with pytest.raises(RefusedError):
        rooms.kick(store, feed, public_id, "ann", "bob")  # removed already


def test_a_room_too_large_is_refused_and_the_stream_sends_ended_rounds_once(store: Store, drawn: None) -> None:
    """F12: a room that could hold more guesses than the limit is refused when made; the stream's views
    carry the ended rounds but the last as summaries (no rows), GET has them whole."""
    from keypeg.limits import ROOM_GUESSES_LIMIT

    with pytest.raises(RefusedError, match="guesses"):
        rooms.create(store, "ann", Rules(4, 6, rows=100), rounds=20, maker="turns")
    assert ROOM_GUESSES_LIMIT >= 8 * 7 * 3 * 12  # a room in turns of 3 codes each, 12 rows: made
    rooms.create(store, "ann", Rules(4, 6, rows=12), rounds=3, maker="turns")
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob"], rounds=3)
    rooms.start(store, feed, public_id, "ann")
    for _ in range(2):
        rooms.guess(store, feed, public_id, "ann", "AAA")
        rooms.guess(store, feed, public_id, "bob", "BBB")
        for player in ("ann", "bob"):
            rooms.resign(store, feed, public_id, player)  # the code is CCC: never broken
    opened = rooms.shared(store, feed, public_id)
    streamed, whole = rooms.shown(opened, "ann", whole=False), rooms.shown(opened, "ann")
    assert [r["number"] for r in streamed["rounds"]] == [1, 2]
    assert all("rows" not in b for b in streamed["rounds"][0]["boards"])
    assert streamed["rounds"][1] == streamed["last_round"] == whole["rounds"][1]
    assert [len(b["rows"]) for b in whole["rounds"][0]["boards"]] == [1, 1]
    assert {k: v for k, v in whole["rounds"][0].items() if k != "boards"} == {
        k: v for k, v in streamed["rounds"][0].items() if k != "boards"
    }


def test_a_fresh_process_whose_first_room_call_is_a_move_answers_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review G7: on SQLite a move holds the write lock for its transaction; the invitations' key, read by
    the move's view of the links, was read in a transaction of its own that waited on the move's lock (a
    fresh process, the key not yet cached: 77 s, then 503). Here the fresh store waits at most 0.2 s on a
    lock and tries once, so a move that waits on itself fails at once instead of hanging the suite."""
    import time

    from sqlalchemy import event

    from keypeg.store import plumbing

    url = f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    feed = Feed()
    first = Store(url)
    public_id = room_of(first, feed, ["ann", "bob"], rounds=1)
    rooms.start(first, feed, public_id, "ann")
    first.engine.dispose()
    fresh = Store(url)  # a new process: nothing of the first one's cached

    def short_wait(connection: Any, _record: Any) -> None:
        connection.execute("PRAGMA busy_timeout=200")

    event.listen(fresh.engine, "connect", short_wait)
    monkeypatch.setattr(plumbing, "BUSY_RETRIES", 1)
    began = time.monotonic()
    view = rooms.guess(fresh, feed, public_id, "bob", "AAA", row=1, round=1)
    assert view["board"]["rows"][0]["guess"] == "AAA" and time.monotonic() - began < 5
    assert view["links"]["token"] == rooms.invite_token(first, public_id)
    fresh.engine.dispose()


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every round's code is CCC (no guess of A or B breaks it)."""
    monkeypatch.setattr(rooms, "_draw", lambda rules: lambda: "CCC")


def test_a_room_is_rated_only_if_two_rated_players_played(
    store: Store, drawn: None, rated: list[tuple[Any, ...]]
) -> None:
    """Review G3: a guest playing a round alone does not rate the registered players who never moved."""
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "guest-k7"], rounds=1)
    rooms.start(store, feed, public_id, "ann")
    rooms.guess(store, feed, public_id, "guest-k7", "AAA", row=1, round=1)
    rooms.leave(store, feed, public_id, "bob")
    rooms.leave(store, feed, public_id, "ann")
    rooms.resign(store, feed, public_id, "guest-k7")
    assert rooms.snapshot(store, feed, public_id, None)["over"] and rated == []
    both = room_of(store, feed, ["ann", "bob"], rounds=1)
    rooms.start(store, feed, both, "ann")
    rooms.guess(store, feed, both, "bob", "AAA")
    rooms.resign(store, feed, both, "ann")  # giving up one's own board is playing
    rooms.resign(store, feed, both, "bob")
    assert rated == [("room", both, [["ann", "bob"]])]  # two boards not broken: a draw


def test_a_kicked_player_is_never_rated_for_the_room(store: Store, drawn: None, rated: list[tuple[Any, ...]]) -> None:
    """Review G6: the host kicks an opponent mid-round and finishes: the kicked player takes no loss."""
    feed = Feed()
    alone = room_of(store, feed, ["ann", "bob"], rounds=1)
    rooms.start(store, feed, alone, "ann")
    rooms.kick(store, feed, alone, "ann", "bob")
    rooms.guess(store, feed, alone, "ann", "CCC")  # broken: the room is over, ann first
    assert rooms.snapshot(store, feed, alone, None)["standing"][1]["status"] == "kicked"
    assert rated == [("room", alone, [["ann"]])]  # N2: ann alone is placed; her result against bob, a loss
    assert rooms.shared(store, feed, alone).room.rating_losses() == [("ann", "bob")]
    rated.clear()
    three = room_of(store, feed, ["ann", "bob", "cy"], rounds=1)
    rooms.start(store, feed, three, "ann")
    rooms.guess(store, feed, three, "cy", "AAA")
    rooms.guess(store, feed, three, "bob", "AAA")
    rooms.kick(store, feed, three, "ann", "cy")
    rooms.guess(store, feed, three, "bob", "CCC")
    rooms.guess(store, feed, three, "ann", "CCC")
    assert rated == [("room", three, [["ann"], ["bob"]])]  # ann broke in 1, bob in 2; cy, kicked, left out


def test_closing_during_a_round_counts_it_as_it_stands(store: Store, drawn: None, rated: list[tuple[Any, ...]]) -> None:
    """Review G4: the host cannot void a round they are losing by closing the room: the round counts as it
    stands, the boards in play given up, the host's own beaten by every other board."""
    feed = Feed()
    public_id = room_of(store, feed, ["ann", "bob", "cy"], rounds=2)
    rooms.start(store, feed, public_id, "ann")
    rooms.guess(store, feed, public_id, "ann", "AAA")
    rooms.guess(store, feed, public_id, "bob", "AAB")
    rooms.guess(store, feed, public_id, "cy", "CCC")  # broken
    rooms.close(store, feed, public_id, "ann")  # ann and bob still in play
    view = rooms.snapshot(store, feed, public_id, None)
    closed = view["rounds"][-1]
    assert (
        view["over"] and closed["closed"] and [b["ended"] for b in closed["boards"]] == ["closed", "closed", "broken"]
    )
    assert [b["points"] for b in closed["boards"]] == [0, 1, 2]
    assert [(s["player"], s["points"], s["place"]) for s in view["standing"]] == [
        ("cy", 2, 1),
        ("bob", 1, 2),
        ("ann", 0, 3),
    ]
    assert rated == [("room", public_id, [["cy"], ["bob"], ["ann"]])]
    assert sorted(g.outcome for g in store.games.history("ann")) == ["resigned"]  # given up
