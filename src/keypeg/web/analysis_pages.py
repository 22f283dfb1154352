"""The Analyse and Strategies pages: GET forms (a result can be bookmarked) over the same functions as
the analysis API (:mod:`keypeg.web.analysis_api`). A refusal (bad rules, a bad line, work beyond a
request's budget) is the page again with the reason, status 400; too many analyses from one client, or a
worker busy with another, is the error page (429, with ``Retry-After``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response

from keypeg.analysis.advice import Advice
from keypeg.analysis.compare import Comparison, Summary
from keypeg.errors import KeypegError
from keypeg.limits import WEB_BUDGET, WEB_LISTED, WEB_SCORED_LINES
from keypeg.rules import Rules
from keypeg.services.accounts import ThrottledError
from keypeg.strategies import REGISTRY, find_strategy
from keypeg.web.analysis_api import analyse, strategies
from keypeg.web.pages import RulesForm, form_query, page

__all__ = ["router", "BarChart", "bar_chart", "label"]

router = APIRouter(include_in_schema=False)

PEOPLE = {
    "simple": "Shapiro",
    "worst-case": "Knuth",
    "expected-size": "Irving",
    "entropy": "Neuwirth",
    "most-parts": "Kooi",
    "optimal": "Koyama and Lai",
    "genetic": "Berghman et al.",
}
"""Whose strategy each is, as the literature names them."""


def label(name: str) -> str:
    """A strategy's name with whose it is: ``worst-case (Knuth)``."""
    who = PEOPLE.get(name)
    return f"{name} ({who})" if who else name


def about(name: str) -> str:
    """What a strategy does, in one line (nothing for a name the registry does not know)."""
    return find_strategy(name).about if name in REGISTRY else ""


@router.get("/analyse", response_class=HTMLResponse)
def analyse_page(
    request: Request, fields: Annotated[RulesForm, Depends(form_query)], scored: Annotated[str, Query()] = ""
) -> Response:
    """The codes that fit scored guesses, and each strategy's best next guesses with their figures."""
    rules: Rules | None = None
    advice: Advice | None = None
    error = ""
    try:
        rules = fields.rules()
        advice = analyse(request, rules, scored)
    except ThrottledError:
        raise
    except KeypegError as refused:
        error = str(refused)
    return page(
        request,
        "analyse.html",
        status=400 if error else 200,
        active="Analyse",
        chosen=fields,
        scored=scored,
        rules=rules,
        advice=advice,
        error=error,
        label=label,
        listed=WEB_LISTED,
        lines=WEB_SCORED_LINES,
    )


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    series: int
    """The strategy's number, from 1: the style sheet's ``s-1`` .. ``s-10``."""
    title: str


@dataclass(frozen=True)
class BarChart:
    """A grouped bar chart of the secrets each strategy solves in each round, as an SVG's coordinates
    (presentation attributes and the style sheet's classes: no inline style)."""

    width: int
    height: int
    left: int
    bottom: float
    bars: tuple[Bar, ...]
    rounds: tuple[tuple[float, int], ...]
    """Each round's label: x and the round."""
    ticks: tuple[tuple[float, int], ...]
    """Horizontal grid lines: y and the secrets they mark."""


def bar_chart(summaries: tuple[Summary, ...], width: int = 720, height: int = 280) -> BarChart:
    """The chart of ``summaries`` (one series each, in order)."""
    left, right, top, bottom = 52, 10, 12, 36
    rounds = max(s.stats.max for s in summaries)
    high = max(max(s.stats.distribution.values()) for s in summaries)
    step = _step(high)
    scale = -(-high // step) * step
    plot = height - top - bottom
    group = (width - left - right) / rounds
    bar = group * 0.84 / len(summaries)

    def y(value: float) -> float:
        return round(top + plot * (1 - value / scale), 1)

    bars = []
    for k, summary in enumerate(summaries):
        for r in range(1, rounds + 1):
            n = summary.stats.distribution.get(r, 0)
            if not n:
                continue
            x = left + (r - 1) * group + group * 0.08 + k * bar
            top_y = y(n)
            title = f"{summary.strategy}: {n:,} {'secret' if n == 1 else 'secrets'} in round {r}"
            bars.append(Bar(round(x, 1), top_y, round(bar, 1), round(height - bottom - top_y, 1), k + 1, title))
    ticks = tuple((y(v), v) for v in range(0, scale + 1, step))
    labels = tuple((round(left + (r - 0.5) * group, 1), r) for r in range(1, rounds + 1))
    return BarChart(width, height, left, height - bottom, tuple(bars), labels, ticks)


def _step(high: int) -> int:
    """The grid's step: 1, 2 or 5 times a power of ten, at most five steps up to ``high``.

    >>> _step(4), _step(9), _step(694), _step(1296)
    (1, 2, 200, 500)
    """
    power = 1
    while True:
        for step in (1, 2, 5):
            if step * power * 5 >= high:
                return step * power
        power *= 10


@router.get("/strategies", response_class=HTMLResponse)
def strategies_page(request: Request, fields: Annotated[RulesForm, Depends(form_query)]) -> Response:
    """Every codebreaker on a rule set side by side: totals, average, worst case, secrets per round."""
    rules: Rules | None = None
    comparison: Comparison | None = None
    error = ""
    try:
        rules = fields.rules()
        comparison = strategies(request, rules)
    except ThrottledError:
        raise
    except KeypegError as refused:
        error = str(refused)
    rounds = range(1, max(s.stats.max for s in comparison.summaries) + 1) if comparison else range(0)
    return page(
        request,
        "strategies.html",
        status=400 if error else 200,
        active="Strategies",
        chosen=fields,
        rules=rules,
        comparison=comparison,
        chart=bar_chart(comparison.summaries) if comparison else None,
        rounds=rounds,
        error=error,
        label=label,
        about=about,
        budget=WEB_BUDGET[0],
    )
