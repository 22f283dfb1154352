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
    assert optimal_cost(Rules(4, 5, feedback="black")).seconds > GUARD_SECONDS  # measured: over 30 minutes


def test_the_searches_measured_in_seconds_stay_within_the_guard() -> None:
    """4x4 and 5x3 black took 1.1 and 0.6 CPU seconds; 4x6 and 5x6 colours under 2."""
    quick = [Rules(4, 4, feedback="black"), Rules(5, 3, feedback="black"), Rules(3, 3, feedback="black")]
    for rules in (*quick, Rules(4, 6, feedback="colours"), Rules(5, 6, feedback="colours")):
        assert optimal_cost(rules).seconds < GUARD_SECONDS, rules
