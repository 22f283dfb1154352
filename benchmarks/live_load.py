"""Matches between two people under load on loopback: every move timed until it is on the other
player's screen, every match checked in the database afterwards.

Starts ``keypeg serve`` as ``web_load.py`` does (``--workers 2`` on a fresh PostgreSQL database, or
``--sqlite`` and one worker) and, once it answers and a few untimed matches have warmed every worker up,
plays ``--matches`` matches at once between two people: 2 x ``--matches`` clients, each with a session
of its own (a guest), its own connections, and following its match's live stream (server-sent events)
from the start to the end. A match is ``--games`` games of ``--variant``; in each, the codemaker sets a
random code and the codebreaker guesses, each guess a random code that fits every score so far (worked
out client-side with keypeg's own engine); ``--think`` pauses before each move as a person would.

The clients ride out faults: a request that gets no answer, a 5xx or a 429 is tried again with a
backoff (``web_load.Player``), a move whose answer was lost is checked by reading the match back (a
guess names its row, so one sent again is never applied twice), and a stream that fails or ends before
the match does is opened again; the report counts the failures by kind and the tries made again.

After every move, the mover waits until the OTHER player's stream delivers a state that includes it (as
far on: the same games played, then at least as many guesses in the game being played) before the match
goes on. Its **move-to-screen** latency runs from sending the move's request to reading that state off
the stream; the request's own latency, from sending it to reading the whole answer.

Afterwards every match is read back from the database itself: there, over, with every game its client
played (the same code, the same guesses and scores, in order) and each player's points as the client
counted them; every move must have reached the other side's stream, and no answer may be a 5xx. Prints
p50, p99 and max of both latencies, the throughput and where the CPU went, and saves them as a section
of benchmarks/results/web.md. Exit 1 when a check fails.

    python benchmarks/live_load.py [--matches 100] [--games 2] [--variant classic] [--think SECONDS]
                                   [--workers 2] [--db URL | --sqlite] [--no-save]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import random
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import httpx
from report import report
from sqlalchemy import select
from web_load import (
    BACKOFF,
    STALLS,
    Cpu,
    Player,
    Tally,
    checked_workers,
    connections_opened,
    cpu_note,
    database,
    error_kind,
    error_kinds,
    ms,
    paced,
    percentile,
    server,
    server_command,
    server_options,
)

from keypeg import Feedback, Rules, find_variant
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.play.live import LiveMatch
from keypeg.store import Store
from keypeg.store.models import GameRow, GuessRow, MatchRow

SCREEN_GOAL = 0.100
"""The issue's goal: a move on the other player's screen in p99 <= 100 ms, 100 matches at once."""
DELIVERY_TIMEOUT = 30.0
"""Seconds a move may take to reach the other side's stream before it counts as lost."""

CREATE = "POST /api/live"
JOIN = "POST join"
SECRET = "POST secret"
GUESS = "POST guesses"
SCREEN_SECRET = "secret set -> codebreaker's stream"
SCREEN_GUESS = "guess -> codemaker's stream"
REQUESTS = (CREATE, JOIN, SECRET, GUESS)
MOVES = (SECRET, GUESS)
SCREENS = (SCREEN_SECRET, SCREEN_GUESS)
PAGE_GET = "GET page (a follower's script)"
"""``--pages``: a page fetched again by a follower, as the page's script does at each state of a new version."""
PAGES_NOTE = (
    " **--pages**: each follower does what the page's script does at each state of a new version off its stream: "
    "it shows the page the stream brought with the state (`--pages stream`, the stream opened with `?page=true`), "
    "or fetches the page again with its cookies (`--pages fetch`, as the scripts did before, and for a state "
    "that brings none), and the move is on the screen once a page showing it (its `data-version`) was read; "
    "that read is the clock's end."
)
PAGE_VERSION = re.compile(r'data-(?:live|room)-events="[^"]*" data-version="(\d+)"')

Progress = tuple[int, int, int]


def progress(state: dict[str, Any]) -> Progress:
    """How far on a state of a match is: games played, whether a game is being played, its guesses."""
    current = state.get("current") or {}
    return len(state["played"]), int(bool(current)), len(current.get("history", []))


# -- a player and its stream --------------------------------------------------------------------------


