"""The strategy explorer's pages and API: a strategy's whole tree on a game, one node an address.

A node's address is ``/explore/{game}/{strategy}/{answers}``: the game a preset (``classic``) or pegs x
colours (``5x7``, ``4x10-norepeats``, ``4x6-blanks``), the strategy a name or alias of the registry
(``most-parts``, ``knuth``, ``optimal``), then the answers given since the start, one a part
(``/explore/classic/most-parts/1,0/2,1``); ``GET /api/explore/{game}/{strategy}?path=1,0/2,1`` answers the
same node as JSON. The page's form is sent by GET to ``/explore``, which sends the browser on to the
address it names (a plain redirect: no script needed).

Trees come from :mod:`keypeg.services.explorer`, kept once built; one to build is within a request's budget
and passes the worker's gate (:func:`keypeg.web.fair_share.analysis`) first, as the Strategies page's
trees do: rules too big are refused (400) with the reason, and a kept tree never waits.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

from keypeg.analysis.cost import TooCostlyError
from keypeg.errors import KeypegError, NotFoundError
from keypeg.limits import WEB_BUDGET
from keypeg.services import explorer
from keypeg.services.accounts import ThrottledError
from keypeg.services.explorer import Branch, ExploredNode
from keypeg.strategies import NAMES
from keypeg.variants import VARIANTS
from keypeg.web.analysis_api import GatedBudget
from keypeg.web.analysis_pages import about, label
from keypeg.web.api import ERRORS, rules_out
from keypeg.web.fair_share import analysis
from keypeg.web.pages import RulesForm, page

__all__ = ["api", "pages", "explored", "ExploreOut", "node_out", "DEFAULT_GAME", "DEFAULT_STRATEGY"]

api = APIRouter(prefix="/api", responses=ERRORS, tags=["analysis"])
pages = APIRouter(include_in_schema=False)

DEFAULT_GAME = "classic"
DEFAULT_STRATEGY = "most-parts"


def explored(request: Request, game: str, strategy: str, path: str) -> ExploredNode:
    """The node ``path`` leads to in ``strategy``'s tree on ``game``: :class:`NotFoundError` for an unknown
    game or strategy or a node no secret reaches, :class:`KeypegError` for a path written wrong or a tree
    beyond a request's budget, :class:`ThrottledError` when the gate refuses a tree to build."""
    rules = explorer.rules_named(game)
    name = explorer.strategy_named(strategy)
    answers = explorer.parse_path(path, rules)
    with analysis(request) as gate:  # taken only if the tree is to be built: a kept tree never waits
        budget = GatedBudget(gate)
        return explorer.explore(rules, name, answers, check=budget.check, watch=budget.watch)


# -- the JSON API -------------------------------------------------------------------------------------


class BranchOut(BaseModel):
    answer: str = Field(description="The answer: 'black,white', or one number under black or colours feedback.")
    black: int
    white: int
    secrets: int = Field(description="The node's secrets that get this answer.")
    expected: float = Field(description="The guesses they need on average, counted from the start of the game.")
    worst: int = Field(description="The guesses they need at worst, counted from the start of the game.")
    breaks: bool = Field(description="Whether the answer breaks the code: the node's guess was the secret.")
    path: str | None = Field(description="The path of the node this answer leads to (null when it breaks the code).")
    next_guess: str | None = Field(description="The guess played there (null when the answer breaks the code).")


class StepOut(BaseModel):
    guess: str
    answer: str
    path: str = Field(description="The path of the node the guess was played at.")


class ExploreOut(BaseModel):
    rules: dict[str, Any]
    game: str = Field(description="The game as addresses name it: a preset, or pegs x colours such as 5x7.")
    strategy: str
    path: str = Field(description="The answers from the start to this node, such as '1,0/2,1' (empty: the start).")
    trail: list[StepOut] = Field(description="The guesses played on the way here, with their answers.")
    guess: str = Field(description="The guess the strategy plays at this node.")
    round: int = Field(description="The guess's number: 1 for the first.")
    secrets: int = Field(description="The secrets that reach this node.")
    total: int = Field(description="The guesses they need in all, counted from the start of the game.")
    expected: float = Field(description="total / secrets: the guesses they need on average.")
    worst: int = Field(description="The guesses they need at worst.")
    branches: list[BranchOut] = Field(description="The node's secrets split by answer, in answer order.")
    listed: list[str] = Field(
        description=f"The secrets that reach the node, in code order, when they are at most {explorer.LISTED}."
    )
    tree_total: int = Field(description="The whole tree's guesses over every secret.")
    tree_max: int = Field(description="The whole tree's worst case.")
    seconds: float = Field(description="What building the tree took.")
    cached: bool = Field(description="Whether the tree was kept from an earlier request.")
    page: str = Field(description="The node's page.")


def branch_out(node: ExploredNode, branch: Branch) -> BranchOut:
    return BranchOut(
        answer=node.rules.key(branch.answer),
        black=branch.answer.black,
        white=branch.answer.white,
        secrets=branch.secrets,
        expected=branch.expected,
        worst=branch.worst,
        breaks=branch.breaks,
        path=None if branch.breaks else explorer.path_text((*node.path, branch.answer), node.rules),
        next_guess=None if branch.next_guess is None else str(branch.next_guess),
    )


