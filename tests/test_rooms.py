"""Rooms, the play layer: seats, rounds (the computer's codes or players' in turn), the clock, points and
the standing, what each viewer may see (never a guess or a code of the round in play but one's own), and
the state's round trip."""

from __future__ import annotations

import copy
import itertools
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg.errors import ConflictError, ForbiddenError, GameOverError, IllegalMoveError, KeypegError, RefusedError
from keypeg.play.rooms import Board, Room, Round, Standing, check_rounds
from keypeg.rules import Rules

RULES = Rules(2, 3, rows=4)
AT = datetime(2026, 1, 1, tzinfo=UTC)
PLAYERS = ["ann", "bob", "cy", "guest-d1", "eve"]
CODES = ["".join(p) for p in itertools.product("ABC", repeat=2)]


def later(seconds: float) -> datetime:
    return AT + timedelta(seconds=seconds)


def drawer(codes: list[str]) -> Any:
    left = iter(codes)
    return lambda: next(left, "AB")


def seated(players: int, maker: str = "computer", rounds: int = 2, move: int = 60) -> Room:
    room = Room.new(RULES, "ann", rounds=rounds, maker=maker, move_seconds=move)
    for name in PLAYERS[1:players]:
        room.join(name, "Dee" if name.startswith("guest-") else None, guest=name.startswith("guest-"), now=AT)
    return room


# -- rounds and points ----------------------------------------------------------------------------------


def test_a_room_of_three_with_the_computers_codes() -> None:
    room = seated(3)
    with pytest.raises(ForbiddenError):
        room.start("bob", now=AT, draw=drawer(["AB"]))
    room.start("ann", now=AT, draw=drawer(["AB", "CC"]))
    assert room.total == 2 and room.current is not None and set(room.current.boards) == {"ann", "bob", "cy"}
    assert str(room.guess("bob", "AB", now=later(2))) == "2,0"  # broken in 1 at 2 s
    with pytest.raises(GameOverError):
        room.guess("bob", "AB", now=later(3))
    room.guess("ann", "BA", now=later(1))
    room.guess("ann", "AB", now=later(3))  # broken in 2
    room.resign("cy", now=later(4))
    room.advance(later(4), drawer(["CC"]))
    assert [b.tenths for b in room.played[0].boards.values()] == [30, 20, 40]
    assert room.played[0].points(RULES) == {"ann": 1, "bob": 2, "cy": 0}
    assert room.current is not None and room.current.number == 2 and room.current.code == "CC"
    for name in ("ann", "bob", "cy"):  # all broken in 1: by seconds
        room.guess(name, "CC", now=later({"ann": 5, "bob": 6, "cy": 5}[name]))
    room.advance(later(7), drawer([]))
    assert room.played[1].points(RULES) == {"ann": 1, "bob": 0, "cy": 1}  # ann and cy tie at 1.0 s
    assert room.is_over and room.current is None
    assert [(s.place, s.player, s.points, s.guesses) for s in room.standing()] == [
        (1, "bob", 2, 2),
        (2, "ann", 2, 3),
        (3, "cy", 1, 6),
    ]
    assert room.places() == [["bob"], ["ann"], ["cy"]]


def test_turns_each_player_makes_codes_and_scores_as_in_a_match() -> None:
    room = seated(3, maker="turns", rounds=1)
    room.start("ann", now=AT, draw=drawer([]))
    assert room.total == 3 and room.current is not None and room.current.maker == "ann"
    with pytest.raises(IllegalMoveError):
        room.guess("bob", "AB", now=later(1))  # no code yet
    with pytest.raises(IllegalMoveError):
        room.set_code("bob", "AB", now=later(1))
    with pytest.raises(IllegalMoveError) as refused:
        room.set_code("ann", "ABX", now=later(1))
    assert "ABX" not in str(refused.value)
    room.set_code("ann", "BC", now=later(1))
    with pytest.raises(ConflictError):
        room.set_code("ann", "BC", now=later(1))
    assert set(room.current.boards) == {"bob", "cy"}
    assert room.view("ann", later(1))["round"]["code"] == "BC"
    assert "code" not in room.view("bob", later(1))["round"]
    for guess in ("AA", "BB", "CC", "AB"):  # bob: out of rows (4 guesses)
        room.guess("bob", guess, now=later(2))
    room.guess("cy", "BC", now=later(3))  # cy breaks it in 1
    room.advance(later(3), drawer([]))
    assert room.played[0].points(RULES) == {"bob": 0, "cy": 1, "ann": 5 + 1 + 0}  # 5 guesses + 1 not broken
    assert room.current is not None and room.current.maker == "bob" and room.current.code is None
    # bob runs out of time to set the code: the computer sets one, bob scores nothing
    assert room.advance(later(3 + 59), drawer([])) is False
    assert room.advance(later(3 + 60), drawer(["CA"])) is True
    assert room.current.code == "CA" and room.current.maker_ended == "timed out"
    assert set(room.current.boards) == {"ann", "cy"}
    room.guess("ann", "CA", now=later(70))
    room.guess("cy", "CA", now=later(80))
    room.advance(later(80), drawer([]))
    assert room.played[1].points(RULES) == {"ann": 1, "cy": 0, "bob": 0}
    assert room.current is not None and room.current.maker == "cy"
    room.leave("cy", now=later(81))  # the maker left: the computer sets the code at once
    room.advance(later(81), drawer(["AA"]))
    assert room.current.maker_ended == "left" and set(room.current.boards) == {"ann", "bob"}
    assert room.view("cy", later(81))["round"].get("code") is None