class Follower:
    """A player's live stream of a match, read in a task of its own: when each state arrived, and how far
    on it was."""

    PATH = "/api/live/{}/events"

    def mark(self, state: dict[str, Any]) -> Any:
        """What is kept of a state as it arrives: how far on it is."""
        return progress(state)

    PAGE = "/live/{}"
    """The page a browser shows (``--pages``): its script fetches it again at each state of a new version."""
    PAGE_HEADERS: ClassVar[dict[str, str]] = {
        "Sec-Fetch-Mode": "cors",
        "Sec-Fetch-Site": "same-origin",
        "Sec-Fetch-Dest": "empty",
    }
    """What a browser's ``fetch(url, {credentials: "same-origin"})`` sends besides the cookies (and ``Accept: */*``)."""

    def __init__(self, player: Player, match: str) -> None:
        self.player = player
        self.pages: str = getattr(player.tally, "pages", "")
        self.arrivals: list[tuple[float, Progress]] = []
        """When each state was on the screen (off the stream; with ``--pages``, once a page that shows it was read)."""
        self.waiting: list[tuple[int, Progress]] = []
        """``--pages``: the states off the stream no page read shows yet (their version, how far on)."""
        self.shown = -1
        """``--pages``: the version of the page on the screen (the newest read)."""
        self.fetches: set[asyncio.Task[None]] = set()
        self.last: dict[str, Any] = {}
        self.comments = 0
        self.reconnects = 0
        self.error = ""
        self._arrived = asyncio.Event()
        self.task = asyncio.create_task(self.run(match))

    async def run(self, match: str) -> None:
        """Follow the stream until the match is over: one that fails, ends early or answers 5xx or 429 is
        opened again after a pause (doubling from 0.05 s to 2 s), for up to the player's patience."""
        tally, pause, since = self.player.tally, BACKOFF[0], time.perf_counter()
        try:
            while True:
                try:
                    if await self.follow(match) and not self.last.get("over"):
                        tally.errors["stream ended"] += 1
                except httpx.HTTPError as error:
                    tally.errors[f"stream {error_kind(error)}"] += 1
                    self.error = f"GET events: {type(error).__name__}: {error}"
                if self.last.get("over") or (self.error and self.error.endswith(" 404")):
                    return
                if self.arrivals and self.arrivals[-1][0] > since:  # it served: the pause starts afresh
                    pause, since = BACKOFF[0], time.perf_counter()
                if time.perf_counter() - since > self.player.patience:
                    return
                self.reconnects += 1
                tally.retries += 1
                await asyncio.sleep(pause)
                pause = min(2 * pause, BACKOFF[1])
        finally:
            self._arrived.set()

    async def follow(self, match: str) -> bool:
        """Read the stream once, from its opening to its end: whether it was served (200)."""
        timeout = httpx.Timeout(60, read=60)
        path = self.PATH.format(match) + ("?page=true" if self.pages == "stream" else "")
        async with self.player.client.stream("GET", path, timeout=timeout) as answer:
            self.player.tally.statuses[answer.status_code] += 1
            if answer.status_code != 200:
                self.error = f"GET events: {answer.status_code}"
                if answer.status_code >= 500 or answer.status_code == 429:
                    self.player.tally.errors[f"stream {answer.status_code}"] += 1
                return False
            self.error = ""
            kind = ""  # the event's name: a state, or a keep-alive ("alive")
            async for line in answer.aiter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: ") and kind == "state":
                    now = time.perf_counter()
                    self.last = json.loads(line[6:])
                    if self.pages:
                        page = self.last.pop("page", None)
                        self.fetch(match, int(self.last["version"]), self.mark(self.last), page)
                        continue
                    self.arrivals.append((now, self.mark(self.last)))
                    self._arrived.set()
                    self._arrived = asyncio.Event()
                elif line.startswith(":") or line.startswith("data: "):
                    self.comments += 1
        return True

    def fetch(self, match: str, version: int, mark: Any, page: str | None = None) -> None:
        """``--pages``: a state off the stream, as the page's script takes it: unless the page shown has its
        version, the page the stream brought is shown (``--pages stream``), else it is fetched again (at once,
        each state its fetch, as the script does)."""
        self.waiting.append((version, mark))
        if page is not None:
            found = PAGE_VERSION.search(page)
            self.showing(int(found.group(1)) if found else math.inf)
        elif version != self.shown:
            task = asyncio.create_task(self.page(match))
            self.fetches.add(task)
            task.add_done_callback(self.fetches.discard)
        else:
            self.showing(version)

    async def page(self, match: str) -> None:
        """``--pages``: fetch the page; once read, every state of its version or older is on the screen."""
        answer = await self.player.request(PAGE_GET, "GET", self.PAGE.format(match), headers=self.PAGE_HEADERS)
        if answer is None or answer.status_code != 200:
            self.error = f"GET page: {answer.status_code if answer is not None else 'no answer'}"
            return
        found = PAGE_VERSION.search(answer.text)
        self.showing(int(found.group(1)) if found else math.inf)  # no longer the room's page: all is shown

    def showing(self, version: float) -> None:
        """``--pages``: a page of ``version`` read now: the states it shows are on the screen."""
        self.shown = max(self.shown, int(version)) if version != math.inf else self.shown
        now, left = time.perf_counter(), []
        for waiting, mark in self.waiting:
            if waiting <= version:
                self.arrivals.append((now, mark))
            else:
                left.append((waiting, mark))
        self.waiting = left
        self._arrived.set()
        self._arrived = asyncio.Event()

    async def reached(self, target: Progress, since: float) -> float | None:
        """When the stream delivered the first state at least as far on as ``target`` (sent no earlier
        than ``since``); ``None`` if none did within :data:`DELIVERY_TIMEOUT`."""
        deadline = time.perf_counter() + DELIVERY_TIMEOUT
        seen = 0
        while True:
            for arrived, reached in self.arrivals[seen:]:
                if reached >= target and arrived >= since:
                    return arrived
            seen = len(self.arrivals)
            left = deadline - time.perf_counter()
            if left <= 0 or self.task.done():
                return None
            arrival = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrival.wait(), left)

    async def reached_end(self) -> float | None:
        """When the stream delivered a state of the match (or room) over; ``None`` if none did in time."""
        deadline = time.perf_counter() + DELIVERY_TIMEOUT
        while not self.last.get("over"):
            left = deadline - time.perf_counter()
            if left <= 0 or self.task.done():
                return None
            arrival = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrival.wait(), left)
        return time.perf_counter()

    def why(self) -> str:
        """Why the stream stopped short."""
        if self.error:
            return self.error
        last = self.arrivals[-1][1] if self.arrivals else None
        return f"{'ended' if self.task.done() else 'timed out'} after {len(self.arrivals)} states, the last at {last}"

    async def close(self) -> None:
        for task in [self.task, *self.fetches]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


@dataclass
class Played:
    """A match as its clients played it."""

    id: str
    players: tuple[str, str] = ("", "")
    games: list[tuple[str, str, list[tuple[str, int, int]]]] = field(default_factory=list)
    """Each game's codemaker, code and moves (guess, black, white)."""
    final: tuple[dict[str, Any], dict[str, Any]] = ({}, {})
    """The last state each player's stream delivered."""

    def points(self, rules: Rules) -> dict[str, int]:
        """Each player's points as counted here: a point a guess to the codemaker, one more if the code held."""
        totals = dict.fromkeys(self.players, 0)
        for maker, _code, moves in self.games:
            broken = bool(moves) and moves[-1][1] == rules.pegs
            totals[maker] += len(moves) + (0 if broken else 1)
        return totals


