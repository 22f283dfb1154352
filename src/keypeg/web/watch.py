"""Watch the computer play: the page (``GET /watch``) and the same game as JSON (``GET /api/watch``), over
:mod:`keypeg.services.watch`.

A watched game's address names everything that makes it: the rules (as the rules form writes them), the
strategy, the seed (which draws the secret, and is the strategy's for those that draw) or the secret itself.
An address without a seed is sent on (303) to one with a new random seed, so every game shown can be shared
and reloaded. Without JavaScript the page shows the whole game, or its first N steps (``?step=N``) with
links to the next and previous steps; ``static/watch.js`` plays it step by step at the viewer's speed.

Watching needs no session: it changes nothing. A game is played within a request's budget
(:data:`keypeg.limits.WEB_BUDGET`), after the worker's analysis gate (:func:`keypeg.web.fair_share.analysis`);
a game kept from an earlier request is answered at once, never waiting at the gate.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

from keypeg.analysis.cost import Estimate
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.services.accounts import ThrottledError
from keypeg.services.watch import DEFAULT_STRATEGY, STRATEGIES, WatchedGame, watch
from keypeg.strategies import canonical_name
from keypeg.text import visible
from keypeg.web.analysis_api import GatedBudget
from keypeg.web.analysis_pages import label
from keypeg.web.api import ERRORS, FiguresOut, figures, rules_out, rules_query
from keypeg.web.fair_share import analysis
from keypeg.web.pages import RulesForm, form_query, page, redirect

__all__ = ["api", "pages", "SEEDS", "StepBudget", "WatchOut", "WatchStepOut", "address", "game_out"]

pages = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api", responses=ERRORS, tags=["watch"])

SEEDS = 1 << 53
"""Seeds are drawn below this (a whole number JSON and JavaScript keep exactly)."""
SPEEDS = (0.5, 5.0, 1.5)
"""The page's speed: the fastest and slowest seconds a step, and the one it starts at."""


class StepBudget(GatedBudget):
    """A watched game's budget: a request's, opened once the gate lets the work in, each decision checked
    against what is left of it. A decision's estimate counts until it is made; then the time it took does
    (the next decision is checked against the time really left, not against every estimate so far: the
    genetic codebreaker's are a second each, its decisions a tenth)."""

    def check(self, estimate: Estimate) -> None:
        """The gate (the first time), then the budget's check of the next decision."""
        if self._budget is not None:
            self._budget.spent = self._budget.elapsed()  # the decisions made so far: the time they took
        super().check(estimate)


def watched(request: Request, rules: Rules, strategy: str, seed: int, secret: str | None) -> WatchedGame:
    """The game, played within a request's budget after the gate (a kept game at once)."""
    with analysis(request) as gate:
        return watch(rules, strategy, seed=seed, secret=secret or None, check=StepBudget(gate).check)


def address(
    fields: dict[str, str],
    strategy: str,
    seed: int,
    secret: str | None = None,
    *,
    step: int | None = None,
    json: bool = False,
) -> str:
    """The address of a game: its page (or with ``json`` its JSON), from the rule fields as the form writes
    them (empty ones left out, but the preset, which is empty for rules of one's own), the strategy, the
    secret if one was chosen, and the seed; ``step`` shows the page's first steps only."""
    query: dict[str, str] = {}
    for key, value in fields.items():
        if json and key in ("repeats", "blanks") and value:
            query[key] = "true" if value == "yes" else "false"
        elif value or (key == "variant" and not json):
            query[key] = value
    query["strategy"] = strategy
    if secret:
        query["secret"] = secret
    query["seed"] = str(seed)
    if step is not None:
        query["step"] = str(step)
    return f"{'/api/watch' if json else '/watch'}?{urlencode(query)}"


def _fields(form: RulesForm) -> dict[str, str]:
    return {
        "variant": form.variant,
        "pegs": form.pegs,
        "colors": form.colors,
        "rows": form.rows,
        "repeats": form.repeats,
        "blanks": form.blanks,
        "feedback": form.feedback,
    }


def _count(text: str, what: str, below: int) -> int:
    """A query's whole number (bad input naming ``what`` otherwise)."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 16 or int(text) >= below:
        raise KeypegError(f"{what} must be a whole number from 0 to {below - 1:,}, not {visible(text, 20)!r}")
    return int(text)


# -- the page -------------------------------------------------------------------------------------------

Param = Annotated[str, Query(max_length=64)]


@pages.get("/watch", response_class=HTMLResponse)
def watch_page(
    request: Request,
    fields: Annotated[RulesForm, Depends(form_query)],
    strategy: Param = DEFAULT_STRATEGY,
    secret: Param = "",
    seed: Param = "",
    step: Param = "",
) -> Response:
    """The computer breaks a code step by step: its guesses, their scores, the codes left and why."""
    game: WatchedGame | None = None
    shown: int | None = None
    error = ""
    rules: Rules | None = None
    try:
        rules = fields.rules()
        name = canonical_name(strategy)
        if not seed.strip():  # a new game: an address of its own, to share and reload
            return redirect(address(_fields(fields), name, secrets.randbelow(SEEDS), secret.strip() or None, step=None))
        number = _count(seed, "the seed", SEEDS)
        game = watched(request, rules, name, number, secret.strip() or None)
        if step.strip():
            shown = min(_count(step, "the step", 1000), len(game.steps))
    except ThrottledError:
        raise
    except KeypegError as refused:
        error = str(refused)
    here = _fields(fields)
    chosen_secret = secret.strip() or None

    def link(*, other: str | None = None, step: int | None = None, json: bool = False) -> str:
        """This game's address, or with another strategy, or its first ``step`` steps, or its JSON."""
        assert game is not None
        secret_shown = str(game.secret) if other else chosen_secret  # another strategy: the same secret, named
        return address(here, other or game.asked, game.seed, secret_shown, step=step, json=json)

    return page(
        request,
        "watch.html",
        status=400 if error else 200,
        active="Watch",
        chosen=fields,
        strategies=STRATEGIES,
        strategy=strategy,
        secret=secret,
        rules=rules,
        game=game,
        shown=shown,
        error=error,
        label=label,
        speeds=SPEEDS,
        link=link,
    )


