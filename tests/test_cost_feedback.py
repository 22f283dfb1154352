"""The cost guard times the optimal search by the answers a feedback gives: black pegs only (or colours
only) leave far more to search than the standard answers over as many codes."""

from __future__ import annotations

from keypeg.analysis.cost import analyze_cost, optimal_cost
from keypeg.rules import Rules

GUARD_SECONDS = 180  # the default time budget: 3 minutes


def test_black_pegs_only_make_classics_optimal_search_too_long_to_start_unasked() -> None:
    classic, black = Rules(4, 6), Rules(4, 6, feedback="black")
    assert optimal_cost(classic).seconds < GUARD_SECONDS < optimal_cost(black).seconds
    assert analyze_cost(black, "optimal").seconds > GUARD_SECONDS  # the Strategies page's check of the row


def test_a_colours_game_and_a_tiny_black_game_stay_within_the_guard() -> None:
    for rules in (Rules(4, 6, feedback="colours"), Rules(3, 3, feedback="black"), Rules(2, 4, feedback="black")):
        assert optimal_cost(rules).seconds < GUARD_SECONDS, rules
