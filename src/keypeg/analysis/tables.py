"""The tables of Kooi's paper (2005), for any rule set.

For each class of first guesses (one guess per class, e.g. AAAA AAAB AABB AABC
ABCD for 4 pegs): the partition of all codes by feedback (Table 2), the largest
part (3), the expected size of the part (4), the entropy in bits (5), the number
of parts (6), the kinds of partition (part sizes) second guesses make of the codes
left after a given answer (11), and the most parts a second guess makes of each
part (12).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from keypeg.code import Code, Feedback
from keypeg.kernels import CodeSpace, Index, feedback_ordinal, ordinal_feedback
from keypeg.rules import Rules
from keypeg.strategies.choice import row_parts, split_figures
from keypeg.symmetry import representatives

__all__ = ["FirstGuess", "first_guess_classes", "first_guess_table", "distinct_partitions", "most_parts_of"]


@dataclass(frozen=True)
class FirstGuess:
    """One first-guess class and the figures of Kooi's tables for it."""

    guess: Code
    partition: dict[Feedback, int]
    """Table 2: codes per feedback (every possible feedback, zero included)."""
    largest: int
    """Table 3: the largest part."""
    expected_size: float
    """Table 4: the expected size of the part the answer leaves (sum of squares over codes)."""
    entropy: float
    """Table 5: entropy of the partition, in bits."""
    parts: int
    """Table 6: number of parts (possible answers)."""
    partitions_after: int | None = None
    """Table 11: kinds of partition (part sizes) second guesses make after ``answer`` (None if not asked)."""
    second_round: dict[Feedback, int] | None = None
    """Table 12: per answer, the most parts one second guess splits its part into."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        data: dict[str, Any] = {
            "guess": str(self.guess),
            "partition": {self.guess.rules.key(f): n for f, n in self.partition.items()},
            "largest": self.largest,
            "expected_size": round(self.expected_size, 6),
            "entropy": round(self.entropy, 6),
            "parts": self.parts,
        }
        if self.partitions_after is not None:
            data["partitions_after"] = self.partitions_after
        if self.second_round is not None:
            data["second_round"] = {self.guess.rules.key(f): n for f, n in self.second_round.items()}
            data["second_round_total"] = sum(self.second_round.values())
        return data


def first_guess_classes(rules: Rules) -> list[Code]:
    """One first guess per symmetry class, the smallest of each (AAAA, AAAB, AABB, AABC, ABCD for 4x6)."""
    space = CodeSpace.of(rules)
    return [space.code(int(i)) for i in representatives(space, space.all, (), space.all)]


def distinct_partitions(space: CodeSpace, codes: Index) -> int:
    """How many kinds of partition of ``codes`` the guesses make, a kind being the part sizes
    regardless of order (Kooi's Table 11: 34 after AABB answered 1,0 on 4x6)."""
    counts = space.partition(space.all, codes)
    counts.sort(axis=1)
    return int(np.unique(counts, axis=0).shape[0])


def most_parts_of(space: CodeSpace, codes: Index) -> int:
    """The most parts any one guess splits ``codes`` into."""
    if codes.size <= 1:
        return int(codes.size)
    return int(-space.partition_costs(space.all, codes, "fewest-parts").min())


def first_guess_table(
    rules: Rules,
    *,
    answer: Feedback | None = None,
    second_round: bool = False,
    progress: Callable[[int], None] | None = None,
) -> list[FirstGuess]:
    """Kooi's tables 2-6 for every first-guess class; 11 when ``answer`` is given; 12 with ``second_round``.

    ``progress`` is called with 1 after each class.
    """
    space = CodeSpace.of(rules)
    guesses = first_guess_classes(rules)
    counts = space.partition(space.indices(guesses), space.all)
    feedbacks = rules.feedbacks()
    rows = []
    for guess, row in zip(guesses, counts, strict=True):
        split = split_figures(row_parts(row, rules.pegs))
        partition = {f: int(row[feedback_ordinal(f, rules.pegs)]) for f in feedbacks}
        after = None
        if answer is not None:
            part = _part(space, guess, answer)
            after = distinct_partitions(space, part)
        second = None
        if second_round:
            answers = [ordinal_feedback(int(o), rules.pegs) for o in np.nonzero(row)[0]]
            second = {a: most_parts_of(space, _part(space, guess, a)) for a in answers}
        rows.append(
            FirstGuess(
                guess=guess,
                partition=partition,
                largest=split.largest,
                expected_size=split.expected_size,
                entropy=split.entropy,
                parts=split.number_of_parts,
                partitions_after=after,
                second_round=second,
            )
        )
        if progress is not None:
            progress(1)
    return rows


def _part(space: CodeSpace, guess: Code, answer: Feedback) -> Index:
    index = space.index(guess)
    part: Index = space.all[space.feedbacks(index) == feedback_ordinal(answer, space.pegs)]
    return part