# -- the JSON API ---------------------------------------------------------------------------------------


class WatchStepOut(BaseModel):
    number: int = Field(description="The guess's number, from 1.")
    guess: str
    black: int
    white: int
    before: int = Field(description="Codes that fit the scores before this guess.")
    after: int = Field(description="Codes that fit once this guess is scored (1 when it broke the code).")
    reason: str = Field(description="Why the strategy chose this guess, in one line, from its figures.")
    over: str = Field(description="What the figures split: 'fitting codes', 'eligible set' or 'unavailable'.")
    measure: str = Field(description="What the strategy's costs measure (smaller is better), or how it orders.")
    forgotten: list[int] = Field(description="Earlier guesses whose scores this one contradicts (careless only).")
    ranked: list[FiguresOut] = Field(description="The guess played, then the runners-up, with their figures.")


class WatchOut(BaseModel):
    rules: dict[str, Any]
    strategy: str = Field(description="The strategy that played.")
    asked: str = Field(description="The strategy asked for (another plays when it cannot: see note).")
    note: str | None = Field(description="Why another strategy played, if one did.")
    about: str = Field(description="What the strategy does, in one line.")
    secret: str = Field(description="The code the computer broke (its own game: nothing is hidden).")
    seed: int = Field(description="The seed that drew the secret (and the strategy's, for those that draw).")
    solved: bool = Field(description="Whether the code was broken within the rows.")
    outcome: str
    address: str = Field(description="The page of this game: reload or share it.")
    cached: bool = Field(description="Whether the game was kept from an earlier request.")
    steps: list[WatchStepOut]


def game_out(game: WatchedGame, where: str) -> WatchOut:
    """The JSON of a watched game whose page is at ``where``."""
    return WatchOut(
        rules=rules_out(game.rules),
        strategy=game.strategy,
        asked=game.asked,
        note=game.note,
        about=game.about,
        secret=str(game.secret),
        seed=game.seed,
        solved=game.solved,
        outcome=game.outcome,
        address=where,
        cached=game.cached,
        steps=[
            WatchStepOut(
                number=s.number,
                guess=str(s.guess),
                black=s.feedback.black,
                white=s.feedback.white,
                before=s.before,
                after=s.after,
                reason=s.reason,
                over=s.over,
                measure=s.measure,
                forgotten=list(s.forgotten),
                ranked=figures(g for g in s.ranked if g.figures is not None),
            )
            for s in game.steps
        ],
    )


def _flag(value: bool | None) -> str:
    return "" if value is None else "yes" if value else "no"


@api.get("/watch", response_model=WatchOut)
def watch_api(
    request: Request,
    variant: Annotated[str | None, Query(min_length=1, max_length=64, description="A preset (classic).")] = None,
    pegs: Annotated[int | None, Query(ge=1, le=15)] = None,
    colors: Annotated[int | None, Query(ge=2, le=26)] = None,
    repeats: bool | None = None,
    blanks: bool | None = None,
    rows: Annotated[int | None, Query(ge=1, le=100)] = None,
    strategy: Annotated[
        str, Query(min_length=1, max_length=64, description=f"A codebreaker: {', '.join(STRATEGIES)}.")
    ] = DEFAULT_STRATEGY,
    secret: Annotated[
        str | None, Query(min_length=1, max_length=64, description="The code to break (drawn from the seed if not).")
    ] = None,
    seed: Annotated[
        int | None, Query(ge=0, le=SEEDS - 1, description="Draws the secret; a new one if not given.")
    ] = None,
) -> WatchOut:
    """The computer breaks a code with a strategy, and every step: its guess, the score, the codes that
    fit before and after, and why it chose the guess (the figures it ranked by, and its runners-up).

    The secret is drawn from the seed unless given; a new random seed when none is (the answer names it, and
    the address of the game's page). Changes nothing: no session or CSRF token is needed. Rules of more
    than 100,000 codes, or a game whose decisions would take more than a request may spend, are refused
    (400); too many analyses from one client lately, or a server busy with others, is 429 with
    ``Retry-After``. A game watched before is answered at once."""
    rules = rules_query(variant, pegs, colors, repeats, blanks, rows)
    name = canonical_name(strategy)
    number = secrets.randbelow(SEEDS) if seed is None else seed
    game = watched(request, rules, name, number, secret)
    default = variant is None and pegs is None and colors is None
    fields = {
        "variant": variant if variant is not None else "classic" if default else "",
        "pegs": "" if pegs is None else str(pegs),
        "colors": "" if colors is None else str(colors),
        "rows": "" if rows is None else str(rows),
        "repeats": _flag(repeats),
        "blanks": _flag(blanks),
    }
    return game_out(game, address(fields, name, number, secret))