def test_the_clock_ends_late_boards_and_the_next_round_starts_then() -> None:
    room = seated(2, move=30)
    room.start("ann", now=AT, draw=drawer(["AB", "BA"]))
    room.guess("ann", "AA", now=later(20))  # ann's clock restarts at 20 s
    assert room.deadline() == later(30)
    assert room.advance(later(30), drawer(["BA"]))
    assert room.current is not None and room.current.boards["bob"].ended == "timed out"
    assert room.current.boards["ann"].ended is None and room.deadline() == later(50)
    room.advance(later(55), drawer(["BA"]))
    assert room.played[0].points(RULES) == {"ann": 0, "bob": 0}  # both not broken: a tie
    assert room.current is not None and room.current.number == 2 and room.current.began == later(55)


def test_seats_leave_rejoin_kick_close_and_the_host_passes_on() -> None:
    room = Room.new(RULES, "ann", rounds=2)
    assert room.join("ann", now=AT) is False
    for name in PLAYERS[1:4]:
        room.join(name, now=AT)
    room.leave("cy", now=AT)  # before the start: the seat is freed
    assert [s.player for s in room.seats] == ["ann", "bob", "guest-d1"]
    room.kick("ann", "guest-d1", now=AT)
    with pytest.raises(ForbiddenError):
        room.join("guest-d1", now=AT)
    for name in ("cy", "eve", "p6", "p7", "p8", "p9"):
        room.join(name, now=AT)
    with pytest.raises(RefusedError):
        room.join("p10", now=AT)  # 8 seats at most
    assert len(room.seats) == 8
    room.start("ann", now=AT, draw=drawer(["AB", "CC"]))
    with pytest.raises(RefusedError):
        room.join("zed", now=AT)  # no new seat after the start
    room.leave("ann", now=later(1))  # the host leaves: the next seated player hosts
    assert room.host == "bob" and room.current is not None and room.current.boards["ann"].ended == "left"
    with pytest.raises(ForbiddenError):
        room.close("ann", now=later(2))
    assert room.join("ann", now=later(2)) is True  # back, from the next round on
    assert room.current.boards["ann"].ended == "left"
    room.kick("bob", "cy", now=later(3))
    with pytest.raises(ForbiddenError):
        room.join("cy", now=later(3))
    with pytest.raises(RefusedError, match="the host removed you"):  # not "you have left"
        room.leave("cy", now=later(3))
    room.guess("bob", "AB", now=later(4))  # broken: it stays so when the room closes
    room.close("bob", now=later(4))
    assert room.played[-1].boards["bob"].ended == "broken" and room.played[-1].boards["eve"].ended == "closed"
    # the round in play counts as it stood (review G4): bob, broken, beats the 7 boards given up at the close
    assert room.is_over and room.closed and room.played[-1].closed and room.played[-1].closer == "bob"
    assert room.played[-1].points(RULES)["bob"] == 7 and sum(room.played[-1].points(RULES).values()) == 7
    # bob closed before the last round ended: he forfeits, placed last alone, his 7 points shown
    assert room.standing()[-1] == Standing(8, "bob", 7, 1) and all(s.points == 0 for s in room.standing()[:-1])
    assert "cy" not in [p for place in room.places() for p in place]  # kicked: never rated for the room (review G6)
    with pytest.raises(GameOverError):
        room.guess("bob", "AB", now=later(5))


