"""Ratings' use cases: record a result between people (a live match, a room), seed a new player from their
first rated games against the computer, replay every stored result to check the stored ratings, and read
the leaderboard and a player's rating and its changes.

The arithmetic is Glicko-2 (:mod:`keypeg.play.ratings`): one result is one rating period. Guests are never
rated. A person's first :data:`SEED_GAMES` rated solo games of classic Mastermind (4 pegs, 6 colours, 12 rows,
as codebreaker) each count as a result against the computer's four levels, whose ratings are fixed (measured
by ``benchmarks/level_ratings.py``, shipped in ``keypeg/data/level-ratings.json``): the player's guesses are
compared with the guesses each level needs on the same secret (fewer wins, the same draws; a game not broken
counts as the row limit plus one). Those games are counted, in the order they were played, the next time the
player's rating is computed (:func:`seed`, called by :func:`record` for every player of a result).
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from keypeg.errors import KeypegError, NotFoundError, RefusedError
from keypeg.play.ratings import Rated, Rating, provisional, rate_result
from keypeg.rules import Rules
from keypeg.services.stores import GUEST_PREFIX, GameRecord, Store, name_key
from keypeg.store.ratings import Entry, RatingValue, ResultRecord, Standing
from keypeg.store.values import aware

if TYPE_CHECKING:
    from keypeg.play.live import LiveMatch

__all__ = [
    "KINDS",
    "LEVEL_RATINGS",
    "SEED_GAMES",
    "SEED_RULES",
    "RATING_RULE",
    "MIN_CODES",
    "PAIR_DAY_LIMIT",
    "big_enough",
    "note",
    "reserved",
    "Drift",
    "PlayerRating",
    "RatingChange",
    "changes",
    "leaderboard",
    "level_guesses",
    "level_ratings",
    "places_by_score",
    "known",
    "rank_of",
    "ranked",
    "rating_of",
    "recompute",
    "result_count",
    "record",
    "record_live",
    "seed",
]

KINDS = ("match", "room")
"""The kinds of results between people :func:`record` takes (``solo`` is a seeding game's)."""
SEED_GAMES = 5
"""A person's first rated solo games that seed their rating."""
SEED_RULES = Rules(4, 6)
"""The game seeding games are of (classic Mastermind, 12 rows): the levels' ratings are measured on it."""
LEVEL_RATINGS = Path(__file__).resolve().parent.parent / "data" / "level-ratings.json"
"""The computer's levels' fixed ratings, as ``benchmarks/level_ratings.py`` measured them."""
RATING_RULE = (
    "Glicko-2 ratings of live matches and rooms between people on rules of 1,296 codes or more (a room counts "
    "as pairwise results by final place; a pair counts in 3 events a UTC day at most); a new player's first "
    "rated classic games against the computer seed it. Provisional while the deviation (RD) is above 110 or "
    "with fewer than 5 results against people: listed after the established ones, marked ?, with no rank. "
    "Guests are never rated; nor is a room a guest played in."
)
"""The leaderboard's rule, as the faces print it."""
DRIFT = 1e-9
"""A replayed value further than this from the stored one is a drift."""
MIN_CODES = 1296
"""A match or room is rated only on rules of at least this many codes (classic's size): trivial rules rate nothing."""
PAIR_DAY_LIMIT = 3
"""A pair of players' results count for ratings in at most this many events a UTC day (the first ones)."""
RESERVED = ("computer", "level1", "level2", "level3", "level4")
"""Names no person may take (their key with no spaces): the computer's labels in results."""


def reserved(name: str) -> bool:
    """Whether ``name`` is the computer's or one of its levels' labels (any case, spacing or look-alike)."""
    try:
        key = name_key(name)
    except KeypegError:
        return False
    return key.replace(" ", "") in RESERVED


def big_enough(rules: Rules) -> bool:
    """Whether a match or room on ``rules`` may be rated: at least :data:`MIN_CODES` codes."""
    return rules.size >= MIN_CODES


def note(store: Store, kind: str, event_id: str | int, rules: Rules) -> str | None:
    """One line telling whether an event that ended was rated: why not (or only partly), or how many players'
    ratings it changed; ``None`` while it is not recorded."""
    if not big_enough(rules):
        return f"not rated: rules of fewer than {MIN_CODES:,} codes (classic's size) are never rated"
    found = store.ratings.get(kind, str(event_id))
    if found is None:
        return None
    unrated = set(found.unrated)
    capped = [p for p in found.left_out if not unrated & {p[0], p[1]}]
    why = f"players' results count at most {PAIR_DAY_LIMIT} times a day (UTC) for each pair"
    if not found.changes:
        return f"not rated: {why}"
    if capped:
        return f"partly rated: {why}"
    count = len(found.changes)
    return "rated: 1 player's rating changed" if count == 1 else f"rated: {count} players' ratings changed"


@dataclass(frozen=True)
class PlayerRating:
    """A player's current rating, how many rated results it rests on, and the last one's time."""

    player: str
    rating: Rating
    results: int
    last: datetime | None
    people: int = 0
    """How many of the results were against people (a seeding game is against the computer)."""

    @property
    def provisional(self) -> bool:
        """Whether the rating is still provisional (:func:`keypeg.play.ratings.provisional`): RD above 110, or
        fewer than 5 results against people."""
        return provisional(self.rating, self.people)


@dataclass(frozen=True)
class RatingChange:
    """A player's rating before a result (idleness applied) and after it."""

    player: str
    kind: str
    event_id: str
    at: datetime
    before: Rating
    after: Rating

    @property
    def change(self) -> float:
        """The rating's change."""
        return self.after.rating - self.before.rating


@dataclass(frozen=True)
class Drift:
    """A player whose stored rating differs from the one replaying every result gives."""

    player: str
    stored: Rating | None
    replayed: Rating | None


def _rating(value: RatingValue) -> Rating:
    return Rating(value.rating, value.rd, value.volatility)


def _value(rating: Rating) -> RatingValue:
    return RatingValue(rating.rating, rating.rd, rating.volatility)


def _key(entry: Entry) -> str:
    """A place's member as :func:`~keypeg.play.ratings.rate_result` names it: ``#12`` for player 12, a
    level's label as it is."""
    return f"#{entry}" if isinstance(entry, int) else entry


def _is_guest(name: str) -> bool:
    try:
        return name_key(name).startswith(GUEST_PREFIX)
    except KeypegError:
        return name.startswith(GUEST_PREFIX)


def _write(
    store: Store,
    kind: str,
    event_id: str,
    at: datetime,
    places: Sequence[Sequence[str]],
    fixed: dict[str, Rating] | None = None,
    *,
    unrated: Sequence[str] = (),
    left_out: Sequence[tuple[str, str]] = (),
) -> tuple[ResultRecord, bool]:
    fixed = fixed or {}

    def rate(
        stored: list[list[Entry]],
        current: dict[int, Standing],
        unrated_ids: list[int],
        out: list[tuple[Entry, Entry]],
        shared: dict[frozenset[int], int],
    ) -> tuple[dict[int, tuple[RatingValue, RatingValue, int, datetime]], list[tuple[Entry, Entry]]]:
        players = {f"#{pid}": Rated(_rating(s.value), s.results, s.last) for pid, s in current.items()}
        skip = {frozenset(p) for p in out}
        ids = [e for place in stored for e in place if isinstance(e, int)]
        capped: list[tuple[Entry, Entry]] = [  # the pair's first PAIR_DAY_LIMIT events of the day count, no more
            (a, b)
            for i, a in enumerate(ids)
            for b in ids[i + 1 :]
            if frozenset((a, b)) not in skip and shared.get(frozenset((a, b)), 0) >= PAIR_DAY_LIMIT
        ]
        made = _replay(players, stored, at, fixed, [f"#{n}" for n in unrated_ids], out + capped)
        changes = {
            int(key[1:]): (_value(before), _value(after.rating), after.results, after.last or at)
            for key, (before, after) in made.items()
        }
        return changes, capped

    since = datetime(at.year, at.month, at.day, tzinfo=UTC) if kind in KINDS else None
    return store.ratings.write(
        kind,
        event_id,
        at,
        places,
        rate,
        fixed={k: _value(v) for k, v in fixed.items()},
        unrated=unrated,
        left_out=left_out,
        shared_since=since,
    )


def _replay(
    players: dict[str, Rated],
    places: list[list[Entry]],
    at: datetime,
    fixed: dict[str, Rating],
    unrated: Sequence[str],
    left_out: Sequence[tuple[Entry, Entry]],
) -> dict[str, tuple[Rating, Rated]]:
    """One stored result rated from ``players`` (the store's entries as :func:`rate_result` names them)."""
    return rate_result(
        players,
        [[_key(e) for e in place] for place in places],
        at,
        fixed=fixed,
        unrated=set(unrated),
        left_out={frozenset((_key(a), _key(b))) for a, b in left_out},
    )


def _changes(result: ResultRecord) -> list[RatingChange]:
    return [
        RatingChange(result.names.get(pid, f"#{pid}"), result.kind, result.event_id, result.at, _rating(b), _rating(a))
        for pid, (b, a) in result.changes.items()
    ]


def record(
    store: Store,
    kind: str,
    event_id: str | int,
    places: Sequence[Sequence[str]],
    *,
    at: datetime | None = None,
    losses: Sequence[tuple[str, str]] = (),
) -> list[RatingChange]:
    """Rate the result of a match or room between people: ``places`` group the players' names by final
    place, best first (a tie shares a place); each pair of players is a win, a loss or a draw. ``losses``
    are ``(player, removed)``: a loss of ``player``'s to someone the host removed, who is not rated for it
    (met at their rating). Guests are left out; with fewer than two rated players nothing is recorded. A
    pair of players counts in at most :data:`PAIR_DAY_LIMIT` events a UTC day (the first ones; in a room,
    each pair on its own): the pairs past it are left out, stored with the result. Idempotent per
    ``(kind, event_id)``: an event recorded already returns the changes it made then. Each player's first
    rated solo games are counted first (:func:`seed`)."""
    if kind not in KINDS:
        raise KeypegError(f"a rated result is a {' or a '.join(KINDS)}, not {kind!r}")
    event = str(event_id)
    found = store.ratings.get(kind, event)
    if found is not None:
        return _changes(found)
    rated = [[name for name in place if not _is_guest(name)] for place in places]
    rated = [place for place in rated if place]
    keys = [name_key(name) for place in rated for name in place]
    if len(set(keys)) != len(keys):
        raise RefusedError("a player holds one place only in a result")
    losses = [(p, k) for p, k in losses if not _is_guest(k) and any(name_key(p) == key for key in keys)]
    if sum(len(place) for place in rated) + len(losses) < 2:
        return []
    for place in rated:
        for name in place:
            seed(store, name)
    removed: list[str] = []
    for player, whom in losses:  # the removed player placed just above the player who takes the loss
        if whom not in removed and name_key(whom) not in keys:
            removed.append(whom)
            at_place = next(i for i, place in enumerate(rated) if any(name_key(n) == name_key(player) for n in place))
            rated.insert(at_place, [whom])
    shown = {name_key(n): n for place in rated for n in place}
    beaten = {(name_key(p), name_key(k)) for p, k in losses}
    out = [
        (whom, other)
        for whom in removed
        for other in shown.values()
        if other != whom and (name_key(other), name_key(whom)) not in beaten
    ]
    when = aware(at) if at is not None else datetime.now(UTC)
    return _changes(_write(store, kind, event, when, rated, unrated=removed, left_out=out)[0])


def places_by_score(scores: dict[str, float], *, higher_better: bool = True) -> list[list[str]]:
    """Names grouped by score, best first (equal scores share a place).

    >>> places_by_score({"ann": 3, "bob": 5, "cy": 3})
    [['bob'], ['ann', 'cy']]
    """
    ordered = sorted(set(scores.values()), reverse=higher_better)
    return [[name for name, score in scores.items() if score == value] for value in ordered]


def record_live(store: Store, public_id: str, live: LiveMatch, *, at: datetime | None = None) -> list[RatingChange]:
    """Rate a live match between two people once it is over (by points: the winner first, a draw shares the
    place); nothing while it goes on. Idempotent, as :func:`record`."""
    if not live.is_over or live.match is None or not big_enough(live.rules):
        return []
    return record(store, "match", public_id, places_by_score(dict(live.match.points())), at=at)


# -- seeding from the computer's levels ----------------------------------------------------------------


@functools.cache
def level_ratings() -> dict[str, Rating]:
    """The computer's levels' fixed ratings, by label (``level 1`` to ``level 4``)."""
    data = json.loads(LEVEL_RATINGS.read_text(encoding="utf-8"))
    return {f"level {k}": Rating(v["rating"], v["rd"], v["volatility"]) for k, v in data["levels"].items()}


def level_guesses(level: int, rules: Rules, secret: str, *, seed: int | None = None) -> int:
    """The guesses ``level`` needs to break ``secret`` (the row limit plus one when it does not). A level that
    draws at random is seeded by default from the secret (CRC-32 of its text): the same game each time for
    one secret, a different one for each secret, as players meet it (one seed for all would rate its draws)."""
    from keypeg.game import Game
    from keypeg.knowledge import Knowledge
    from keypeg.play.levels import level_strategy

    code = rules.parse(secret)
    strategy = level_strategy(level, rules, seed=zlib.crc32(str(code).encode()) if seed is None else seed)
    game, knowledge = Game(rules, code), Knowledge(rules)
    while not game.is_over:
        guess = strategy.next_guess(knowledge)
        knowledge = knowledge.add(guess, game.guess(guess))
    outcome = game.outcome()
    assert outcome is not None
    return outcome.guesses if outcome.solved else rules.rows + 1


def _seeding(game: GameRecord) -> bool:
    return (
        game.rated
        and game.role == "breaker"
        and game.maker is None
        and game.guesses > 0
        and game.rules.game == SEED_RULES.game
        and game.rules.rows == SEED_RULES.rows
    )


def seed(store: Store, player: str) -> list[RatingChange]:
    """Count ``player``'s first :data:`SEED_GAMES` rated solo games of classic Mastermind not counted yet, in
    the order they were played, each a result against the four levels on its secret. Guests: nothing."""
    if _is_guest(player):
        return []
    counted = store.ratings.counted(player, "solo")
    if len(counted) >= SEED_GAMES:
        return []
    try:
        played = store.games.history(player, limit=None)
    except NotFoundError:  # nobody of that name has played yet
        return []
    if reserved(player):  # a name taken before the levels' labels were kept for them: never seeded
        return []
    games = [g for g in reversed(played) if _seeding(g)][:SEED_GAMES]
    made: list[RatingChange] = []
    for game in games:
        if str(game.id) in counted:
            continue
        secret = game.secret if game.secret is not None else store.games.saved(game.id).secret
        if secret is None:
            continue
        rules = game.rules  # a game not finished when counted counts as not broken (rows + 1), as it stands
        mine = game.guesses if game.outcome == "solved" else rules.rows + 1
        scores = {"": float(mine)}  # the player by a key no name can be (a name is never empty)
        scores.update({f"level {n}": float(level_guesses(n, rules, secret)) for n in range(1, 5)})
        places = [
            [game.player if key == "" else key for key in place]
            for place in places_by_score(scores, higher_better=False)
        ]
        at = aware(game.ended_at or game.started_at)
        made += _changes(_write(store, "solo", str(game.id), at, places, level_ratings())[0])
    return made


# -- reading and checking -------------------------------------------------------------------------------


def _player(standing: Standing) -> PlayerRating:
    return PlayerRating(standing.player, _rating(standing.value), standing.results, standing.last, standing.people)


def leaderboard(store: Store, *, limit: int | None = 10, provisional: bool = True) -> list[PlayerRating]:
    """The rated players (at most ``limit``): the established ratings, best first, then the provisional ones,
    best first (none when ``provisional`` is false); :func:`ranked` numbers them."""
    found = [_player(s) for s in store.ratings.standings()]
    found = [p for p in found if not p.provisional] + ([p for p in found if p.provisional] if provisional else [])
    return found[:limit] if limit is not None else found


def ranked(board: Sequence[PlayerRating]) -> list[tuple[int | None, PlayerRating]]:
    """A leaderboard's players with their rank: 1 the best established rating; a provisional one has none."""
    ranks = iter(range(1, len(board) + 1))
    return [(None if p.provisional else next(ranks), p) for p in board]


def rating_of(store: Store, player: str) -> PlayerRating | None:
    """``player``'s current rating (``None`` before their first rated result)."""
    standing = store.ratings.standing(player)
    return _player(standing) if standing is not None else None


def known(store: Store, player: str) -> bool:
    """Whether there is a player of that name (rated or not)."""
    try:
        return store.players.registered(player) is not None
    except KeypegError:
        return False


def rank_of(store: Store, player: str) -> int | None:
    """``player``'s rank among the established ratings, 1 the best; ``None`` when not on the leaderboard or
    provisional (listed after the ranks, with none)."""
    try:
        key = name_key(player)
    except KeypegError:
        return None
    return next((n for n, p in ranked(leaderboard(store, limit=None)) if name_key(p.player) == key), None)


def changes(store: Store, player: str, *, limit: int | None = 20) -> list[RatingChange]:
    """``player``'s rating changes, newest first."""
    return [
        RatingChange(c.player, c.kind, c.event_id, c.at, _rating(c.before), _rating(c.after))
        for c in store.ratings.changes(player, limit=limit)
    ]


def result_count(store: Store) -> int:
    """How many rated results are stored."""
    return store.ratings.count()


def _far(a: Rating | None, b: Rating | None) -> bool:
    if a is None or b is None:
        return a is not b
    return any(
        abs(x - y) > DRIFT for x, y in zip((a.rating, a.rd, a.volatility), (b.rating, b.rd, b.volatility), strict=True)
    )


def recompute(store: Store) -> list[Drift]:
    """Replay every stored result, in the order they were rated, from new players' defaults (each with the
    levels' ratings it was rated with), and compare with what is stored: each change written and each
    player's current rating. The players whose stored values differ (none expected), by name."""
    players: dict[str, Rated] = {}
    names: dict[str, str] = {}
    drifted: set[str] = set()
    for result in store.ratings.results():
        fixed = {label: _rating(v) for label, v in result.fixed.items()}
        made = _replay(players, result.places, result.at, fixed, [f"#{u}" for u in result.unrated], result.left_out)
        for key, (before, after) in made.items():
            pid = int(key[1:])
            names[key] = result.names.get(pid, key)
            stored = result.changes.get(pid)
            if stored is None or _far(_rating(stored[0]), before) or _far(_rating(stored[1]), after.rating):
                drifted.add(key)
            players[key] = after
        for pid in result.changes:
            if f"#{pid}" not in made:
                drifted.add(f"#{pid}")
    current = {s.player: _rating(s.value) for s in store.ratings.standings()}
    replayed_now = {names[k]: r.rating for k, r in players.items()}
    drifts = []
    for name in sorted(set(current) | set(replayed_now) | {names.get(k, k) for k in drifted}):
        kept, replayed = current.get(name), replayed_now.get(name)
        if _far(kept, replayed) or any(names.get(k, k) == name for k in drifted):
            drifts.append(Drift(name, kept, replayed))
    return drifts