@dataclass
class LiveTally(Tally):
    """``web_load``'s tally, and the matches, the moves' deliveries and the streams' troubles."""

    matches: list[Played] = field(default_factory=list)
    moves: int = 0
    lost: list[str] = field(default_factory=list)
    lost_at: list[float] = field(default_factory=list)
    """When each move lost on the way to the other side's stream was sent (``time.perf_counter``)."""
    streams: list[Follower] = field(default_factory=list)
    rooms: list[PlayedRoom] = field(default_factory=list)
    pages: str = ""
    """``--pages``: each follower gets the page at each state of a new version, as a browser's script does
    (``stream``: the page its stream brings, else fetched; ``fetch``: always fetched, as the scripts did
    before), and a move is on the screen once a page that shows it was read."""


async def move(
    mover: Player,
    other: Follower,
    kind: str,
    screen: str,
    match: str,
    path: str,
    body: dict[str, Any],
    before: Progress,
) -> dict[str, Any] | None:
    """Send a move and wait until the other player's stream shows it: the state it made (``None`` if it
    was refused). A move that got no answer or a refusal is checked by reading the match back: if it landed,
    that read acknowledges it; else it is sent again (at most :data:`STALLS` times). Both latencies counted."""
    sent = time.perf_counter()
    before = progress(other.last) if other.last else (0, 0, 0)
    state: dict[str, Any] | None = None
    for _ in range(STALLS):
        answer = await mover.request(kind, "POST", path, body)
        if answer is not None and answer.status_code == 200:
            state = answer.json()
            break
        read = await mover.request(None, "GET", f"/api/live/{match}")
        if read is not None and read.status_code == 200 and progress(read.json()) > before:
            state = read.json()
            break
    if state is None:
        return None
    mover.tally.moves += 1  # type: ignore[attr-defined]
    shown = await other.reached(progress(state), sent)
    if shown is None:
        mover.tally.lost.append(f"{path} {body}: never on the other side's stream ({other.why()})")  # type: ignore[attr-defined]
        mover.tally.lost_at.append(sent)  # type: ignore[attr-defined]
    else:
        mover.tally.latency[screen].append(shown - sent)
    return state


async def play_match(
    first: Player, second: Player, rules: Rules, variant: str, games: int, rng: random.Random, *, timed: bool = True
) -> Played | None:
    """A match between ``first`` (who creates it) and ``second`` (who joins it), both following its stream."""
    tally: LiveTally = first.tally  # type: ignore[assignment]
    made = await first.request(CREATE if timed else None, "POST", "/api/live", {"variant": variant, "games": games})
    if made is None or made.status_code != 201:
        return None
    public_id, token = made.json()["id"], made.json()["token"]
    played = Played(public_id)
    tally.matches.append(played)
    followers = {first: Follower(first, public_id)}
    tally.streams.append(followers[first])
    try:
        joined = await second.request(JOIN if timed else None, "POST", f"/api/live/{public_id}/join", {"token": token})
        if joined is None or joined.status_code != 200:
            return None
        followers[second] = Follower(second, public_id)
        tally.streams.append(followers[second])
        players = dict(zip(joined.json()["seats"], (first, second), strict=True))
        seated = list(players)
        played.players = (seated[0], seated[1])
        maker, breaker = played.players
        for _ in range(games):
            secret = str(random_code(rules, rng))
            await players[maker].pause()
            path = f"/api/live/{public_id}/secret"
            state = await move(
                players[maker],
                followers[players[breaker]],
                SECRET,
                SCREEN_SECRET,
                public_id,
                path,
                {"code": secret},
                (len(played.games), 0, 0),
            )
            if state is None:
                return played
            moves: list[tuple[str, int, int]] = []
            played.games.append((maker, secret, moves))
            knowledge = Knowledge(rules)
            while True:
                fitting = knowledge.candidates
                code = knowledge.space.code(int(fitting[rng.randrange(len(fitting))]))
                await players[breaker].pause()
                body = {"code": str(code), "row": len(moves) + 1}
                path = f"/api/live/{public_id}/guesses"
                state = await move(
                    players[breaker],
                    followers[players[maker]],
                    GUESS,
                    SCREEN_GUESS,
                    public_id,
                    path,
                    body,
                    (len(played.games) - 1, 1, len(moves)),
                )
                if state is None:
                    return played
                current = state["current"]
                if current is None or current["number"] != len(played.games):  # the game is over
                    last = state["last"]["history"][-1]
                    moves.append((str(code), last["black"], last["white"]))
                    break
                last = current["history"][-1]
                moves.append((str(code), last["black"], last["white"]))
                knowledge = knowledge.add(code, Feedback(last["black"], last["white"]))
            maker, breaker = breaker, maker
        for follower in followers.values():  # the end of the match, on both streams
            if await follower.reached((games, 0, 0), 0.0) is None:
                tally.lost.append(f"match {public_id}: its end never on a stream ({follower.why()})")
        played.final = (followers[players[played.players[0]]].last, followers[players[played.players[1]]].last)
        return played
    finally:
        for follower in followers.values():
            await follower.close()