def test_closing_never_gains_the_host_a_point() -> None:
    """Review G4: the round in play counts as it stands when the host closes; the host's board, not broken,
    loses to every other (giving up first does not help), and broken, to each board cut short that could
    yet have beaten it (fewer guesses)."""
    for host_breaks, expected in ((False, {"ann": 0, "bob": 1, "cy": 1}), (True, {"ann": 1, "bob": 1, "cy": 0})):
        room = Room.new(RULES, "ann", rounds=1)
        for player in ("bob", "cy"):
            room.join(player, now=AT)
        room.start("ann", now=AT, draw=drawer(["CC"]))
        for guess in ("AA", "AB", "CC") if host_breaks else ("AA", "AB"):
            room.guess("ann", guess, now=later(1))
        if not host_breaks:
            room.resign("ann", now=later(2))  # gives up first, then closes: still beaten by the boards in play
        room.guess("bob", "AA", now=later(2))  # 1 guess: could still break in 2, fewer than ann's 3
        for guess in ("AA", "BB"):
            room.guess("cy", guess, now=later(3))  # 2 guesses: could not beat 3 any more
        room.close("ann", now=later(4))
        closed = room.played[-1]
        assert closed.closed and [b.ended for b in closed.boards.values()][1:] == ["closed", "closed"]
        assert closed.points(RULES) == expected
        assert {s.player: s.points for s in room.standing()} == expected


def test_a_full_room_and_bad_settings_are_refused() -> None:
    room = Room.new(RULES, "p0")
    for number in range(1, 8):
        room.join(f"p{number}", now=AT)
    with pytest.raises(RefusedError):
        room.join("p8", now=AT)
    with pytest.raises(RefusedError):
        Room.new(RULES, "ann", maker="anyone")
    with pytest.raises(RefusedError):
        Room.new(RULES, "ann", move_seconds=1)
    with pytest.raises(RefusedError):
        check_rounds(21)
    with pytest.raises(RefusedError):
        Room.new(RULES, "ann").start("ann", now=AT, draw=drawer([]))  # alone


@st.composite
def boards(draw: st.DrawFn) -> list[Board]:
    found = []
    for index in range(draw(st.integers(2, 6))):
        broken = draw(st.booleans())
        guesses = draw(st.integers(1, RULES.rows)) if broken else draw(st.integers(0, RULES.rows))
        given_up = ["out of rows", "resigned", "timed out", "left", "absent"]
        ended = "broken" if broken else draw(st.sampled_from(given_up))
        rows = [("AB", 0, 0)] * guesses
        found.append(Board(f"p{index}", AT, rows, None, ended, draw(st.integers(0, 50))))
    return found


@given(boards(), st.booleans())
def test_points_are_one_for_each_breaker_beaten_and_the_makers_as_in_a_match(found: list[Board], turns: bool) -> None:
    round_ = Round(1, "maker" if turns else None, AT, "AB", {b.player: b for b in found})
    points = round_.points(RULES)

    def key(board: Board) -> tuple[int, float]:
        counted = len(board.guesses) if board.ended == "broken" else RULES.rows + 1
        return counted, board.tenths if board.ended == "broken" else float("inf")

    for board in found:
        assert points[board.player] == sum(key(board) < key(o) for o in found if o is not board)
    if turns:
        # as in a match: a guess a point for a board broken, rows + 1 for one given up
        held = [len(b.guesses) if b.broken else RULES.rows + 1 for b in found]  # no closed board drawn
        assert points["maker"] == sum(held)
    assert sum(points[b.player] for b in found) <= len(found) * (len(found) - 1) // 2


# -- what each viewer sees, and the state's round trip ------------------------------------------------------

ACTION = st.tuples(
    st.sampled_from(["guess", "guess", "guess", "code", "resign", "leave", "join", "wait", "kick"]),
    st.integers(0, 4),
    st.sampled_from(CODES),
    st.integers(0, 40),
)


def play(room: Room, actions: list[tuple[str, int, str, int]]) -> list[tuple[datetime, Room]]:
    """Play ``actions`` on ``room`` (refused ones change nothing); the room after each, as a copy."""
    codes = itertools.cycle(CODES)
    clock = 0.0
    seen = []
    for kind, who, code, seconds in actions:
        clock += seconds
        now = later(clock)
        player = PLAYERS[who]
        try:
            if kind == "guess":
                room.guess(player, code, now=now)
            elif kind == "code":
                room.set_code(player, code, now=now)
            elif kind == "resign":
                room.resign(player, now=now)
            elif kind == "leave":
                room.leave(player, now=now)
            elif kind == "join":
                room.join(player, now=now)
            elif kind == "kick":
                room.kick(room.host, player, now=now)
        except KeypegError:
            pass
        room.advance(now, lambda: next(codes))
        seen.append((now, copy.deepcopy(room)))
    return seen


