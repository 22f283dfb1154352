"""Playing: the game engine, matches, and every mode driven through its piped line protocol."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from conftest import rescoring_an_earlier_guess
from keypeg import Feedback, Rules, find_variant, score
from keypeg.cli import cli
from keypeg.cli.terminal import Terminal
from keypeg.errors import KeypegError
from keypeg.game import Game, GameOverError, Match, Termination, random_code
from keypeg.knowledge import Knowledge
from keypeg.play.coach import RATINGS
from keypeg.play.codemakers import AdversarialCodemaker
from keypeg.play.levels import level_strategy
from keypeg.play.sessions import SolveSession
from keypeg.store import Store

CLASSIC = find_variant("classic").rules
LETTERS = Rules(4, 6)


def run(args: list[str], lines: list[str]) -> Result:
    result = CliRunner().invoke(cli, args, input="".join(f"{line}\n" for line in lines))
    assert "Traceback" not in result.output
    return result


def computer_guesses(rules: Rules, secret: str, level: int = 3) -> list[tuple[str, Feedback]]:
    """What the level plays against ``secret``, computed in-process."""
    strategy = level_strategy(level, rules)
    knowledge = Knowledge(rules)
    played = []
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        feedback = score(rules.parse(secret), guess)
        played.append((str(guess), feedback))
        knowledge = knowledge.add(guess, feedback)
    return played


# -- the engine --------------------------------------------------------------------------------


def test_game_plays_undoes_and_ends() -> None:
    game = Game(LETTERS, "ABCD")
    assert game.guess("AABB") == Feedback(1, 1)
    assert game.rows_left == 11
    copy = game.copy()
    game.pop()
    assert game.rows_left == 12 and copy.rows_left == 11
    assert game.guess(LETTERS.parse("ABCD")) == LETTERS.win
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.SOLVED and outcome.guesses == 1
    with pytest.raises(GameOverError):
        game.guess("ABCD")


def test_game_runs_out_of_rows() -> None:
    game = Game(Rules(4, 6, rows=2), "ABCD")
    game.guess("AAAA")
    game.guess("BBBB")
    outcome = game.outcome()
    assert outcome is not None and not outcome.solved and outcome.secret == LETTERS.parse("ABCD")


def test_game_refuses_illegal_guesses() -> None:
    game = Game(find_variant("bulls-and-cows").rules, "0123")
    with pytest.raises(KeypegError, match="repeats"):
        game.guess("1123")
    with pytest.raises(KeypegError, match="has 3 pegs"):
        game.guess("123")
    with pytest.raises(KeypegError):
        game.pop()


def test_seeded_secret_repeats() -> None:
    one = Game(CLASSIC, rng=random.Random(7)).secret
    assert one == Game(CLASSIC, rng=random.Random(7)).secret
    assert {Game(CLASSIC, rng=random.Random(s)).secret for s in range(30)} != {one}


def test_match_scoring_and_roles() -> None:
    match = Match(("ann", "bob"), games=4)
    match.record_game(5, broken=True)  # ann made, bob broke in 5
    match.record_game(12, broken=False)  # bob made, ann failed: 12 + 1
    assert match.points() == {"ann": 5, "bob": 13}
    assert match.roles() == ("ann", "bob")
    match.record_game(3, broken=True)
    match.record_game(3, broken=True)
    assert match.is_over and match.winner() == "bob"
    restored = Match.from_dict(json.loads(json.dumps(match.as_dict())))
    assert restored.points() == match.points() and restored.is_over


def test_match_key_peg_scoring_and_bad_setups() -> None:
    match = Match(("a", "b"), games=2, points_per="key-pegs")
    game = Game(LETTERS, "ABCD")
    game.guess("AABB")
    game.guess("ABCD")
    match.record(game)
    assert match.points()["a"] == 2 + 4
    for bad in (dict(games=3), dict(games=0), dict(points_per="style")):
        with pytest.raises(KeypegError):
            Match(("a", "b"), **bad)  # type: ignore[arg-type]
    with pytest.raises(KeypegError, match="damaged"):
        Match.from_dict({"keypeg_match": 1, "players": ["a"]})


def test_adversary_is_always_fair() -> None:
    adversary = AdversarialCodemaker(LETTERS)
    rng = random.Random(1)
    for _ in range(8):
        guess = random_code(LETTERS, rng)
        feedback = adversary.answer(guess)
        assert adversary.knowledge.is_consistent
        if feedback == LETTERS.win:
            break
    secret = adversary.reveal()
    assert all(score(secret, g) == f for g, f in adversary.knowledge.history)


# -- keypeg play, piped --------------------------------------------------------------------------


def test_play_protocol() -> None:
    guesses = ["AABB", "CCDD", "ABCD", "BADC"]
    result = run(["play", "-p", "4", "-c", "6", "--secret", "BADC"], guesses)
    assert result.exit_code == 0
    expected = [score(LETTERS.parse("BADC"), LETTERS.parse(g)) for g in guesses]
    assert result.stdout.splitlines() == [f"{f.black} {f.white}" for f in expected]


def test_play_bad_input_is_retried_without_losing_a_row() -> None:
    result = run(
        ["play", "--variant", "classic", "--secret", "RGBY", "--rows", "2"],
        ["RGB", "RGBYY", "XXXX", "RGBY"],
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == ["4 0"]
    assert "has 3 pegs" in result.stderr and "has 5 pegs" in result.stderr and "unknown colour 'X'" in result.stderr


def test_play_out_of_rows_prints_the_secret() -> None:
    result = run(["play", "-p", "4", "-c", "6", "--secret", "BADC", "--rows", "2"], ["AAAA", "BBBB"])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["1 0", "1 0", "BADC"]


def test_play_input_ending_early() -> None:
    result = run(["play", "-p", "4", "-c", "6", "--secret", "BADC"], ["AAAA"])
    assert result.exit_code == 1  # not broken: resigned
    assert "resigned" in result.stderr and result.stdout.splitlines() == ["1 0", "BADC"]


def test_play_seeded_secret_is_the_same() -> None:
    args = ["play", "--variant", "mini", "--seed", "11", "--rows", "1"]
    first = run(args, ["RRRR"]).stdout.splitlines()[-1]
    assert first == run(args, ["RRRR"]).stdout.splitlines()[-1]
    assert first == str(random_code(find_variant("mini").rules.replace(rows=1), random.Random(11)))


def test_play_coach_reviews_each_guess() -> None:
    result = run(["play", "-p", "4", "-c", "6", "--secret", "ABCD", "--coach"], ["AAAA", "ABCD"])
    assert result.exit_code == 0
    reviews = [line for line in result.stderr.splitlines() if line.startswith("coach:")]
    assert len(reviews) == 2
    assert "1,296 -> " in reviews[0] and "best known AABC" in reviews[0]
    assert reviews[0].removeprefix("coach: ").split(":")[0] in {name for _, name in RATINGS} | {"blunder"}
    assert reviews[1].startswith("coach: solved: ") and "ABCD was the secret" in reviews[1]


def test_play_adversarial_answers_fit() -> None:
    guesses = ["AABB", "CCDD", "EEFF", "ABCD", "BADC", "ACEF"]
    result = run(["play", "-p", "4", "-c", "6", "--adversarial", "--rows", "6"], guesses)
    scores = [Feedback(*map(int, line.split())) for line in result.stdout.splitlines()[:6]]
    knowledge = Knowledge(LETTERS, tuple(zip([LETTERS.parse(g) for g in guesses], scores, strict=True)))
    assert knowledge.is_consistent
    assert result.exit_code == 1  # six guesses cannot corner it here
    secret = LETTERS.parse(result.stdout.splitlines()[-1])
    assert all(score(secret, g) == f for g, f in knowledge.history)


# -- keypeg solve, piped -------------------------------------------------------------------------


@pytest.mark.parametrize("level", [2, 3, 4])
def test_solve_protocol(level: int) -> None:
    played = computer_guesses(CLASSIC, "WKRR", level)
    result = run(["solve", "--level", str(level)], [f"{f.black} {f.white}" for _, f in played])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [g for g, _ in played]


def test_solve_refuses_impossible_and_contradictory_scores() -> None:
    played = computer_guesses(CLASSIC, "RGBY")
    assert len(played) >= 2
    first, second = played[0][1], played[1][1]
    lines = [f"{first.black} {first.white}", "3 1", "5 0", "two", "4 0"]  # 4 0 would contradict? check below
    rest = [f"{f.black} {f.white}" for _, f in played[1:]]
    result = run(["solve"], lines[:4] + rest)
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [g for g, _ in played]
    assert "cannot happen" in result.stderr
    assert "has 5 key pegs" in result.stderr
    assert "cannot read the score 'two'" in result.stderr
    assert second != CLASSIC.win


def test_solve_names_the_likely_wrong_score_and_fix_corrects_it() -> None:
    secret = LETTERS.parse("CDEF")
    played = computer_guesses(LETTERS, "CDEF")
    first_guess, first_score = LETTERS.parse(played[0][0]), played[0][1]
    strategy = level_strategy(3, LETTERS)
    # a wrong first score that fits some code, after which the truthful second score contradicts it
    for wrong in LETTERS.feedbacks():
        wrong_knowledge = Knowledge(LETTERS, ((first_guess, wrong),))
        if wrong in (first_score, LETTERS.win) or not wrong_knowledge.is_consistent:
            continue
        second_guess = strategy.next_guess(wrong_knowledge)
        truth = score(secret, second_guess)
        if not wrong_knowledge.add(second_guess, truth).is_consistent:
            break
    else:
        pytest.fail("no contradicting wrong score found")
    lines = [f"{wrong.black} {wrong.white}", f"{truth.black} {truth.white}"]
    lines += [f"fix 1 {first_score.black} {first_score.white}"]
    lines += [f"{f.black} {f.white}" for _, f in played[1:]]
    result = run(["solve", "-p", "4", "-c", "6"], lines)
    assert result.exit_code == 0, result.stderr
    assert "no code fits these scores" in result.stderr and "Likely mistake" in result.stderr
    assert "guess 1 rescored" in result.stderr
    assert result.stdout.splitlines() == [played[0][0], str(second_guess), *[g for g, _ in played[1:]]]


def test_solve_rescoring_an_earlier_guess_all_black_ends_and_records_the_game_there(tmp_path: Path) -> None:
    first, second, wrong, third, truth = rescoring_an_earlier_guess(LETTERS)[1:]
    lines = ["0 0", f"{wrong.black} {wrong.white}", f"{truth.black} {truth.white}", "fix 2 4 0", "4 0"]
    db = f"sqlite:///{tmp_path / 'k.db'}"
    result = run(["solve", "-p", "4", "-c", "6", "--player", "bob", "--db", db], lines)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[:3] == [str(first), str(second), str(third)]
    assert len(result.stdout.splitlines()) == 4  # the fourth guess awaited its score when the fix came
    assert "guess 2 rescored 4,0: it was your code, so the game ended there (guess 3 dropped)" in result.stderr
    record = Store(db).games.history("bob", with_moves=True)[0]
    assert (record.outcome, record.guesses, record.secret) == ("solved", 2, str(second))
    assert [m.guess for m in record.moves] == [str(first), str(second)]


def test_solve_explain_says_which_scores_level_one_forgot() -> None:
    secret = CLASSIC.parse("GGBK")
    for seed in range(50):  # a seeded game in which level 1 plays a guess that cannot be the code
        session = SolveSession(CLASSIC, level=1, seed=seed, top=4)
        while not session.is_over and session.knowledge().add(session.guess(), CLASSIC.win).is_consistent:
            session.score(score(secret, session.guess()))
        if not session.is_over:
            break
    else:
        pytest.fail("level 1 never forgot a score in 50 seeded games")
    guess = session.guess()
    contradicted = [(k, g, f) for k, (g, f) in enumerate(session.history, 1) if score(guess, g) != f]
    lines = [f"{f.black} {f.white}" for _, f in session.history]
    result = run(["solve", "--level", "1", "--seed", str(seed), "--verbose"], lines)
    assert result.stdout.splitlines()[-1] == str(guess)
    for k, g, f in contradicted:
        assert f"guess {k} ({g} {f})" in result.stderr, result.stderr
    assert "I forgot the score" in result.stderr
    explained = run(["solve", "--level", "1", "--seed", str(seed), "--explain"], lines)
    assert (explained.stdout, explained.stderr) == (result.stdout, result.stderr)


def test_solve_seeded_level_one_repeats() -> None:
    played = computer_guesses(CLASSIC, "GGBK", 2)
    assert played
    args = ["solve", "--level", "1", "--seed", "4", "--rows", "12"]
    secret = CLASSIC.parse("GGBK")

    def session() -> list[str]:
        # answer whatever is asked truthfully: feed scores one guess at a time via a reference replay
        strategy = level_strategy(1, CLASSIC, seed=4)
        knowledge = Knowledge(CLASSIC)
        lines = []
        while not knowledge.solved and len(knowledge.history) < 12:
            guess = strategy.next_guess(knowledge)
            f = score(secret, guess)
            lines.append(f"{f.black} {f.white}")
            knowledge = knowledge.add(guess, f)
        return lines

    answers = session()
    first = run(args, answers)
    second = run(args, answers)
    assert first.stdout == second.stdout
    assert first.exit_code in (0, 1)


def test_hint() -> None:
    result = run(["hint", "AABB=1,0", "-p", "4", "-c", "6", "--level", "3", "--json"], [])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    knowledge = Knowledge.from_text(LETTERS, ["AABB=1,0"])
    assert data["guess"] == str(level_strategy(3, LETTERS).next_guess(knowledge))
    bad = run(["hint", "AABB=4,0", "ABCD=4,0", "-p", "4", "-c", "6"], [])
    assert bad.exit_code == 2 and "no code fits" in bad.stderr


# -- keypeg match, piped -------------------------------------------------------------------------


def test_match_against_the_computer(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    rng = random.Random(5)
    computer_secret = random_code(CLASSIC, rng)
    mine = "KKWW"
    played = computer_guesses(CLASSIC, mine)
    lines = [str(computer_secret)] + [f"{f.black} {f.white}" for _, f in played]
    result = run(["match", "--seed", "5", "--save", str(save)], lines)
    assert result.exit_code == 0, result.stderr
    data = json.loads(save.read_text())
    assert [g["guesses"] for g in data["played"]] == [1, len(played)]
    assert Match.from_dict(data).points() == {"computer": 1, "tester": len(played)}  # $KEYPEG_PLAYER


def test_match_stops_and_resumes(tmp_path: Path) -> None:
    save = tmp_path / "m.json"
    rng = random.Random(9)
    secret = random_code(CLASSIC, rng)
    rng.randrange(2**31)  # the seed of game 2, where the computer breaks the code
    third = random_code(CLASSIC, rng)
    stopped = run(["match", "--games", "4", "--seed", "9", "--save", str(save)], [str(secret)])
    assert stopped.exit_code == 1 and "saved" in stopped.stderr
    assert len(json.loads(save.read_text())["played"]) == 2  # game 2 was left: resigned
    played = computer_guesses(CLASSIC, "RGBY")
    resumed = run(["match", "--resume", str(save)], [str(third)] + [f"{f.black} {f.white}" for _, f in played])
    assert resumed.exit_code == 0, resumed.stderr
    assert Match.from_dict(json.loads(save.read_text())).is_over


def test_match_between_two_people(tmp_path: Path) -> None:
    lines = ["RGBY", "RGBY", "KKKK", "WWWW", "KKKK"]  # p1 sets RGBY, p2 breaks at once; p2 sets KKKK, p1 takes 2
    result = run(["match", "--vs", "human", "--save", str(tmp_path / "h.json")], lines)
    assert result.exit_code == 0, result.stderr
    scores = Match.from_dict(json.loads((tmp_path / "h.json").read_text())).points()
    assert scores == {"tester": 1, "player2": 2}  # the first seat is --player ($KEYPEG_PLAYER)


def test_match_refuses_an_odd_number_of_games() -> None:
    result = run(["match", "--games", "3"], [])
    assert result.exit_code == 2 and "even number" in result.stderr


@pytest.mark.parametrize(
    ("args", "lines", "said"),
    [
        (["play", "--secret", "RGBY", "--rows", "2"], ["RRGG", "BBYY"], "Out of rows."),
        (["solve", "--rows", "1"], ["0 0"], "I am out of rows: you win this one."),
    ],
)
def test_a_game_lost_in_a_terminal_is_done_and_piped_its_status_is_the_answer(
    monkeypatch: pytest.MonkeyPatch, args: list[str], lines: list[str], said: str
) -> None:
    piped = run([*args, "--no-record"], lines)
    assert piped.exit_code == 1 and "error:" not in piped.stderr and said not in piped.stdout
    monkeypatch.setattr(Terminal, "detect", classmethod(lambda cls: cls(interactive=True)))
    shown = run([*args, "--no-record"], lines)
    assert shown.exit_code == 0 and said in shown.stdout and "error:" not in shown.output, shown.output


def test_hint_refuses_scores_no_code_fits_as_bad_input() -> None:
    result = run(["hint", "RRGG=4,0", "BBYY=1,0"], [])
    assert result.exit_code == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: no code fits these scores")
