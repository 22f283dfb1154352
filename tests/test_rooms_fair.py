"""Who wins a room, and who gets rated (reviews of issue 30: H1, H2, H3, N1, N2, N3, N5): a turns maker's points
for a board given up are a match's, leaving never helps, kicking or closing after the start is a loss for the
host, an absent player scores nothing, and a guest's seat leaves the room unrated."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg.play.rooms import ABSENT, Room
from keypeg.rules import Rules

AT = datetime(2026, 1, 1, tzinfo=UTC)
RULES = Rules(2, 3, rows=4)
CODE = "AB"


def started(players: list[str], *, rounds: int, maker: str = "computer") -> Room:
    room = Room.new(RULES, players[0], rounds=rounds, maker=maker, move_seconds=600)
    for player in players[1:]:
        room.join(player, now=AT)
    room.start(players[0], now=AT, draw=lambda: CODE)
    return room


def play(room: Room, player: str, guesses: int, *, broken: bool) -> None:
    """``player`` makes ``guesses`` wrong guesses, then breaks the code (``broken``) or gives up."""
    for _ in range(guesses):
        if room.current is None or room.current.boards[player].ended is not None:
            return
        room.guess(player, "CC", now=AT)
    if room.current is not None and room.current.boards[player].ended is None:
        if broken:
            room.guess(player, CODE, now=AT)
        else:
            room.resign(player, now=AT)
    room.advance(AT, lambda: CODE)


def test_a_turns_maker_gets_rows_plus_one_for_a_board_given_up_as_in_a_match() -> None:
    """H1 (t/s7.py): bob gives up at once on ann's code, ann breaks bob's in 3: ann wins, 5 to 3 (was 1 to
    3: giving up at once held the maker to one point)."""
    room = started(["ann", "bob"], rounds=1, maker="turns")
    room.set_code("ann", CODE, now=AT)
    room.resign("bob", now=AT)
    room.advance(AT, lambda: CODE)
    room.set_code("bob", CODE, now=AT)
    play(room, "ann", 2, broken=True)
    assert room.is_over
    assert [(s.player, s.points) for s in room.standing()] == [("ann", RULES.rows + 1), ("bob", 3)]


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 3),
    st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=3, max_size=9),
    st.integers(0, 2),
    st.booleans(),
)
def test_leaving_scores_each_later_round_as_a_board_given_up(
    seats: int, moves: list[tuple[int, bool]], left_after: int, turns: bool
) -> None:
    """H3: a player who leaves after some rounds ends with the points and guesses they would have had by
    staying and giving up every later board at once (in turns, their own code set by the computer instead),
    and so does everyone else: leaving never helps."""
    players = ["ann", "bob", "cy"][:seats]
    rooms = [started(players, rounds=3 // seats + 1, maker="turns" if turns else "computer") for _ in range(2)]
    leaver = players[0]
    for index, room in enumerate(rooms):  # 0: the leaver leaves; 1: stays and gives up
        for _ in range(200):
            if room.is_over:
                break
            round_ = room.current
            assert round_ is not None
            if round_.code is None:  # turns: the maker sets the code, or is late (the computer sets it)
                if round_.maker == leaver and len(room.played) >= left_after:
                    room.advance(AT + timedelta(seconds=600), lambda: CODE)  # as a late maker's
                    for board in round_.boards.values():
                        board.clock = AT
                else:
                    room.set_code(round_.maker, CODE, now=AT)
                continue
            seat = room.seat(leaver)
            if index == 0 and len(room.played) == left_after and seat is not None and seat.status == "present":
                room.leave(leaver, now=AT)
                room.advance(AT, lambda: CODE)
                continue
            for player in list(round_.boards):
                guesses, broken = moves[(round_.number * 3 + players.index(player)) % len(moves)]
                if player == leaver and len(room.played) >= left_after:
                    guesses, broken = 0, False  # stays and gives up at once
                play(room, player, guesses, broken=broken)
                if room.current is not round_:
                    break
        assert room.is_over
    stayed, left = ([(s.player, s.points, s.guesses) for s in room.standing()] for room in (rooms[1], rooms[0]))
    assert sorted(left) == sorted(stayed)


def test_an_absent_player_gets_a_board_given_up_and_comes_back_before_a_round_to_play_it() -> None:
    room = started(["ann", "bob", "cy"], rounds=3)
    play(room, "ann", 0, broken=True)
    room.leave("ann", now=AT)  # mid-round: her board is over already, she sits out from round 2
    play(room, "bob", 3, broken=False)
    play(room, "cy", 1, broken=True)
    assert room.current is not None and room.current.number == 2
    assert room.current.boards["ann"].ended == ABSENT and not room.current.boards["ann"].guesses
    room.join("ann", now=AT)  # back while round 2 is played: she plays from round 3
    play(room, "bob", 0, broken=True)
    play(room, "cy", 0, broken=True)
    assert room.current is not None and room.current.number == 3 and room.current.boards["ann"].ended is None
    # round 2: bob and cy broke it in 1 (they tie), each beats ann's board given up
    assert room.played[1].points(RULES) == {"ann": 0, "bob": 1, "cy": 1}


def test_a_kick_after_the_start_is_always_a_loss_for_the_host() -> None:
    """H2 (t/kick.py), N2 (t/kick3.py): bob is ahead of ann after round 1; ann kicks him: her rated result
    against him is a loss. A kick of a player behind the host is a loss too (never free); a kick before the
    start changes nothing."""
    room = started(["ann", "bob", "cy"], rounds=2)
    play(room, "bob", 0, broken=True)
    play(room, "ann", 0, broken=False)
    play(room, "cy", 0, broken=False)
    room.kick("ann", "bob", now=AT)
    play(room, "ann", 0, broken=True)
    play(room, "cy", 0, broken=False)
    assert room.is_over and room.rating_losses() == [("ann", "bob")]
    assert room.places() == [["ann"], ["cy"]] and room.rated()
    assert Room.from_state(*room.to_state()).rating_losses() == [("ann", "bob")]

    behind = started(["ann", "bob", "cy"], rounds=2)
    play(behind, "ann", 0, broken=True)
    play(behind, "bob", 0, broken=False)
    play(behind, "cy", 0, broken=False)
    behind.kick("ann", "bob", now=AT)
    assert behind.rating_losses() == [("ann", "bob")]

    level = started(["ann", "bob"], rounds=2)  # 0 to 0 at the kick: level, a loss
    level.kick("ann", "bob", now=AT)
    assert level.rating_losses() == [("ann", "bob")]

    waiting = Room.new(RULES, "ann", rounds=1)
    waiting.join("bob", now=AT)
    waiting.kick("ann", "bob", now=AT)
    assert waiting.rating_losses() == [] and waiting.seat("bob") is None


def random_play(room: Room, moves: list[tuple[int, bool]], steps: int) -> None:
    """Play ``steps`` moves of ``room`` from ``moves`` (each board: wrong guesses, then broken or given up; in
    turns, each maker sets the code first)."""
    for step in range(steps):
        round_ = room.current
        if room.is_over or round_ is None:
            return
        if round_.code is None:
            assert round_.maker is not None
            room.set_code(round_.maker, CODE, now=AT)
            continue
        player = next((b.player for b in round_.boards.values() if b.ended is None), None)
        if player is None:
            return
        guesses, broken = moves[step % len(moves)]
        play(room, player, guesses, broken=broken)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 3),
    st.booleans(),
    st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=6),
    st.integers(0, 12),
    st.booleans(),
)
def test_a_kick_or_a_close_after_the_start_is_never_free_for_the_host(
    seats: int, turns: bool, moves: list[tuple[int, bool]], steps: int, close: bool
) -> None:
    """N1, N2: whatever was played before (the round in play included, computer or turns), a host who kicks a
    player after the start takes a rated loss against them (the kicked player is not placed), and a host who
    closes the room before its last round ends is placed last, alone, below every other rated player, the
    others in the standing's order as it stood (rated once another player has moved: the close is the host's)."""
    players = ["ann", "bob", "cy"][:seats]
    room = started(players, rounds=2, maker="turns" if turns else "computer")
    random_play(room, moves, steps)
    if room.is_over:
        return
    if close:
        room.close("ann", now=AT)
        places = room.places()
        others_played = set().union(*(r.players() for r in room.played)) - {"ann"}
        assert room.forfeit() == "ann" and room.rated() == bool(others_played) and places[-1] == ["ann"]
        others = [line.player for line in room.standing() if line.player != "ann"]
        assert [p for place in places[:-1] for p in place] == others
        assert Room.from_state(*room.to_state()).places() == places
    else:
        room.kick("ann", players[-1], now=AT)
        assert room.rating_losses() == [("ann", players[-1])] and room.rated()
        assert players[-1] not in {p for place in room.places() for p in place}
        assert room.forfeit() is None


def test_a_host_ahead_who_closes_forfeits_and_one_who_plays_to_the_end_does_not() -> None:
    """N1 (t/close1.py, t/close2.py): ann breaks round 1 first, then closes in round 2 of 3: she is placed
    last (a loss to bob), though she leads on points, in the standing shown as in the ratings. In turns,
    closing in the other's maker round too."""
    room = started(["ann", "bob"], rounds=3)
    play(room, "ann", 0, broken=True)
    play(room, "bob", 2, broken=True)
    room.close("ann", now=AT)
    first, last = room.standing()
    assert (first.player, last.player, last.place) == ("bob", "ann", 2)
    assert (last.points, -last.guesses) > (first.points, -first.guesses)  # ahead, by the standing's order
    assert room.places() == [["bob"], ["ann"]]
    turns = started(["ann", "bob"], rounds=1, maker="turns")
    turns.set_code("ann", CODE, now=AT)
    play(turns, "bob", 3, broken=True)
    turns.set_code("bob", CODE, now=AT)
    turns.close("ann", now=AT)
    assert [s.player for s in turns.standing()] == ["bob", "ann"] and turns.places() == [["bob"], ["ann"]]
    ended = started(["ann", "bob"], rounds=1)
    play(ended, "ann", 0, broken=True)
    play(ended, "bob", 2, broken=True)
    assert ended.is_over and ended.forfeit() is None and ended.places() == [["ann"], ["bob"]]


