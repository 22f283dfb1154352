"""One way to rank guesses: every strategy's ``rank`` and the ``Choice`` it returns, the figures of a
split, and the one atomic write."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from keypeg import Feedback, Rules
from keypeg.analysis.tree import build_tree
from keypeg.errors import KeypegError
from keypeg.feedback import score, score_colors
from keypeg.kernels import CodeSpace
from keypeg.knowledge import Knowledge
from keypeg.storage import atomic_write, atomic_writer
from keypeg.strategies import STRATEGIES, Position, Strategy, make_strategy, split_figures
from keypeg.strategies.genetic import Genetic
from keypeg.strategies.lookahead import ENTROPY_TOLERANCE, PartitionStrategy
from keypeg.strategy_tree import Node
from reference import rules_codes

SMALL = [Rules(3, 4), Rules(4, 4, repeats=False), Rules(2, 3, blanks=True)]
COSTED = {  # strategies whose costs order the runners-up
    "worst-case",
    "expected-size",
    "entropy",
    "most-parts",
    "two-step",
    "optimal",
}


def fresh(name: str, rules: Rules) -> Strategy:
    return make_strategy(name, seed=11)  # ready to rank as made


# -- the choice is what the strategy plays ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        pytest.param(name, rules, id=f"{name}-{rules}", marks=[pytest.mark.slow] if name == "genetic" else [])
        for name in sorted(STRATEGIES)
        for rules in SMALL
    ],
)
def test_rank_plays_what_the_tree_plays(name: str, rules: Rules) -> None:
    """Replaying the tree's positions in the order build_tree met them (so seeded strategies draw
    the same numbers), rank chooses every node's guess."""
    tree = build_tree(make_strategy(name, seed=11), rules)
    strategy = fresh(name, rules)
    space = CodeSpace.of(rules)
    pegs = rules.pegs

    def walk(node: Node, history: tuple[tuple[int, int], ...], codes: np.ndarray) -> None:
        choice = strategy.rank(Position(space, history, codes))
        assert choice.guess == node.guess
        assert choice.index == space.index(node.guess)
        assert choice.fitting == codes.size == node.size
        feedbacks = space.feedbacks(choice.index, codes)
        for ordinal in np.unique(feedbacks).tolist():
            part = codes[feedbacks == ordinal]
            child = node.children.get(Feedback(*divmod(ordinal, pegs + 1)))
            if child is not None and (part.size > 1 or not strategy.plays_lone_code):  # careless asked anyway
                walk(child, (*history, (choice.index, ordinal)), part)

    walk(tree.root, (), space.all)


# -- the figures --------------------------------------------------------------------------------


def reference_figures(rules: Rules, history: list[tuple[str, str]], guess: tuple[int, ...]) -> dict[str, object]:
    """Parts, largest part, expected size, entropy, number of parts and fit, in plain Python."""
    scored = [(rules.parse(g).colors, tuple(int(x) for x in f.split(","))) for g, f in history]
    fitting = [c for c in rules_codes(rules) if all(score_colors(c, g) == f for g, f in scored)]
    parts = Counter(Feedback(*score_colors(secret, guess)) for secret in fitting)
    n = len(fitting)
    return {
        "parts": dict(parts),
        "largest": max(parts.values()),
        "expected_size": sum(k * k for k in parts.values()) / n,
        "entropy": -sum(k / n * math.log2(k / n) for k in parts.values()),
        "number_of_parts": len(parts),
        "fits": guess in fitting,
        "fitting": n,
    }


HISTORIES = {
    Rules(4, 6): [("AABB", "1,0")],
    Rules(3, 5): [("ABC", "0,1")],
    Rules(4, 5, repeats=False): [("ABCD", "2,1"), ("BCDE", "0,3")],
}


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("rules", list(HISTORIES), ids=str)
def test_figures_match_a_plain_python_recount(name: str, rules: Rules) -> None:
    history = HISTORIES[rules]
    knowledge = Knowledge.from_text(rules, [f"{g}={f}" for g, f in history])
    choice = fresh(name, rules).rank(Position.from_knowledge(knowledge), top=5)
    assert choice.strategy == name and choice.over == "fitting codes" and choice.measure
    assert choice.ranked[0].guess == choice.guess and choice.chosen is choice.ranked[0]
    assert len({r.guess for r in choice.ranked}) == len(choice.ranked) == min(5, max(knowledge.count, 1))
    for ranked in choice.ranked:
        expected = reference_figures(rules, history, ranked.guess.colors)
        assert choice.fitting == expected["fitting"]
        assert ranked.parts == expected["parts"]
        assert ranked.largest == expected["largest"]
        assert ranked.expected_size == pytest.approx(expected["expected_size"])
        assert ranked.entropy == pytest.approx(expected["entropy"])
        assert ranked.number_of_parts == expected["number_of_parts"]
        assert ranked.fits == expected["fits"]
        assert ranked.index == knowledge.space.index(ranked.guess)


