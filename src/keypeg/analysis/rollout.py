"""A strategy better than any one heuristic: a rollout (pilot method) over the heuristics' whole trees.

At each node of the first ``depth`` levels, the node's guess is chosen among a few candidates (the
``width`` best guesses of each heuristic's own measure, one per symmetry class, and each heuristic's own
choice) by what follows it: for each candidate, every part it leaves is finished by the best of the
heuristics' whole subtrees (grown by the tree kernel), and the candidate whose parts then cost the
fewest guesses in all wins. Deeper nodes follow the best heuristic subtree of their part. Since each
heuristic's own guess is among the candidates, the result never needs more guesses in all than the best
heuristic alone (a rollout improves on its base policy).

Optionally (``exact_below``), every node of a finished subtree with at most that many codes whose
guesses in all exceed the counting bound is searched exactly (:class:`~keypeg.strategies.optimal.OptimalSolver`,
within the subtree's own total as a budget) and replaced when the search finds better.

The decisions made are kept in a checkpoint file (JSON, one entry a node, written after each decision),
so an interrupted run resumes where it stopped and ends with the same tree.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, FlatSubtree, Index, TreeRule, ordinal_feedback
from keypeg.rules import Rules
from keypeg.storage import atomic_write
from keypeg.strategies import make_strategy
from keypeg.strategies.optimal import lower_bounds
from keypeg.strategy_tree import Node, StrategyTree, TreeStats
from keypeg.symmetry import representatives

__all__ = ["RolloutPlan", "RolloutResult", "rollout_tree", "heuristic_totals", "HEURISTICS"]

HEURISTICS = ("entropy", "expected-size", "most-parts", "worst-case")
"""The one-step heuristics whose whole trees the rollout compares (each grown by the tree kernel)."""
MAX_DEPTH = 64
"""A subtree still guessing this deep is making no progress."""
History = tuple[tuple[int, int], ...]
Progress = Callable[[str], None]


@dataclass(frozen=True)
class RolloutPlan:
    """What the rollout does: the heuristics it compares, how many levels choose by rollout (``depth``),
    how many candidates per heuristic a node tries (``width``), nodes of at most ``smallest`` codes
    left to the heuristics, and finished nodes of at most ``exact_below`` codes searched exactly (0: none)."""

    heuristics: tuple[str, ...] = HEURISTICS
    depth: int = 2
    width: int = 4
    smallest: int = 8
    exact_below: int = 0

    def as_dict(self) -> dict[str, Any]:
        """The plan as the tree's conventions name it."""
        return {
            "heuristics": list(self.heuristics),
            "depth": self.depth,
            "width": self.width,
            "smallest": self.smallest,
            "exact_below": self.exact_below,
        }


@dataclass
class RolloutResult:
    """The tree, the best single heuristic's total for comparison, and what the run cost."""

    tree: StrategyTree
    baseline: dict[str, int]
    """Each heuristic's own whole-tree total (its own first guess: the strategy's choice)."""
    cpu_seconds: float
    subtrees: int
    """Heuristic subtrees grown to weigh the candidates."""
    exact_improved: int = 0
    """Guesses saved by the exact searches of small nodes."""
    decisions: dict[str, Any] = field(default_factory=dict)


def _choosing(plan: dict[str, Any]) -> dict[str, Any]:
    """What a node's decision depends on: not the depth (a deeper plan reuses a shallower one's
    decisions) nor the exact searches made afterwards."""
    return {k: v for k, v in plan.items() if k not in ("depth", "exact_below")}


def _key(history: History) -> str:
    return " ".join(f"{g}:{f}" for g, f in history) or "root"


class _Grower:
    """The heuristics' whole subtrees of a part, grown by the tree kernel."""

    def __init__(self, rules: Rules, names: Sequence[str]) -> None:
        self.space = CodeSpace.of(rules)
        if not self.space.grows_trees:
            raise KeypegError(f"the tree kernel does not take the codes of {rules.describe()}")
        self.rules_of: list[tuple[str, TreeRule]] = []
        for name in names:
            rule = make_strategy(name).tree_rule(rules)
            if rule is None:
                raise KeypegError(f"strategy {name!r} has no tree rule: the rollout compares one-step heuristics")
            self.rules_of.append((name, rule))
        self.grown = 0

    def best(self, history: History, part: Index) -> tuple[int, FlatSubtree | None]:
        """The fewest guesses in all any heuristic's subtree needs for ``part`` after ``history``, and that
        subtree (``None`` for a part of one or two codes, guessed in order)."""
        if part.size <= 2:
            return (1 if part.size == 1 else 3), None
        played = [g for g, _ in history]
        best: tuple[int, FlatSubtree | None] = (1 << 62, None)
        for _, rule in self.rules_of:
            sub = self.space.grow(rule, played, part, depth=MAX_DEPTH, max_depth=MAX_DEPTH)
            self.grown += 1
            if sub is None:
                continue
            total = int(sub.sizes.sum())
            if total < best[0]:
                best = (total, sub)
        if best[1] is None:
            raise KeypegError("no heuristic makes progress on a part")
        return best


