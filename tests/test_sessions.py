"""The play layer driven with no terminal: sessions, codemakers, matches, and games kept in the store."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from conftest import rescoring_an_earlier_guess
from keypeg import Code, Feedback, Rules, find_variant, score
from keypeg.cli import cli
from keypeg.errors import (
    GameOverError,
    IllegalMoveError,
    InconsistentScoreError,
    InvalidCodeError,
    InvalidFeedbackError,
    KeypegError,
)
from keypeg.game import Match, Termination, random_code
from keypeg.knowledge import Knowledge
from keypeg.play.codemakers import AdversarialCodemaker, FixedCodemaker, RandomCodemaker
from keypeg.play.matches import MatchSession
from keypeg.play.sessions import Action, BreakSession, Help, SolveSession, session_from_state
from keypeg.services.recording import GameKeeper, RecordingError, continue_game
from keypeg.store import Store

LETTERS = Rules(4, 6)
SMALL = Rules(3, 4, rows=8)


def fixed(rules: Rules, secret: str) -> BreakSession:
    return BreakSession(rules, FixedCodemaker(rules.parse(secret)))


# -- a person breaks the code ---------------------------------------------------------------------


def test_break_session_scores_hides_the_secret_and_ends() -> None:
    game = fixed(LETTERS, "ABCD")
    assert game.actions() == {Action.GUESS, Action.HINT, Action.EXPLAIN, Action.RESIGN}
    assert game.guess("AABB") == Feedback(1, 1)
    assert game.secret is None and game.outcome() is None and game.rows_left == 11
    assert Action.UNDO in game.actions() and Action.COACH in game.actions()
    assert game.guess(LETTERS.parse("ABCD")) == LETTERS.win
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.SOLVED and outcome.guesses == 2
    assert game.secret == LETTERS.parse("ABCD") and game.actions() == frozenset()
    with pytest.raises(GameOverError):
        game.guess("ABCD")
    with pytest.raises(GameOverError):
        game.undo()


def test_break_session_refuses_illegal_moves_with_typed_errors() -> None:
    game = fixed(find_variant("bulls-and-cows").rules, "0123")
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        game.undo()
    with pytest.raises(InvalidCodeError, match="repeats"):
        game.guess("1123")
    with pytest.raises(InvalidCodeError):
        game.guess(LETTERS.parse("ABCD"))  # a code of another game
    assert list(game.history) == []


def test_out_of_rows_and_resigning_show_the_secret() -> None:
    game = fixed(Rules(4, 6, rows=2), "ABCD")
    game.guess("AAAA")
    game.guess("BBBB")
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.OUT_OF_ROWS
    assert outcome.secret == LETTERS.parse("ABCD")
    other = fixed(LETTERS, "FFFF")
    other.guess("AAAA")
    ended = other.resign()
    assert ended.termination is Termination.RESIGNED and ended.secret == LETTERS.parse("FFFF") and not other.rated


def finished(game: BreakSession) -> BreakSession:
    """The game played to its end: the secret guessed."""
    if not game.is_over:
        game.guess(game.codemaker.reveal())
    return game


def test_rated_needs_an_unpredictable_secret_and_no_help_offered() -> None:
    fair = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS))
    assert fair.rated and not fair.helps  # rated from the start: a loss unless it is won
    assert Action.HINT not in fair.actions() and Action.UNDO not in fair.actions()
    assert finished(fair).rated
    assert not BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS), practice=True).rated
    assert not BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS, 3)).rated  # a seed fixes the secret
    assert not BreakSession.new(LETTERS, fixed(LETTERS, "ABCD").codemaker).rated
    assert not BreakSession.new(LETTERS, AdversarialCodemaker(LETTERS)).rated
    resigned = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS))
    resigned.resign()
    assert resigned.rated  # resigning does not take a rated game off the leaderboard


@pytest.mark.parametrize("use", ["hint", "explain", "undo", "review"])
def test_a_rated_game_offers_no_help_so_none_can_hide_a_loss(use: str) -> None:
    game = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS))
    while game.codemaker.reveal() == LETTERS.parse("AABB"):
        game = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS))
    game.guess("AABB")
    with pytest.raises(IllegalMoveError, match="rated game"):
        getattr(game, use)()
    assert game.rated and not game.help_used and len(game.history) == 1
    practice = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS), practice=True)
    while practice.codemaker.reveal() == LETTERS.parse("AABB"):
        practice = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS), practice=True)
    practice.guess("AABB")
    getattr(practice, use)()
    assert not finished(practice).rated and len(practice.help_used) == 1


def test_a_match_game_allows_no_help() -> None:
    game = BreakSession(LETTERS, RandomCodemaker.draw(LETTERS, 1), helps=False)
    game.guess("AABB") if game.codemaker.reveal() != LETTERS.parse("AABB") else game.guess("CCDD")
    assert game.actions() == {Action.GUESS, Action.RESIGN}
    for use in ("hint", "explain", "undo", "review"):
        with pytest.raises(IllegalMoveError, match="match"):
            getattr(game, use)()
    assert not game.help_used and len(game.history) == 1


def test_hint_and_explain_read_the_same_choice() -> None:
    game = fixed(LETTERS, "CDEF")
    game.guess("AABB")
    shown = game.explain(top=3)
    assert game.hint() == shown.guess == shown.chosen.guess and len(shown.ranked) == 3
    assert game.help_used == {Help.HINT, Help.EXPLAIN}
    assert sum(shown.chosen.parts.values()) == game.knowledge().count == shown.fitting


def test_seeded_secrets_repeat_and_unseeded_ones_vary() -> None:
    assert RandomCodemaker.draw(LETTERS, 7).reveal() == random_code(LETTERS, random.Random(7))
    assert len({RandomCodemaker.draw(LETTERS).reveal() for _ in range(40)}) > 1
    with pytest.raises(KeypegError, match="seed"):
        RandomCodemaker.draw(LETTERS, -1)


@given(st.lists(st.integers(0, LETTERS.size - 1), min_size=1, max_size=5), st.integers(0, LETTERS.size - 1))
def test_the_public_state_never_holds_the_secret(guesses: list[int], secret_number: int) -> None:
    """Two games with the same guesses and scores but different secrets have the same public state."""
    secret = LETTERS.code([(secret_number // 6**k) % 6 for k in range(4)])
    codes = [LETTERS.code([(n // 6**k) % 6 for k in range(4)]) for n in guesses]
    game = BreakSession(LETTERS, FixedCodemaker(secret))
    for code in codes:
        if not game.is_over:
            game.guess(code)
    if game.is_over:
        return
    state, hidden = game.to_state()
    assert hidden == secret
    twins = [
        c
        for c in (LETTERS.code([(n // 6**k) % 6 for k in range(4)]) for n in range(0, LETTERS.size, 37))
        if all(score(c, g) == f for g, f in game.history)
    ]
    for twin in twins:
        other = BreakSession(LETTERS, FixedCodemaker(twin))
        for g, _ in game.history:
            other.guess(g)
        assert json.dumps(other.to_state()[0], sort_keys=True) == json.dumps(state, sort_keys=True)
    restored = session_from_state(json.loads(json.dumps(state)), secret)
    assert isinstance(restored, BreakSession) and restored.history == game.history
    assert restored.codemaker.reveal() == secret


# -- the computer breaks a person's code ------------------------------------------------------------


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_solve_session_breaks_every_secret_of_a_small_game(level: int) -> None:
    for number in range(0, SMALL.size, 5):
        secret = SMALL.code([(number // 4**k) % 4 for k in range(3)])
        game = SolveSession(SMALL, level=level, seed=number)
        while not game.is_over:
            game.score(score(secret, game.guess()))
        outcome = game.outcome()
        assert outcome is not None and outcome.solved and outcome.secret == secret, (level, secret)


def test_solve_session_refuses_impossible_and_contradictory_scores() -> None:
    secret = LETTERS.parse("CDEF")
    game = SolveSession(LETTERS)
    first = game.guess()
    with pytest.raises(InvalidFeedbackError):
        game.score("3 1")
    truth = score(secret, first)
    game.score(truth)
    while True:  # score truthfully until some score of the next guess contradicts the ones before
        pending = game.guess()
        contradictions = [f for f in LETTERS.feedbacks() if not game.knowledge().add(pending, f).is_consistent]
        if contradictions:
            break
        game.score(score(secret, pending))
    before = list(game.history)
    with pytest.raises(InconsistentScoreError) as refused:
        game.score(contradictions[0])
    assert refused.value.consistency.suspects  # type: ignore[attr-defined]
    assert list(game.history) == before and game.guess() == pending
    wrong = next(f for f in LETTERS.feedbacks() if f not in (truth, LETTERS.win) and _fits(((first, f),)))
    if _fits(((first, wrong), *before[1:])):
        game.fix(1, wrong)
        assert game.history[0] == (first, wrong)
    with pytest.raises(IllegalMoveError):
        game.fix(len(before) + 1, truth)
    while game.history:
        game.undo()
    with pytest.raises(IllegalMoveError):
        game.undo()


def _fits(history: tuple[tuple[Code, Feedback], ...]) -> bool:
    return Knowledge(LETTERS, history).is_consistent


def test_a_saved_solve_session_asks_for_the_same_guess() -> None:
    secret = LETTERS.parse("BFAE")
    game = SolveSession(LETTERS, level=1, seed=11)
    for _ in range(2):
        game.score(score(secret, game.guess()))
    pending = game.guess()
    state, hidden = game.to_state()
    assert hidden is None
    restored = session_from_state(json.loads(json.dumps(state)), None)
    assert isinstance(restored, SolveSession) and restored.guess() == pending
    while not restored.is_over:
        restored.score(score(secret, restored.guess()))
    assert restored.outcome().secret == secret  # type: ignore[union-attr]


def test_damaged_states_are_refused() -> None:
    for state in ({}, {"keypeg_session": 1, "kind": "chess"}, {"keypeg_session": 1, "kind": "break", "rules": 3}):
        with pytest.raises(KeypegError):
            session_from_state(state, None)  # type: ignore[arg-type]


# -- matches ---------------------------------------------------------------------------------------


def test_match_against_the_computer_alternates_and_scores() -> None:
    session = MatchSession(LETTERS, Match(("computer", "ann")), computer="computer", seed=5)
    first = session.start()
    assert isinstance(first, BreakSession) and session.roles() == ("computer", "ann")
    assert first.codemaker.reveal() == random_code(LETTERS, random.Random(5))
    with pytest.raises(IllegalMoveError):
        session.start()
    with pytest.raises(IllegalMoveError):
        session.finish()
    first.guess(first.codemaker.reveal())
    assert session.finish().guesses == 1
    second = session.start()
    assert isinstance(second, SolveSession)
    secret = LETTERS.parse("FFEA")
    while not second.is_over:
        second.score(score(secret, second.guess()))
    session.finish()
    assert session.is_over and session.points() == {"computer": 1, "ann": len(second.history)}
    restored = MatchSession.from_state(json.loads(json.dumps(session.to_state())))
    assert restored.points() == session.points() and restored.is_over


def test_match_between_people_needs_the_makers_secret() -> None:
    session = MatchSession(LETTERS, Match(("ann", "bob"), games=2))
    assert session.needs_secret()
    with pytest.raises(IllegalMoveError, match="ann must set the secret"):
        session.start()
    game = session.start("ABCD")
    assert isinstance(game, BreakSession) and not session.needs_secret()
    with pytest.raises(KeypegError):
        MatchSession(LETTERS, Match(("ann", "bob")), computer="carl")


# -- the store ------------------------------------------------------------------------------------


def test_a_kept_game_is_continued_by_another_store_with_its_secret(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    rules = find_variant("classic").rules
    game = BreakSession(rules, RandomCodemaker.draw(rules))
    while game.codemaker.reveal() in (rules.parse("RRGG"), rules.parse("BBYY")):  # neither guess may win
        game = BreakSession(rules, RandomCodemaker.draw(rules))
    keeper = GameKeeper.start(Store(url), "ann", game)
    game.guess("RRGG")
    game.guess("BBYY")
    game.undo()
    keeper.sync(game)
    assert keeper.game_id is not None
    record = Store(url).games.record(keeper.game_id)
    assert record.secret is None and record.outcome is None and [m.guess for m in record.moves] == ["RRGG"]
    assert record.variant == "classic" and record.rules == rules  # kept in its own symbols, with its name
    assert Store(url).games.history("ann")[0].secret is None
    again, again_keeper = continue_game(Store(url), keeper.game_id, "ann")
    assert isinstance(again, BreakSession) and again.history == game.history
    assert again.codemaker.reveal() == game.codemaker.reveal() and again.help_used == {Help.UNDO}
    with pytest.raises(KeypegError, match="ann's"):
        continue_game(Store(url), keeper.game_id, "bob")
    again.guess(again.codemaker.reveal())
    again_keeper.sync(again)
    done = Store(url).games.record(keeper.game_id)
    assert done.outcome == "solved" and done.guesses == 2 and not done.rated
    assert done.secret is not None and rules.parse(done.secret) == game.codemaker.reveal()
    with pytest.raises(KeypegError, match="over"):
        continue_game(Store(url), keeper.game_id)


def unfinished_game(url: str, player: str, guesses: list[str]) -> tuple[int, BreakSession]:
    """A rated game left unfinished (as when the terminal is closed or the process killed)."""
    while True:
        game = BreakSession.new(LETTERS, RandomCodemaker.draw(LETTERS))
        if game.codemaker.reveal() not in [LETTERS.parse(g) for g in guesses]:
            break
    keeper = GameKeeper.start(Store(url), player, game)
    for guess in guesses:
        game.guess(guess)
        keeper.sync(game)
    assert keeper.game_id is not None
    return keeper.game_id, game


def killed(args: list[str], lines: list[str], url: str, guesses: int) -> None:
    """Run keypeg, type ``lines`` and kill it (SIGKILL) once the game in progress holds ``guesses`` guesses."""
    import os
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    env = {**os.environ, "KEYPEG_DB": url}
    process = subprocess.Popen(
        [sys.executable, "-m", "keypeg", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=env, text=True,
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write("".join(f"{line}\n" for line in lines))
    process.stdin.flush()  # stdin stays open: the game waits for more
    path = url.removeprefix("sqlite:///")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            rows = (
                sqlite3.connect(path, timeout=10).execute("SELECT guesses FROM games WHERE outcome IS NULL").fetchall()
            )
        except sqlite3.Error:
            rows = []
        if rows and rows[-1][0] == guesses:
            break
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()


def test_play_resume_continues_the_same_game(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    runner = CliRunner()
    db = ["--db", url, "--player", "kim"]
    game_id, _ = unfinished_game(url, "kim", ["AABB", "CCDD"])
    saved = Store(url).games.saved(game_id)
    assert saved.secret is not None
    resumed = runner.invoke(cli, ["play", "--resume", str(game_id), *db], input=f"{saved.secret}\n")
    assert resumed.exit_code == 0, resumed.stderr
    assert resumed.stdout.splitlines() == ["4 0"]
    record = Store(url).games.record(game_id)
    assert record.outcome == "solved" and [m.guess for m in record.moves][:2] == ["AABB", "CCDD"] and record.rated
    other = runner.invoke(cli, ["solve", "--resume", str(game_id), *db], input="")
    assert other.exit_code == 2 and "over" in other.stderr


@pytest.mark.parametrize("leave", ["q\n", "", "quit\n"])
def test_quitting_resigns_records_a_loss_and_shows_the_secret(
    tmp_path: Path, leave: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg.play import codemakers

    class KnownSystemRandom(random.Random):  # the rated secret drawn as the system would, but never AABB
        def __init__(self) -> None:
            super().__init__(next(seed for seed in range(9) if random_code(LETTERS, random.Random(seed)) != AABB))

    AABB = LETTERS.parse("AABB")
    monkeypatch.setattr(codemakers.random, "SystemRandom", KnownSystemRandom)
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    result = CliRunner().invoke(cli, ["play", "-p", "4", "-c", "6", "--db", url, "--player", "kim"],
                                input="AABB\n" + leave)  # fmt: skip
    record = Store(url).games.history("kim")[0]
    assert result.exit_code == 1 and "resigned" in result.stderr
    assert record.outcome == "resigned" and record.rated and record.score == 13  # the rows plus one
    assert result.stdout.splitlines()[-1] == record.secret  # shown once the game is over
    assert [r.average for r in Store(url).records.top(LETTERS, minimum=1)] == [13.0]


# -- codes of different games ---------------------------------------------------------------------


def test_codes_compare_within_their_game() -> None:
    assert Rules(4, 6).parse("AABB") != Rules(4, 8).parse("AABB")
    assert len({Rules(4, 6).parse("AABB"), Rules(4, 8).parse("AABB"), Rules(4, 6, rows=3).parse("AABB")}) == 2
    assert find_variant("classic").rules.parse("RRGG") == Rules(4, 6).parse("AABB")
    assert Rules(4, 6, rows=8).parse("ABCD") == Rules(4, 6).parse("ABCD")
    assert Rules(4, 6).parse("ABCD") != Rules(4, 6, repeats=False).parse("ABCD")


def test_match_resume_goes_on_with_the_same_game_and_secret(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    save = tmp_path / "m.json"
    classic = find_variant("classic").rules
    assert random_code(classic, random.Random(5)) not in (classic.parse("RRGG"), classic.parse("BBYY"))
    killed(["match", "--seed", "5", "--player", "kim", "--save", str(save)], ["RRGG", "BBYY"], url, guesses=2)
    state = json.loads(save.read_text())
    game_id = state["current_game"]
    assert isinstance(game_id, int) and state["played"] == []
    assert "secret" not in json.dumps(state).lower()
    saved = Store(url).games.saved(game_id)
    assert saved.secret is not None and len(saved.record.moves) == 2
    resumed = CliRunner().invoke(cli, ["match", "--resume", str(save), "--db", url], input=f"{saved.secret}\n")
    assert resumed.stdout.splitlines()[0] == "4 0"  # the same game, broken at its third guess
    assert json.loads(save.read_text())["played"][0]["guesses"] == 3
    assert Store(url).games.record(game_id).outcome == "solved"


def test_quitting_a_match_game_resigns_it_and_the_match_goes_on_after_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    save = tmp_path / "m.json"
    stopped = CliRunner().invoke(cli, ["match", "--seed", "5", "--player", "kim", "--db", url, "--save", str(save)],
                                 input="RRGG\nq\n")  # fmt: skip
    assert stopped.exit_code == 1 and "saved" in stopped.stderr
    state = json.loads(save.read_text())
    assert state["current_game"] is None and state["played"][0]["guesses"] == 12 and not state["played"][0]["broken"]
    (game,) = Store(url).games.history("kim")
    assert game.outcome == "resigned" and game.secret is not None


# -- what a hostile or careless user tries -----------------------------------------------------------


def test_one_game_resumed_twice_keeps_only_the_first_writer(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    game = fixed(LETTERS, "FFFF")
    GameKeeper.start(Store(url), "ann", game).sync(game)
    game_id = Store(url).games.history("ann")[0].id
    first, first_keeper = continue_game(Store(url), game_id, "ann")
    second, second_keeper = continue_game(Store(url), game_id, "ann")
    assert isinstance(first, BreakSession) and isinstance(second, BreakSession)
    first.guess("AABB")
    first_keeper.sync(first)
    second.guess("FFFF")  # the second copy does not know of the first's guess
    with pytest.raises(RecordingError, match="elsewhere"):  # the copy stops: it may not go on unrecorded
        second_keeper.sync(second)
    assert second_keeper.store is None
    record = Store(url).games.record(game_id)
    assert [m.guess for m in record.moves] == ["AABB"] and record.outcome is None


def test_an_undo_and_a_guess_elsewhere_move_the_game_on(tmp_path: Path) -> None:
    """After an undo and a guess the game has as many guesses as before, but a new version: a copy loaded
    before them stops instead of writing over them."""
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    game = fixed(LETTERS, "FFFF")
    game.guess("AABB")
    game_id = GameKeeper.start(Store(url), "ann", game).game_id
    assert game_id is not None
    first, first_keeper = continue_game(Store(url), game_id, "ann")
    second, second_keeper = continue_game(Store(url), game_id, "ann")
    assert isinstance(first, BreakSession) and isinstance(second, BreakSession)
    first.undo()
    first.guess("CCDD")
    first_keeper.sync(first)
    assert first_keeper.version == Store(url).games.saved(game_id).version == second_keeper.version + 1
    second.guess("EEEE")  # the second copy still holds AABB
    with pytest.raises(RecordingError, match="elsewhere"):
        second_keeper.sync(second)
    assert [m.guess for m in Store(url).games.record(game_id).moves] == ["CCDD"]


def test_help_is_kept_at_once_and_a_match_game_refuses_help(tmp_path: Path) -> None:
    runner = CliRunner()
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    # a secret of its own, never the guess (a drawn one was AABB once in 1,296 runs: the game ended first)
    runner.invoke(cli, ["play", "--practice", "-p", "4", "-c", "6", "--secret", "CCDD", "--db", url,
                        "--player", "hal"], input="AABB\nh\n")  # fmt: skip
    saved = Store(url).games.saved(Store(url).games.history("hal")[0].id)
    assert saved.state is not None and json.loads(saved.state)["help"] == ["hint"] and not saved.record.rated
    played = runner.invoke(
        cli, ["match", "-p", "4", "-c", "6", "--vs", "human", "--no-record", "--save", str(tmp_path / "m.json")],
        input="ABCD\nAABB\nu\nh\nABCD\n",
    )  # fmt: skip
    assert "no undo in a rated game or a match game" in played.stderr and "no hint in a rated" in played.stderr
    assert json.loads((tmp_path / "m.json").read_text())["played"][0]["guesses"] == 2


def test_a_match_game_continues_only_in_its_match(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'k.sqlite3'}"
    runner = CliRunner()
    killed(["match", "--seed", "5", "--player", "you", "--save", str(tmp_path / "m.json")], ["RRGG"], url, guesses=1)
    game_id = json.loads((tmp_path / "m.json").read_text())["current_game"]
    alone = runner.invoke(cli, ["play", "--resume", str(game_id), "--db", url, "--player", "you"], input="")
    assert alone.exit_code == 2 and "belongs to a match" in alone.stderr


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe",
        b"[]",
        b'{"keypeg_match": 1, "players": ["computer", 5], "games": 2, "scoring": "guesses", "played": []}',
        b'{"keypeg_match": 1, "players": ["a", "b"], "games": 2, "scoring": "guesses", "played": ['
        + b'{"codemaker": "a", "codebreaker": "b", "guesses": -3, "broken": true}]}',
        b'{"keypeg_match": 1, "players": ["a", "b"], "games": 2, "scoring": "guesses", "played": ['
        + b'{"codemaker": "a", "codebreaker": "b", "guesses": 3, "broken": true},' * 3
        + b'{"codemaker": "b", "codebreaker": "a", "guesses": 3, "broken": true}]}',
        b'{"keypeg_match": 1, "players": ["a", "b"], "games": 2, "scoring": "guesses", "played": [], "level": 9}',
    ],
)
def test_a_damaged_match_file_is_one_clear_line(tmp_path: Path, content: bytes) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    result = CliRunner().invoke(cli, ["match", "--resume", str(bad), "--no-record"], input="")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1 and result.stderr.startswith("error:")


def test_out_of_range_ids_and_rows_are_plain_answers(tmp_path: Path) -> None:
    runner = CliRunner()
    db = ["--db", f"sqlite:///{tmp_path / 'k.sqlite3'}"]
    huge = runner.invoke(cli, ["play", "--resume", "9" * 25, *db], input="")
    assert huge.exit_code == 2 and "Traceback" not in huge.output
    assert Store(f"sqlite:///{tmp_path / 'k.sqlite3'}").games.history() == []
    with pytest.raises(KeypegError, match="no game"):
        Store(f"sqlite:///{tmp_path / 'k.sqlite3'}").games.record(2**70)
    lost = runner.invoke(cli, ["solve", "--rows", "1", *db], input="0 0\n")
    assert lost.exit_code == 1 and "out of rows" in lost.stderr


def test_rescoring_an_earlier_guess_all_black_ends_the_game_there() -> None:
    start, _, second, wrong, third, truth = rescoring_an_earlier_guess(LETTERS)
    game = SolveSession.from_state(*start.to_state())
    game.score(wrong)
    assert game.guess() == third
    game.score(truth)
    assert not game.is_over and len(game.history) == 3
    game.fix(2, LETTERS.win)
    outcome = game.outcome()
    assert outcome is not None and outcome.solved and outcome.guesses == 2 and outcome.secret == second
    assert list(game.history) == [start.history[0], (second, LETTERS.win)]
    assert game.actions() == frozenset()


def test_fixing_a_score_before_any_is_given_says_there_is_none_yet() -> None:
    from keypeg.errors import IllegalMoveError
    from keypeg.play.sessions import SolveSession

    session = SolveSession(Rules(4, 6))
    with pytest.raises(IllegalMoveError, match="no guess has been scored yet"):
        session.fix(1, "4 0")
