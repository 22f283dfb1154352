"""The tree kernel grows exactly the trees of the Python path (the slow reference), under every convention."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules
from keypeg.analysis import tree as tree_module
from keypeg.analysis.tree import build_tree
from keypeg.kernels import CodeSpace
from keypeg.strategies import make_strategy
from keypeg.strategy_tree import StrategyTree, tree_from_json, tree_to_json
from reference import rules_st

KERNEL_STRATEGIES = ["worst-case", "expected-size", "entropy", "most-parts", "simple"]


def same_tree(compiled: StrategyTree, python: StrategyTree) -> None:
    """The same guess at every node, the same sizes, the same totals."""
    assert compiled.stats == python.stats
    assert tree_to_json(compiled) == tree_to_json(python)


@st.composite
def conventions_st(draw: st.DrawFn) -> dict[str, object]:
    return {
        "pool": draw(st.sampled_from(["all", "consistent"])),
        "tie": draw(st.sampled_from(["first", "last"])),
        "prefer_consistent": draw(st.booleans()),
        "symmetry": draw(st.booleans()),
    }


@settings(max_examples=60, deadline=None)
@given(rules_st(max_pegs=4, max_colors=6), st.sampled_from(KERNEL_STRATEGIES), conventions_st(), st.data())
def test_kernel_trees_are_the_python_trees(
    rules: Rules, name: str, conventions: dict[str, object], data: st.DataObject
) -> None:
    space = CodeSpace.of(rules)
    if data.draw(st.booleans()):
        conventions["first"] = space.code(data.draw(st.integers(0, space.size - 1)))
    strategy = make_strategy(name, **conventions)
    assert strategy.tree_rule(rules) is not None
    same_tree(build_tree(strategy, rules), build_tree(strategy, rules, compiled=False))


@settings(max_examples=20, deadline=None)
@given(rules_st(min_pegs=2, max_pegs=4, min_colors=2, max_colors=6), st.sampled_from(KERNEL_STRATEGIES), st.data())
def test_kernel_subtrees_are_the_python_subtrees(rules: Rules, name: str, data: st.DataObject) -> None:
    """A subtree after a history (the distributed tree's tasks) is grown alike too."""
    space = CodeSpace.of(rules)
    guess = data.draw(st.integers(0, space.size - 1))
    value, part = data.draw(st.sampled_from(space.split(guess, space.all)))
    strategy = make_strategy(name, tie=data.draw(st.sampled_from(["first", "last"])))
    history = ((guess, value),)
    same_tree(
        build_tree(strategy, rules, secrets=part, history=history),
        build_tree(strategy, rules, secrets=part, history=history, compiled=False),
    )


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_threads_grow_the_same_tree(workers: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Subtrees grown side by side on threads make the tree one thread makes."""
    rules = Rules(4, 6)
    alone = build_tree(make_strategy("entropy"), rules, compiled=False)
    monkeypatch.setattr(tree_module, "threads", lambda: workers)
    calls: list[int] = []
    threaded = build_tree(make_strategy("entropy"), rules, progress=calls.append)
    same_tree(threaded, alone)
    assert sum(calls) == rules.size


def test_flat_nodes_load_back() -> None:
    """A tree made from flat nodes writes the JSON every tree writes, and reads back."""
    tree = build_tree(make_strategy("most-parts"), Rules(4, 6))
    assert str(tree.first_guess) == "AABC"
    again = tree_from_json(tree_to_json(tree))
    assert tree_to_json(again) == tree_to_json(tree)
    assert again.root.nodes() == tree.root.nodes()


def test_strategies_without_a_kernel_use_python() -> None:
    rules = Rules(3, 4)
    for name, options in [("two-step", {}), ("random", {"seed": 1}), ("worst-case", {"tie": "random", "seed": 2})]:
        assert make_strategy(name, **options).tree_rule(rules) is None


def test_no_fitting_code_is_one_line_error() -> None:
    from keypeg.errors import KeypegError

    with pytest.raises(KeypegError, match="no code fits"):
        build_tree(make_strategy("worst-case"), Rules(4, 6), secrets=np.array([], dtype=np.intp), history=((0, 0),))


# 5x8 totals of mmstrat (fancidev's C++ solver), the same trees: its minavg and parts conventions are keypeg's.
FIVE_EIGHT = {"expected-size": 180_287, "most-parts": 181_834, "worst-case": 183_966, "entropy": 179_863}


@pytest.mark.slow
@pytest.mark.parametrize("name", FIVE_EIGHT)
def test_five_eight_totals(name: str) -> None:
    assert build_tree(make_strategy(name), Rules(5, 8)).stats.total == FIVE_EIGHT[name]


# mmstrat's published output on 4x6 (benchmarks/results/anchor.md): minmax and entropy, all guesses and
# fitting guesses only (-po); its minavg and parts are keypeg's expected-size and most-parts.
MMSTRAT_4X6 = {
    ("worst-case", "all"): 5778,
    ("worst-case", "consistent"): 5797,
    ("entropy", "all"): 5719,
    ("expected-size", "all"): 5696,
    ("most-parts", "all"): 5668,
}


@pytest.mark.parametrize(("name", "pool"), MMSTRAT_4X6)
def test_mmstrat_scoring(name: str, pool: str) -> None:
    strategy = make_strategy(name, scoring="mmstrat", pool=pool)
    tree = build_tree(strategy, Rules(4, 6))
    assert tree.stats.total == MMSTRAT_4X6[name, pool]
    assert tree.conventions["scoring"] == "mmstrat"
    same_tree(tree, build_tree(strategy, Rules(4, 6), compiled=False))


def test_mmstrat_minmax_compares_every_part() -> None:
    """Equal largest parts: the guess whose second largest part is smaller wins (the own part left out)."""
    rules = Rules(4, 6)
    space = CodeSpace.of(rules)
    strategy = make_strategy("worst-case", scoring="mmstrat")
    from keypeg.strategies.base import Position

    position = Position(space, (), space.all)
    guesses = space.all[:200]
    costs = strategy._costs(position, guesses)
    counts = space.partition(guesses, space.all)
    counts[:, space.win] = 0
    profiles = [sorted(row.tolist(), reverse=True) for row in counts]
    for i in range(0, 200, 7):
        for j in range(0, 200, 11):
            assert (costs[i] < costs[j]) == (profiles[i] < profiles[j])


@settings(max_examples=25, deadline=None)
@given(rules_st(max_pegs=4, max_colors=6), st.sampled_from(["entropy", "worst-case"]), conventions_st())
def test_mmstrat_scoring_kernel_is_the_python_path(rules: Rules, name: str, conventions: dict[str, object]) -> None:
    strategy = make_strategy(name, scoring="mmstrat", **conventions)
    same_tree(build_tree(strategy, rules), build_tree(strategy, rules, compiled=False))


def test_scoring_is_checked() -> None:
    from keypeg.errors import KeypegError

    with pytest.raises(KeypegError, match="scoring must be"):
        make_strategy("entropy", scoring="fancy")


@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_subtree_stops_the_tree(workers: int) -> None:
    """An error in a subtree grown on a thread is raised where the tree was asked for, and no thread
    takes another subtree."""
    from keypeg.errors import KeypegError

    taken: list[int] = []

    def run(row: int) -> object:
        taken.append(row)
        raise KeypegError(f"subtree {row} failed")

    with pytest.raises(KeypegError, match=r"subtree \d+ failed"):
        tree_module._side_by_side(run, list(range(50)), workers, lambda row: None)  # type: ignore[arg-type]
    assert len(taken) < 50


BLOCK_COSTS = {"largest-part": max, "sum-of-squares": lambda sizes: sum(k * k for k in sizes)}


@settings(max_examples=80, deadline=None)
@given(
    rules_st(max_pegs=5, max_colors=7),
    st.sampled_from(["largest-part", "sum-of-squares", "fewest-parts"]),
    st.data(),
    st.booleans(),
    st.booleans(),
    st.floats(-3.0, 3.0),
)
def test_a_block_of_guesses_is_scored_and_picked_as_one_at_a_time(
    rules: Rules, cost: str, data: st.DataObject, last: bool, prefer: bool, lift: float
) -> None:
    """The tree kernel's block of guesses: every cost as the plain partition gives it (with 8-bit
    counters below 256 codes, 16-bit from 256), and the winner a scan one guess at a time picks."""
    from keypeg.kernels import COSTS, _tree

    space = CodeSpace.of(rules)
    if not space.grows_trees or (cost == "fewest-parts" and (rules.pegs + 1) ** 2 > 64):
        return
    size = space.size
    count = min(size, data.draw(st.sampled_from([1, 2, 5, 40, 255, 256, 300, 1000])))
    codes = np.sort(np.random.default_rng(data.draw(st.integers(0, 2**32))).choice(size, count, replace=False))
    guesses = np.array(data.draw(st.lists(st.integers(0, size - 1), min_size=1, max_size=40)), dtype=np.int64)
    fits = data.draw(st.booleans())
    pos, cnt = space._words

    def plain(g: int) -> float:  # the reference: the part sizes from the partition
        sizes = [part.size for _, part in space.split(int(g), codes)]
        return -float(len(sizes)) if cost == "fewest-parts" else float(BLOCK_COSTS[cost](sizes))

    best_g = int(data.draw(st.sampled_from(codes.tolist())))
    best_fits = data.draw(st.booleans())
    best = plain(best_g) + data.draw(st.sampled_from([-1.0, 0.0, 1.0]))
    bound = best - data.draw(st.integers(0, 3))
    expected = (best, best_g, best_fits, False)
    for g in guesses.tolist():  # one at a time, in the order given
        score = plain(g) - lift
        tie = fits if prefer and fits != expected[2] else (g > expected[1] if last else g < expected[1])
        if score < expected[0] or (score == expected[0] and tie):
            expected = (score, g, fits, score <= bound)
            if score <= bound:
                break
    width = guesses.shape[0]
    words = np.stack([pos[guesses], cnt[guesses]])
    scratch = (
        np.empty(((rules.pegs + 1) * (rules.pegs + 2) // 8 + 1, width), dtype=np.uint64),
        np.empty(width, dtype=np.uint64),
        np.empty(width, dtype=np.float64),
    )
    exact = (
        np.zeros((rules.pegs + 1) ** 2, dtype=np.int64),
        np.empty(codes.size, dtype=np.int64),
        0.0,
        np.empty(size),
    )
    block = (guesses, words, pos[codes], cnt[codes], rules.pegs, COSTS[cost], np.zeros(1), bound, prefer, last)
    got = _tree._select_block((*block, scratch, exact), width, lift, fits, (best, best_g, best_fits))
    assert got == expected


@pytest.mark.parametrize("cost", ["largest-part", "sum-of-squares", "sum-n-log-n"])
def test_a_block_counts_parts_of_hundreds_of_codes(cost: str) -> None:
    """Parts of 256 codes and more (16-bit counters): the block's costs are the partition's (the
    sum of n log2 n to rounding: the kernel sums it again in the scan's order near the best)."""
    from keypeg.kernels import COSTS, _tree

    rules = Rules(5, 7)
    space = CodeSpace.of(rules)
    rng = np.random.default_rng(7)
    codes = np.sort(rng.choice(space.size, 3000, replace=False))
    guesses = np.concatenate([[0], rng.choice(space.size, 30, replace=False)]).astype(np.int64)  # 0: AAAAA
    pos, cnt = space._words
    width = guesses.shape[0]
    scratch = (
        np.empty(((rules.pegs + 1) * (rules.pegs + 2) // 8 + 1, width), dtype=np.uint64),
        np.empty(width, dtype=np.uint64),
        np.empty(width, dtype=np.float64),
    )
    values = np.arange(codes.size + 1) * np.log2(np.maximum(np.arange(codes.size + 1), 1))
    _tree._block_costs(pos[guesses], cnt[guesses], width, pos[codes], cnt[codes], 5, COSTS[cost], values, *scratch)
    sizes = [[part.size for _, part in space.split(int(g), codes)] for g in guesses]
    assert max(sizes[0]) > 1000
    if cost == "sum-n-log-n":
        assert scratch[2] == pytest.approx([sum(values[k] for k in s) for s in sizes], rel=1e-12)
    else:
        assert scratch[2].tolist() == [float(BLOCK_COSTS[cost](s)) for s in sizes]