@pytest.mark.parametrize("name", sorted(COSTED))
def test_runners_up_follow_the_strategy_costs(name: str) -> None:
    rules = Rules(4, 6)
    knowledge = Knowledge.from_text(rules, ["AABB=1,0"])
    strategy = fresh(name, rules)
    choice = strategy.rank(Position.from_knowledge(knowledge), top=12)
    costs = [r.cost for r in choice.ranked]
    assert all(c is not None for c in costs)
    keys = [(r.cost, not r.fits, r.index) for r in choice.ranked[1:]]
    assert keys == sorted(keys)  # least cost, then fitting guesses, then code order
    best = min(c for c in costs if c is not None)
    if isinstance(strategy, PartitionStrategy):  # the chosen guess has the least cost
        first = costs[0]
        assert first is not None and first <= best + ENTROPY_TOLERANCE * max(1.0, abs(best))
    for r in choice.ranked:  # the costs are those the strategies minimise, by their figures
        own = {
            "worst-case": r.largest,
            "expected-size": r.expected_size * choice.fitting,  # type: ignore[operator]
            "entropy": sum(n * math.log2(n) for n in r.parts.values()),
            "most-parts": -r.number_of_parts,
            "optimal": -r.number_of_parts,
        }.get(name)
        if own is not None:
            assert r.cost == pytest.approx(own)


def test_top_one_computes_no_runner_up(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = Rules(4, 6)
    position = Position.from_knowledge(Knowledge.from_text(rules, ["AABB=1,0"]))
    strategy = fresh("expected-size", rules)
    calls: list[int] = []
    partition = CodeSpace.partition

    def counted(self: CodeSpace, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        calls.append(len(guesses))
        return partition(self, guesses, secrets)

    def no_runners_up(*args: object) -> object:
        raise AssertionError("runners-up scored for top=1")

    monkeypatch.setattr(CodeSpace, "partition", counted)
    monkeypatch.setattr(strategy, "_runners_up", no_runners_up)
    choice = strategy.rank(position)
    assert calls == []  # deciding alone computes no figure
    assert len(choice.ranked) == 1 and choice.ranked[0].guess == choice.guess
    assert calls == [1]  # the chosen guess's split, once read
    assert choice.ranked[0].cost is not None


def test_rank_checks_top_and_an_impossible_position() -> None:
    rules = Rules(3, 4)
    with pytest.raises(KeypegError, match="top"):
        fresh("knuth", rules).rank(Knowledge(rules), top=0)
    wrong = Knowledge.from_text(rules, ["ABC=3,0"])
    wrong = Knowledge(rules, (*wrong.history, (rules.parse("ABD"), Feedback(3, 0))))
    with pytest.raises(KeypegError, match="no code fits"):
        fresh("knuth", rules).rank(Position.from_knowledge(wrong))


def test_next_guess_is_ranks_guess() -> None:
    rules = Rules(4, 6)
    knowledge = Knowledge.from_text(rules, ["AABB=1,0"])
    for name in ("simple", "worst-case", "two-step"):
        assert fresh(name, rules).next_guess(knowledge) == fresh(name, rules).rank(knowledge).guess


# -- the genetic codebreaker on games too large to enumerate -------------------------------------


def test_genetic_ranks_a_huge_game_over_its_eligible_set() -> None:
    rules = Rules(8, 12)
    strategy = Genetic(seed=3)
    opening = strategy.rank(Knowledge(rules), top=3)
    assert (opening.index, opening.fitting, opening.over) == (None, rules.size, "unavailable")
    assert len(opening.ranked) == 1 and opening.ranked[0].figures is None
    with pytest.raises(KeypegError, match="no figures"):
        _ = opening.ranked[0].largest
    secret = rules.parse("ABCDEFGH")
    knowledge = Knowledge(rules, ((opening.guess, score(secret, opening.guess)),))
    choice = strategy.rank(knowledge, top=4)
    assert (choice.index, choice.fitting, choice.over) == (None, None, "eligible set")
    assert choice.ranked[0].guess == choice.guess and len(choice.ranked) == 4
    eligible = sum(choice.ranked[0].parts.values())
    for r in choice.ranked:
        assert r.fits and sum(r.parts.values()) == eligible
        assert r.cost == -r.number_of_parts
    assert [r.cost for r in choice.ranked] == sorted(r.cost for r in choice.ranked)  # type: ignore[type-var]
    again = Genetic(seed=3)
    again.next_guess(Knowledge(rules))
    assert again.next_guess(knowledge) == choice.guess  # next_guess is rank's guess


# -- the optimal codebreaker ----------------------------------------------------------------------


def test_optimal_follows_the_shipped_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.strategies.optimal import load_optimal

    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))  # only the shipped trees
    rules = Rules(4, 6)
    tree = load_optimal(rules, "all")
    assert tree is not None
    strategy = fresh("optimal", rules)
    knowledge = Knowledge(rules)
    node: Node | None = tree.root
    secret = rules.parse("FEDC")
    while node is not None:
        choice = strategy.rank(knowledge, top=3)
        assert choice.guess == node.guess
        assert sum(choice.chosen.parts.values()) == knowledge.count == node.size
        assert "parts" in choice.measure
        feedback = score(secret, node.guess)
        if feedback == rules.win:
            break
        knowledge = knowledge.add(node.guess, feedback)
        node = node.children.get(feedback)


