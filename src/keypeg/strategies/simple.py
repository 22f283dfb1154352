"""Strategies that guess a code that still fits, without looking ahead."""

from __future__ import annotations

from typing import ClassVar

from keypeg.kernels import TreeRule
from keypeg.rules import Rules
from keypeg.strategies.base import Pool, Position, Strategy

__all__ = ["Simple", "RandomConsistent"]


class Simple(Strategy):
    """Shapiro's simple strategy: the first code, in order, that fits everything seen.

    With ``tie="last"`` it takes the last fitting code instead.
    """

    name = "simple"
    about = "the first code in order that fits every score (Shapiro)"
    measure = "code order"
    default_pool: ClassVar[Pool] = "consistent"

    def tree_rule(self, rules: Rules) -> TreeRule | None:
        return self._kernel_rule(rules, "simple")

    def _decide(self, position: Position) -> int:
        return self._break_tie(position, position.candidates)


class RandomConsistent(Strategy):
    """A random code among those that fit (seeded)."""

    name = "random"
    about = "a random code that fits every score (seeded)"
    measure = "a random fitting code (runners-up: the other fitting codes in order)"
    default_pool: ClassVar[Pool] = "consistent"

    def __init__(self, **options: object) -> None:
        options["tie"] = "random"
        super().__init__(**options)  # type: ignore[arg-type]

    def _decide(self, position: Position) -> int:
        return self._break_tie(position, position.candidates)
