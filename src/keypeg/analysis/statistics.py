"""A sample's mean with its Student-t confidence interval (the genetic benchmark's statistics).

Standard library only. The t quantile is exact: Student's distribution function for a whole number of
degrees of freedom is a finite sum (Abramowitz and Stegun 26.7.3 and 26.7.4), inverted by bisection.

>>> interval = mean_interval([1, 2, 3, 4, 5])
>>> round(interval.mean, 6), round(interval.low, 4), round(interval.high, 4)
(3.0, 1.0368, 4.9632)
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from keypeg.errors import KeypegError

__all__ = ["Interval", "mean_interval", "t_quantile"]

BISECTIONS = 200
"""Halvings of the bracket when inverting the distribution function: far past double precision."""


@dataclass(frozen=True)
class Interval:
    """A sample mean and its confidence interval."""

    mean: float
    low: float
    high: float
    n: int
    confidence: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.half_width:.3f}"


def _central(t: float, freedom: int) -> float:
    """P(|T| <= t) for Student's T with ``freedom`` degrees of freedom (A&S 26.7.3, 26.7.4)."""
    theta = math.atan(t / math.sqrt(freedom))
    cos2 = math.cos(theta) ** 2
    if freedom % 2:
        term, total = 1.0, 1.0 if freedom > 1 else 0.0
        for k in range(1, (freedom - 3) // 2 + 1):
            term *= cos2 * (2 * k) / (2 * k + 1)
            total += term
        return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    term, total = 1.0, 1.0
    for k in range(1, (freedom - 2) // 2 + 1):
        term *= cos2 * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(theta) * total


def t_quantile(confidence: float, freedom: int) -> float:
    """The ``t`` with P(|T| <= t) = ``confidence`` (two-sided) for ``freedom`` degrees of freedom.

    >>> round(t_quantile(0.95, 4), 6), round(t_quantile(0.95, 499), 6)
    (2.776445, 1.964729)
    """
    if not 0 < confidence < 1 or freedom < 1:
        raise KeypegError(f"no t quantile for confidence {confidence} and {freedom} degrees of freedom")
    low, high = 0.0, 1.0
    while _central(high, freedom) < confidence:
        high *= 2
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        if _central(middle, freedom) < confidence:
            low = middle
        else:
            high = middle
        if high - low <= 1e-15 * high:
            break
    return (low + high) / 2


def mean_interval(sample: Sequence[float], confidence: float = 0.95) -> Interval:
    """The mean of ``sample`` (two values or more) and its two-sided Student-t confidence interval."""
    n = len(sample)
    if n < 2:
        raise KeypegError(f"a confidence interval needs two values or more, not {n}")
    mean = statistics.fmean(sample)
    half = t_quantile(confidence, n - 1) * statistics.stdev(sample, mean) / math.sqrt(n)
    return Interval(mean, mean - half, mean + half, n, confidence)