def test_an_absent_player_scores_nothing_off_the_hosts_closed_board() -> None:
    """N5 (t/s9.py): bob is kicked; ann closes in round 2 with no guess: bob's absent board scores no point
    (cy's board, cut short, still beats the host's)."""
    room = started(["ann", "bob", "cy"], rounds=3)
    for player in ("ann", "bob"):
        play(room, player, 0, broken=True)
    room.kick("ann", "bob", now=AT)  # his board of round 1 is broken already: he is absent from round 2
    play(room, "cy", 0, broken=True)
    room.close("ann", now=AT)
    closed = room.played[-1]
    assert closed.boards["bob"].ended == ABSENT
    assert closed.points(RULES) == {"ann": 0, "bob": 0, "cy": 1}
    left = started(["ann", "bob", "cy"], rounds=3)  # left mid-round, then the host closes: nothing either
    left.leave("bob", now=AT)
    left.close("ann", now=AT)
    assert left.played[-1].boards["bob"].ended == "left"
    assert left.played[-1].points(RULES) == {"ann": 0, "bob": 0, "cy": 1}


def test_a_guest_seat_leaves_the_room_unrated() -> None:
    """N3 (t/sock.py, t/adopt.py): a guest's seat (one who logged in since too: the seat stays a guest's)
    leaves the room unrated, however the registered players played."""
    room = Room.new(RULES, "ann", rounds=1, move_seconds=600)
    room.join("bob", now=AT)
    room.join("guest-zz", "zz", guest=True, now=AT)
    room.start("ann", now=AT, draw=lambda: CODE)
    for player in ("guest-zz", "ann", "bob"):
        play(room, player, 1, broken=True)
    assert room.is_over and room.guest_seated() and not room.rated()
    clean = started(["ann", "bob"], rounds=1)
    for player in ("ann", "bob"):
        play(clean, player, 1, broken=True)
    assert not clean.guest_seated() and clean.rated()