async def matches(
    base: str,
    count: int,
    rules: Rules,
    variant: str,
    games: int,
    think: float,
    tally: LiveTally,
    seed: int,
    ramp: float = 0.0,
) -> float:
    """``count`` matches at once, each between two new clients (their starts spread evenly over ``ramp``
    seconds); the seconds it all took."""

    async def one(number: int) -> None:
        await asyncio.sleep(ramp * number / count)
        first, second = (Player(base, tally, think, seed * 1_000_003 + 2 * number + k) for k in range(2))
        try:
            if all(await asyncio.gather(first.start(kind=None), second.start(kind=None))):
                await play_match(first, second, rules, variant, games, random.Random(f"{seed} {number}"))
        finally:
            await first.close()
            await second.close()

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(count)))
    return time.perf_counter() - started


# -- rooms ------------------------------------------------------------------------------------------

ROOM_CREATE = "POST /api/rooms"
ROOM_JOIN = "POST room join"
ROOM_START = "POST start"
ROOM_GUESS = "POST room guesses"
SCREEN_ROOM = "guess -> every other player's stream"
ROOM_REQUESTS = (ROOM_CREATE, ROOM_JOIN, ROOM_START, ROOM_GUESS)
ENDED = 10**6
"""How far a board is seen once its round is over (every guess of it shown)."""


def seen_in(state: dict[str, Any], player: str, number: int) -> int:
    """How many guesses of ``player``'s board of round ``number`` a room's state shows (:data:`ENDED` once
    that round is over; -1 before it starts)."""
    current, last = state.get("round"), state.get("last_round")
    if state.get("over") or (current and current["number"] > number) or (last and last["number"] >= number):
        return ENDED
    if current and current["number"] == number:
        return next((int(b["guesses"]) for b in current["boards"] if b["player"] == player), -1)
    return -1


class RoomFollower(Follower):
    """A player's live stream of a room: the states themselves are kept."""

    PATH = "/api/rooms/{}/stream"
    PAGE = "/rooms/{}"

    def mark(self, state: dict[str, Any]) -> Any:
        return state

    async def shows(self, player: str, number: int, guesses: int, since: float) -> float | None:
        """When the stream delivered the first state (sent no earlier than ``since``) that shows at least
        ``guesses`` guesses of ``player``'s board of round ``number``; ``None`` if none did in time."""
        deadline = time.perf_counter() + DELIVERY_TIMEOUT
        seen = 0
        while True:
            for arrived, state in self.arrivals[seen:]:
                if arrived >= since and seen_in(state, player, number) >= guesses:  # type: ignore[arg-type]
                    return arrived
            seen = len(self.arrivals)
            left = deadline - time.perf_counter()
            if left <= 0 or self.task.done():
                return None
            arrival = self._arrived
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrival.wait(), left)


@dataclass
class PlayedRoom:
    """A room as its clients played it: each player's boards (round number, moves)."""

    id: str
    players: list[str] = field(default_factory=list)
    boards: dict[str, list[tuple[int, list[tuple[str, int, int]]]]] = field(default_factory=dict)
    final: list[dict[str, Any]] = field(default_factory=list)


async def room_guess(player: Player, name: str, room: str, number: int, code: str, row: int) -> dict[str, Any] | None:
    """A guess on ``name``'s board (sent again, or read back, when its answer was lost): the room's state
    that acknowledges it, or ``None``."""
    for _ in range(STALLS):
        answer = await player.request(ROOM_GUESS, "POST", f"/api/rooms/{room}/guesses", {"guess": code, "row": row})
        if answer is not None and answer.status_code == 200:
            return dict(answer.json())
        read = await player.request(None, "GET", f"/api/rooms/{room}")
        if read is not None and read.status_code == 200 and my_rows(read.json(), name, number)[0][row - 1 : row]:
            return dict(read.json())
    return None


def my_rows(state: dict[str, Any], name: str, number: int) -> tuple[list[dict[str, Any]], bool]:
    """``name``'s rows of round ``number`` as a state shows them to them (with the guesses), and whether
    that board is over."""
    current = state.get("round")
    if current and current["number"] == number and state.get("board") is not None:
        return list(state["board"]["rows"]), bool(state["board"]["over"])
    for ended in [*(state.get("rounds") or []), state.get("last_round") or {}]:
        if ended.get("number") == number:
            board = next((b for b in ended["boards"] if b["player"] == name), None)
            return (list(board["rows"]) if board else []), True
    return [], False


async def play_board(
    player: Player, name: str, others: list[RoomFollower], room: str, number: int, rules: Rules, rng: random.Random
) -> list[tuple[str, int, int]] | None:
    """One player's board of round ``number``: random codes that fit the scores so far, each timed until
    every other player's stream shows it; the moves, or ``None`` if a guess was lost."""
    tally: LiveTally = player.tally  # type: ignore[assignment]
    moves: list[tuple[str, int, int]] = []
    knowledge = Knowledge(rules)
    while True:
        fitting = knowledge.candidates
        code = knowledge.space.code(int(fitting[rng.randrange(len(fitting))]))
        await player.pause()
        sent = time.perf_counter()
        state = await room_guess(player, name, room, number, str(code), len(moves) + 1)
        if state is None:
            return None
        rows, over = my_rows(state, name, number)
        if len(rows) <= len(moves):
            tally.failures.append(f"room {room}: {name}'s guess {len(moves) + 1} not in the answer")
            return None
        row = rows[len(moves)]
        moves.append((str(code), int(row["black"]), int(row["white"])))
        tally.moves += 1
        shown = await asyncio.gather(*(other.shows(name, number, len(moves), sent) for other in others))
        for other, when in zip(others, shown, strict=True):
            if when is None:
                tally.lost.append(f"room {room}: {name}'s guess {len(moves)} never on a stream ({other.why()})")
                tally.lost_at.append(sent)
            else:
                tally.latency[SCREEN_ROOM].append(when - sent)
        if over or row["black"] == rules.pegs:
            return moves
        knowledge = knowledge.add(code, Feedback(int(row["black"]), int(row["white"])))


