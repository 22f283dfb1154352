"""Records on the web: your history and stats, and a game's top 10 (rated games only, the CLI's rule)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from keypeg.errors import NotFoundError
from keypeg.limits import TOP_RULE
from keypeg.rules import Rules
from keypeg.services import ratings, records
from keypeg.variants import game_label
from keypeg.web.api import ERRORS, rules_out, rules_query, session_of
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
        rules=rules_out(rules),
        label=game_label(rules),
        rule=TOP_RULE,
        top=[
            RankedOut(
                rank=r.rank, player=r.player, games=r.games, average=r.average, best=r.best, last=r.last.isoformat()
            )
            for r in board
        ],
    )


class RatingOut(BaseModel):
    rating: float
    rd: float = Field(description="The rating's deviation (Glicko's RD).")
    volatility: float


class RatedOut(RatingOut):
    rank: int | None = None
    player: str
    provisional: bool = Field(
        description="Whether the rating is provisional: its deviation above 110, or under 5 results against people."
    )
    results: int = Field(description="Rated results (matches, rooms, seeding games) the rating rests on.")
    last: str | None


class RatingsOut(BaseModel):
    rule: str
    ratings: list[RatedOut]


class RatingChangeOut(BaseModel):
    kind: str = Field(description="match, room, or solo (a first game against the computer's levels).")
    event: str
    at: str
    before: RatingOut
    after: RatingOut
    change: float


class PlayerRatingOut(BaseModel):
    player: str
    rating: RatedOut | None = Field(description="Null before the player's first rated result.")
    changes: list[RatingChangeOut] = Field(description="The rating's changes, newest first.")


def _rating_out(rating: Any) -> RatingOut:
    return RatingOut(rating=rating.rating, rd=rating.rd, volatility=rating.volatility)


def _rated_out(p: ratings.PlayerRating, rank: int | None = None) -> RatedOut:
    last = p.last.isoformat() if p.last is not None else None
    r = p.rating
    return RatedOut(
        rank=rank,
        player=p.player,
        rating=r.rating,
        rd=r.rd,
        volatility=r.volatility,
        provisional=p.provisional,
        results=p.results,
        last=last,
    )


@router.get("/ratings", response_model=RatingsOut)
def rating_leaderboard(request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 10) -> RatingsOut:
    """The rating leaderboard (Glicko-2, games between people): the established ratings ranked, best first, then
    the provisional ones, best first, with no rank (null)."""
    board = ratings.leaderboard(store_of(request), limit=limit)
    return RatingsOut(rule=ratings.RATING_RULE, ratings=[_rated_out(p, rank) for rank, p in ratings.ranked(board)])


@router.get("/ratings/{player:path}", response_model=PlayerRatingOut)
def player_rating(request: Request, player: str, limit: Annotated[int, Query(ge=1, le=1000)] = 20) -> PlayerRatingOut:
    """A player's rating and its changes, newest first (the name as registered, any character in it; a
    ``/`` may be sent as it is or as ``%2F``); 404 for a name nobody registered."""
    store = store_of(request)
    found = ratings.rating_of(store, player)
    if found is None and not ratings.known(store, player):
        raise NotFoundError(f"no player named {player!r}")
    changes = [
        RatingChangeOut(
            kind=c.kind,
            event=c.event_id,
            at=c.at.isoformat(),
            before=_rating_out(c.before),
            after=_rating_out(c.after),
            change=c.change,
        )
        for c in ratings.changes(store, player, limit=limit)
    ]
    return PlayerRatingOut(
        player=found.player if found else player,
        rating=_rated_out(found, ratings.rank_of(store, found.player)) if found else None,
        changes=changes,
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