def test_a_turns_maker_gains_nothing_from_a_breaker_the_host_removed() -> None:
    """Review 2's last note (t/kickturns2.py): the board of a breaker the host kicked, in the round of the kick
    and in every round after it, gives its maker no point (each gave rows + 1: a host as maker gained 13 by
    removing a breaker); a player who left is one who gave up, so their boards still give rows + 1."""
    room = started(["ann", "bob", "cy", "dee"], rounds=1, maker="turns")
    assert room.current is not None and room.current.maker == "ann"
    room.set_code("ann", CODE, now=AT)
    room.kick("ann", "bob", now=AT)
    room.leave("cy", now=AT)  # mid-round: as good as giving up
    room.resign("dee", now=AT)
    room.advance(AT, lambda: CODE)
    first = room.played[0]
    assert first.boards["bob"].ended == "kicked"
    assert first.points(RULES, room.kicked)["ann"] == 2 * (RULES.rows + 1), "cy's and dee's boards, not bob's"
    while not room.is_over:  # every later round: bob's and cy's boards are absent
        current = room.current
        assert current is not None
        if current.code is None:
            assert current.maker is not None
            room.set_code(current.maker, CODE, now=AT)
        for player, board in current.boards.items():
            if board.ended is None:
                room.resign(player, now=AT)
        room.advance(AT, lambda: CODE)
    for played in room.played[1:]:
        assert all(played.boards[p].ended == ABSENT for p in ("bob", "cy") if p != played.maker)
        if played.maker in ("ann", "dee"):
            counted = [b for b in played.boards.values() if b.player != "bob"]
            assert played.points(RULES, room.kicked)[played.maker] == len(counted) * (RULES.rows + 1)