async def play_room(
    players: list[Player], rules: Rules, variant: str, rounds: int, rng: random.Random, *, timed: bool = True
) -> PlayedRoom | None:
    """A room of ``players`` (the first its host), each following its stream, playing ``rounds`` rounds of the
    computer's codes."""
    tally: LiveTally = players[0].tally  # type: ignore[assignment]
    body = {"variant": variant, "rounds": rounds, "maker": "computer"}
    made = await players[0].request(ROOM_CREATE if timed else None, "POST", "/api/rooms", body)
    if made is None or made.status_code != 201:
        return None
    room, token = made.json()["id"], made.json()["token"]
    played = PlayedRoom(room, [str(made.json()["you"])])
    tally.rooms.append(played)
    followers = [RoomFollower(players[0], room)]
    tally.streams.append(followers[0])
    try:
        for player in players[1:]:
            joined = await player.request(
                ROOM_JOIN if timed else None, "POST", f"/api/rooms/{room}/join", {"token": token}
            )
            if joined is None or joined.status_code != 200:
                return None
            seen = await player.request(None, "GET", f"/api/rooms/{room}")
            if seen is None or seen.status_code != 200:
                return None
            played.players.append(str(seen.json()["you"]))
            followers.append(RoomFollower(player, room))
            tally.streams.append(followers[-1])
        started = await players[0].request(ROOM_START if timed else None, "POST", f"/api/rooms/{room}/start", {})
        if started is None or started.status_code != 200:
            return None
        total = int(started.json()["room"]["rounds"])
        for name in played.players:
            played.boards[name] = []
        for number in range(1, total + 1):

            async def board(k: int, number: int = number) -> None:
                name = played.players[k]
                others = [f for j, f in enumerate(followers) if j != k]
                moves = await play_board(players[k], name, others, room, number, rules, rng)
                if moves is not None:
                    played.boards[name].append((number, moves))
                if await followers[k].shows(name, number, ENDED, 0.0) is None:  # the round over, on its stream
                    tally.lost.append(f"room {room}: the end of round {number} never on {name}'s stream")

            await asyncio.gather(*(board(k) for k in range(len(players))))
        for follower in followers:
            if await follower.reached_end() is None:
                tally.lost.append(f"room {room}: its end never on a stream ({follower.why()})")
        played.final = [f.last for f in followers]
        return played
    finally:
        for follower in followers:
            await follower.close()


async def rooms(
    base: str,
    count: int,
    size: int,
    rules: Rules,
    variant: str,
    rounds: int,
    think: float,
    tally: LiveTally,
    seed: int,
    ramp: float = 0.0,
) -> float:
    """``count`` rooms at once of ``size`` new clients each (their starts spread evenly over ``ramp``
    seconds); the seconds it all took."""

    async def one(number: int) -> None:
        await asyncio.sleep(ramp * number / count)
        players = [Player(base, tally, think, seed * 1_000_003 + size * number + k) for k in range(size)]
        try:
            if all(await asyncio.gather(*(p.start(kind=None) for p in players))):
                await play_room(players, rules, variant, rounds, random.Random(f"{seed} {number}"))
        finally:
            for player in players:
                await player.close()

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(count)))
    return time.perf_counter() - started


def check_rooms(url: str, played: list[PlayedRoom]) -> Checked:
    """Every room the clients played, read back from the database (through the rooms' own read, as a
    spectator sees a room once over: every round's boards with their guesses): over, each board's guesses
    and scores those its player saw, the standing each stream showed last the stored one."""
    from keypeg.services import rooms as rooms_service

    class Quiet:
        def changed(self, kind: str, key: int) -> None:
            pass

    store = Store(url)
    problems: list[str] = []
    over = right = count = 0
    for room in played:
        try:
            view = rooms_service.snapshot(store, Quiet(), room.id, None)
        except Exception as error:
            problems.append(f"room {room.id}: cannot be read back ({type(error).__name__}: {error})")
            continue
        over += bool(view["over"])
        stored: dict[str, list[tuple[int, list[tuple[str, int, int]]]]] = {n: [] for n in room.players}
        for ended in view.get("rounds") or []:
            for board in ended["boards"]:
                moves = [(r["guess"], int(r["black"]), int(r["white"])) for r in board["rows"]]
                stored.setdefault(board["player"], []).append((int(ended["number"]), moves))
        count += sum(len(m) for boards in stored.values() for _, m in boards)
        wrong = []
        if not view["over"]:
            wrong.append("not over")
        for name in room.players:
            if stored.get(name) != room.boards.get(name):
                wrong.append(f"{name}: stored {stored.get(name)}; played {room.boards.get(name)}")
        standing = [(s["player"], s["points"]) for s in view["standing"]]
        finals = [[(s["player"], s["points"]) for s in f.get("standing", [])] for f in room.final]
        if any(f != standing for f in finals):
            wrong.append(f"the streams last showed the standing {finals}; stored {standing}")
        if wrong:
            problems.append(f"room {room.id}: " + "; ".join(wrong)[:600])
        else:
            right += 1
    store.engine.dispose()
    return Checked(len(played), over, right, count, len(played), problems)


# -- the check ----------------------------------------------------------------------------------------


@dataclass
class Checked:
    matches: int
    over: int
    right: int
    moves: int
    stored_matches: int
    problems: list[str]


