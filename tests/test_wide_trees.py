"""Trees past one word: the tree kernel's multi-word path (codes whose position or count bits need more
than 64 bits: 7x10, 7x11) grows the trees its one-word path grows, a natively wide game grows the tree
of the Python reference, a cluster can send back figures only, and the cost guard knows the new limits."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import limits, machine
from keypeg.analysis import cost
from keypeg.analysis.distributed import distributed_totals
from keypeg.analysis.tree import build_tree
from keypeg.analysis.tree import compiled as grown_by_the_kernel
from keypeg.cluster import InProcess
from keypeg.kernels import CodeSpace
from keypeg.rules import Rules
from keypeg.strategies import make_strategy
from keypeg.strategy_tree import tree_to_json

HEURISTICS = ["worst-case", "expected-size", "entropy", "most-parts"]
SMALL = [Rules(2, 5), Rules(3, 4), Rules(3, 6), Rules(4, 4), Rules(4, 6), Rules(4, 6, repeats=False)]


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(SMALL),
    st.sampled_from(HEURISTICS),
    st.integers(1, 3),
    st.sampled_from(["first", "last"]),
    st.booleans(),
    st.sampled_from(["kooi", "mmstrat"]),
)
def test_the_multi_word_path_grows_the_one_word_tree(
    rules: Rules, name: str, words: int, tie: str, consistent: bool, scoring: str
) -> None:
    """Every code read as rows of 1 to 3 words (zero words added) gives node for node the tree of one word."""
    space = CodeSpace.of(rules)
    options = {"tie": tie, "scoring": scoring} | ({"pool": "consistent"} if consistent else {})
    rule = make_strategy(name, **options).tree_rule(rules)
    assert rule is not None
    grown = [space.grow(rule, (), space.all, depth=64, max_depth=64, words=w) for w in (0, words)]
    one, wide = grown
    assert one is not None and wide is not None
    for a, b in zip(one, wide, strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("name", HEURISTICS)
def test_a_natively_wide_game_grows_the_tree_of_the_python_path(name: str) -> None:
    """3 pegs of 22 colours: 66 position bits and 66 count bits, two words each. A subtree after a
    first guess from the kernel is the reference's (:meth:`Strategy.rank` node by node), node for node."""
    rules = Rules(3, 22)
    assert limits.code_words(3, 22, True) == (2, 2) and not limits.one_word(3, 22, True)
    space = CodeSpace.of(rules)
    assert grown_by_the_kernel(make_strategy(name), rules)  # the kernel grows it (the Python path did, one word only)
    first = space.index(rules.parse("ABC"))
    for ordinal, part in space.split(first, space.all, keep_win=False):
        if 20 < part.size < 100:  # the part of 63 codes (AB. or A.C or .BC and a colour not in ABC)
            history = ((first, ordinal),)
            compiled = build_tree(make_strategy(name), rules, secrets=part, history=history)
            python = build_tree(make_strategy(name), rules, secrets=part, history=history, compiled=False)
            assert tree_to_json(compiled) == tree_to_json(python)


@pytest.mark.parametrize("name", ["worst-case", "most-parts"])
def test_a_tree_sent_back_as_figures_only_has_the_figures_of_the_tree(name: str) -> None:
    """Tasks that send back each subtree's secrets per round, no node: the figures of the whole tree."""
    rules = Rules(4, 5)
    alone = build_tree(make_strategy(name), rules)
    stats, traffic = distributed_totals(make_strategy(name), rules, InProcess(), split=40)
    assert stats == alone.stats
    assert traffic.tasks["decide"] > 1 and traffic.tasks["grow"] > 1


