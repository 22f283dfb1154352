"""The genetic codebreaker and play on games too large to enumerate."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from keypeg import Rules, score
from keypeg.cli import cli
from keypeg.errors import KeypegError
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.strategies import make_strategy
from keypeg.strategies.genetic import Genetic, GeneticParams, first_guess


def play_out(rules: Rules, secret_seed: int, seed: int, limit: int = 25) -> list:  # type: ignore[type-arg]
    secret = random_code(rules, random.Random(secret_seed))
    strategy = make_strategy("genetic", seed=seed)
    knowledge = Knowledge(rules)
    while not knowledge.solved and len(knowledge.history) < limit:
        guess = strategy.next_guess(knowledge)
        if knowledge.history:  # every guess after the first fits every score so far
            assert all(score(guess, g) == f for g, f in knowledge.history)
        knowledge = knowledge.add(guess, score(secret, guess))
    return list(knowledge.history)


@pytest.mark.parametrize(
    ("rules", "seed"),
    [(Rules(5, 8), 1), (Rules(6, 9), 2), pytest.param(Rules(8, 12), 3, marks=pytest.mark.slow)],
    ids=str,
)
def test_genetic_breaks_codes_with_fitting_guesses(rules: Rules, seed: int) -> None:
    history = play_out(rules, seed, seed)
    assert history[-1][1] == rules.win
    assert len(history) <= 14


def test_genetic_without_repeats() -> None:
    rules = Rules(6, 10, repeats=False)
    history = play_out(rules, 4, 4)
    assert history[-1][1] == rules.win
    assert all(len(set(g.colors)) == 6 for g, _ in history)


def test_seeded_runs_repeat() -> None:
    rules = Rules(6, 9)
    assert play_out(rules, 5, 7) == play_out(rules, 5, 7)


def test_falls_back_to_the_constraint_solver() -> None:
    rules = Rules(8, 12)
    secret = random_code(rules, random.Random(8))
    starved = Genetic(params=GeneticParams(population=2, generations=1, eligible=1), seed=0)
    history = [(g, score(secret, g)) for g in (random_code(rules, random.Random(k)) for k in range(6))]
    guess = starved.next_guess(Knowledge(rules, tuple(history)))
    assert starved.last_source == "constraint solver"
    assert all(score(guess, g) == f for g, f in history)


def test_best_split_prefers_more_parts() -> None:
    rules = Rules(4, 6)
    eligible = [rules.parse(t).colors for t in ("AAAA", "AABB", "ABCD", "ABDC", "BADC")]
    chosen = Genetic.best_split(rules, eligible)
    parts = {code: len({score(rules.code(other), rules.code(code)) for other in eligible}) for code in eligible}
    assert parts[chosen] == max(parts.values())


def test_parameters_are_checked() -> None:
    with pytest.raises(KeypegError):
        GeneticParams(mutation=1.5)
    with pytest.raises(KeypegError):
        GeneticParams(population=1)


def test_first_guess_shapes() -> None:
    assert str(first_guess(Rules(4, 6))) == "AABC"
    assert str(first_guess(Rules(8, 12))) == "AABCDEFG"
    assert str(first_guess(Rules(4, 10, repeats=False))) == "ABCD"


@pytest.mark.slow
def test_solve_protocol_on_8x12() -> None:
    rules = Rules(8, 12)
    secret = random_code(rules, random.Random(21))
    strategy = make_strategy("genetic", seed=5)
    knowledge = Knowledge(rules)
    guesses, scores = [], []
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        feedback = score(secret, guess)
        guesses.append(str(guess))
        scores.append(f"{feedback.black} {feedback.white}")
        knowledge = knowledge.add(guess, feedback)
    result = CliRunner().invoke(cli, ["solve", "-p", "8", "-c", "12", "--seed", "5"], input="\n".join(scores) + "\n")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == guesses
    assert "genetic codebreaker" in result.stderr


@pytest.mark.slow
def test_solve_on_8x12_refuses_a_contradiction() -> None:
    from keypeg.consistency import check

    rules = Rules(8, 12)
    secret = random_code(rules, random.Random(2))
    strategy = make_strategy("genetic", seed=1)
    knowledge = Knowledge(rules)
    lines: list[str] = []
    guesses: list[str] = []
    while True:  # answer truthfully until some score for the next guess would contradict the others
        guess = strategy.next_guess(knowledge)
        guesses.append(str(guess))
        history = list(knowledge.history)
        wrong = next((f for f in rules.feedbacks() if not check(rules, [*history, (guess, f)]).consistent), None)
        if wrong is not None:
            lines.append(f"{wrong.black} {wrong.white}")
            break
        truth = score(secret, guess)
        lines.append(f"{truth.black} {truth.white}")
        knowledge = knowledge.add(guess, truth)
        assert truth != rules.win
    result = CliRunner().invoke(cli, ["solve", "-p", "8", "-c", "12", "--seed", "1"], input="\n".join(lines) + "\n")
    assert result.stdout.splitlines() == guesses
    assert "no code fits these scores" in result.stderr and "Likely mistake" in result.stderr
    assert result.exit_code == 1  # input ended before the code was broken: the game is resigned


def test_hint_next_and_play_on_8x12() -> None:
    runner = CliRunner()
    hint = runner.invoke(cli, ["hint", "AABBCCDD=2,1", "-p", "8", "-c", "12", "--json"])
    assert hint.exit_code == 0, hint.stderr
    guess = Rules(8, 12).parse(json.loads(hint.stdout)["guess"])
    assert score(guess, Rules(8, 12).parse("AABBCCDD")) == Rules(8, 12).parse_feedback("2,1")
    nxt = runner.invoke(cli, ["next", "AABBCCDD=2,1", "-p", "8", "-c", "12", "-s", "knuth"])
    assert nxt.exit_code == 0 and "genetic" in nxt.stderr
    played = runner.invoke(cli, ["play", "-p", "8", "-c", "12", "--secret", "ABCDEFGH"], input="ABCDEFGH\n")
    assert played.exit_code == 0 and played.stdout.strip() == "8 0"
