"""Records on the web: your history and stats, and a game's top 10 (rated games only, the CLI's rule)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from keypeg.limits import TOP_RULE
from keypeg.rules import Rules
from keypeg.services import records
from keypeg.variants import game_label
from keypeg.web.api import ERRORS, rules_query, session_of
from keypeg.web.sessions import WebSession, store_of

__all__ = ["router"]

router = APIRouter(prefix="/api", responses=ERRORS)


class RankedOut(BaseModel):
    rank: int
    player: str
    games: int
    average: float
    best: int
    last: str


class TopOut(BaseModel):
    rules: dict[str, Any]
    label: str = Field(description="The game's name: its preset's when the rules are exactly a preset's.")
    rule: str
    top: list[RankedOut]


@router.get("/top", response_model=TopOut)
def top(request: Request, rules: Annotated[Rules, Depends(rules_query)]) -> TopOut:
    """The top 10 players of a game (classic by default)."""
    board = records.top(store_of(request), rules)
    return TopOut(
        rules=rules.as_dict(),
        label=game_label(rules),
        rule=TOP_RULE,
        top=[
            RankedOut(
                rank=r.rank, player=r.player, games=r.games, average=r.average, best=r.best, last=r.last.isoformat()
            )
            for r in board
        ],
    )


@router.get("/history")
def history(
    request: Request,
    session: Annotated[WebSession, Depends(session_of)],
    limit: Annotated[int, Query(ge=1, le=1000)] = 50,
) -> list[dict[str, Any]]:
    """Your latest games, newest first, with their moves (a game in progress without its secret)."""
    if session.player is None:
        return []
    found = records.history(store_of(request), session.player, limit=limit, with_moves=True, made=True)
    return [g.as_dict() for g in found]
