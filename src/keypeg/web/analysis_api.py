"""The analysis API: the codes that fit scored guesses and each strategy's next guess
(``POST /api/analyse``), and every codebreaker side by side on a rule set (``GET /api/strategies``).

Analysis changes nothing, so these need no session and no CSRF token. The web has no ``--force``:
work estimated above :data:`keypeg.limits.WEB_BUDGET` is refused (400), or, for one strategy among
several, left out with the reason. An analysis worked out (not read from the cache) passes the worker's
gate first (:func:`keypeg.web.fair_share.analysis`): it waits its turn while the worker works out another,
and is 429 when its asker asked for too many lately, or when the worker stays busy (too many waiting, or
no turn within :data:`keypeg.limits.WEB_ANALYSIS_WAIT`). The Analyse and Strategies pages
(:mod:`keypeg.web.analysis_pages`) call the same functions.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field

from keypeg.analysis.advice import Advice, read_scored
from keypeg.analysis.compare import EVERY, Comparison, compare
from keypeg.analysis.cost import Budget, Estimate, TooCostlyError
from keypeg.errors import KeypegError
from keypeg.limits import WEB_BUDGET, WEB_LISTED, WEB_SCORED_CHARS, WEB_SCORED_LINES
from keypeg.rules import Rules
from keypeg.services import advice
from keypeg.services.fair_share import Gate
from keypeg.services.games import EXPLAIN_TOP
from keypeg.text import plural
from keypeg.web.api import ERRORS, FiguresOut, RulesIn, figures, rules_out, rules_query
from keypeg.web.fair_share import analysis

__all__ = ["router", "web_budget", "GatedBudget", "scored_lines", "analyse", "strategies", "OWNER"]

router = APIRouter(prefix="/api", responses=ERRORS, tags=["analysis"])

OWNER = "the web app allows a request"


def web_budget() -> Budget:
    """A request's budget: :data:`keypeg.limits.WEB_BUDGET`, with no way round it."""
    seconds, memory = WEB_BUDGET
    return Budget(seconds, memory, OWNER)


class GatedBudget:
    """A request's budget (:func:`web_budget`) opened once its gate lets the work in: the time the request
    waited for its turn is not the work's."""

    def __init__(self, gate: Gate) -> None:
        self._gate = gate
        self._budget: Budget | None = None

    def check(self, estimate: Estimate) -> None:
        """The gate, then the budget's check of ``estimate``."""
        self._gate()
        if self._budget is None:
            self._budget = web_budget()
        self._budget(estimate)

    def watch(self, done: float) -> None:
        """The budget's watch of the work let in (nothing before)."""
        if self._budget is not None:
            self._budget.watch(done)


def scored_lines(text: str) -> list[str]:
    """The lines of a textarea of scored guesses, refused (a one-line :class:`KeypegError`) when there are
    too many of them or too many characters."""
    if len(text) > WEB_SCORED_CHARS:
        raise KeypegError(f"the scored guesses are {len(text):,} characters long: at most {WEB_SCORED_CHARS:,}")
    lines = text.splitlines()
    written = sum(1 for line in lines if line.strip())
    if written > WEB_SCORED_LINES:
        raise KeypegError(f"{plural(written, 'scored guess', 'scored guesses')}: at most {WEB_SCORED_LINES}")
    return lines


def analyse(request: Request, rules: Rules, text: str) -> Advice:
    """The codes that fit the scored guesses in ``text`` (one a line) and each advised strategy's best
    guesses, within a request's budget (:class:`KeypegError` for a bad line or work the budget refuses,
    :class:`~keypeg.services.accounts.ThrottledError` when the gate does)."""
    history = read_scored(rules, scored_lines(text))
    with analysis(request) as gate:
        return advice.analyse(rules, history, top=EXPLAIN_TOP, check=GatedBudget(gate).check, listed=WEB_LISTED)


def strategies(request: Request, rules: Rules) -> Comparison:
    """Every codebreaker's whole tree on ``rules`` (kept results, else worked out within a request's
    budget and after the gate); refused (:class:`TooCostlyError`) when no strategy fits the budget."""
    with analysis(request) as gate:  # taken only if a tree is to be built: a cached answer never waits
        budget = GatedBudget(gate)
        comparison = compare(rules, EVERY, check=budget.check, watch=budget.watch)
    if not comparison.summaries:
        raise TooCostlyError(comparison.left_out[0][1] if comparison.left_out else "no strategy to compare")
    return comparison


# -- the JSON API -------------------------------------------------------------------------------------


ScoredLine = Annotated[str, Field(max_length=200, pattern=r"^[^\r\n]*$")]


class AnalyseIn(RulesIn):
    scored: list[ScoredLine] = Field(
        default_factory=list,
        max_length=WEB_SCORED_LINES,
        description="Scored guesses, one a string: 'RRGG=1,0' as the command line writes them, or 'RRGG 1 0'.",
        examples=[["RRGG 1 0", "BBYY=0,1"]],
    )


