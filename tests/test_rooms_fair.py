"""Who wins a room, and who gets rated (review of issue 30: H1, H2, H3): a turns maker's points for a board
given up are a match's, leaving never helps, and kicking whoever beats you is a loss."""

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


def test_a_kick_is_a_loss_for_the_host_when_the_kicked_player_stood_level_or_ahead() -> None:
    """H2 (t/kick.py): bob is ahead of ann after round 1; ann kicks him: her rated result against him is a
    loss. A kick of a player behind the host leaves the pair out; a kick before the start changes nothing."""
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
    assert behind.rating_losses() == []

    level = started(["ann", "bob"], rounds=2)  # 0 to 0 at the kick: level, a loss
    level.kick("ann", "bob", now=AT)
    assert level.rating_losses() == [("ann", "bob")]

    waiting = Room.new(RULES, "ann", rounds=1)
    waiting.join("bob", now=AT)
    waiting.kick("ann", "bob", now=AT)
    assert waiting.rating_losses() == [] and waiting.seat("bob") is None
