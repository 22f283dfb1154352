"""A match's life, for every face: start it, start each game, count each finished game, and what its
player may see of it.

A match against the computer on the web is kept in the store and moved on by compare-and-swap (only one
request counts a game); the terminal's matches are kept in a match file and, when recorded, in the store
too. A match of someone else's is "not found", exactly like one that does not exist.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from keypeg.code import Code
from keypeg.errors import ConflictError, KeypegError, NotFoundError, UnavailableError
from keypeg.game import Match
from keypeg.play.matches import MatchSession
from keypeg.rules import Rules
from keypeg.services import games
from keypeg.services.recording import continue_game

if TYPE_CHECKING:
    from keypeg.store import Store

__all__ = [
    "COMPUTER",
    "YOU",
    "MatchView",
    "OpenMatch",
    "begin_game",
    "count_game",
    "load",
    "next_game",
    "public_id_of",
    "start_against_computer",
    "view",
]

COMPUTER, YOU = "computer", "you"
"""The two seats of a match against the computer on the web (the games are recorded under the player)."""


@dataclass
class OpenMatch:
    """A match loaded for a use case: the play layer's match, its store id and public id, and the version
    it was read at (what a compare-and-swap expects)."""

    match: MatchSession
    match_id: int
    public_id: str | None
    version: int


def start_against_computer(store: Store, player: str, rules: Rules, games_count: int, level: int) -> str:
    """Start a match of ``player`` against the computer (the computer makes the first code) and its first
    game; the match's public id."""
    games.check_match_games(games_count)
    games.check_thinkable(rules, "a match against the computer")
    match = MatchSession(rules, Match((COMPUTER, YOU), games=games_count), computer=COMPUTER, level=level)
    public_id = games.new_id()
    match.match_id = store.matches.save(json.dumps(match.to_state()), player=player, public_id=public_id)
    opened = OpenMatch(match, match.match_id, public_id, 0)
    _start_next(store, player, opened)
    return public_id


def load(store: Store, player: str | None, public_id: str) -> OpenMatch:
    """The match of public id ``public_id``, if it is ``player``'s (:class:`NotFoundError` otherwise)."""
    try:
        match_id, owner, state, version = store.matches.owned(public_id)
    except NotFoundError:
        raise NotFoundError("no such match") from None
    if player is None or owner != player:
        raise NotFoundError("no such match")
    try:
        match = MatchSession.from_state(json.loads(state))
    except (ValueError, KeypegError):
        raise UnavailableError("the match's record is damaged") from None
    return OpenMatch(match, match_id, public_id, version)


def begin_game(
    store: Store | None,
    match: MatchSession,
    secret: Code | None = None,
    *,
    player: str | None = None,
    public: bool = False,
) -> games.OpenGame:
    """Start the match's next game (between two people ``secret`` is the codemaker's code), recorded when
    there is a ``store`` under ``player`` (by default the person of the seat: the web's matches against
    the computer name their seats ``you`` and ``computer``), with a public id, as the web shows games,
    when ``public``; the match then points at it."""
    game = match.start(secret)
    person = player if player is not None else match.seat()[1]
    opened = games.start(store, person, game, match_id=match.match_id, public=public)
    match.current_id = opened.keeper.game_id
    return opened


def _nothing_to_count(match: MatchSession) -> ConflictError:
    return ConflictError("the match is over" if match.is_over else "no game to count")


def count_game(match: MatchSession, game: games.OpenGame | None = None) -> None:
    """Count the match's game just played (``game``, when the match holds it only by id); a game still
    being played is a conflict: it must be finished (or resigned) first."""
    if game is not None:
        match.resume(game.game, game.keeper.game_id)
    if match.current is None:
        raise _nothing_to_count(match)
    if not match.current.is_over:
        raise ConflictError("finish this game first (or resign it)")
    match.finish()


def next_game(store: Store, player: str, opened: OpenMatch) -> None:
    """Count the match's finished game and start the next: only one request can count a game (the
    others get a conflict)."""
    match = opened.match
    if match.current_id is None:
        raise _nothing_to_count(match)
    game, keeper = continue_game(store, match.current_id, player, match_id=opened.match_id, over_ok=True)
    count_game(match, games.OpenGame(game, keeper))
    _save(store, opened)
    _start_next(store, player, opened)


def _save(store: Store, opened: OpenMatch) -> None:
    """Save the match if nobody moved it on since it was read (a conflict otherwise)."""
    store.matches.save(json.dumps(opened.match.to_state()), opened.match_id, expect=opened.version)
    opened.version += 1


def _start_next(store: Store, player: str, opened: OpenMatch) -> None:
    """Start the match's next game (if any) on the state just saved, and save the match."""
    if opened.match.is_over:
        return
    begin_game(store, opened.match, player=player, public=True)
    _save(store, opened)


@dataclass(frozen=True)
class MatchView:
    """A match as its player sees it: the games played, the points, the game being played."""

    rules: Rules
    games: int
    level: int
    played: tuple[tuple[str, int, bool, int], ...]
    """Per finished game: who made the code (``you`` or ``computer``), the guesses, whether it was broken,
    and the codemaker's points."""
    you: int
    computer: int
    over: bool
    winner: str | None
    game: str | None
    """The public id of the game being played."""
    game_over: bool
    """Whether that game is over (counted when the player goes on to the next)."""


def view(store: Store, opened: OpenMatch) -> MatchView:
    """What the player may see of a match."""
    match = opened.match
    points = match.points()
    game, game_over = None, False
    if match.current_id is not None:
        record = store.games.saved(match.current_id).record
        game, game_over = record.public_id, record.outcome is not None
    return MatchView(
        rules=match.rules,
        games=match.match.games,
        level=match.level,
        played=tuple((g.codemaker, g.guesses, g.broken, g.points(match.match.points_per)) for g in match.match.played),
        you=points.get(YOU, 0),
        computer=points.get(COMPUTER, 0),
        over=match.is_over,
        winner=match.winner(),
        game=game,
        game_over=game_over,
    )


def public_id_of(store: Store, match_id: int) -> str | None:
    """The public id of match ``match_id`` (the web links a match's game to its match)."""
    return store.matches.public_id(match_id)
