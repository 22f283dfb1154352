"""Checks of the plain arguments keypeg's public functions take (counts, seeds, flags, choices), each a one-line
:class:`~keypeg.errors.InvalidArgumentError`: one rule for the library and the environments alike.

>>> whole_number(3, 1, "top")
3
>>> checked_seed(-1)
Traceback (most recent call last):
...
keypeg.errors.InvalidArgumentError: seed must be a whole number from 0, not -1
"""

from __future__ import annotations

from collections.abc import Sequence

from keypeg.errors import InvalidArgumentError
from keypeg.text import quoted

__all__ = ["whole_number", "checked_seed", "true_or_false", "one_of"]


def whole_number(value: object, low: int, name: str) -> int:
    """``value`` when it is a whole number (not a bool) of at least ``low``, else the one-line error."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidArgumentError(f"{name} must be a whole number from {low}, not {quoted(value)}")
    return value


def checked_seed(seed: object) -> int | None:
    """``seed`` when it is ``None`` or a whole number from 0, else the one-line error."""
    return None if seed is None else whole_number(seed, 0, "seed")


def true_or_false(value: object, name: str) -> bool:
    """``value`` when it is ``True`` or ``False`` (a bool, not anything truthy), else the one-line error."""
    if not isinstance(value, bool):
        raise InvalidArgumentError(f"{name} must be True or False, not {quoted(value)}")
    return value


def one_of(value: object, choices: Sequence[str], name: str) -> str:
    """``value`` when it is one of ``choices``, else the one-line error naming them."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgumentError(f"{name} must be one of {', '.join(choices)}; got {quoted(value)}")
    return value
