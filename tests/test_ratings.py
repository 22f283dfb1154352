"""Glicko-2 (keypeg.play.ratings): Glickman's worked example, and properties of the update."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keypeg.errors import KeypegError
from keypeg.play.ratings import (
    MAX_RD,
    SCALE,
    Rated,
    Rating,
    expected,
    g,
    idle,
    idle_days,
    improvement,
    new_volatility,
    pairwise,
    provisional,
    rate_result,
    step,
    update,
    variance,
)

PLAYER = Rating(1500, 200, 0.06)
OPPONENTS = [Rating(1400, 30), Rating(1550, 100), Rating(1700, 300)]
SCORES = [1.0, 0.0, 0.0]


def test_glickmans_example() -> None:
    """Mark E. Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/glicko2.pdf; also
    math.bu.edu/people/mg/glicko/glicko2.doc/example.html): a player rated 1500, RD 200, volatility 0.06,
    tau 0.5, beats a 1400 (RD 30) and loses to a 1550 (RD 100) and a 1700 (RD 300). Published: mu = 0,
    phi = 1.1513; mu_j = -0.5756, 0.2878, 1.1513; phi_j = 0.1727, 0.5756, 1.7269; g(phi_j) = 0.9955,
    0.9531, 0.7242; E = 0.639, 0.432, 0.303; v = 1.7785; Delta = -0.4834; sigma' = 0.05999;
    phi* = 1.152862; phi' = 0.8722; mu' = -0.2069; so r' = 1464.06, RD' = 151.52.

    Glickman computes with the intermediate values rounded as printed: v and Delta from the printed g and
    E give his 1.7785 and -0.4834 exactly (full precision gives 1.7790 and -0.4839), his phi* comes from
    his printed phi and sigma', his sigma' 0.05999 is 0.0599960 cut to 5 places, and his r' 1464.06 is
    173.7178 * (-0.2069) + 1500 from mu' rounded to 4 places (full precision gives 1464.0507). mu', phi'
    and RD' match as printed. Both ways are checked here."""
    assert (PLAYER.mu, round(PLAYER.phi, 4)) == (0, 1.1513)
    assert [round(o.mu, 4) for o in OPPONENTS] == [-0.5756, 0.2878, 1.1513]
    assert [round(o.phi, 4) for o in OPPONENTS] == [0.1727, 0.5756, 1.7269]
    assert [round(g(o.phi), 4) for o in OPPONENTS] == pytest.approx([0.9955, 0.9531, 0.7242], abs=1.01e-4)
    assert [round(expected(0, o.mu, o.phi), 3) for o in OPPONENTS] == [0.639, 0.432, 0.303]

    printed = list(zip([0.9955, 0.9531, 0.7242], [0.639, 0.432, 0.303], SCORES, strict=True))
    assert round(variance(printed), 4) == 1.7785
    assert round(improvement(1.7785, printed), 4) == -0.4834
    assert math.floor(new_volatility(-0.4834, 1.1513, 1.7785, 0.06, 0.5) * 1e5) / 1e5 == 0.05999

    assert round(math.sqrt(1.1513**2 + 0.05999**2), 6) == 1.152862  # his phi* from his printed phi, sigma'

    # at full precision, each published figure of the result, digit for digit as printed
    exact = step(PLAYER, list(zip(OPPONENTS, SCORES, strict=True)))
    assert (round(exact.v, 4), round(exact.delta, 4)) == (1.7790, -0.4839)  # his 1.7785, -0.4834: rounded g, E
    assert math.floor(exact.volatility * 1e5) / 1e5 == 0.05999  # sigma' = 0.0599960: printed cut to 5 places
    assert round(exact.phi_star, 6) == 1.152855  # his 1.152862: from the printed phi and sigma' (above)
    assert (round(exact.mu, 4), round(exact.phi, 4)) == (-0.2069, 0.8722)  # mu', phi' as printed
    after = exact.after
    assert round(after.rd, 2) == 151.52  # RD' as printed
    assert round(after.rating, 2) == 1464.05  # r' at full precision (mu' = -0.206941)
    assert round(SCALE * round(exact.mu, 4) + 1500, 2) == 1464.06  # his printed r': mu' rounded to 4 places first
    assert update(PLAYER, list(zip(OPPONENTS, SCORES, strict=True))) == after


def reference(player: Rating, results: list[tuple[Rating, float]], tau: float = 0.5) -> Rating:
    """Glicko-2 written out plainly, independent of the module (Glickman's steps 2-8)."""
    mu, phi, sigma = (player.rating - 1500) / 173.7178, player.rd / 173.7178, player.volatility
    gs = [1 / math.sqrt(1 + 3 * (o.rd / 173.7178) ** 2 / math.pi**2) for o, _ in results]
    es = [1 / (1 + math.exp(-gj * (mu - (o.rating - 1500) / 173.7178))) for gj, (o, _) in zip(gs, results, strict=True)]
    v = 1 / sum(gj**2 * e * (1 - e) for gj, e in zip(gs, es, strict=True))
    total = sum(gj * (s - e) for gj, e, (_, s) in zip(gs, es, results, strict=True))
    delta = v * total
    a = math.log(sigma**2)

    def f(x: float) -> float:
        return (
            math.exp(x) * (delta**2 - phi**2 - v - math.exp(x)) / (2 * (phi**2 + v + math.exp(x)) ** 2)
            - (x - a) / tau**2
        )

    lo = a
    if delta**2 > phi**2 + v:
        hi = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        hi = a - k * tau
    f_lo, f_hi = f(lo), f(hi)
    while abs(hi - lo) > 0.000001:
        c = lo + (lo - hi) * f_lo / (f_hi - f_lo)
        f_c = f(c)
        if f_c * f_hi <= 0:
            lo, f_lo = hi, f_hi
        else:
            f_lo /= 2
        hi, f_hi = c, f_c
    new_sigma = math.exp(lo / 2)
    phi_new = 1 / math.sqrt(1 / (phi**2 + new_sigma**2) + 1 / v)
    return Rating(173.7178 * (mu + phi_new**2 * total) + 1500, 173.7178 * phi_new, new_sigma)


