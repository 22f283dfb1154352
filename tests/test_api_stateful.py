"""The JSON API played at random by two registered players, a guest and a spectator (issue 28): a hypothesis
state machine registers, logs in and out, plays rated and practice games (valid, invalid and replayed
moves), resigns, plays live matches and watches them, and checks after every step that nobody saw a code
before its game ended (but the codemaker who set it in a live match), that each player's history is the
moves made, that the top 10 is the one recomputed from the rated games (ranked means committed: a guest's
game never counts, a rated game counts from its first guess), and that nothing answered 5xx."""

from __future__ import annotations

import itertools
import random
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path as Folder
from typing import Any
from unittest import mock

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from keypeg import Rules, score
from keypeg.errors import KeypegError
from keypeg.limits import MIN_RANKED_GAMES, TOP_SIZE
from keypeg.services.fair_share import FairShare
from keypeg.services.stores import GUEST_PREFIX
from keypeg.variants import find_variant
from keypeg.web import create_app
from test_live import Player
from test_security import notations

ROWS = (4, 5)
"""Two row limits of 3 pegs and 3 colours: games end within a few steps, and two top 10s stay apart."""
RULES = {rows: Rules(3, 3, rows=rows) for rows in ROWS}
CODES = ["".join(p) for p in itertools.product("ABC", repeat=3)]
NOT_CODES = ["AB", "ABCA", "ABD", "Ä€C", "<b>"]
"""Guesses the rules refuse (400); an empty one does not fit the schema (422)."""
PASSWORD = "long enough pw"
"""The password :class:`test_live.Player` registers with."""
ACTORS = ("ann", "bob", "guest")
"""The browsers that play: ann and bob registered at the start, and a guest."""
VIEWERS = (*ACTORS, "spectator")
MOVER = st.just("turn") | st.sampled_from(ACTORS)
"""Who makes a move in a live match: often whoever must (``"turn"``), else anyone."""
NEW_NAMES = ("cid", "dee", "ann")
"""Names a browser may register (ann is taken: 409)."""
PROSE = {"error", "detail", "text", "rule", "label"}
"""The keys whose values are sentences: a code must not turn up in them as a word either."""
WORD = re.compile(r"[A-Za-z0-9]+")
DAILY = find_variant("mini")
"""The preset whose daily puzzle is tried (its rules are not the top 10s' checked: its games show in
histories only)."""


def today() -> str:
    return datetime.now(UTC).date().isoformat()


@dataclass
class Game:
    """A game as the model knows it: its secret (read from the store, for the model only), its owner (the
    codebreaker), whether it is rated (never a guest's), and the moves made."""

    seq: int
    rules: Rules
    secret: str
    owner: str
    rated: bool
    public_id: str | None = None
    maker: str | None = None
    """A live game's codemaker as the history names them."""
    setter: str | None = None
    """The seat that set a live game's code: the one who may see it while it is played."""
    moves: list[tuple[str, int, int]] = field(default_factory=list)
    outcome: str | None = None
    day: str | None = None
    """The day of a daily puzzle's attempt (it can be played on that day only)."""

    @property
    def over(self) -> bool:
        return self.outcome is not None

    def play(self, code: str) -> tuple[int, int]:
        guess = str(self.rules.parse(code))
        feedback = score(self.rules.parse(self.secret), self.rules.parse(guess))
        self.moves.append((guess, feedback.black, feedback.white))
        if guess == self.secret:
            self.outcome = "solved"
        elif len(self.moves) == self.rules.rows:
            self.outcome = "lost"
        return feedback.black, feedback.white


@dataclass
class Match:
    """A live match as the model knows it: its seats (player names), the games counted, the game played."""

    id: str
    token: str
    seats: list[str]
    games: int = 2
    played: int = 0
    game: Game | None = None
    last: Game | None = None
    """The game that ended last (its code is shown once it has)."""

    @property
    def over(self) -> bool:
        return self.played >= self.games

    def roles(self) -> tuple[str, str] | None:
        """The codemaker and the codebreaker now (none while waiting for a second player, or once over)."""
        if len(self.seats) < 2 or self.over:
            return None
        maker = self.seats[self.played % 2]
        return maker, self.seats[1 - self.played % 2]

    def count(self) -> None:
        self.played += 1
        self.last = self.game or self.last
        self.game = None

    def owned(self) -> Owned:
        """Where a view of the match shows a code: the game played (to its codemaker), the last one."""
        return {("current", "secret"): self.game, ("last", "code"): self.last}