def check(url: str, rules: Rules, played: list[Played]) -> Checked:
    """Every match the clients played, read back from the database: over, its games the ones played here
    (codemaker, code, guesses and scores, in order), the points as counted here; and what each player's
    stream showed last, the same."""
    store = Store(url)
    with store.engine.connect() as connection:
        rows = {p: (i, s) for i, p, s in connection.execute(select(MatchRow.id, MatchRow.public_id, MatchRow.state))}
        games: dict[int, list[tuple[int, str | None, str | None]]] = {}
        for game_id, match_id, secret, outcome in connection.execute(
            select(GameRow.id, GameRow.match_id, GameRow.secret, GameRow.outcome).order_by(GameRow.id)
        ):
            games.setdefault(match_id or 0, []).append((game_id, secret, outcome))
        moves: dict[int, list[tuple[str, int, int]]] = {}
        for game_id, guess, black, white in connection.execute(
            select(GuessRow.game_id, GuessRow.guess, GuessRow.black, GuessRow.white).order_by(
                GuessRow.game_id, GuessRow.number
            )
        ):
            moves.setdefault(game_id, []).append((guess, black, white))
    store.engine.dispose()
    problems: list[str] = []
    over = right = count = 0
    for match in played:
        if match.id not in rows:
            problems.append(f"match {match.id}: not in the database")
            continue
        store_id, state = rows[match.id]
        live = LiveMatch.from_state(json.loads(state))
        over += live.is_over
        kept = [(secret, moves.get(game_id, []), outcome) for game_id, secret, outcome in games.get(store_id, [])]
        count += sum(len(m) for _, m, _ in kept)
        seen = [(code, m, "solved") for _, code, m in match.games]
        points = match.points(rules)
        finals = [f.get("scores") for f in match.final]
        wrong = []
        if not live.is_over:
            wrong.append("not over")
        if [(s, m) for s, m, _ in kept] != [(s, m) for s, m, _ in seen] or any(o is None for *_, o in kept):
            wrong.append(f"stored {kept}; played {seen}")
        if live.points() != points:
            wrong.append(f"points stored {live.points()}; counted here {points}")
        if finals != [points, points]:
            wrong.append(f"the streams last showed the points {finals}; counted here {points}")
        if [g.codemaker for g in live.match.match.played] != [m for m, _, _ in match.games]:  # type: ignore[union-attr]
            wrong.append("the codemakers differ")
        if wrong:
            problems.append(f"match {match.id}: " + "; ".join(wrong))
        else:
            right += 1
    return Checked(len(played), over, right, count, len(rows), problems)


# -- the report ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=100, help="matches at once, two clients each (default 100)")
    parser.add_argument("--games", type=int, default=2, help="games in each match: an even number (default 2)")
    parser.add_argument("--variant", default="classic", help="the rules' preset (default classic)")
    parser.add_argument("--rooms", type=int, default=0, help="rooms at once instead of matches (default none)")
    parser.add_argument("--players", type=int, default=6, help="players in each room (default 6)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds in each room (default 2)")
    parser.add_argument(
        "--ramp", type=float, default=0.0, help="seconds over which the matches' (rooms') starts are spread (default 0)"
    )
    parser.add_argument(
        "--pages",
        nargs="?",
        const="stream",
        default="",
        choices=("stream", "fetch"),
        help="each follower gets the page at each state of a new version, as a browser's script does: the page "
        "its stream brings (stream, the default) or fetched again (fetch, as the scripts did before); a move is "
        "on the screen once a page showing it was read",
    )
    server_options(parser)
    options = parser.parse_args()
    if options.matches < 1 or options.games < 2 or options.games % 2:
        parser.error("--matches must be 1 or more; --games, an even number, 2 or more")
    if options.rooms < 0 or not 2 <= options.players <= 8 or not 1 <= options.rounds <= 20:
        parser.error("--rooms must be 0 or more; --players, 2 to 8; --rounds, 1 to 20")
    workers = checked_workers(parser, options)
    rules = find_variant(options.variant).rules
    _ = Knowledge(rules).add(random_code(rules, random.Random(0)), Feedback(0, 0)).candidates  # kernels loaded
    if options.rooms:
        main_rooms(options, workers, rules)
        return

    tally, warm = LiveTally(pages=options.pages), LiveTally(pages=options.pages)
    with tempfile.TemporaryDirectory() as folder, database(options, Path(folder)) as served:
        try:
            with server(served.url, workers, Path(folder) / "serve.log") as (base, pid):
                print(f"keypeg serve --workers {workers} on {served.label}: {base}")
                asyncio.run(matches(base, 4 * workers, rules, options.variant, 2, 0.0, warm, 1_000_000 + options.seed))
                print(f"{options.matches} matches of {options.games} games of {options.variant} at once ...")
                cpu = Cpu(pid, served.pid)
                with connections_opened(served.url) as opened, cpu.measure():
                    seconds = asyncio.run(
                        matches(
                            base,
                            options.matches,
                            rules,
                            options.variant,
                            options.games,
                            options.think,
                            tally,
                            options.seed,
                            options.ramp,
                        )
                    )
                print(f"... {seconds:.1f} s")
        except KeyboardInterrupt:
            raise SystemExit("stopped; so is the server") from None
        checked = check(served.url, rules, warm.matches + tally.matches)
        if served.fresh and checked.stored_matches != checked.matches:
            checked.problems.append(f"{checked.stored_matches} matches in the database, {checked.matches} played")
    summary(options, workers, served.label, tally, warm, seconds, cpu, opened, checked)


