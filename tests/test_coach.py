"""The coach: its ratings never contradict the figures it shows, and a winning guess is never faulted."""

from __future__ import annotations

import pytest

from keypeg import Rules, score
from keypeg.knowledge import Knowledge
from keypeg.play.coach import RATINGS, review

FOUR = Rules(4, 4)
FAULTS = ("inaccuracy", "mistake", "blunder")


@pytest.mark.parametrize("guess", ["CBAA", "BCAA", "AABD", "ABCD", "DDDD", "BDDD"])
def test_the_move_named_best_is_never_worse_than_the_guess_as_shown(guess: str) -> None:
    before = Knowledge(FOUR, ((FOUR.parse("CBCD"), score(FOUR.parse("BDDD"), FOUR.parse("CBCD"))),))
    played = FOUR.parse(guess)
    found = review(before, played, score(FOUR.parse("BDDD"), played))
    mine, theirs = f"{found.expected:.2f}", f"{found.best_expected:.2f}"
    if found.best != found.guess:
        assert float(theirs) <= float(mine), found.line()
        assert (f"best known {found.best} {theirs}" in found.line()) != found.solved
    else:
        assert "best known " not in found.line().split(";")[-1]
    top = RATINGS[0][1]
    assert (found.rating in (top, "solved")) == (mine == theirs or found.rating == "solved"), found.line()


def test_every_rating_follows_the_figures_as_shown() -> None:
    secret = FOUR.parse("BDDD")
    before = Knowledge(FOUR, ((FOUR.parse("CBCD"), score(secret, FOUR.parse("CBCD"))),))
    for number in range(0, FOUR.size, 3):
        guess = FOUR.code([(number // 4**k) % 4 for k in range(4)])
        found = review(before, guess, score(secret, guess))
        loss = round(float(f"{found.expected:.2f}") - float(f"{found.best_expected:.2f}"), 2)
        assert loss >= 0, found.line()
        if found.rating != "solved":
            limits = [limit for limit, _ in RATINGS]
            expected = next((name for limit, name in RATINGS if loss <= limit), "blunder")
            assert found.rating == expected, (found.line(), loss, limits)


@pytest.mark.parametrize(("rules", "first", "secret"), [(FOUR, "AABB", "DBAA"), (Rules(3, 4), "ABB", "DBA")])
def test_a_guess_that_breaks_the_code_is_never_faulted(rules: Rules, first: str, secret: str) -> None:
    code = rules.parse(secret)
    before = Knowledge(rules, ((rules.parse(first), score(code, rules.parse(first))),))
    found = review(before, code, rules.win)
    assert found.rating == "solved" and found.rating not in FAULTS
    assert found.line().startswith(f"solved: {before.count:,} -> 1 code; {secret} was the secret")
    assert "best known" not in found.line()  # no better guess is held up against one that won
