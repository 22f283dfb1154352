"""Why a strategy chose its guess: a thin adapter over :meth:`Strategy.rank`, kept for callers
that still read the old names (``explanation.guesses``, ``explanation.candidates``).

New code calls ``strategy.rank(Position.from_knowledge(knowledge), top=top)`` and reads the
:class:`~keypeg.strategies.Choice` (``choice.ranked``, ``choice.fitting``).
"""

from __future__ import annotations

from dataclasses import dataclass

from keypeg.knowledge import Knowledge
from keypeg.strategies.base import Position, Strategy
from keypeg.strategies.choice import Choice, Ranked

__all__ = ["Explanation", "explain"]


@dataclass(frozen=True)
class Explanation(Choice):
    """A :class:`Choice` with the old names: ``guesses`` for ``ranked``, ``candidates`` for ``fitting``."""

    @property
    def guesses(self) -> tuple[Ranked, ...]:
        """The chosen guess first, then the runners-up (:attr:`Choice.ranked`)."""
        return self.ranked

    @property
    def candidates(self) -> int:
        """How many codes fit (:attr:`Choice.fitting`)."""
        return self.fitting if self.fitting is not None else 0


def explain(strategy: Strategy, knowledge: Knowledge, *, top: int = 4) -> Explanation:
    """The strategy's choice after ``knowledge`` and up to ``top - 1`` runners-up, with their splits."""
    choice = strategy.rank(Position.from_knowledge(knowledge), top=top)
    ranked = choice.ranked
    return Explanation(
        choice.guess,
        choice.index,
        choice.fitting,
        choice.strategy,
        choice.measure,
        choice.over,
        lambda: ranked,
    )
