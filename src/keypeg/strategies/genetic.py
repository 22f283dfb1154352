"""The genetic codebreaker of Berghman, Goossens and Leus (2009), for games too large to enumerate.

Each turn a population evolves by crossover, mutation, permutation and inversion;
fitness is how far a code is from fitting the scored guesses (``a`` times the
black-peg differences plus the white-peg differences). Codes that fit are
collected into the eligible set until it holds ``eligible`` codes or
``generations`` have passed; the eligible code that splits the others into the
most parts is played. When the population turns up fewer fitting codes than that
(late in a game, when few codes fit), the constraint solver tops the set up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.kernels import Scorer
from keypeg.knowledge import Knowledge
from keypeg.rules import Rules
from keypeg.strategies.base import Pool, Position, Rated, Strategy
from keypeg.strategies.choice import Choice, Ranked, row_parts, split_figures

__all__ = ["Genetic", "GeneticParams", "first_guess"]


@dataclass(frozen=True)
class GeneticParams:
    """The algorithm's parameters, defaulting to the paper's."""

    population: int = 150
    generations: int = 100
    eligible: int = 60
    one_point: float = 0.5
    """Chance of one-point crossover (else two-point)."""
    mutation: float = 0.03
    permutation: float = 0.03
    inversion: float = 0.02
    black_weight: int = 1
    """``a`` in the paper's fitness."""

    def __post_init__(self) -> None:
        if self.population < 2 or self.generations < 1 or self.eligible < 1:
            raise KeypegError(f"genetic parameters out of range: {self}")
        for name in ("one_point", "mutation", "permutation", "inversion"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise KeypegError(f"{name} must be a probability, got {getattr(self, name)!r}")


def first_guess(rules: Rules) -> Code:
    """An opening like Knuth's and Kooi's: a pair, then new colours (AABC, AABCD, ...)."""
    colors = [0, 0, *range(1, rules.pegs - 1)] if rules.repeats else list(range(rules.pegs))
    return rules.code([c % rules.num_colors for c in colors][: rules.pegs])


class Genetic(Strategy):
    """Berghman, Goossens and Leus (2009); seeded runs repeat exactly."""

    name = "genetic"
    about = "evolves codes that fit the scores and plays the one that best splits them (Berghman et al. 2009)"
    measure = "minus the parts it splits its eligible set into (ties: smaller sum of squares, found first)"
    default_pool: ClassVar[Pool] = "consistent"

    def __init__(self, *, params: GeneticParams | None = None, **options: object) -> None:
        if options.get("pool") == "all":
            raise KeypegError(
                "the genetic codebreaker guesses only codes that fit: a pool of all codes does not apply to it"
            )
        super().__init__(**options)  # type: ignore[arg-type]
        self.params = params or GeneticParams()
        self.last_source = "genetic"

    # -- deciding ------------------------------------------------------------------------------------

    def rank(self, position: Position | Knowledge, *, top: int = 1) -> Choice:
        """The guess from a :class:`Position` (figures over the fitting codes; runners-up from the
        eligible set), or from a :class:`Knowledge` of any size, nothing enumerated (figures over the
        eligible set; index and count of fitting codes unknown)."""
        if top < 1:
            raise KeypegError(f"top must be 1 or more, not {top!r}")
        if isinstance(position, Knowledge):
            return self._rank_unenumerated(position, top)
        if position.depth == 0 or position.candidates.size <= 2:
            return super().rank(position, top=top)
        ranking = self._ranking(position, top)
        return self._choice(position, ranking[0][0], top, lambda n: ranking[: n + 1])

    def _choose(self, position: Position) -> int:
        if position.depth == 0 and self.first is None and position.candidates.size:
            return position.space.index(first_guess(position.space.rules))
        return super()._choose(position)

    def _decide(self, position: Position) -> int:
        return self._ranking(position, 1)[0][0]

    def _ranking(self, position: Position, top: int) -> Rated:
        """The ``top`` best of a new eligible set after ``position``, with minus the parts each makes of the set."""
        space = position.space
        history = [(space.code(g), _feedback(o, space.pegs)) for g, o in position.history]
        eligible = self._eligible(space.rules, history)
        order, counts = self._split_ranking(space.rules, eligible, self._tie_keys(len(eligible)))
        indices = space.indices([space.rules.code(eligible[int(k)]) for k in order[:top]])
        parts = (counts[order[:top]] > 0).sum(axis=1)
        return [(int(i), -float(n)) for i, n in zip(indices.tolist(), parts.tolist(), strict=True)]

    def _rank_unenumerated(self, knowledge: Knowledge, top: int) -> Choice:
        """The choice after ``knowledge`` without enumerating the codes (any size of game)."""
        rules = knowledge.rules
        if not knowledge.history:
            guess = self.first if self.first is not None else first_guess(rules)
            alone = (Ranked(guess, None, True, None, None),)
            return Choice(guess, None, rules.size, self.name, self.measure, "unavailable", lambda: alone)
        eligible = self._eligible(rules, list(knowledge.history))
        order, counts = self._split_ranking(rules, eligible, self._tie_keys(len(eligible)))
        chosen = order[:top]

        def ranked() -> tuple[Ranked, ...]:
            return tuple(
                Ranked(
                    rules.code(eligible[int(k)]),
                    None,
                    True,
                    -float(np.count_nonzero(counts[k])),
                    split_figures(row_parts(counts[k], rules.pegs)),
                )
                for k in chosen
            )

        guess = rules.code(eligible[int(chosen[0])])
        return Choice(guess, None, None, self.name, self.measure, "eligible set", ranked)

    # -- the algorithm -------------------------------------------------------------------------------

    def _eligible(self, rules: Rules, history: Sequence[tuple[Code, Feedback]]) -> list[tuple[int, ...]]:
        """Evolve and collect the eligible set; when the population finds too few fitting codes, the
        constraint solver tops the set up (or fills it, when it found none)."""
        eligible = self.evolve(rules, history)
        self.last_source = "genetic"
        if len(eligible) < self.params.eligible:
            from keypeg.consistency import check

            result = check(rules, history, limit=self.params.eligible)
            if not result.consistent:
                raise KeypegError("no code fits the scores given: at least one of them is wrong")
            played = {g.colors for g, _ in history}
            extra = [c.colors for c in result.codes if c.colors not in played and c.colors not in eligible]
            eligible += extra[: self.params.eligible - len(eligible)]
            if extra:
                self.last_source = "constraint solver" if len(eligible) == len(extra) else "genetic + constraint solver"
        return eligible

    def evolve(self, rules: Rules, history: Sequence[tuple[Code, Feedback]]) -> list[tuple[int, ...]]:
        """The eligible set: distinct fitting codes found over the generations, never one already played."""
        p = self.params
        played = {g.colors for g, _ in history}
        scorer = Scorer.of(rules)
        guesses = scorer.encode(np.array([g.colors for g, _ in history], dtype=np.int8))
        blacks = np.array([f.black for _, f in history], dtype=np.int64)
        whites = np.array([f.white for _, f in history], dtype=np.int64)
        population = self._random_codes(rules, p.population)
        eligible: dict[tuple[int, ...], None] = {}
        for _ in range(p.generations):
            fitness = scorer.distance(scorer.encode(population), guesses, blacks, whites, p.black_weight)
            for row in population[fitness == 0]:
                code = tuple(int(c) for c in row)
                if code not in played:
                    eligible.setdefault(code)
            if len(eligible) >= p.eligible:
                break
            population = self._next_generation(rules, population, fitness)
        return list(eligible)[: p.eligible]

    def _random_codes(self, rules: Rules, n: int) -> npt.NDArray[np.int8]:
        if rules.repeats:
            codes = self.rng.integers(0, rules.num_colors, size=(n, rules.pegs)).astype(np.int8)
        else:
            codes = np.argsort(self.rng.random((n, rules.num_colors)), axis=1)[:, : rules.pegs].astype(np.int8)
        return _canonical(rules, codes)

    def _next_generation(
        self, rules: Rules, population: npt.NDArray[np.int8], fitness: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.int8]:
        p, rng = self.params, self.rng
        n, pegs = population.shape
        order = np.argsort(fitness, kind="stable")
        parents = population[order[: max(2, n // 2)]]
        first = parents[rng.integers(0, len(parents), n)]
        second = parents[rng.integers(0, len(parents), n)]
        cut1 = rng.integers(1, pegs, n) if pegs > 1 else np.zeros(n, dtype=np.int64)
        cut2 = np.where(rng.random(n) < p.one_point, pegs, rng.integers(1, pegs + 1, n))
        lo, hi = np.minimum(cut1, cut2), np.maximum(cut1, cut2)
        columns = np.arange(pegs)
        take_second = (columns >= lo[:, None]) & (columns < hi[:, None])
        children = np.where(take_second, second, first).astype(np.int8)
        rows = np.arange(n)
        mutate = np.nonzero(np.asarray(rng.random(n) < p.mutation))[0]
        children[rows[mutate], rng.integers(0, pegs, mutate.size)] = rng.integers(
            0, rules.num_colors, mutate.size
        ).astype(np.int8)
        swap = np.nonzero(np.asarray(rng.random(n) < p.permutation))[0]
        if swap.size and pegs > 1:
            i, j = rng.integers(0, pegs, swap.size), rng.integers(0, pegs, swap.size)
            children[swap, i], children[swap, j] = children[swap, j], children[swap, i].copy()
        for row in np.nonzero(np.asarray(rng.random(n) < p.inversion))[0]:
            i, j = sorted(rng.integers(0, pegs, 2))
            children[row, i : j + 1] = children[row, i : j + 1][::-1]
        if not rules.repeats:
            children = self._repair(rules, children)
        return self._replace_duplicates(rules, _canonical(rules, children))

    def _repair(self, rules: Rules, children: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
        """Without repeats, replace each repeated colour by an unused one."""
        for row in children:
            seen: set[int] = set()
            for k, color in enumerate(row.tolist()):
                if color in seen:
                    unused = [c for c in range(rules.num_colors) if c not in seen and c not in row]
                    row[k] = self.rng.choice(unused)
                seen.add(int(row[k]))
        return children

    def _replace_duplicates(self, rules: Rules, children: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
        """Children identical to another are replaced by random codes (the paper's rule)."""
        _, first = np.unique(children, axis=0, return_index=True)
        duplicate = np.ones(len(children), dtype=bool)
        duplicate[first] = False
        if duplicate.any():
            children[duplicate] = self._random_codes(rules, int(duplicate.sum()))
        return children

    def _tie_keys(self, n: int) -> npt.NDArray[np.int64]:
        """The order among equally good eligible codes: the first found, the last, or a random one (seeded)."""
        if self.tie == "last":
            return np.arange(n, 0, -1, dtype=np.int64)
        if self.tie == "random":
            return self.rng.permutation(n).astype(np.int64)
        return np.arange(n, dtype=np.int64)

    @staticmethod
    def _split_ranking(
        rules: Rules, eligible: list[tuple[int, ...]], ties: npt.NDArray[np.int64] | None = None
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
        """The eligible codes best first (most parts of the eligible set, then the smallest sum of
        squared parts, then ``ties``: by default the first found), and each one's partition counts of the set."""
        codes = np.array(eligible, dtype=np.int8)
        scorer = Scorer.of(rules)
        encoded = scorer.encode(codes)
        counts = scorer.partition(encoded, encoded).astype(np.int64)
        parts = (counts > 0).sum(axis=1)
        squares = (counts * counts).sum(axis=1)
        keys = np.arange(len(eligible)) if ties is None else ties
        order: npt.NDArray[np.intp] = np.lexsort((keys, squares, -parts))
        return order, counts

    @staticmethod
    def best_split(rules: Rules, eligible: list[tuple[int, ...]]) -> tuple[int, ...]:
        """The eligible code that splits the eligible set into the most parts (then the smallest
        sum of squared parts, then the first found)."""
        order, _ = Genetic._split_ranking(rules, eligible)
        return eligible[int(order[0])]


def _canonical(rules: Rules, codes: npt.NDArray[np.int8]) -> npt.NDArray[np.int8]:
    """``codes`` as codes of ``rules``: sorted in place under the ``colours`` feedback (a code is its colours)."""
    if not rules.ordered:
        codes.sort(axis=1)
    return codes


def _feedback(ordinal: int, pegs: int) -> Feedback:
    black, white = divmod(int(ordinal), pegs + 1)
    return Feedback(black, white)
