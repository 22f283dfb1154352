"""What a strategy decides: the guess it plays and the ranked guesses with the figures behind them.

The figures of a split (largest part, expected size, entropy, number of parts) are
computed here and only here: :func:`split_figures`. Kooi's tables, ``keypeg next
--explain``, the coach and play all read them from this module.

>>> from keypeg import Feedback
>>> f = split_figures({Feedback(0, 0): 2, Feedback(1, 0): 1, Feedback(0, 1): 1})
>>> f.largest, f.expected_size, f.entropy, f.number_of_parts
(2, 1.5, 1.5, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace, Index, ordinal_feedback

__all__ = ["Choice", "Figures", "Ranked", "split_figures", "partition_figures", "row_parts", "rank_guesses"]

Over = Literal["fitting codes", "eligible set", "unavailable"]


@dataclass(frozen=True)
class Figures:
    """How one guess splits a set of codes: codes per feedback and the figures of that split."""

    parts: dict[Feedback, int]
    """Codes per feedback (only the feedbacks that happen), in feedback order."""
    largest: int
    """The largest part (Knuth's worst case)."""
    expected_size: float
    """Expected size of the part the answer leaves: sum of squared part sizes over the codes (Irving)."""
    entropy: float
    """Entropy of the split in bits (Neuwirth)."""
    number_of_parts: int
    """How many answers can happen (Kooi's most parts)."""

    @property
    def size(self) -> int:
        """The codes split."""
        return sum(self.parts.values())


def split_figures(parts: Mapping[Feedback, int]) -> Figures:
    """The figures of a split given as codes per feedback (zero parts are left out); the one place
    keypeg computes the largest part, expected size, entropy and number of parts."""
    kept = {f: int(n) for f, n in sorted(parts.items()) if n}
    sizes = list(kept.values())
    total = sum(sizes)
    if total == 0:
        return Figures({}, 0, 0.0, 0.0, 0)
    return Figures(
        parts=kept,
        largest=max(sizes),
        expected_size=sum(n * n for n in sizes) / total,
        entropy=0.0 - sum(n / total * math.log2(n / total) for n in sizes),  # 0.0 - 0.0 is 0.0, never -0.0
        number_of_parts=len(sizes),
    )


def row_parts(row: npt.NDArray[np.integer[Any]], pegs: int) -> dict[Feedback, int]:
    """A row of a partition table (counts per feedback ordinal) as codes per feedback, zeros left out."""
    return {ordinal_feedback(int(o), pegs): int(row[o]) for o in np.nonzero(row)[0]}


def partition_figures(space: CodeSpace, guesses: Sequence[int] | Index, codes: Index) -> list[Figures]:
    """The figures of each guess's split of ``codes`` (indices into ``space``)."""
    counts = space.partition(np.asarray(guesses, dtype=np.intp), codes)
    return [split_figures(row_parts(row, space.pegs)) for row in counts]


@dataclass(frozen=True)
class Ranked:
    """One guess of a :class:`Choice`: how it splits the codes, whether it could win, and its cost."""

    guess: Code
    index: int | None
    """Its index in the code space (``None`` when the codes were not enumerated)."""
    fits: bool
    """Whether it could be the secret."""
    cost: float | None
    """The strategy's own cost of it (smaller is better; see :attr:`Choice.measure`), where it has one."""
    figures: Figures | None
    """How it splits the codes (see :attr:`Choice.over`); ``None`` where there is nothing to split:
    the genetic codebreaker's first guess on a game too large to enumerate."""

    @property
    def split(self) -> Figures:
        """The figures (:class:`~keypeg.errors.KeypegError` where they are unavailable)."""
        if self.figures is None:
            raise KeypegError(f"no figures for {self.guess}: the codes were neither enumerated nor sampled")
        return self.figures

    @property
    def parts(self) -> dict[Feedback, int]:
        """Codes per feedback."""
        return self.split.parts

    @property
    def largest(self) -> int:
        """The largest part."""
        return self.split.largest

    @property
    def expected_size(self) -> float:
        """Expected size of the part the answer leaves."""
        return self.split.expected_size

    @property
    def entropy(self) -> float:
        """Entropy of the split, in bits."""
        return self.split.entropy

    @property
    def number_of_parts(self) -> int:
        """How many answers can happen."""
        return self.split.number_of_parts

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        if self.figures is None:
            return {"guess": str(self.guess), "fits": self.fits}
        return {
            "guess": str(self.guess),
            "fits": self.fits,
            "parts": {str(f): n for f, n in self.parts.items()},
            "largest": self.largest,
            "expected_size": round(self.expected_size, 4),
            "entropy": round(self.entropy, 4),
            "number_of_parts": self.number_of_parts,
        }


@dataclass(frozen=True)
class Choice:
    """A strategy's decision: the guess it plays, and the guesses it ranked with their figures.

    :attr:`ranked` holds the chosen guess first, then up to ``top - 1`` runners-up in the
    strategy's own order (least cost first; among equals, fitting guesses first, then code
    order). It is computed when first read (at once by :meth:`Strategy.rank` when ``top > 1``),
    so deciding alone, as whole-tree analysis does, never computes a figure.
    """

    guess: Code
    index: int | None
    """Index of the guess in the code space (``None`` when the codes were not enumerated)."""
    fitting: int | None
    """How many codes fit the scores (``None`` when not counted: the genetic codebreaker on a huge game)."""
    strategy: str
    measure: str
    """What the costs measure (smaller is better), or how the strategy orders its guesses."""
    over: Over
    """What the figures split: the codes that fit; on games too large to enumerate, the genetic
    codebreaker's eligible set (codes that fit, found by its search), or nothing before the first score."""
    _ranker: Callable[[], tuple[Ranked, ...]] = field(repr=False, compare=False)

    @cached_property
    def ranked(self) -> tuple[Ranked, ...]:
        """The chosen guess, then the runners-up, each with its figures."""
        return self._ranker()

    @property
    def chosen(self) -> Ranked:
        """The chosen guess with its figures."""
        return self.ranked[0]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with :attr:`ranked` worked out: the lazy ranker holds the engine's state, not a value."""
        known = partial(tuple, self.ranked)
        return (Choice, (self.guess, self.index, self.fitting, self.strategy, self.measure, self.over, known))


def rank_guesses(
    space: CodeSpace, codes: Index, guesses: Sequence[int], costs: Sequence[float | None]
) -> tuple[Ranked, ...]:
    """:class:`Ranked` entries for ``guesses`` (indices into ``space``), their figures over ``codes``
    (an increasing index array, the codes that fit)."""
    chosen = np.asarray(guesses, dtype=np.intp)
    counts = space.partition(chosen, codes)
    where = np.minimum(np.searchsorted(codes, chosen), max(codes.size - 1, 0))
    fits = (codes[where] == chosen) if codes.size else np.zeros(chosen.size, dtype=bool)
    return tuple(
        Ranked(space.code(g), g, bool(fit), cost, split_figures(row_parts(row, space.pegs)))
        for g, fit, cost, row in zip(guesses, fits.tolist(), costs, counts, strict=True)
    )
