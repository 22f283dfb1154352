"""Checks of the plain arguments keypeg's public functions take (counts, seeds), each a one-line
:class:`~keypeg.errors.InvalidArgumentError`: one rule for the library and the environments alike.

>>> whole_number(3, 1, "top")
3
>>> checked_seed(-1)
Traceback (most recent call last):
...
keypeg.errors.InvalidArgumentError: seed must be a whole number from 0, not -1
"""

from __future__ import annotations

from keypeg.errors import InvalidArgumentError
from keypeg.text import quoted

__all__ = ["whole_number", "checked_seed"]


def whole_number(value: object, low: int, name: str) -> int:
    """``value`` when it is a whole number (not a bool) of at least ``low``, else the one-line error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidArgumentError(f"{name} must be a whole number from {low}, not {quoted(value)}")
    return value


def checked_seed(seed: object) -> int | None:
    """``seed`` when it is ``None`` or a whole number from 0, else the one-line error."""
    return None if seed is None else whole_number(seed, 0, "seed")