def node_out(node: ExploredNode) -> ExploreOut:
    """A node as the API answers it."""
    return ExploreOut(
        rules=rules_out(node.rules),
        game=node.game,
        strategy=node.strategy,
        path=explorer.path_text(node.path, node.rules),
        trail=[
            StepOut(guess=str(s.guess), answer=node.rules.key(s.answer), path=explorer.path_text(s.path, node.rules))
            for s in node.trail
        ],
        guess=str(node.guess),
        round=node.round,
        secrets=node.secrets,
        total=node.total,
        expected=node.expected,
        worst=node.worst,
        branches=[branch_out(node, b) for b in node.branches],
        listed=[str(code) for code in node.listed],
        tree_total=node.tree.total,
        tree_max=node.tree.max,
        seconds=round(node.seconds, 4),
        cached=node.cached,
        page=node.address(),
    )


GameParam = Annotated[
    str,
    Path(
        min_length=1,
        max_length=40,
        description="A preset (classic, super, bulls-and-cows...) or pegs x colours: 5x7, 4x10-norepeats, "
        "4x6-blanks, 4x6-colours.",
        examples=["classic"],
    ),
]
StrategyParam = Annotated[
    str,
    Path(
        min_length=1,
        max_length=40,
        description=f"A strategy or its alias: {', '.join(NAMES)}.",
        examples=["most-parts"],
    ),
]


@api.get("/explore/{game}/{strategy}", response_model=ExploreOut)
def explore_api(
    request: Request,
    game: GameParam,
    strategy: StrategyParam,
    path: Annotated[
        str,
        Query(
            max_length=explorer.MAX_PATH * 6,
            description="The answers from the start, each 'black,white', separated by '/': 1,0/2,1. Empty: the start.",
            examples=["1,0/2,1"],
        ),
    ] = "",
) -> ExploreOut:
    """A node of a strategy's whole tree (as ``keypeg analyze`` builds it): the guess played there and the
    secrets split by answer, each part with its count and the guesses it needs on average and at worst.

    Trees are kept once built, so a node of a kept tree is answered at once. A game or strategy unknown, or a
    node no secret reaches, is 404; a path written wrong, or a tree beyond what a request may spend (two-step,
    genetic or optimal on bigger games), 400. Too many trees to build from one client lately, or a server busy
    building others, is 429 with ``Retry-After``."""
    return node_out(explored(request, game, strategy, path))


# -- the pages ----------------------------------------------------------------------------------------


def _status(error: KeypegError) -> int:
    return 404 if isinstance(error, NotFoundError) else 400


def _show(
    request: Request,
    game: str,
    strategy: str,
    path: str,
    chosen: RulesForm | None = None,
    error: str = "",
    status: int = 200,
) -> Response:
    node: ExploredNode | None = None
    costly = False
    if not error:
        try:
            node = explored(request, game, strategy, path)
        except ThrottledError:
            raise
        except KeypegError as refused:
            error, status, costly = str(refused), _status(refused), isinstance(refused, TooCostlyError)
    if chosen is None:
        known = game if game in VARIANTS else ""
        chosen = RulesForm(variant=known) if known or node is None else _own(node)
    shown = node.strategy if node is not None else strategy
    most = max((b.secrets for b in node.branches), default=1) if node is not None else 1
    return page(
        request,
        "explore.html",
        status=status,
        active="Explore",
        node=node,
        rules=node.rules if node is not None else None,
        chosen=chosen,
        strategy=shown,
        strategies=NAMES,
        label=label,
        about=about,
        most=most,
        error=error,
        costly=costly,
        budget=WEB_BUDGET[0],
        quote=quote,
        path_text=explorer.path_text,
    )


def _own(node: ExploredNode) -> RulesForm:
    """The form's fields for a game of one's own."""
    r = node.rules
    repeats, blanks = "no" if not r.repeats else "yes", "yes" if r.blanks else "no"
    return RulesForm("", str(r.pegs), str(r.colors), "", repeats, blanks, r.feedback)


Param = Annotated[str, Query(max_length=40)]


@pages.get("/explore", response_class=HTMLResponse)
def explore_form(
    request: Request,
    game: Param = "",
    strategy: Param = "",
    pegs: Param = "",
    colors: Param = "",
    repeats: Param = "",
    blanks: Param = "",
    feedback: Param = "",
) -> Response:
    """The explorer at the start of classic Mastermind with the most-parts strategy; the form, sent by
    GET with a game and a strategy, sends the browser on to the address they name."""
    if not (game or strategy or pegs or colors):
        return _show(request, DEFAULT_GAME, DEFAULT_STRATEGY, "")
    chosen = RulesForm(game, pegs, colors, "", repeats, blanks, feedback)
    try:
        if game and not (pegs or colors or repeats or blanks or feedback):
            named = explorer.game_name(explorer.rules_named(game))
        elif feedback and not (pegs or colors or repeats or blanks):
            named = explorer.game_name(chosen.rules())  # a preset's game told otherwise: classic-colours
        elif pegs or colors or repeats or blanks or feedback:
            named = chosen.rules().slug  # one's own game: pegs x colours, as addresses name it
        else:
            named = DEFAULT_GAME  # only a strategy chosen: classic's tree
        name = explorer.strategy_named(strategy or DEFAULT_STRATEGY)
    except KeypegError as refused:
        return _show(request, game, strategy, "", chosen, str(refused), _status(refused))
    return RedirectResponse(f"/explore/{quote(named)}/{quote(name)}", status_code=303)


@pages.get("/explore/{game}/{strategy}", response_class=HTMLResponse)
def explore_root(request: Request, game: str, strategy: str) -> Response:
    """The start of a strategy's tree: its first guess and the secrets split by answer."""
    return _show(request, game, strategy, "")


@pages.get("/explore/{game}/{strategy}/{path:path}", response_class=HTMLResponse)
def explore_node(request: Request, game: str, strategy: str, path: str) -> Response:
    """The node the answers of ``path`` lead to."""
    return _show(request, game, strategy, path)