def test_the_cost_guard_times_wide_codes_at_their_own_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    """7x10 (two words a code) is timed at the multi-word rate, and refused locally with one line."""
    monkeypatch.setattr(machine, "cores", lambda: 2)
    wide, narrow = Rules(7, 10), Rules(8, 7)  # 10,000,000 codes of two words; 5,764,801 of one
    assert cost.tree_seconds_per_pair(wide) == limits.TREE_SECONDS_PER_CODE_PAIR_WIDE
    assert cost.tree_seconds_per_pair(narrow) == limits.TREE_SECONDS_PER_CODE_PAIR
    estimate = cost.analyze_cost(wide, "most-parts")
    assert estimate.seconds == pytest.approx(1e14 * limits.TREE_SECONDS_PER_CODE_PAIR_WIDE / 2, rel=0.01)
    monkeypatch.setattr(machine, "time_budget", lambda: 180.0)
    monkeypatch.setattr(machine, "memory_budget", lambda: 1 << 40)
    with pytest.raises(cost.TooCostlyError, match=r"would take about 17 days on 2 cores") as refused:
        cost.guard(estimate, False, "--force runs it anyway")
    assert "\n" not in str(refused.value)


class _SmallWorkers(InProcess):
    """Workers that each have ``memory`` bytes."""

    def __init__(self, memory: int) -> None:
        self.memory = memory

    def memory_limits(self) -> dict[str, int]:
        return {"tcp://a": self.memory, "tcp://b": 4 * self.memory}


def test_a_worker_holds_its_share_of_a_tree_and_a_share_too_big_is_refused() -> None:
    """A worker's share: the code space, each thread's arrays over every code, one task's subtrees (never
    the whole tree); a cluster whose smallest worker cannot hold it is refused before any task, one line."""
    rules = Rules(7, 10)
    share = cost.worker_tree_cost(rules, "most-parts", 312_500, 1)
    space = cost.space_cost(rules).memory
    assert share.memory == space + 9 * 10**7 + limits.TREE_TASK_BYTES_PER_CODE * 312_500
    assert 0.9 * 2**30 < share.memory < 1.2 * 2**30  # about 1 GiB, where the tree itself is gigabytes
    assert cost.worker_tree_cost(rules, "most-parts", 10**8, 2).memory > share.memory
    with pytest.raises(cost.TooCostlyError, match="a worker's share of the worst-case tree") as refused:
        distributed_totals(make_strategy("worst-case"), Rules(4, 5), _SmallWorkers(1 << 16))
    assert "more than the 64 KiB a worker has" in str(refused.value) and "\n" not in str(refused.value)
    stats, _ = distributed_totals(make_strategy("worst-case"), Rules(4, 5), _SmallWorkers(1 << 30))
    assert stats == build_tree(make_strategy("worst-case"), Rules(4, 5)).stats


@pytest.mark.parametrize("rules", [Rules(8, 2), Rules(9, 2)])
def test_most_parts_on_eight_and_nine_pegs_keeps_the_feedbacks_in_one_word(rules: Rules) -> None:
    """Most parts numbers a feedback ``t (t + 1) / 2 + black``, below 64 up to 9 pegs (the ordinal is below 64
    up to 7 only): its trees on 8 and 9 pegs are the reference's."""
    compiled = build_tree(make_strategy("most-parts"), rules)
    python = build_tree(make_strategy("most-parts"), rules, compiled=False)
    assert tree_to_json(compiled) == tree_to_json(python)


GPU_SOLVER = [  # (pegs, colours, strategy, opening, total, worst case), as published
    (6, 4, "worst-case", "AABBCC", 17_935, 6),
    (6, 4, "most-parts", "AAABBC", 17_480, 6),
    (6, 5, "worst-case", "AABBCC", 76_087, 6),
    (6, 5, "most-parts", "AAABBC", 74_698, 7),
]
"""The GPU solver's figures (Michael Magruder, github.com/mikemag/Mastermind,
results/2023_4090/mastermind_run_stats_20231014_015547_aa_6p_2-15c.json: Total Turns, Max Turns and the
Initial Guess it found best; its Knuth is keypeg's worst-case). Its 6x9, 7x7 and 8x6 rows are in
benchmarks/results/trees.md (`benchmarks/trees.py --gpu`): minutes each, too long for the suite."""


@pytest.mark.parametrize(("pegs", "colors", "name", "opening", "total", "worst"), GPU_SOLVER)
def test_the_gpu_solvers_published_trees_with_its_openings(
    pegs: int, colors: int, name: str, opening: str, total: int, worst: int
) -> None:
    rules = Rules(pegs, colors)
    tree = build_tree(make_strategy(name, first=rules.parse(opening)), rules)
    assert (tree.stats.total, tree.stats.max) == (total, worst)