def heuristic_totals(rules: Rules, names: Sequence[str] = HEURISTICS) -> dict[str, int]:
    """Each heuristic's whole-tree total on ``rules`` from the empty board (the kernel's own first guess)."""
    grower = _Grower(rules, names)
    space = grower.space
    totals = {}
    for name, rule in grower.rules_of:
        sub = space.grow(rule, [], space.all, depth=MAX_DEPTH, max_depth=MAX_DEPTH)
        totals[name] = int(sub.sizes.sum()) if sub is not None else -1
    return totals


class _Rollout:
    def __init__(
        self, rules: Rules, plan: RolloutPlan, checkpoint: Path | None, threads: int, progress: Progress | None
    ) -> None:
        self.rules = rules
        self.plan = plan
        self.grower = _Grower(rules, plan.heuristics)
        self.space = self.grower.space
        self.checkpoint = checkpoint
        self.threads = max(1, threads)
        self.progress = progress
        self.decisions: dict[str, Any] = {}
        self.exact_until = float("inf")
        """The process time past which no new exact search starts."""
        self.counting = lower_bounds(self.space.size, len(rules.feedbacks()) - 1, None)
        if checkpoint is not None and checkpoint.is_file():
            saved = json.loads(checkpoint.read_text())
            if saved.get("rules") != rules.as_dict() or _choosing(saved.get("plan", {})) != _choosing(plan.as_dict()):
                raise KeypegError(f"{checkpoint} is the checkpoint of another game or plan; delete it to start afresh")
            self.decisions = saved["decisions"]

    def _save(self) -> None:
        if self.checkpoint is not None:
            data = {"rules": self.rules.as_dict(), "plan": self.plan.as_dict(), "decisions": self.decisions}
            atomic_write(self.checkpoint, json.dumps(data))

    def candidates(self, history: History, part: Index) -> list[int]:
        """The guesses worth weighing at a node: each heuristic's ``width`` best, one per symmetry class."""
        space = self.space
        pool = representatives(space, space.all, history, part)
        fits = np.isin(pool, part)
        chosen: list[int] = []
        for name, _ in self.grower.rules_of:
            cost = {"entropy": "sum-n-log-n", "expected-size": "sum-of-squares", "most-parts": "fewest-parts"}.get(
                name, "largest-part"
            )
            costs = space.partition_costs(pool, part, cost)
            order = np.lexsort((pool, ~fits, costs))
            for i in order[: self.plan.width].tolist():
                if int(pool[i]) not in chosen:
                    chosen.append(int(pool[i]))
        return chosen

    def weigh(self, history: History, part: Index, guess: int) -> int:
        """Guesses in all for ``part`` when ``guess`` is played and each part it leaves is finished by the
        best heuristic subtree."""
        total = int(part.size)
        for ordinal, sub in self.space.split(guess, part, keep_win=False):
            total += self.grower.best((*history, (guess, ordinal)), sub)[0]
        return total

    def decide(self, history: History, part: Index, level: int) -> int:
        """The node's guess: kept from the checkpoint, or the candidate of fewest guesses in all."""
        key = _key(history)
        if key in self.decisions:
            return int(self.decisions[key]["guess"])
        started = time.process_time()
        own = [int(s.guesses[0]) for s in self._own_subtrees(history, part)]
        options = list(dict.fromkeys(own + self.candidates(history, part)))
        with ThreadPoolExecutor(self.threads) as pool:
            totals = list(pool.map(lambda g: self.weigh(history, part, g), options))
        best = min(range(len(options)), key=lambda i: (totals[i], i))
        self.decisions[key] = {
            "guess": options[best],
            "total": totals[best],
            "tried": len(options),
            "heuristic": min(totals[: len(own)]),
            "codes": int(part.size),
            "cpu": round(time.process_time() - started, 3),
        }
        self._save()
        if self.progress is not None:
            d = self.decisions[key]
            self.progress(
                f"level {level + 1}, {part.size:,} codes: {self.space.code(options[best])} "
                f"{d['total']:,} (heuristic {d['heuristic']:,}, {len(options)} tried)"
            )
        return options[best]

    def _own_subtrees(self, history: History, part: Index) -> list[FlatSubtree]:
        played = [g for g, _ in history]
        found = []
        for _, rule in self.grower.rules_of:
            sub = self.space.grow(rule, played, part, depth=1, max_depth=MAX_DEPTH)
            if sub is not None:
                found.append(sub)
        return found

    def improve(self, node: Node, history: History, part: Index, solver: Any) -> int:
        """Search exactly, top down, each subtree of at most ``exact_below`` codes whose guesses in all exceed
        the counting bound, within its own total: a better one found replaces it, and either way the
        subtree is done (none of its own subtrees can do better when it cannot). Returns the guesses
        saved; each search's answer is kept in the checkpoint."""
        from keypeg.strategies.optimal import BIG

        space = self.space
        if 2 < node.size <= self.plan.exact_below:
            current = _total(node)
            if current > int(self.counting[node.size]):
                key = "exact " + _key(history)
                if key not in self.decisions and time.process_time() > self.exact_until:
                    return 0  # out of the exact searches' time: left to a rerun, which resumes here
                if key not in self.decisions:
                    started = time.process_time()
                    rounds = self.rules.rows - len(history)
                    value, _ = solver.value(part, history, rounds, current)
                    rows = solver._walk(part, history, rounds) if value < min(current, BIG) else []
                    cpu = round(time.process_time() - started, 3)
                    self.decisions[key] = {
                        "codes": int(part.size),
                        "was": current,
                        "value": value,
                        "rows": rows,
                        "cpu": cpu,
                    }
                    self._save()
                    if self.progress is not None and rows:
                        self.progress(f"exact, {part.size:,} codes: {current:,} -> {value:,}")
                found = self.decisions[key]
                if found["rows"]:
                    better = _rows_to_node(space, found["rows"])
                    node.guess, node.children = better.guess, better.children
                    return current - _total(node)
            return 0
        saved = 0
        guess = space.index(node.guess)
        for ordinal, sub in space.split(guess, part, keep_win=False):
            child = node.children[ordinal_feedback(ordinal, space.pegs)]
            saved += self.improve(child, (*history, (guess, ordinal)), sub, solver)
        return saved

    def build(self, history: History, part: Index, level: int) -> Node:
        """The subtree for ``part``: rollout decisions down to the plan's depth, then heuristic subtrees."""
        space = self.space
        if part.size <= 2:
            return _small_node(space, part)
        if level >= self.plan.depth or part.size <= self.plan.smallest:
            _, sub = self.grower.best(history, part)
            assert sub is not None
            return _nodes(space, sub)
        guess = self.decide(history, part, level)
        node = Node(space.code(guess), int(part.size))
        for ordinal, sub_part in space.split(guess, part, keep_win=False):
            child = self.build((*history, (guess, ordinal)), sub_part, level + 1)
            node.children[ordinal_feedback(ordinal, space.pegs)] = child
        return node