class SuspectOut(BaseModel):
    number: int = Field(description="The scored guess's number, from 1.")
    guess: str
    given: str = Field(description="The score given, as 'black,white'.")
    correction: str = Field(description="A score that would make the guesses fit.")


class Advised(BaseModel):
    strategy: str
    guess: str = Field(description="The guess it plays next.")
    measure: str = Field(description="What its scores measure (smaller is better), or how it orders guesses.")
    ranked: list[FiguresOut] = Field(description="Its best guesses with their figures (empty when there are none).")


class LeftOut(BaseModel):
    strategy: str
    reason: str


class AnalyseOut(BaseModel):
    rules: dict[str, Any]
    consistent: bool = Field(description="Whether any code fits every score.")
    count: int = Field(description="Codes that fit (0 when none does).")
    count_is_lower_bound: bool = Field(description="On games too large to enumerate: at least this many fit.")
    candidates: list[str] = Field(description=f"The first {WEB_LISTED} codes that fit, in order.")
    solved: bool = Field(description="Whether the last guess broke the code.")
    message: str = Field(description="One line: the count, or which score is the likely mistake.")
    suspects: list[SuspectOut] = Field(description="When no code fits: the scores most likely wrong.")
    strategies: list[Advised] = Field(description="Each strategy's best next guesses with their figures.")
    left_out: list[LeftOut] = Field(description="Strategies not asked, with why (too costly here).")


def advice_out(advice: Advice) -> AnalyseOut:
    c = advice.consistency
    return AnalyseOut(
        rules=rules_out(advice.rules),
        consistent=c.consistent,
        count=c.count,
        count_is_lower_bound=c.count_is_lower_bound,
        candidates=[str(code) for code in c.codes[:WEB_LISTED]],
        solved=advice.solved,
        message=c.message(),
        suspects=[
            SuspectOut(number=s.number, guess=str(s.guess), given=str(s.given), correction=str(s.correction))
            for s in c.suspects
        ],
        strategies=[
            Advised(
                strategy=choice.strategy,
                guess=str(choice.guess),
                measure=choice.measure,
                ranked=figures(choice.ranked) if all(g.figures is not None for g in choice.ranked) else [],
            )
            for choice in advice.choices
        ],
        left_out=[LeftOut(strategy=name, reason=why) for name, why in advice.left_out],
    )


@router.post("/analyse", response_model=AnalyseOut)
def analyse_api(request: Request, body: AnalyseIn) -> AnalyseOut:
    """The codes that fit the scored guesses (counted, the first 50 listed), and when none does, the
    score most likely wrong; and the best next guesses of the worst-case (Knuth), expected-size (Irving),
    entropy (Neuwirth), most-parts (Kooi) and simple strategies, with their figures.

    Nothing is changed: no session or CSRF token is needed. Rules whose analysis would take more than a
    request may spend are refused (400); a strategy too costly for them is left out with the reason. Too
    many analyses from one client lately, or a server busy with others (one worked out at a time, a few
    waiting their turn up to 10 s), is 429 with ``Retry-After``."""
    rules = body.rules()
    return advice_out(analyse(request, rules, "\n".join(body.scored)))


class StrategyOut(BaseModel):
    strategy: str
    first: str = Field(description="Its first guess.")
    secrets: int
    total: int = Field(description="Guesses over every secret.")
    average: float
    max: int = Field(description="The worst case.")
    distribution: dict[str, int] = Field(description="Secrets solved in each round, keyed by round.")
    seconds: float = Field(description="What building its tree took.")
    conventions: dict[str, Any]
    cached: bool = Field(description="Whether it was kept from an earlier request.")


class StrategiesOut(BaseModel):
    rules: dict[str, Any]
    secrets: int
    results: list[StrategyOut]
    left_out: list[LeftOut] = Field(description="Strategies too costly for these rules, with why.")


def comparison_out(comparison: Comparison) -> StrategiesOut:
    return StrategiesOut(
        rules=rules_out(comparison.rules),
        secrets=comparison.rules.size,
        results=[
            StrategyOut(strategy=s.strategy, first=str(s.first), cached=s.cached, **s.as_dict())
            for s in comparison.summaries
        ],
        left_out=[LeftOut(strategy=name, reason=why) for name, why in comparison.left_out],
    )


@router.get("/strategies", response_model=StrategiesOut)
def strategies_api(request: Request, rules: Annotated[Rules, Depends(rules_query)]) -> StrategiesOut:
    """Every codebreaker played against every secret of a rule set, side by side: total guesses, average,
    worst case, and the secrets solved in each round (as ``keypeg analyze --compare --json``).

    Results are kept, so a second request is answered at once. A strategy too costly for the rules
    (two-step, optimal or genetic on bigger games) is left out with the reason; rules too big for any
    are refused (400). Too many trees to build from one client lately, or a server busy building others
    (one worked out at a time, a few waiting their turn up to 10 s), is 429 with ``Retry-After``; kept
    results are always answered."""
    return comparison_out(strategies(request, rules))
