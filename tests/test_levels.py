"""The computer's levels keep the order their names promise, and level 1 (careless) plays as it says."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules, score
from keypeg.analysis.export import verify_tree
from keypeg.analysis.tree import build_tree
from keypeg.knowledge import Knowledge
from keypeg.play.levels import LEVELS
from keypeg.play.ratings import Rating
from keypeg.play.sessions import BreakSession
from keypeg.services import games, ratings
from keypeg.services.ratings import level_guesses
from keypeg.store import Store
from keypeg.strategies import make_strategy
from keypeg.strategies.careless import Careless
from keypeg.strategy_tree import Node

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


def test_results_rated_with_earlier_level_ratings_replay_without_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store whose players were seeded against the levels' earlier ratings (issue 30's first
    level-ratings.json, level 1 above level 2) replays without drift once the shipped ratings change:
    each seeding result keeps the levels' ratings and the places it was rated with."""
    earlier = {
        "level 1": Rating(1462.8, 48.93, 0.060546),
        "level 2": Rating(1257.45, 54.67, 0.060641),
        "level 3": Rating(1609.62, 48.56, 0.059288),
        "level 4": Rating(1696.7, 50.85, 0.059665),
    }
    store = Store(f"sqlite:///{tmp_path / 'k.sqlite3'}")
    monkeypatch.setattr(ratings, "level_ratings", lambda: earlier)
    for _ in range(ratings.SEED_GAMES):
        session = games.new_session(ratings.SEED_RULES, "breaker")
        assert isinstance(session, BreakSession)
        opened = games.start(store, "ann", session, public=True)
        games.guess(opened, "AABB" if str(session.codemaker.reveal()) != "AABB" else "CCDD")
        games.resign(opened)  # a code not broken: a loss to every level
        games.save(opened)
    assert len(ratings.seed(store, "ann")) == ratings.SEED_GAMES
    monkeypatch.undo()
    assert ratings.level_ratings()["level 1"].rating < ratings.level_ratings()["level 2"].rating
    assert ratings.recompute(store) == []


def test_a_careless_tree_counts_the_guesses_wasted_on_a_lone_code() -> None:
    """The whole tree of careless (``keypeg analyze``, the survey, the explorer) asks it even when one code
    fits, as a game does, instead of counting that code as its next guess: some node reached by one secret
    guesses another code, and the tree still breaks every secret."""

    def wasted(node: Node) -> int:
        return int(node.size == 1 and bool(node.children)) + sum(wasted(child) for child in node.children.values())

    tree = build_tree(make_strategy("careless", seed=0), SMALL)
    assert verify_tree(tree).ok
    assert wasted(tree.root) > 0
    assert wasted(build_tree(make_strategy("random", seed=0), SMALL).root) == 0