def _small_node(space: CodeSpace, part: Index) -> Node:
    """One or two codes: guess the first, then the other."""
    node = Node(space.code(int(part[0])), int(part.size))
    if part.size == 2:
        ordinal = int(space.feedbacks(int(part[0]), part[1:])[0])
        node.children[ordinal_feedback(ordinal, space.pegs)] = Node(space.code(int(part[1])), 1)
    return node


def _nodes(space: CodeSpace, sub: FlatSubtree) -> Node:
    """A kernel's subtree as :class:`Node` objects."""
    made = [Node(space.code(int(g)), int(n)) for g, n in zip(sub.guesses.tolist(), sub.sizes.tolist(), strict=True)]
    for row, (parent, ordinal) in enumerate(zip(sub.parents.tolist(), sub.feedbacks.tolist(), strict=True)):
        if parent >= 0:
            made[parent].children[ordinal_feedback(ordinal, space.pegs)] = made[row]
    return made[0]


def _total(node: Node) -> int:
    """Guesses in all of a subtree: every code that reaches a node makes its guess."""
    return node.size + sum(_total(child) for child in node.children.values())


def _distribution(node: Node, depth: int, into: dict[int, int]) -> None:
    solved_here = node.size - sum(child.size for child in node.children.values())
    if solved_here:
        into[depth] = into.get(depth, 0) + solved_here
    for child in node.children.values():
        _distribution(child, depth + 1, into)


def _rows_to_node(space: CodeSpace, rows: list[list[int]]) -> Node:
    made: list[Node] = []
    for parent, ordinal, guess, size in rows:
        node = Node(space.code(guess), size)
        if parent >= 0:
            made[parent].children[ordinal_feedback(ordinal, space.pegs)] = node
        made.append(node)
    return made[0]


def rollout_tree(
    rules: Rules,
    plan: RolloutPlan = RolloutPlan(),
    *,
    checkpoint: Path | None = None,
    threads: int = 1,
    progress: Progress | None = None,
    exact_seconds: float | None = None,
) -> RolloutResult:
    """The rollout strategy's whole tree for ``rules`` (see the module's documentation); decisions are
    kept in ``checkpoint`` as they are made, and read back from it on a rerun. No exact search starts
    after ``exact_seconds`` CPU seconds of them (the searches not made are a rerun's)."""
    started = time.process_time()
    run = _Rollout(rules, plan, checkpoint, threads, progress)
    root = run.build((), run.space.all, 0)
    improved = 0
    if plan.exact_below > 2:
        from keypeg.strategies.optimal import OptimalSolver

        if exact_seconds is not None:
            run.exact_until = time.process_time() + exact_seconds
        improved = run.improve(root, (), run.space.all, OptimalSolver(rules, threads=1))
    distribution: dict[int, int] = {}
    _distribution(root, 1, distribution)
    stats = TreeStats.from_distribution(distribution)
    conventions = {"strategy": "rollout", "pool": "all", **plan.as_dict()}
    tree = StrategyTree(rules, root, conventions, stats, 0.0)
    baseline = heuristic_totals(rules, plan.heuristics)
    return RolloutResult(tree, baseline, time.process_time() - started, run.grower.grown, improved, run.decisions)