def test_optimal_solves_off_the_tree_and_shares_its_solver() -> None:
    from keypeg.strategies.optimal import OptimalSolver, optimal_solver

    rules = Rules(3, 4)
    assert optimal_solver(rules, "all") is optimal_solver(rules, "all")
    knowledge = Knowledge.from_text(rules, ["AAA=0,0", "BBB=1,0"])  # no shipped tree for 3x4
    choice = fresh("optimal", rules).rank(knowledge, top=2)
    _, guess = OptimalSolver(rules).value(knowledge.candidates, knowledge.indexed, rules.rows - 2)
    assert choice.index == guess


# -- the figures function -----------------------------------------------------------------------------


def test_split_figures() -> None:
    f = split_figures({Feedback(1, 0): 3, Feedback(0, 0): 1, Feedback(2, 0): 0})
    assert list(f.parts) == [Feedback(0, 0), Feedback(1, 0)]  # zeros left out, in feedback order
    assert (f.largest, f.number_of_parts, f.size) == (3, 2, 4)
    assert f.expected_size == pytest.approx((9 + 1) / 4)
    assert f.entropy == pytest.approx(-(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25)))
    one = split_figures({Feedback(4, 0): 1})
    assert (one.largest, one.expected_size, one.entropy, one.number_of_parts) == (1, 1.0, 0.0, 1)
    assert split_figures({}).number_of_parts == 0


# -- the one atomic write -----------------------------------------------------------------------------


def test_atomic_write_writes_and_replaces(tmp_path: Path) -> None:
    path = tmp_path / "tree.json"
    atomic_write(path, "first")
    atomic_write(path, b"second \xe2\x9c\x93")
    assert path.read_text(encoding="utf-8") == "second \u2713"
    assert [p.name for p in tmp_path.iterdir()] == ["tree.json"]


def test_atomic_write_into_a_directory_fails_cleanly(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    with pytest.raises(KeypegError, match="cannot write"):
        atomic_write(target, "data")
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]
    assert list(target.iterdir()) == []


def test_atomic_write_where_no_folder_is(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(KeypegError, match="cannot write"):
        atomic_write(tmp_path / "file" / "inside.json", "data")
    with pytest.raises(KeypegError, match="cannot write"):
        atomic_write(tmp_path / "missing" / "inside.json", "data")
    assert [p.name for p in tmp_path.iterdir()] == ["file"]


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "kept.txt"
    path.write_text("old")

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", fail)
    with pytest.raises(KeypegError, match="No space left"):
        atomic_write(path, "new")
    monkeypatch.undo()
    with pytest.raises(RuntimeError), atomic_writer(path) as handle:
        handle.write(b"half")
        raise RuntimeError("stopped midway")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]


def test_optimal_goes_on_after_ctrl_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C stops the shared solver mid-search; the next rank asks the same solver, which goes on."""
    import signal

    import keypeg.strategies.optimal as optimal_module

    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    monkeypatch.setattr(optimal_module, "POLL_SECONDS", 0.002)
    rules = Rules(5, 4)
    optimal_module.optimal_solver.cache_clear()  # a solver of its own, not one another test left
    solver = optimal_module.optimal_solver(rules, "all")

    def interrupt(progress: optimal_module.SearchProgress) -> None:
        if progress.nodes >= 1000:
            signal.raise_signal(signal.SIGINT)

    solver.progress = interrupt
    strategy = fresh("optimal", rules)
    with pytest.raises(KeyboardInterrupt):
        strategy.rank(Knowledge(rules))
    assert solver.nodes > 0
    solver.progress = None
    choice = strategy.rank(Knowledge(rules))
    assert optimal_module.optimal_solver(rules, "all") is solver
    assert choice.index == optimal_module.OptimalSolver(rules).value(CodeSpace.of(rules).all, (), rules.rows)[1]