def main_rooms(options: argparse.Namespace, workers: int, rules: Rules) -> None:
    """``--rooms``: rooms of ``--players`` instead of matches."""
    tally, warm = LiveTally(pages=options.pages), LiveTally(pages=options.pages)
    with tempfile.TemporaryDirectory() as folder, database(options, Path(folder)) as served:
        try:
            with server(served.url, workers, Path(folder) / "serve.log") as (base, pid):
                print(f"keypeg serve --workers {workers} on {served.label}: {base}")
                asyncio.run(
                    rooms(
                        base,
                        2 * workers,
                        options.players,
                        rules,
                        options.variant,
                        1,
                        0.0,
                        warm,
                        1_000_000 + options.seed,
                    )
                )
                print(f"{options.rooms} rooms of {options.players} players, {options.rounds} rounds, at once ...")
                cpu = Cpu(pid, served.pid)
                with connections_opened(served.url) as opened, cpu.measure():
                    seconds = asyncio.run(
                        rooms(
                            base,
                            options.rooms,
                            options.players,
                            rules,
                            options.variant,
                            options.rounds,
                            options.think,
                            tally,
                            options.seed,
                            options.ramp,
                        )
                    )
                print(f"... {seconds:.1f} s")
        except KeyboardInterrupt:
            raise SystemExit("stopped; so is the server") from None
        checked = check_rooms(served.url, warm.rooms + tally.rooms)
    room_summary(options, workers, served.label, tally, warm, seconds, cpu, opened, checked)


def room_summary(
    options: argparse.Namespace,
    workers: int,
    label: str,
    tally: LiveTally,
    warm: LiveTally,
    seconds: float,
    cpu: Cpu,
    opened: list[int],
    checked: Checked,
) -> None:
    def row(name: str, values: list[float]) -> list[str]:
        return [name, f"{len(values):,}", ms(percentile(values, 0.5)), ms(percentile(values, 0.99)), ms(max(values))]

    screens = tally.latency[SCREEN_ROOM]
    rows = [
        row(kind, tally.latency[kind]) for kind in (*ROOM_REQUESTS, PAGE_GET, SCREEN_ROOM) if tally.latency.get(kind)
    ]
    screen_p99 = percentile(screens, 0.99) if screens else math.inf
    all_requests = sum(len(tally.latency[k]) for k in ROOM_REQUESTS)
    statuses = tally.statuses + warm.statuses
    errors = sum(n for status, n in statuses.items() if status >= 500)
    refused = sum(n for status, n in statuses.items() if 400 <= status < 500)
    lost = tally.lost + warm.lost
    broken = [f.error for f in tally.streams + warm.streams if f.error]
    states = sum(len(f.arrivals) for f in tally.streams)
    alive = sum(f.comments for f in tally.streams)
    ok = not checked.problems and not errors and not lost and not broken and not refused  # a refused move fails
    boards = sum(len(b) for r in tally.rooms for b in r.boards.values())
    think = f", pausing {options.think:g} s on average before each guess" if options.think else ", without pausing"
    rules = find_variant(options.variant).rules
    size = options.players
    notes = [
        "",
        f"{options.rooms} rooms at once of {size} people"
        + (f" (their starts spread evenly over the first {options.ramp:g} s)" if options.ramp else "")
        + f", {options.rooms * size} clients each with its own session "
        f"(a guest) and connections, each following its room's live stream (server-sent events) from start to end"
        f"{think}: {options.rounds} rounds of {options.variant} ({rules.describe()}), the computer setting each "
        "round's code and every player breaking it on their own board at the same time, each guess a random code "
        f"that fits the scores so far, against `keypeg serve --workers {workers}` on {label}, over loopback, client "
        "and server on the same machine. After each guess the player waits until every other player's stream "
        "shows it (as key pegs). **Move to every other screen**: from sending the guess to reading, off each other "
        f"player's stream, the first state that shows it ({size - 1} figures a guess). Untimed rooms warmed the "
        f"workers up first ({len(warm.rooms)} rooms of one round)." + (PAGES_NOTE if options.pages else ""),
        "",
        f"- Throughput: {tally.moves:,} guesses ({boards:,} boards) in {seconds:.1f} s: **{tally.moves / seconds:,.0f} "
        f"guesses/s**, {all_requests / seconds:,.0f} requests/s; the streams delivered {states:,} states "
        f"({states / max(tally.moves, 1):.2f} a guess, every stream counted) and {alive:,} keep-alives.",
        cpu_note(cpu, seconds, all_requests, opened).replace("a request**", "a request, stream wake-ups included**"),
        f"- A guess costs **{cpu.server / max(tally.moves, 1) * 1000:.1f} ms of the server's CPU** and "
        f"{cpu.database / max(tally.moves, 1) * 1000:.1f} ms of the database server's, its request and the "
        f"wake-ups of the {size} streams following the room (one shared read of the room a change in each worker).",
        f"- Checked in the database: {checked.right:,} of the {checked.matches:,} rooms played (warm-up included) are "
        f"there, over, with exactly the boards, guesses and scores their players saw ({checked.moves:,} guesses) and "
        f"the standing each stream showed last: {'**all right**' if ok else '**wrong**'}. Guesses that never reached "
        f"another player's stream: **{len(lost)}**; streams broken: {len(broken)}; answers 5xx: **{errors}**; "
        f"refused (4xx): {refused}.",
        f"- Faults met: tries that failed, by kind: {error_kinds(tally.errors + warm.errors)}; tried again: "
        f"{tally.retries + warm.retries:,} of {tally.requests + warm.requests:,} tries (streams opened again "
        f"included: {sum(f.reconnects for f in tally.streams + warm.streams):,}).",
        f"- Goal: a move on every other screen in p99 <= {SCREEN_GOAL * 1000:.0f} ms with 50 rooms of 6: p99 "
        f"{ms(screen_p99)} ms with {options.rooms} of {size}: "
        f"{'**met**' if screen_p99 <= SCREEN_GOAL else '**not met**'}.",
    ]
    command = f"python benchmarks/live_load.py --rooms {options.rooms} --players {size} --rounds {options.rounds}"
    command += f" --pages {options.pages}" if options.pages else ""
    command += f" --ramp {options.ramp:g}" if options.ramp else ""
    if options.variant != "classic":
        command += f" --variant {options.variant}"
    command += server_command(options, workers)
    report(
        "web",
        paced(f"Rooms of {size} players under load, on loopback", options.think),
        command,
        notes,
        ["latency", "count", "p50 ms", "p99 ms", "max ms"],
        rows,
        save=not options.no_save,
        section=True,
    )
    for problem in (checked.problems + lost + broken + tally.failures + warm.failures)[:20]:
        print(f"problem: {problem}")
    if not ok:
        raise SystemExit(1)