@dataclass
class Actor:
    """A browser (its cookie and CSRF header) and the player its session is, as far as the model knows."""

    browser: Player
    who: str | None = None


def valid(rules: Rules, code: str) -> bool:
    try:
        rules.parse(code)
    except KeypegError:
        return False
    return True


Path = tuple[str, ...]
Owned = dict[Path, "Game | None"]
"""The places in an answer that show a game's code, and the game (``None``: none the model knows)."""


def leaves(value: Any, path: Path = ()) -> list[tuple[Path, Any]]:
    """Every value in a JSON document with the keys (and list positions) leading to it."""
    if isinstance(value, dict):
        return [leaf for key, item in value.items() for leaf in leaves(item, (*path, str(key)))]
    if isinstance(value, list):
        found = [leaf for n, item in enumerate(value) for leaf in leaves(item, (*path, str(n)))]
        return found + ([(path, value)] if all(isinstance(v, int) for v in value) else [])
    return [(path, value)]


class Api(RuleBasedStateMachine):
    """The API of one app on a fresh SQLite file, played by :data:`VIEWERS`."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = Folder(tempfile.mkdtemp(prefix="keypeg-stateful-"))
        paced = itertools.count().__next__  # a second between requests: within the fair share's rates
        self.app = create_app(f"sqlite:///{self.folder / 'api.sqlite3'}", share=FairShare(clock=paced))
        self.store = self.app.state.store
        self.games: list[Game] = []
        self.matches: list[Match] = []
        self.registered = ["ann", "bob"]
        """Registered players in the order they were made (the top 10's last tie-break)."""
        self.failed_logins = 0
        self.pending: list[tuple[str | None, httpx.Response, Callable[[], Owned]]] = []
        self.actors = {
            name: Actor(
                Player(TestClient(self.app, base_url="https://keypeg.test"), name if name in ("ann", "bob") else None),
                name if name in ("ann", "bob") else None,
            )
            for name in VIEWERS
        }

    @initialize(seed=st.integers(0, 2**32))
    def draw_secrets_from(self, seed: int) -> None:
        """The computer's secrets come from a generator seeded by hypothesis (still unknown to the players):
        an example plays the same way again when it is shrunk or replayed."""
        source = random.Random(seed)
        self.secrets = mock.patch.object(random, "SystemRandom", lambda: source)
        self.secrets.start()

    def teardown(self) -> None:
        if hasattr(self, "secrets"):
            self.secrets.stop()
        for actor in self.actors.values():
            actor.browser.client.close()
        self.store.engine.dispose()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- requests and the secret check ----------------------------------------------------------------

    def send(self, actor: str, method: str, path: str, body: object = None, **params: Any) -> httpx.Response:
        """A request of ``actor``'s browser (a change with its CSRF header); never a 5xx."""
        browser = self.actors[actor].browser
        answer = browser.client.get(path, params=params) if method == "GET" else browser.post(path, body)
        assert answer.status_code < 500, f"{method} {path} {body!r}: {answer.status_code} {answer.text}"
        return answer

    def hidden(self, viewer: str | None) -> list[Game]:
        """The games whose code ``viewer`` may not see now."""
        return [g for g in self.games if not g.over and (g.setter is None or g.setter != viewer)]

    def audit(self, viewer: str | None, answer: httpx.Response, owned: Owned) -> None:
        """Nothing in ``answer`` (its body's values, the words of its sentences, its headers) is the code of
        a game ``viewer`` may not see yet. A place that shows a game's code (``owned``) is checked against
        that game alone (two games may share a code); a guess in a game's moves is the player's own, and a
        rule's alphabet is public."""
        body = answer.json() if answer.content else None
        found = leaves(body)
        for path, value in found:
            if path in owned and value is not None:
                game = owned[path]
                shown = f"{viewer} shown {path}: {answer.text}"
                assert game is not None and value == game.secret and game not in self.hidden(viewer), shown
        headers = [v.strip() for k, v in answer.headers.items() if k != "content-length"]
        for game in self.hidden(viewer):
            forms = notations(game.rules, game.secret)
            colors = list(game.rules.parse(game.secret).colors)
            colours = range(game.rules.colors)
            alphabet = {game.rules.format(tuple(colours)), "".join(str(c + 1) for c in colours)}
            for path, value in found:
                mine = path[-1:] == ("guess",) and {"history", "moves"} & set(path)
                if path in owned or path[-1:] == ("symbols",) or mine:
                    continue
                seen = f"{game.secret} of a game in progress shown to {viewer} at {path} in {answer.text}"
                assert value != colors, seen
                if isinstance(value, str):
                    assert value.strip() not in forms, seen
                    if PROSE & set(path):
                        assert not (set(WORD.findall(value)) - alphabet) & forms, seen
            assert not forms & set(headers), f"{game.secret} in the headers shown to {viewer}"

    def act(
        self, actor: str, method: str, path: str, body: object = None, owned: Callable[[], Owned] = dict, **params: Any
    ) -> httpx.Response:
        """:meth:`send`, its answer audited by :meth:`done` once the caller moved the model on (``owned``:
        the places that show a game's code, then)."""
        answer = self.send(actor, method, path, body, **params)
        self.pending.append((self.actors[actor].who, answer, owned))
        return answer

    def done(self) -> None:
        """Audit the answers of the requests just made, against the model moved on by them."""
        for viewer, answer, owned in self.pending:
            self.audit(viewer, answer, owned())
        self.pending = []

    def learn(self, actor: str, name: str) -> None:
        """A guest browser's player, as the server named it."""
        assert name.startswith(GUEST_PREFIX), name
        self.actors[actor].who = name

    # -- solo games ------------------------------------------------------------------------------------

    def start(self, actor: str, rows: int, practice: bool) -> Game:
        rules = RULES[rows]
        answer = self.act(
            actor,
            "POST",
            "/api/games",
            {"pegs": 3, "colors": 3, "rows": rows, "practice": practice},
            lambda: {("secret",): self.games[-1]},
        )
        assert answer.status_code == 201, answer.text
        public_id = answer.json()["id"]
        game_id, owner = self.store.games.owned(public_id)
        if self.actors[actor].who is None:
            self.learn(actor, owner)
        assert owner == self.actors[actor].who
        secret = str(rules.parse(self.store.games.saved(game_id).secret))
        game = Game(
            len(self.games), rules, secret, owner, not practice and not owner.startswith(GUEST_PREFIX), public_id
        )
        self.games.append(game)
        self.check_board(answer.json(), game)
        self.done()
        return game

    def check_board(self, board: dict[str, Any], game: Game, move: tuple[int, int] | None = None) -> None:
        """A game's board as its owner is shown it is the model's."""
        assert board["status"] == {None: "playing", "solved": "won", "lost": "lost"}[game.outcome]
        assert [(m["guess"], m["black"], m["white"]) for m in board["history"]] == game.moves
        assert board["rows_left"] == game.rules.rows - len(game.moves)
        assert board["rated"] == game.rated and board.get("secret") == (game.secret if game.over else None)
        if move is not None:
            assert (board["black"], board["white"]) == move

    def guess_solo(self, actor: str, game: Game, code: str, row: int | None) -> None:
        assert game.public_id is not None
        body: dict[str, Any] = {"code": code} if row is None else {"code": code, "row": row}
        answer = self.act(actor, "POST", f"/api/games/{game.public_id}/guesses", body, lambda: {("secret",): game})
        if code == "":
            expected = 422
        elif self.actors[actor].who != game.owner:
            expected = 404
        elif row is not None and row != len(game.moves) + 1:
            expected = 409
        elif game.over or not valid(game.rules, code):
            expected = 400
        else:
            expected = 200
        assert answer.status_code == expected, (expected, answer.text)
        if expected == 200:
            self.check_board(answer.json(), game, game.play(code))
        self.done()

    def pick(self, data: st.DataObject, found: list[Any]) -> Any:
        return data.draw(st.sampled_from(found))

    def solo_games(self) -> list[Game]:
        """The games played under ``/api/games`` (a daily attempt on its day only: after it, the next load
        closes it)."""
        return [g for g in self.games if g.public_id is not None and g.day in (None, today())]

    @rule(actor=st.sampled_from(ACTORS), rows=st.sampled_from(ROWS), practice=st.booleans())
    def start_a_game(self, actor: str, rows: int, practice: bool) -> None:
        self.start(actor, rows, practice)

    @precondition(lambda self: self.solo_games())
    @rule(
        actor=st.sampled_from(ACTORS),
        data=st.data(),
        code=st.sampled_from(CODES) | st.sampled_from([*NOT_CODES, ""]) | st.just("secret"),
        row=st.sampled_from(["none", "next", "stale"]),
    )
    def guess(self, actor: str, data: st.DataObject, code: str, row: str) -> None:
        """A guess in any game (someone else's is 404), valid or not, with the next row, none, or one
        played already (a request sent again)."""
        game = self.pick(data, self.solo_games())
        number = {"none": None, "next": len(game.moves) + 1, "stale": max(len(game.moves), 1)}[row]
        if code in CODES and game.rules.pegs != 3:  # a daily attempt: the same colours, in its rules
            code = game.rules.format(tuple("ABC".index(c) for c in code) + (0,) * (game.rules.pegs - 3))
        self.guess_solo(actor, game, game.secret if code == "secret" else code, number)

    @rule(
        actor=st.sampled_from(ACTORS),
        rows=st.sampled_from(ROWS),
        practice=st.booleans(),
        games=st.lists(
            st.tuples(st.lists(st.sampled_from(CODES), min_size=5, max_size=5), st.integers(0, 5)),
            min_size=MIN_RANKED_GAMES - 1,
            max_size=MIN_RANKED_GAMES + 1,
        ),
    )
    def play_whole_games(self, actor: str, rows: int, practice: bool, games: list[tuple[list[str], int]]) -> None:
        """Games played to their end, each one's code guessed at its ``lucky`` row, or never: the top 10 fills
        up."""
        for codes, lucky in games:
            game = self.start(actor, rows, practice)
            for number, code in enumerate(codes):
                if game.over:
                    break
                self.guess_solo(actor, game, game.secret if number == lucky else code, len(game.moves) + 1)

    @precondition(lambda self: self.solo_games())
    @rule(actor=st.sampled_from(ACTORS), data=st.data())
    def resign(self, actor: str, data: st.DataObject) -> None:
        game = self.pick(data, self.solo_games())
        answer = self.act(actor, "POST", f"/api/games/{game.public_id}/resign", None, lambda: {("secret",): game})
        expected = 404 if self.actors[actor].who != game.owner else 400 if game.over else 200
        assert answer.status_code == expected, (expected, answer.text)
        if expected == 200:
            game.outcome = "lost"
            self.check_board(answer.json(), game)
        self.done()

    @precondition(lambda self: self.solo_games())
    @rule(viewer=st.sampled_from(VIEWERS), data=st.data())
    def look_at_a_game(self, viewer: str, data: st.DataObject) -> None:
        game = self.pick(data, self.solo_games())
        answer = self.act(viewer, "GET", f"/api/games/{game.public_id}", None, lambda: {("secret",): game})
        assert answer.status_code == (200 if self.actors[viewer].who == game.owner else 404), answer.text
        if answer.status_code == 200:
            self.check_board(answer.json(), game)
        self.done()

    @rule(actor=st.sampled_from(ACTORS))
    def try_the_daily_puzzle(self, actor: str) -> None:
        """Start (or go on with) today's attempt: a registered player's only, once a day (409 once over)."""
        who, day = self.actors[actor].who, today()
        mine = [g for g in self.games if g.day == day and g.owner == who]

        def owned() -> Owned:  # the attempt, once the model knows it
            return {("secret",): mine[0] if mine else self.games[-1] if self.games else None}

        answer = self.act(actor, "POST", "/api/daily", {"variant": DAILY.name}, owned)
        if who is None or who.startswith(GUEST_PREFIX):
            assert answer.status_code == 401, answer.text
        elif mine:
            assert answer.status_code == (409 if mine[0].over else 201), answer.text
            if answer.status_code == 201:
                assert answer.json()["id"] == mine[0].public_id
                self.check_board(answer.json(), mine[0])
        else:
            assert answer.status_code == 201, answer.text
            public_id = answer.json()["id"]
            game_id, owner = self.store.games.owned(public_id)
            secret = str(DAILY.rules.parse(self.store.games.saved(game_id).secret))
            rated = answer.json()["rated"]  # whether an attempt is rated is the daily puzzle's rule, not looked at here
            self.games.append(Game(len(self.games), DAILY.rules, secret, owner, rated, public_id, day=day))
            assert owner == who
            self.check_board(answer.json(), self.games[-1])
        self.done()

    # -- accounts --------------------------------------------------------------------------------------

    def welcome(self, actor: str, answer: httpx.Response, player: str) -> None:
        """``actor``'s browser is ``player``'s now; a guest's games came along, as practice."""
        previous = self.actors[actor].who
        self.actors[actor].browser.headers = {"X-CSRF-Token": answer.json()["csrf"]}
        self.actors[actor].who = player
        if previous is not None and previous.startswith(GUEST_PREFIX):
            for game in self.games:
                if game.owner == previous:
                    game.owner, game.rated = player, False
                if game.maker == previous:
                    game.maker = player
            for match in self.matches:  # the guest's seat in a match not over is the player's (not against them)
                if not match.over and previous in match.seats and player not in match.seats:
                    match.seats = [player if seat == previous else seat for seat in match.seats]
                    for game in (match.game, match.last):
                        if game is not None and game.owner == previous:
                            game.owner = player
                        if game is not None and game.maker == previous:
                            game.maker = player

    @rule(actor=st.sampled_from(ACTORS), name=st.sampled_from(("ann", "bob", "cid")), right=st.booleans())
    def log_in(self, actor: str, name: str, right: bool) -> None:
        """A login, with the right password or (a few times, under the throttle's threshold of 5 failures) a
        wrong one, or as nobody registered."""
        works = right and name in self.registered
        if not works and self.failed_logins >= 4:
            return
        body = {"name": name, "password": PASSWORD if right else "not the password"}
        answer = self.act(actor, "POST", "/api/login", body)
        if works:
            assert answer.status_code == 200, answer.text
            assert answer.json()["player"] == name
            self.welcome(actor, answer, name)
        else:
            self.failed_logins += 1
            assert answer.status_code == 401, answer.text
        self.done()

    @rule(actor=st.sampled_from(ACTORS), name=st.sampled_from(NEW_NAMES))
    def register(self, actor: str, name: str) -> None:
        answer = self.act(actor, "POST", "/api/players", {"name": name, "password": PASSWORD})
        if name in self.registered:
            assert answer.status_code == 409, answer.text
        else:
            assert answer.status_code == 201, answer.text
            self.registered.append(name)
            self.welcome(actor, answer, name)
        self.done()

    @rule(actor=st.sampled_from(ACTORS))
    def log_out(self, actor: str) -> None:
        answer = self.act(actor, "POST", "/api/logout")
        assert answer.status_code == 200 and answer.json()["player"] is None, answer.text
        self.actors[actor].browser.headers = {"X-CSRF-Token": answer.json()["csrf"]}
        self.actors[actor].who = None
        self.done()

    # -- live matches ----------------------------------------------------------------------------------

    @initialize(data=st.data())
    def ann_invites_bob(self, data: st.DataObject) -> None:
        """Every example starts with a match between the two registered players, so that it gets played."""
        self.create_a_match("ann")
        self.join("bob", data, True, self.matches[-1])

    @rule(actor=st.sampled_from(ACTORS))
    def create_a_match(self, actor: str) -> None:
        answer = self.act(actor, "POST", "/api/live", {"pegs": 3, "colors": 3, "rows": ROWS[0], "games": 2})
        assert answer.status_code == 201, answer.text
        made = answer.json()
        if self.actors[actor].who is None:
            self.learn(actor, made["seats"][0])
        assert made["seats"] == [self.actors[actor].who]
        self.matches.append(Match(made["id"], made["token"], list(made["seats"])))
        self.done()

    @precondition(lambda self: self.matches)
    @rule(actor=MOVER, data=st.data(), right=st.booleans())
    def join(self, actor: str, data: st.DataObject, right: bool, match: Match | None = None) -> None:
        """The second seat taken with the invitation (a wrong token is 403; a seat taken is 400)."""
        match = match or self.pick(data, self.matches)
        actor = self.mover(match, actor)
        body = {"token": match.token if right else "0" * 32}
        answer = self.act(actor, "POST", f"/api/live/{match.id}/join", body, match.owned)
        who = self.actors[actor].who
        if not right:
            assert answer.status_code == 403, answer.text
        elif who in match.seats:
            assert answer.status_code == 200 and answer.json()["seats"] == match.seats, answer.text
        elif len(match.seats) == 2:
            assert answer.status_code == 400, answer.text
        else:
            assert answer.status_code == 200, answer.text
            if who is None:
                self.learn(actor, answer.json()["seats"][1])
            match.seats.append(str(self.actors[actor].who))
            assert answer.json()["seats"] == match.seats
        self.done()

    def mover(self, match: Match, actor: str) -> str:
        """``actor``, or for ``"turn"`` the browser of whoever must act in ``match`` now (the second player
        while it waits for one), so that matches get played."""
        if actor != "turn":
            return actor
        roles = match.roles()
        wanted = None if roles is None else roles[0] if match.game is None else roles[1]
        for name, state in self.actors.items():
            if name != "spectator" and (state.who == wanted if wanted else state.who not in match.seats):
                return name
        return "guest"

    @precondition(lambda self: self.matches)
    @rule(
        data=st.data(),
        code=st.sampled_from(CODES),
        guesses=st.lists(st.sampled_from(CODES) | st.just("secret"), min_size=1, max_size=5),
    )
    def play_a_live_game(self, data: st.DataObject, code: str, guesses: list[str]) -> None:
        """A game of a match played by whoever must act: the code set, then guesses (the code itself for
        ``"secret"``) until it ends or they run out."""
        match = self.pick(data, self.matches)
        if match.game is None:
            self.set_a_code("turn", data, code, match)
        for guess in guesses:
            if match.game is None:
                break
            self.guess_live("turn", data, guess, False, match)

    def refusal(self, match: Match, who: str | None, allowed: bool) -> int:
        """The status of a move in ``match`` by ``who``, which the match's rules allow or not."""
        if who not in match.seats:
            return 403
        return 200 if allowed else 400

    @precondition(lambda self: self.matches)
    @rule(actor=MOVER, data=st.data(), code=st.sampled_from([*CODES, *NOT_CODES]))
    def set_a_code(self, actor: str, data: st.DataObject, code: str, match: Match | None = None) -> None:
        match = match or self.pick(data, self.matches)
        actor = self.mover(match, actor)
        answer = self.act(actor, "POST", f"/api/live/{match.id}/secret", {"code": code}, match.owned)
        who, roles = self.actors[actor].who, match.roles()
        allowed = roles is not None and who == roles[0] and match.game is None and valid(RULES[ROWS[0]], code)
        again = roles is not None and who == roles[0] and match.game is not None  # the code set already: 409
        assert answer.status_code == (409 if again else self.refusal(match, who, allowed)), answer.text
        if answer.status_code == 200:
            assert roles is not None
            secret = str(RULES[ROWS[0]].parse(code))
            maker, breaker = roles
            match.game = Game(len(self.games), RULES[ROWS[0]], secret, breaker, False, maker=maker, setter=maker)
            self.games.append(match.game)
            assert answer.json()["current"]["secret"] == secret
        self.done()

    @precondition(lambda self: self.matches)
    @rule(
        actor=MOVER,
        data=st.data(),
        code=st.sampled_from([*CODES, *NOT_CODES, "secret"]),
        stale=st.booleans(),
    )
    def guess_live(self, actor: str, data: st.DataObject, code: str, stale: bool, match: Match | None = None) -> None:
        match = match or self.pick(data, self.matches)
        actor = self.mover(match, actor)
        game = match.game
        if code == "secret":
            code = game.secret if game is not None else CODES[0]
        row = (max(len(game.moves), 1) if stale else len(game.moves) + 1) if game is not None else 1
        answer = self.act(actor, "POST", f"/api/live/{match.id}/guesses", {"code": code, "row": row}, match.owned)
        who, roles = self.actors[actor].who, match.roles()
        if who not in match.seats:
            expected = 403
        elif game is None or row != len(game.moves) + 1:
            expected = 409
        else:
            expected = 200 if roles is not None and who == roles[1] and valid(game.rules, code) else 400
        assert answer.status_code == expected, (expected, answer.text)
        if expected == 200:
            assert game is not None
            game.play(code)
            if game.over:
                match.count()
        self.done()

    @precondition(lambda self: self.matches)
    @rule(actor=MOVER, data=st.data())
    def resign_live(self, actor: str, data: st.DataObject) -> None:
        """Give up: the codebreaker the game played, the codemaker a game whose code is not set."""
        match = self.pick(data, self.matches)
        actor = self.mover(match, actor)
        answer = self.act(actor, "POST", f"/api/live/{match.id}/resign", {"game": match.played + 1}, match.owned)
        who, roles = self.actors[actor].who, match.roles()
        allowed = roles is not None and who == (roles[0] if match.game is None else roles[1])
        assert answer.status_code == self.refusal(match, who, allowed), answer.text
        if answer.status_code == 200:
            if match.game is not None:
                match.game.outcome = "lost"
            match.count()
        self.done()

    @precondition(lambda self: self.matches)
    @rule(viewer=st.sampled_from(VIEWERS), data=st.data())
    def watch(self, viewer: str, data: st.DataObject) -> None:
        """A view of a match: a player's or a spectator's."""
        match = self.pick(data, self.matches)
        answer = self.act(viewer, "GET", f"/api/live/{match.id}", None, match.owned)
        assert answer.status_code == 200, answer.text
        shown = answer.json()
        assert shown["seats"] == match.seats and len(shown["played"]) == match.played and shown["over"] == match.over
        current = shown["current"]
        assert (current is None) == (match.game is None)
        if match.game is not None:
            moves = [(m["guess"], m["black"], m["white"]) for m in current["history"]]
            assert moves == match.game.moves
        self.done()

    # -- after every step ------------------------------------------------------------------------------

    @invariant()
    def histories_are_the_moves_made(self) -> None:
        """Each browser's history is its player's games, newest first, as played: their moves, how they
        ended, whether rated, and a code only once over."""
        for actor, state in self.actors.items():
            mine = [g for g in reversed(self.games) if state.who is not None and state.who in (g.owner, g.maker)]
            owned: Owned = {(str(n), "secret"): g for n, g in enumerate(mine)}
            answer = self.act(actor, "GET", "/api/history", None, owned.copy, limit=1000)
            assert answer.status_code == 200, answer.text
            found = [
                (
                    g["player"],
                    g["maker"],
                    [(m["guess"], m["black"], m["white"]) for m in g["moves"]],
                    None if g["outcome"] is None else g["outcome"] == "solved",
                    g["rated"],
                    g["secret"],
                )
                for g in answer.json()
            ]
            assert found == [
                (
                    g.owner,
                    g.maker,
                    g.moves,
                    None if g.outcome is None else g.outcome == "solved",
                    g.rated,
                    g.secret if g.over else None,
                )
                for g in mine
            ], actor
        self.done()

    @invariant()
    def the_top_10_is_recomputed_from_the_rated_games(self) -> None:
        """Registered players with enough rated games that had a first guess, by average (a game not won
        counting as the rows plus one), then more games, then the earlier latest game, then who came first."""
        for rows, rules in RULES.items():
            answer = self.act("spectator", "GET", "/api/top", pegs=3, colors=3, rows=rows)
            assert answer.status_code == 200, answer.text
            counted: dict[str, list[Game]] = {}
            for game in self.games:
                ranked = game.rated and game.moves and not game.owner.startswith(GUEST_PREFIX)
                if ranked and game.rules == rules and game.public_id is not None:
                    counted.setdefault(game.owner, []).append(game)
            board = []
            for player, played in counted.items():
                marks = [len(g.moves) if g.outcome == "solved" else rows + 1 for g in played]
                if len(marks) >= MIN_RANKED_GAMES:
                    key = (
                        sum(marks) / len(marks),
                        -len(marks),
                        max(g.seq for g in played),
                        self.registered.index(player),
                    )
                    board.append((key, player, len(marks), min(marks)))
            board.sort()
            expected = [(player, n, round(key[0], 9), best) for key, player, n, best in board[:TOP_SIZE]]
            found = [(r["player"], r["games"], round(r["average"], 9), r["best"]) for r in answer.json()["top"]]
            assert found == expected, rows
            assert [r["rank"] for r in answer.json()["top"]] == list(range(1, len(found) + 1))
        self.done()


def test_the_api_keeps_its_rules_whatever_is_played() -> None:
    run_state_machine_as_test(Api, settings=settings(max_examples=6, stateful_step_count=25))


@pytest.mark.slow
def test_the_api_keeps_its_rules_whatever_is_played_longer() -> None:
    """More and longer runs (about 40 s on 2 cores: the whole suite's share; hypothesis's own database keeps
    what a run found for the next)."""
    run_state_machine_as_test(Api, settings=settings(max_examples=12, stateful_step_count=40))
