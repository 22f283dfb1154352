"""The computer's levels keep the order their names promise, and level 1 (careless) plays as it says."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules, score
from keypeg.knowledge import Knowledge
from keypeg.play.levels import LEVELS
from keypeg.services.ratings import level_guesses
from keypeg.strategies import make_strategy
from keypeg.strategies.careless import Careless

SMALL = Rules(3, 4)
"""A small game whose every secret the test plays: 64 codes, 12 rows."""
SECRETS = ["".join(c) for c in itertools.product("ABCD", repeat=3)]


def test_the_levels_are_in_the_order_their_names_promise() -> None:
    """Every secret of 3x4: level 1 needs more guesses than level 2, which needs more than level 3, for
    each of three ways of seeding level 1 (from the secret, as ratings seed it, and two seeds a game); and
    level 1 still breaks the code within the rows. Before forgetting every score half the time, careless
    (forgetting a third of them, never the last) needed fewer guesses than level 2 here."""
    assert [LEVELS[n].strategy for n in (1, 2, 3)] == ["careless", "simple", "worst-case"]
    second = sum(level_guesses(2, SMALL, secret) for secret in SECRETS)
    third = sum(level_guesses(3, SMALL, secret) for secret in SECRETS)
    for round_ in (None, 1, 2):
        played = [
            level_guesses(1, SMALL, secret, seed=None if round_ is None else round_ * len(SECRETS) + n)
            for n, secret in enumerate(SECRETS)
        ]
        assert sum(played) > second > third, (round_, sum(played), second, third)
        assert all(guesses <= SMALL.rows for guesses in played)


def test_careless_replays_a_seeded_game() -> None:
    def game(seed: int, secret: str) -> list[str]:
        strategy, knowledge, code = make_strategy("careless", seed=seed), Knowledge(SMALL), SMALL.parse(secret)
        while not knowledge.solved:
            guess = strategy.next_guess(knowledge)
            knowledge = knowledge.add(guess, score(code, guess))
        return [str(guess) for guess, _ in knowledge.history]

    assert game(5, "DCB") == game(5, "DCB")
    assert len({tuple(game(seed, "DCB")) for seed in range(6)}) > 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SECRETS))
def test_careless_never_repeats_a_guess(seed: int, secret: str) -> None:
    """However much it forgets, it never plays a code twice, so it always breaks the code."""
    strategy, knowledge, code = make_strategy("careless", seed=seed), Knowledge(SMALL), SMALL.parse(secret)
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        assert all(guess != played for played, _ in knowledge.history)
        knowledge = knowledge.add(guess, score(code, guess))
    assert len(knowledge.history) <= SMALL.size


def test_careless_misses_the_only_code_left_now_and_then() -> None:
    """With one code left that fits, it plays it only when it remembers enough: some seeds play another
    code (a careless player's wasted guess); with ``forget`` 0 it always plays it."""
    code = SMALL.parse("DCB")
    knowledge = Knowledge(SMALL)
    for guess in ("AAB", "CDA", "BCC", "DDB"):
        knowledge = knowledge.add(SMALL.parse(guess), score(code, SMALL.parse(guess)))
    assert knowledge.candidates.size == 1

    class Careful(Careless):
        forget = 0.0

    played = {str(make_strategy("careless", seed=seed).next_guess(knowledge)) for seed in range(20)}
    assert "DCB" in played and len(played) > 1
    assert {str(Careful(seed=seed).next_guess(knowledge)) for seed in range(20)} == {"DCB"}