def summary(
    options: argparse.Namespace,
    workers: int,
    label: str,
    tally: LiveTally,
    warm: LiveTally,
    seconds: float,
    cpu: Cpu,
    opened: list[int],
    checked: Checked,
) -> None:
    def row(name: str, values: list[float]) -> list[str]:
        return [name, f"{len(values):,}", ms(percentile(values, 0.5)), ms(percentile(values, 0.99)), ms(max(values))]

    screens = tally.latency[SCREEN_SECRET] + tally.latency[SCREEN_GUESS]
    requests = [v for kind in MOVES for v in tally.latency[kind]]
    rows = [row(kind, tally.latency[kind]) for kind in (*REQUESTS, PAGE_GET, *SCREENS) if tally.latency.get(kind)]
    if screens:
        rows += [row("**any move's request**", requests), row("**any move -> the other's stream**", screens)]
    screen_p99 = percentile(screens, 0.99) if screens else math.inf
    all_requests = sum(len(tally.latency[k]) for k in REQUESTS)
    statuses = tally.statuses + warm.statuses
    errors = sum(n for status, n in statuses.items() if status >= 500)
    refused = sum(n for status, n in statuses.items() if 400 <= status < 500)
    lost = tally.lost + warm.lost
    broken = [f.error for f in tally.streams + warm.streams if f.error]
    states = sum(len(f.arrivals) for f in tally.streams)
    comments = sum(f.comments for f in tally.streams)
    ok = not checked.problems and not errors and not lost and not broken
    games = sum(len(m.games) for m in tally.matches)
    think = f", pausing {options.think:g} s on average before each move" if options.think else ", without pausing"
    rules = find_variant(options.variant).rules

    def met(good: bool) -> str:
        return "**met**" if good else "**not met**"

    notes = [
        "",
        f"{options.matches} matches at once between two people"
        + (f" (their starts spread evenly over the first {options.ramp:g} s)" if options.ramp else "")
        + f", {2 * options.matches} clients each with its own "
        f"session (a guest) and connections, each following its match's live stream (server-sent events) from start "
        f"to end{think}: {options.games} games of {options.variant} ({rules.describe()}) a match, the codemaker "
        "setting a random code, the codebreaker guessing random codes that fit the scores so far, against "
        f"`keypeg serve --workers {workers}` on {label}, over loopback, client and server on the same machine. "
        "After each move the match waits until the other player's stream shows it. **Move to screen**: from "
        "sending the move's request to reading, off the other player's stream, the first state that includes it; "
        "the request: from sending it to reading the whole answer. "
        f"Untimed matches warmed the workers up first ({len(warm.matches)} matches)."
        + (PAGES_NOTE if options.pages else ""),
        "",
        f"- Throughput: {tally.moves:,} moves ({games:,} games) in {seconds:.1f} s: **{tally.moves / seconds:,.0f} "
        f"moves/s**, {all_requests / seconds:,.0f} requests/s; the streams delivered {states:,} states "
        f"({states / max(tally.moves, 1):.2f} a move, both players' streams counted) and {comments:,} keep-alive "
        "comments.",
        cpu_note(cpu, seconds, all_requests, opened).replace("a request**", "a request, stream wake-ups included**"),
        f"- A move costs **{cpu.server / max(tally.moves, 1) * 1000:.1f} ms of the server's CPU** and "
        f"{cpu.database / max(tally.moves, 1) * 1000:.1f} ms of the database server's: its request (one transaction: "
        "the match and its game read, the guess written with the match's new state, announced as it commits) and "
        "the wake-ups of the streams following the match (one shared read of the match a change in each worker "
        "that follows it).",
        f"- Checked in the database: {checked.right:,} of the {checked.matches:,} matches played (warm-up included) "
        f"are there, over, with exactly the games, codes, guesses and scores the clients saw ({checked.moves:,} "
        f"guesses) and the points counted here, which each player's stream showed last: "
        f"{'**all right**' if ok else '**wrong**'}. Moves that never reached the other side's stream: "
        f"**{len(lost)}**; streams broken: {len(broken)}; answers 5xx: **{errors}**; refused (4xx): {refused}.",
        f"- Faults met: tries that failed, by kind: {error_kinds(tally.errors + warm.errors)}; tried again: "
        f"{tally.retries + warm.retries:,} of {tally.requests + warm.requests:,} tries (streams opened again "
        f"included: {sum(f.reconnects for f in tally.streams + warm.streams):,}).",
        f"- Goal: a move on the other player's screen in p99 <= {SCREEN_GOAL * 1000:.0f} ms with 100 matches at "
        f"once: p99 {ms(screen_p99)} ms with {options.matches}: {met(screen_p99 <= SCREEN_GOAL)}.",
    ]
    command = f"python benchmarks/live_load.py --matches {options.matches} --games {options.games}"
    command += f" --pages {options.pages}" if options.pages else ""
    command += f" --ramp {options.ramp:g}" if options.ramp else ""
    if options.variant != "classic":
        command += f" --variant {options.variant}"
    command += server_command(options, workers)
    report(
        "web",
        paced("Live matches between two people under load, on loopback", options.think),
        command,
        notes,
        ["latency", "count", "p50 ms", "p99 ms", "max ms"],
        rows,
        save=not options.no_save,
        section=True,
    )
    for problem in (checked.problems + lost + broken + tally.failures + warm.failures)[:20]:
        print(f"problem: {problem}")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
