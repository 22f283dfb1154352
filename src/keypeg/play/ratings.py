"""Glicko-2 ratings for games between people: pure functions of immutable values, no I/O.

The arithmetic is Glickman's own, step by step as his "Example of the Glicko-2 system"
(http://www.glicko.net/glicko/glicko2.pdf) writes it: ratings converted to the Glicko-2 scale
(:data:`SCALE`), ``g``, ``E``, the estimated variance ``v`` and improvement ``Delta``, the new volatility
found by the Illinois algorithm (to :data:`EPSILON`), then the new deviation and rating.

How keypeg uses it:

- **A rating period is one result**: a live match, a room, or (to seed a new player) one of their first
  rated solo games against the computer's levels. All the players of a result are updated at once, each
  from the others' ratings as they stood before it.
- **A room** counts as pairwise results by final place (:func:`pairwise`): each pair of players a win, a
  loss (score 1 or 0) or a draw (0.5, same place).
- **Idleness**: before a result, each player's deviation grows as Glickman's step 6 says
  (``phi* = sqrt(phi^2 + sigma^2)``) once per **whole day** (:data:`IDLE_PERIOD`) since the player's last
  rated result, capped at :data:`MAX_RD` (:func:`idle`). Days are counted from the stored times of the
  results only, so replaying them gives the same values.
- **Provisional**: a rating whose deviation is above :data:`PROVISIONAL_RD`, or that rests on fewer than
  :data:`PROVISIONAL_PEOPLE` results against people (:func:`provisional`): games against the computer alone
  never establish it.

>>> after = update(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)])
>>> round(after.mu, 4), round(after.phi, 4), round(after.volatility, 5)  # Glickman: -0.2069, 0.8722, 0.05999
(-0.2069, 0.8722, 0.06)
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from keypeg.errors import KeypegError

__all__ = [
    "DEFAULT_RATING",
    "DEFAULT_RD",
    "DEFAULT_VOLATILITY",
    "EPSILON",
    "IDLE_PERIOD",
    "MAX_RD",
    "PROVISIONAL_PEOPLE",
    "PROVISIONAL_RD",
    "SCALE",
    "TAU",
    "Rated",
    "Rating",
    "Step",
    "expected",
    "g",
    "idle",
    "improvement",
    "new_volatility",
    "idle_days",
    "pairwise",
    "provisional",
    "rate_result",
    "step",
    "update",
    "variance",
]

SCALE = 173.7178
"""Glicko's rating points per unit of the Glicko-2 scale (``mu = (r - 1500) / SCALE``)."""
DEFAULT_RATING = 1500.0
DEFAULT_RD = 350.0
DEFAULT_VOLATILITY = 0.06
TAU = 0.5
"""The system constant: how much the volatility may change (Glickman: reasonable from 0.3 to 1.2)."""
EPSILON = 0.000001
"""The convergence tolerance of the volatility's iteration."""
MAX_RD = 350.0
"""Idleness never makes a deviation larger than a new player's."""
IDLE_PERIOD = timedelta(days=1)
"""One step of idleness (Glickman's step 6) per whole day without a rated result."""
PROVISIONAL_RD = 110.0
"""A rating is provisional while its deviation is above this (a new player's first few results)."""
PROVISIONAL_PEOPLE = 5
"""A rating is provisional until it rests on this many results against people (seeding games do not count)."""


@dataclass(frozen=True)
class Rating:
    """A rating on Glicko's scale: the rating, its deviation (RD) and the volatility."""

    rating: float = DEFAULT_RATING
    rd: float = DEFAULT_RD
    volatility: float = DEFAULT_VOLATILITY

    @property
    def mu(self) -> float:
        """The rating on the Glicko-2 scale."""
        return (self.rating - DEFAULT_RATING) / SCALE

    @property
    def phi(self) -> float:
        """The deviation on the Glicko-2 scale."""
        return self.rd / SCALE


@dataclass(frozen=True)
class Step:
    """One player's update over a rating period, with Glickman's intermediate values (Glicko-2 scale)."""

    before: Rating
    v: float
    """The estimated variance of the rating from the results alone."""
    delta: float
    """The estimated improvement in rating."""
    volatility: float
    phi_star: float
    """The deviation grown by the new volatility (step 6)."""
    phi: float
    mu: float

    @property
    def after(self) -> Rating:
        """The new rating, back on Glicko's scale."""
        return Rating(SCALE * self.mu + DEFAULT_RATING, SCALE * self.phi, self.volatility)


def g(phi: float) -> float:
    """Glickman's ``g(phi)``: how much an opponent's uncertainty weakens what a result says."""
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def expected(mu: float, mu_j: float, phi_j: float) -> float:
    """Glickman's ``E(mu, mu_j, phi_j)``: the expected score against opponent ``j``."""
    return 1 / (1 + math.exp(-g(phi_j) * (mu - mu_j)))