def in_play(room: Room) -> list[str]:
    """Every guess and the code of the round in play."""
    current = room.current
    if current is None:
        return []
    return [g for b in current.boards.values() for g, _, _ in b.guesses] + ([current.code] if current.code else [])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.sampled_from(["computer", "turns"]), st.lists(ACTION, max_size=40))
def test_no_viewer_sees_a_guess_or_code_of_the_round_in_play_but_their_own(
    players: int, maker: str, actions: list[tuple[str, int, str, int]]
) -> None:
    room = seated(players, maker=maker, rounds=2)
    room.start("ann", now=AT, draw=drawer(CODES))
    for now, state in play(room, actions):
        current = state.current
        for viewer in [None, "zed", *PLAYERS]:
            view = state.view(viewer, now)
            json.dumps(view)
            shown_round = view["round"]
            if shown_round is None:
                assert view["board"] is None
                continue
            for board in shown_round["boards"]:
                assert all(set(row) == {"black", "white"} for row in board["rows"])
            seat = state.seat(viewer)
            if seat is None:
                assert view["you"] is None and view["board"] is None and "code" not in shown_round
            assert current is not None
            if "code" in shown_round:
                assert viewer == current.maker and shown_round["code"] == current.code
            mine = current.boards.get(viewer) if viewer is not None else None
            if view["board"] is not None:
                assert mine is not None and [r["guess"] for r in view["board"]["rows"]] == [
                    g for g, _, _ in mine.guesses
                ]
            # nothing of the round in play but the viewer's own guesses (and a maker's own code) is in the view
            kept = dict(view, rounds=None, last_round=None, board=None)
            text = json.dumps(kept)
            others = [g for b in current.boards.values() if b.player != viewer for g, _, _ in b.guesses]
            for guess in others:
                if guess != shown_round.get("code"):  # a maker sees their own code, which may be a guess too
                    assert f'"{guess}"' not in text
            if current.code and viewer != current.maker:
                assert f'"{current.code}"' not in text


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.sampled_from(["computer", "turns"]), st.lists(ACTION, max_size=30))
def test_the_state_round_trips_through_json(players: int, maker: str, actions: list[tuple[str, int, str, int]]) -> None:
    room = seated(players, maker=maker)
    room.start("ann", now=AT, draw=drawer(CODES))
    for now, state in play(room, actions):
        public, private = json.loads(json.dumps(state.to_state()))
        again = Room.from_state(public, private)
        assert again.to_state() == state.to_state()
        assert again.view("bob", now) == state.view("bob", now)
        assert again.standing() == state.standing()


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.sampled_from(["computer", "turns"]), st.lists(ACTION, max_size=30))
def test_the_public_state_never_holds_a_code_or_guess_of_the_round_in_play(
    players: int, maker: str, actions: list[tuple[str, int, str, int]]
) -> None:
    room = seated(players, maker=maker)
    room.start("ann", now=AT, draw=drawer(CODES))
    for _, state in play(room, actions):
        public, private = state.to_state()
        assert (private is None) == (state.current is None)
        text = json.dumps(dict(public, played=None))  # ended rounds are public whole
        for secret in in_play(state):
            assert f'"{secret}"' not in text
        if state.current is not None:
            assert private is not None and private["code"] == state.current.code


@st.composite
def damaged(draw: st.DrawFn) -> list[Any]:
    room = seated(3, maker=draw(st.sampled_from(["computer", "turns"])))
    room.start("ann", now=AT, draw=drawer(CODES))
    if room.maker == "turns":
        room.set_code("ann", "CA", now=AT)
    room.guess("bob", "AB", now=later(1))
    if draw(st.booleans()):
        room.close("ann", now=later(2))
    state = json.loads(json.dumps(list(room.to_state())))  # [public, private]: either side damaged
    paths = []

    def walk(node: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, (*path, index))

    walk(state, ())
    path = draw(st.sampled_from(paths[1:]))
    parent = state
    for step in path[:-1]:
        parent = parent[step]
    replacement = draw(st.sampled_from([None, "x", -1, [], {}, [1, 2], "2026-13-01", "delete"]))
    if replacement == "delete" and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = replacement
    return state


@settings(max_examples=200, deadline=None)
@given(damaged())
def test_a_damaged_state_raises_keypeg_errors_only(state: list[Any]) -> None:
    try:
        room = Room.from_state(*state)
    except KeypegError:
        return
    room.view("bob", later(1))  # what was read still makes a view
    json.dumps(room.to_state())


def test_not_a_room() -> None:
    for state in ({}, {"room": 2}, [], "room", {"live": 1}):
        with pytest.raises(KeypegError):
            Room.from_state(state)  # type: ignore[arg-type]