ratings = st.builds(
    Rating,
    st.floats(800, 2400),
    st.floats(30, 350),
    st.floats(0.03, 0.09),
)
scores = st.sampled_from([0.0, 0.5, 1.0])
results = st.lists(st.tuples(ratings, scores), min_size=1, max_size=8)


@given(ratings, results)
def test_the_module_equals_the_plain_formula(player: Rating, played: list[tuple[Rating, float]]) -> None:
    mine, plain = update(player, played), reference(player, played)
    assert mine.rating == pytest.approx(plain.rating, abs=1e-9)
    assert mine.rd == pytest.approx(plain.rd, abs=1e-9)
    assert mine.volatility == pytest.approx(plain.volatility, abs=1e-12)


@given(ratings, ratings)
def test_a_win_never_lowers_a_rating_nor_a_loss_raises_it(player: Rating, opponent: Rating) -> None:
    assert update(player, [(opponent, 1.0)]).rating >= player.rating
    assert update(player, [(opponent, 0.0)]).rating <= player.rating


@given(ratings, results)
def test_games_shrink_the_deviation(player: Rating, played: list[tuple[Rating, float]]) -> None:
    """Results always shrink the deviation the period starts from (step 6's phi*, grown by the volatility);
    a deviation of 150 or more shrinks below itself against opponents within 400 points."""
    after = step(player, played)
    assert after.phi < after.phi_star
    if player.rd >= 150 and all(abs(o.rating - player.rating) <= 400 for o, _ in played):
        assert after.after.rd < player.rd


@given(st.sampled_from([0.0, 0.5, 1.0]))
def test_two_new_players_move_symmetrically(score: float) -> None:
    new = Rating()
    first, second = update(new, [(new, score)]), update(new, [(new, 1 - score)])
    assert first.rating - 1500 == pytest.approx(1500 - second.rating, abs=1e-9)
    assert first.rd == pytest.approx(second.rd) and first.volatility == pytest.approx(second.volatility)
    if score == 0.5:
        assert first.rating == pytest.approx(1500)


@given(ratings, st.integers(0, 5000))
def test_idleness_grows_the_deviation_up_to_a_new_players(rating: Rating, days: int) -> None:
    grown = idle(rating, days)
    assert grown.rating == rating.rating and grown.volatility == rating.volatility
    assert rating.rd <= grown.rd <= max(MAX_RD, rating.rd)
    assert idle(rating, days + 1).rd >= grown.rd


def test_idle_days_are_whole_days_from_the_stored_times() -> None:
    last = datetime(2026, 11, 1, 12, tzinfo=UTC)
    assert idle_days(None, last) == 0
    assert idle_days(last, last + timedelta(hours=23, minutes=59)) == 0
    assert idle_days(last, last + timedelta(days=2, hours=1)) == 2
    assert idle_days(last, last - timedelta(days=3)) == 0  # recorded out of order: no idleness


def test_pairwise_results_by_place() -> None:
    results = pairwise([["ann"], ["bob", "cy"], ["dee"]])
    assert results["ann"] == [("bob", 1.0), ("cy", 1.0), ("dee", 1.0)]
    assert results["cy"] == [("ann", 0.0), ("bob", 0.5), ("dee", 1.0)]
    assert results["dee"] == [("ann", 0.0), ("bob", 0.0), ("cy", 0.0)]
    with pytest.raises(KeypegError):
        pairwise([["ann"], ["ann"]])


def test_a_result_rates_everyone_from_the_ratings_before_it() -> None:
    at = datetime(2026, 11, 1, tzinfo=UTC)
    changes = rate_result({}, [["ann"], ["bob"]], at)
    assert changes["ann"][0] == Rating() == changes["bob"][0]
    assert changes["ann"][1].rating == update(Rating(), [(Rating(), 1.0)])
    assert changes["ann"][1] == Rated(changes["ann"][1].rating, 1, at)
    later = rate_result({n: r for n, (_, r) in changes.items()}, [["bob"], ["ann"]], at + timedelta(days=3))
    assert later["ann"][0].rd > changes["ann"][1].rating.rd  # three idle days grew it
    assert later["ann"][1].results == 2


def test_fixed_players_never_move_and_rate_others() -> None:
    level = Rating(1700, 40)
    changes = rate_result({}, [["ann"], ["level-4"]], datetime(2026, 11, 1, tzinfo=UTC), fixed={"level-4": level})
    assert set(changes) == {"ann"}
    assert changes["ann"][1].rating == update(Rating(), [(level, 1.0)])


def test_provisional_by_deviation() -> None:
    assert provisional(Rating()) and not provisional(Rating(1500, 100))


def test_scores_are_checked() -> None:
    with pytest.raises(KeypegError):
        step(Rating(), [(Rating(), 0.7)])