def step(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Step:
    """Glickman's steps 2 to 8 for ``player`` after ``results`` (each an opponent and a score: 1 a win,
    0.5 a draw, 0 a loss). With no result, only the deviation grows (step 6 once)."""
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not results:
        grown = math.sqrt(phi * phi + sigma * sigma)
        return Step(player, math.inf, 0.0, sigma, grown, grown, mu)
    for _, score in results:
        if score not in (0, 0.5, 1):
            raise KeypegError(f"a score is 0, 0.5 or 1, not {score!r}")
    terms = [(g(o.phi), expected(mu, o.mu, o.phi), float(s)) for o, s in results]
    v = variance(terms)
    delta = improvement(v, terms)
    volatility = new_volatility(delta, phi, v, sigma, tau)
    phi_star = math.sqrt(phi * phi + volatility * volatility)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * sum(gj * (s - e) for gj, e, s in terms)
    return Step(player, v, delta, volatility, phi_star, phi_new, mu_new)


def variance(terms: Sequence[tuple[float, float, float]]) -> float:
    """Step 3: ``v`` from each opponent's ``g(phi_j)``, ``E`` and score ``s_j``."""
    return 1 / sum(gj * gj * e * (1 - e) for gj, e, _ in terms)


def improvement(v: float, terms: Sequence[tuple[float, float, float]]) -> float:
    """Step 4: ``Delta = v * sum(g(phi_j) * (s_j - E))``."""
    return v * sum(gj * (s - e) for gj, e, s in terms)


def new_volatility(delta: float, phi: float, v: float, sigma: float, tau: float = TAU) -> float:
    """Step 5: the new volatility, by the Illinois algorithm (a regula falsi) to within :data:`EPSILON`."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period with these ``results`` (opponent, score)."""
    return step(player, results, tau).after


def idle(rating: Rating, days: int) -> Rating:
    """``rating`` after ``days`` whole days without a result: step 6 once a day, the deviation capped at
    :data:`MAX_RD` (the rating and volatility stay)."""
    if days <= 0:
        return rating
    phi = math.sqrt(rating.phi**2 + days * rating.volatility**2)
    return replace(rating, rd=min(MAX_RD, SCALE * phi))


def idle_days(last: datetime | None, at: datetime) -> int:
    """Whole :data:`IDLE_PERIOD` s from a player's last rated result to ``at`` (0 for a first result, or one
    recorded out of order)."""
    if last is None or at <= last:
        return 0
    return (at - last) // IDLE_PERIOD


def provisional(rating: Rating, people: int = PROVISIONAL_PEOPLE) -> bool:
    """Whether ``rating`` is still provisional: its deviation above :data:`PROVISIONAL_RD`, or fewer than
    :data:`PROVISIONAL_PEOPLE` of its ``people`` results (against people, not the computer)."""
    return rating.rd > PROVISIONAL_RD or people < PROVISIONAL_PEOPLE


def pairwise(places: Sequence[Sequence[str]]) -> dict[str, list[tuple[str, float]]]:
    """Each player's results against every other player of a result whose ``places`` group the players by
    final place, best first: a win (1) over each player placed below, a loss (0) to each above, a draw
    (0.5) with each sharing the place. A name given twice is refused.

    >>> pairwise([["ann"], ["bob", "cy"]])["bob"]
    [('ann', 0.0), ('cy', 0.5)]
    """
    seen: set[str] = set()
    for place in places:
        for name in place:
            if name in seen:
                raise KeypegError(f"a player holds one place only: {name!r} is given twice")
            seen.add(name)
    results: dict[str, list[tuple[str, float]]] = {}
    for rank, place in enumerate(places):
        for name in place:
            mine = results.setdefault(name, [])
            for other_rank, other_place in enumerate(places):
                score = 0.5 if other_rank == rank else (1.0 if other_rank > rank else 0.0)
                mine.extend((other, score) for other in other_place if other != name)
    return results


@dataclass(frozen=True)
class Rated:
    """A player's standing between results: the rating, rated results so far, and the last one's time."""

    rating: Rating = Rating()
    results: int = 0
    last: datetime | None = None


def rate_result(
    players: Mapping[str, Rated],
    places: Sequence[Sequence[str]],
    at: datetime,
    *,
    fixed: Mapping[str, Rating] | None = None,
    unrated: Collection[str] = (),
    left_out: Collection[frozenset[str]] = (),
) -> dict[str, tuple[Rating, Rated]]:
    """One result (one rating period): each player of ``places`` who is not ``fixed`` (the computer's levels,
    whose ratings never move) nor ``unrated`` (met at their rating, not moved: a player the host removed),
    with their rating before it (idleness applied) and their standing after it. A player missing from
    ``players`` starts new. Players meet only those they played, but the pairs ``left_out``: fixed and
    unrated players only those who are neither; a player left with nobody to meet is not rated."""
    fixed = fixed or {}
    before: dict[str, Rating] = {}
    for place in places:
        for name in place:
            if name in fixed:
                before[name] = fixed[name]
            else:
                known = players.get(name, Rated())
                before[name] = idle(known.rating, idle_days(known.last, at))
    changes: dict[str, tuple[Rating, Rated]] = {}
    for name, results in pairwise(places).items():
        if name in fixed or name in unrated:
            continue
        against = [(before[other], score) for other, score in results if frozenset((name, other)) not in left_out]
        if not against:
            continue
        known = players.get(name, Rated())
        last = at if known.last is None else max(known.last, at)
        changes[name] = (before[name], Rated(update(before[name], against), known.results + 1, last))
    return changes
