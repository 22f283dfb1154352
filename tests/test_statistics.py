"""The genetic benchmark's statistics: a mean and its Student-t interval, against textbook values."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keypeg.analysis.statistics import mean_interval, t_quantile
from keypeg.errors import KeypegError

TABLE = [  # two-sided confidence, degrees of freedom, t (any table of Student's t, to 6 decimals)
    (0.95, 1, 12.706205),
    (0.95, 2, 4.302653),
    (0.95, 4, 2.776445),
    (0.95, 9, 2.262157),
    (0.95, 29, 2.045230),
    (0.95, 499, 1.964729),
    (0.99, 5, 4.032143),
    (0.90, 10, 1.812461),
]


@pytest.mark.parametrize(("confidence", "freedom", "expected"), TABLE)
def test_t_quantiles_are_the_tables(confidence: float, freedom: int, expected: float) -> None:
    assert t_quantile(confidence, freedom) == pytest.approx(expected, abs=5e-7)


def test_a_small_fixed_sample() -> None:
    # Guesses of 10 games: mean 4.4, sample standard deviation 0.699206, t(0.95, 9) = 2.262157.
    sample = [4, 5, 4, 4, 5, 3, 5, 4, 5, 5]
    interval = mean_interval(sample)
    half = 2.262157 * 0.6992059 / math.sqrt(10)
    assert interval.mean == pytest.approx(4.4)
    assert (interval.low, interval.high) == pytest.approx((4.4 - half, 4.4 + half), abs=1e-6)
    assert str(interval) == "4.400 ± 0.500"
    assert mean_interval([1, 2, 3, 4, 5]).low == pytest.approx(3 - 2.776445 * math.sqrt(2.5 / 5), abs=1e-6)


def test_bad_samples_are_refused() -> None:
    with pytest.raises(KeypegError):
        mean_interval([4])
    with pytest.raises(KeypegError):
        t_quantile(1.0, 3)
    assert mean_interval([5, 5, 5]).half_width == 0


@given(st.lists(st.integers(1, 20), min_size=2, max_size=60), st.floats(0.5, 0.999))
def test_the_interval_is_centred_and_shrinks_with_confidence(sample: list[int], confidence: float) -> None:
    interval = mean_interval(sample, confidence)
    assert interval.low <= interval.mean <= interval.high
    assert interval.mean - interval.low == pytest.approx(interval.high - interval.mean)
    assert interval.mean == pytest.approx(statistics.fmean(sample))
    assert mean_interval(sample, confidence / 2).half_width <= interval.half_width


@given(st.integers(1, 400))
def test_t_falls_toward_the_normal_quantile(freedom: int) -> None:
    assert statistics.NormalDist().inv_cdf(0.975) < t_quantile(0.95, freedom + 1) < t_quantile(0.95, freedom)
