"""``keypeg room LINK``: a seat in a room (or a spectator's view of it) from the terminal or a program.

The command speaks HTTP only (the rooms' JSON API, ``/api/rooms``, and its event stream), like any other
client of a ``keypeg serve``: it never touches the store. Codes are read and shown with the rules'
own symbols (letters or digits as everywhere). Piped, it speaks the line protocol described in
:data:`PROTOCOL` (and the README's "Rooms in the terminal").
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import parse_qs, urlsplit

import click
from rich.console import RenderableType
from rich.text import Text

from keypeg import __version__
from keypeg.cli.common import cli, read_code
from keypeg.cli.render import board as board_of
from keypeg.cli.render import key_text, new_table, peg_text, plain
from keypeg.cli.terminal import LINE_LIMIT, Terminal
from keypeg.code import Feedback
from keypeg.errors import (
    ConflictError,
    ForbiddenError,
    KeypegError,
    NotFoundError,
    RefusedError,
    UnavailableError,
)
from keypeg.rules import Rules
from keypeg.storage import atomic_write, state_dir
from keypeg.text import plural, quoted, visible

__all__ = ["room", "Link", "parse_link", "Server", "RoomError"]

ROOM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
STREAM_RETRIES = 8
"""Connections to the room's stream tried in a row that fail before the command gives up (about 30 s)."""
STREAM_BACKOFF = 0.5
"""Seconds before the room's stream is opened again after it dropped, doubled at each failure in a row
(at most 5 s)."""
STREAM_SILENCE = 20.0
"""Seconds without a byte from the stream (the server sends a keep-alive every few seconds) before it is
taken as dropped and opened again."""
LINES_AHEAD = 256
"""Lines read from stdin ahead of their use (a bot may pipe its moves before they are asked for): the
input is read no further until some are used, so an endless input never fills the memory."""
MOVE_RETRY_FOR = 10.0
"""Seconds a move is tried again (backing off 0.5 s, doubled up to 4 s) while the server cannot be reached,
before the command gives up (exit 1, saying why in one line)."""


class RoomError(KeypegError):
    """The server refused a request: its status and its one-line reason."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class RoomNotFound(RoomError, NotFoundError):
    """404: no such room (or not yours to see)."""


class RoomForbidden(RoomError, ForbiddenError):
    """401 or 403: a wrong token, password or session; a seat that is not yours."""


class RoomConflict(RoomError, ConflictError):
    """409: someone moved first, or the request was sent twice."""


class RoomRefused(RoomError, RefusedError):
    """429: too many requests or failed logins: try again later."""


class RoomUnavailable(RoomError, UnavailableError):
    """5xx: the server or its store is down."""


def error_of(status: int, message: str) -> RoomError:
    """The keypeg error for an HTTP status, so that it maps to the exit codes as any other command's."""
    kinds: dict[int, type[RoomError]] = {401: RoomForbidden, 403: RoomForbidden, 404: RoomNotFound, 409: RoomConflict}
    kind = kinds.get(status, RoomRefused if status == 429 else RoomUnavailable if status >= 500 else RoomError)
    return kind(message, status)


@dataclass(frozen=True)
class Link:
    """A room's link: the server's address, the room's id and, for the join link, its token."""

    base: str
    room: str
    token: str | None

    @property
    def watching(self) -> bool:
        return self.token is None


def parse_link(text: str) -> Link:
    """Read a room's join link (``http://host:port/rooms/ID/join?token=T``) or its watching link
    (``http://host:port/rooms/ID``).

    >>> parse_link("http://127.0.0.1:8000/rooms/r7x/join?token=abc")
    Link(base='http://127.0.0.1:8000', room='r7x', token='abc')
    >>> parse_link("https://keypeg.example/rooms/r7x").watching
    True
    """
    shown = quoted(text.strip(), limit=120)
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018  (a port that is not a number raises here)
    except ValueError:
        raise KeypegError(f"{shown} is not a room's link") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise KeypegError(f"{shown} is not a room's link: it starts with http:// or https:// and the server's address")
    steps = [step for step in parts.path.split("/") if step]
    join = bool(steps) and steps[-1] == "join"
    if join:
        steps.pop()
    if len(steps) < 2 or steps[-2] != "rooms" or not ROOM_ID.fullmatch(steps[-1]):
        raise KeypegError(
            f"{shown} is not a room's link: it ends with /rooms/ID (to watch) or /rooms/ID/join?token=..."
        )
    token = None
    if join:
        tokens = parse_qs(parts.query).get("token", [])
        if len(tokens) != 1 or not tokens[0].strip() or len(tokens[0]) > 64:
            raise KeypegError(f"{shown} is a join link without its token (…/join?token=...)")
        token = tokens[0].strip()
    prefix = "/".join(steps[:-2])
    base = f"{parts.scheme}://{parts.netloc}" + (f"/{prefix}" if prefix else "")
    return Link(base, steps[-1], token)


class Server:
    """The rooms' JSON API of one ``keypeg serve``: a session (its cookie and CSRF token), requests whose
    failures become keypeg's errors (so exit codes follow :data:`keypeg.cli.common.EXIT_CODES`)."""

    def __init__(self, base: str, *, cookies: Any = None) -> None:
        try:
            import httpx
        except ImportError:
            raise KeypegError("keypeg room needs httpx: pip install 'keypeg[web]'") from None

        self.base = base
        self.client = httpx.Client(
            base_url=base,
            timeout=httpx.Timeout(30.0, connect=10.0),
            headers={"User-Agent": f"keypeg/{__version__} (keypeg room)", "Accept": "application/json"},
            cookies=cookies,
        )
        self.csrf = ""

    def twin(self) -> Server:
        """Another connection with this one's session (the event stream reads on it, in its own thread)."""
        return Server(self.base, cookies=self.client.cookies)

    def close(self) -> None:
        self.client.close()

    def open_session(self) -> None:
        """A session of the server's (a guest's until a login), and its CSRF token."""
        self.csrf = str(self.get("/api/session").get("csrf", ""))

    def login(self, name: str, password: str) -> str:
        """Log in as a registered player (a new session): the player's name."""
        answer = self.post("/api/login", {"name": name, "password": password})
        self.csrf = str(answer.get("csrf", ""))
        return str(answer.get("player") or name)

    def get(self, path: str) -> dict[str, Any]:
        return self._send("GET", path)

    def post(self, path: str, body: object = None, *, timeout: float | None = None) -> dict[str, Any]:
        return self._send("POST", path, body, timeout)

    def _send(self, method: str, path: str, body: object = None, timeout: float | None = None) -> dict[str, Any]:
        import httpx

        headers = {"X-CSRF-Token": self.csrf} if method != "GET" else {}
        options: dict[str, Any] = {"timeout": timeout} if timeout is not None else {}
        try:
            answer = self.client.request(method, path, json=body, headers=headers, **options)
        except httpx.HTTPError as error:
            raise self.unreachable(error) from None
        return self.read(answer)

    def unreachable(self, error: Exception) -> RoomUnavailable:
        reason = str(error) or type(error).__name__
        return RoomUnavailable(f"cannot reach {visible(self.base, 120)}: {visible(reason, 200)}", 0)

    @staticmethod
    def read(answer: Any) -> dict[str, Any]:
        """The JSON object of a successful answer, or the error its status says (with the server's reason)."""
        try:
            data = answer.json()
        except ValueError:
            data = None
        if answer.status_code >= 400:
            said = data.get("error") if isinstance(data, dict) else None
            if not isinstance(said, str) or not said.strip():
                said = f"the server answered {answer.status_code} {answer.reason_phrase}".strip()
            if answer.status_code == 429 and answer.headers.get("retry-after"):
                said += f" (try again in {visible(answer.headers['retry-after'], 10)} s)"
            raise error_of(answer.status_code, said)
        if not isinstance(data, dict):
            raise RoomUnavailable(f"{visible(answer.url, 120)} did not answer with a JSON object: is it keypeg?", 0)
        return data

    def events(self, path: str, stop: threading.Event) -> Iterator[dict[str, Any]]:
        """The states a server-sent event stream carries (``event: state``), until the stream ends or
        ``stop`` is set; keep-alives (``event: alive``, comments) are skipped."""
        import httpx

        timeout = httpx.Timeout(30.0, connect=10.0, read=STREAM_SILENCE)
        with self.client.stream("GET", path, timeout=timeout, headers={"Accept": "text/event-stream"}) as answer:
            if answer.status_code >= 400:
                answer.read()
                self.read(answer)
            kind, data = "", list[str]()
            for line in answer.iter_lines():
                if stop.is_set():
                    return
                if line.startswith(":"):
                    continue
                if not line:
                    if data and kind in ("", "message", "state"):
                        state = _json_object("\n".join(data))
                        if state is not None:
                            yield state
                    kind, data = "", []
                    continue
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "event":
                    kind = value
                elif name == "data":
                    data.append(value)


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        found = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return found if isinstance(found, dict) else None


# -- input and the stream, in threads that feed one queue -------------------------------------------


class Lines:
    """Lines of stdin read from its file descriptor (no buffer shared with another thread, so a thread
    blocked here never holds a lock the exit needs): a line that is not UTF-8 or is absurdly long is
    refused with a warning and reads as empty."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.buffer = b""
        self.ended = False
        self.skip = False
        try:
            self.fd: int | None = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # a stdin with no file behind it (tests that replace it)
            self.fd = None

    def next(self) -> str | None:
        """The next line (without its end), or ``None`` at the end of input."""
        if self.fd is None:
            line = sys.stdin.readline()
            return line.rstrip("\r\n") if line else None
        while b"\n" not in self.buffer and not self.ended:
            if len(self.buffer) > LINE_LIMIT:
                self.buffer = b""
                self.skip = True
            try:
                chunk = os.read(self.fd, 1 << 16)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self.ended = True
            self.buffer += chunk
        if not self.buffer:
            return None
        raw, _, self.buffer = self.buffer.partition(b"\n")
        if self.skip:
            self.skip = False
            self.warn(f"a line of more than {LINE_LIMIT:,} bytes is ignored")
            return ""
        try:
            return raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            self.warn("a line that is not UTF-8 text is ignored")
            return ""


Event = tuple[str, Any]
"""What the threads tell the command: ``("line", text or None at the end)``, ``("state", view)``,
``("fail", error)``."""


def read_lines(lines: Lines, events: queue.Queue[Event], ahead: threading.Semaphore) -> None:
    """The input thread: every line of stdin (blank ones skipped), then ``None``; a line is read only once
    ``ahead`` lets it (the command releases it as it uses a line: :data:`LINES_AHEAD` at most unused)."""
    while True:
        ahead.acquire()
        line = lines.next()
        if line is None:
            events.put(("line", None))
            return
        if line.strip():
            events.put(("line", line.strip()))
        else:
            ahead.release()


def follow(server: Server, room: str, events: queue.Queue[Event], stop: threading.Event) -> None:
    """The stream thread: the room's states as the server sends them; a dropped stream is opened again
    (backing off 0.5 s, doubled up to 5 s); the command is told when the room is gone or the server stays
    unreachable for :data:`STREAM_RETRIES` tries in a row."""
    import httpx

    failures = 0
    while not stop.is_set():
        try:
            for state in server.events(f"/api/rooms/{room}/stream", stop):
                failures = 0
                events.put(("state", state))
        except (NotFoundError, ForbiddenError) as error:
            events.put(("fail", error))
            return
        except (httpx.HTTPError, KeypegError) as error:
            failures += 1
            if failures > STREAM_RETRIES:
                found = error if isinstance(error, KeypegError) else server.unreachable(error)
                events.put(("fail", found))
                return
        stop.wait(min(5.0, STREAM_BACKOFF * 2 ** max(failures - 1, 0)))


# -- the seat ----------------------------------------------------------------------------------------

QUIT, HELP, START = {"q", "quit", "exit", "leave"}, {"?", "help"}, {"start", "s"}


class Seat:
    """A seat in a room (or a spectator's place), following the room's views as they come (the event
    stream, and the answers to its own moves: the newest ``version`` wins) and saying what changed: the
    protocol's lines on stdout when piped, the room drawn for a person in a terminal."""

    def __init__(self, server: Server, room: str, terminal: Terminal, events: queue.Queue[Event], seated: bool):
        self.server, self.room, self.terminal, self.events, self.seated = server, room, terminal, events, seated
        self.view: dict[str, Any] = {}
        self.version = -1
        self.rules: Rules | None = None
        self.me: str | None = None
        self.ended_upto = 0  # the last ended round said (or ended before this seat came)
        self.current = 0  # the round in play last seen
        self.role: str | None = None  # this round: "make", "break", "out" (None: not said yet)
        self.told: set[str] = set()  # what was said once this round ("wait", "done")
        self.printed = 0  # rows of this seat's board said this round
        self.progress: dict[str, int] = {}  # rows of the others' boards shown this round
        self.seats_shown: list[tuple[str, str, bool]] = []
        self.notes: list[str] = []
        self.pending: deque[str] = deque()
        self.ahead = threading.Semaphore(LINES_AHEAD)  # lines the input thread may read before they are used
        self.eof = False
        self.over = False
        self.prompted: object = None
        self.deadline: float | None = None  # when this seat's clock runs out (time.monotonic)

    # -- what the views say ------------------------------------------------------------------------------

    def apply(self, view: dict[str, Any]) -> None:
        """Take a view of the room, if newer than the last one, and say what changed; a view that is not a
        room's (a server that is not keypeg's, or another version's) is a clear error, never a traceback."""
        try:
            self._apply(view)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            if isinstance(error, KeypegError):
                raise
            raise RoomUnavailable(f"the server's answer is not a room as keypeg {__version__} knows it", 0) from None

    def _apply(self, view: dict[str, Any]) -> None:
        version = view.get("version")
        if not isinstance(version, int) or version <= self.version or not isinstance(view.get("room"), dict):
            return
        first = not self.view
        self.version, self.view = version, view
        if first:
            self.rules = Rules.from_dict(view["room"]["rules"])
            self.me = view.get("you") if self.seated else None
            self.ended_upto = max((r["number"] for r in view.get("rounds") or []), default=0)
            self.show_header()
        self.show_notes(first)
        self.check_seat()
        for ended in sorted(view.get("rounds") or [], key=lambda r: int(r["number"])):
            if ended["number"] > self.ended_upto:
                self.round_over(ended)
        round_ = view.get("round")
        if view.get("over"):
            self.finish()
        elif round_:
            self.round_in_play(round_)
        elif view["room"].get("status") == "waiting":
            self.show_seats()
        yours = (view.get("clock") or {}).get("yours")
        left = yours.get("seconds_left") if isinstance(yours, dict) else None
        self.deadline = time.monotonic() + float(left) if isinstance(left, (int, float)) else None

    def check_seat(self) -> None:
        """A seat taken away (the host's kick, or a leave from another window) ends the command."""
        if not self.seated or self.me is None:
            return
        seat = next((s for s in self.view.get("seats", []) if s.get("player") == self.me), None)
        status = seat.get("status") if seat is not None else "gone"
        if status == "kicked":
            raise RoomForbidden("the host removed you from the room", 403)
        if status == "left" and not self.view.get("over"):
            raise RoomRefused("your seat in this room was left (from another window?): the link takes you back", 0)
        if status != "present" and not self.view.get("over"):
            raise RoomRefused("you no longer have a seat in this room (the host removed you, or you left elsewhere)", 0)

    def round_in_play(self, round_: dict[str, Any]) -> None:
        number = int(round_["number"])
        if number != self.current:
            self.current, self.role, self.told, self.printed, self.progress = number, None, set(), 0, {}
        total = visible(round_.get("of"), 10)
        heading = f"round {number} of {total}"
        if self.role is None:
            board = self.view.get("board")
            if self.me is not None and round_.get("maker") == self.me:
                self.role = "make"
                self.say(
                    f"{heading} maker",
                    Text.assemble(
                        (f"Round {number} of {total}", "bold"),
                        ": you set the code; the others break it. Type it (e.g. ",
                        self.rules_example(),
                        ").",
                    ),
                )
            elif round_.get("code_set"):
                self.role = "break" if isinstance(board, dict) and not board.get("over") else "out"
                suffix = " out" if self.role == "out" and self.seated else ""
                by = "the computer" if round_.get("maker") is None else plain(round_.get("maker_name"))
                what = "; break it" if self.role == "break" else "; you sit this round out" if self.seated else ""
                self.say(
                    heading + suffix,
                    Text.assemble((f"Round {number} of {total}", "bold"), ": the code of ", by, f"{what}."),
                )
            elif "wait" not in self.told:
                self.told.add("wait")
                self.tell(
                    Text.assemble(
                        (f"Round {number} of {total}", "bold"),
                        ": waiting for ",
                        plain(round_.get("maker_name")),
                        " to set the code.",
                    )
                )
        if self.role == "make" and round_.get("code_set") and "set" not in self.told:
            self.told.add("set")
            code = round_.get("code")
            if isinstance(code, str):
                self.tell(Text.assemble("Your code is set: ", self.code_text(code), "; the others break it now."))
        if self.role == "break":
            self.show_rows(self.view.get("board"))
        if self.role is not None:
            self.show_progress(round_)

    def show_rows(self, board: dict[str, Any] | None) -> None:
        """This seat's new rows: ``B W`` each (piped), the board (terminal); how the board ended, once."""
        if not isinstance(board, dict):
            return
        rows = board.get("rows") or []
        for row in rows[self.printed :]:
            self.answer(f"{int(row['black'])} {int(row['white'])}")
        if len(rows) > self.printed and self.terminal.interactive:
            self.tell(self.board_table(rows, "your board"))
        self.printed = len(rows)
        ended = board.get("ended")
        if (board.get("over") or ended) and "done" not in self.told:
            self.told.add("done")
            if ended == "broken":
                self.tell(Text(f"Broken in {plural(len(rows), 'guess', 'guesses')}!", style="bold green"))
            elif ended == "timed out":
                self.terminal.warn(f"your time ran out in round {self.current}: your board ends not broken")
            elif ended:
                self.tell(Text(f"Your board of this round ended: {visible(ended, 40)}."))

    def show_progress(self, round_: dict[str, Any]) -> None:
        """The others' boards as key pegs only, a line for each that moved on (terminal only)."""
        if not self.terminal.interactive or self.rules is None:
            return
        for board in round_.get("boards") or []:
            player, rows = board.get("player"), board.get("rows") or []
            seen = self.progress.get(player, -1)
            shown = len(rows) + (1 if board.get("over") else 0)
            if player == self.me or shown == seen:
                continue
            self.progress[player] = shown
            line = Text.assemble("  ", plain(board.get("name")), ": ")
            if rows:
                last = rows[-1]
                line.append_text(key_text(self.rules, Feedback(int(last["black"]), int(last["white"]))))
                line.append(f"  after {plural(len(rows), 'guess', 'guesses')}")
            else:
                line.append("no guess yet", style="dim")
            if board.get("ended") == "broken":
                line.append(f", broken in {visible(board.get('seconds'), 20)} s", style="green")
            elif board.get("ended"):
                line.append(f", {visible(board['ended'], 40)}", style="dim")
            self.tell(line)

    def round_over(self, ended: dict[str, Any]) -> None:
        number = int(ended["number"])
        if self.current == number and self.role == "break":
            mine = next((b for b in ended.get("boards") or [] if b.get("player") == self.me), None)
            self.show_rows(mine)
        code = visible(ended.get("code"), 120)
        self.ended_upto = number
        if self.current == number:
            self.role = "over"
        if not self.terminal.interactive:
            self.answer(f"round over {code}")
            return
        self.prompted = None
        heading = Text.assemble((f"Round {number} over", "bold"), ": the code was ", self.code_text(code))
        if ended.get("closed"):
            heading.append(" (the host closed the room: it counts as it stood)")
        self.tell(heading)
        table = new_table(box=None, padding=(0, 1))
        for column in ("", "guesses", "", "seconds", "points"):
            table.add_column(column, justify="left" if not column else "right")
        for board in ended.get("boards") or []:
            end = board.get("ended") or ""
            table.add_row(
                plain(board.get("name")),
                plain(board.get("guesses")),
                Text(visible(end, 40), style="green" if end == "broken" else "dim"),
                plain(board.get("seconds") if board.get("seconds") is not None else ""),
                plain(board.get("points") if board.get("points") is not None else ""),
            )
        if ended.get("maker") is not None:
            said = ended.get("maker_ended")
            table.add_row(
                plain(ended.get("maker_name")),
                "",
                Text("codemaker", style="dim"),
                "",
                plain(ended.get("maker_points") if ended.get("maker_points") is not None else said),
            )
        self.tell(table)
        for board in ended.get("boards") or []:
            rows = board.get("rows") or []
            if rows and board.get("player") != self.me:
                self.tell(self.board_table(rows, f"{visible(board.get('name'), 64)}'s board"))
        if not self.view.get("over"):
            self.show_standing()

    def finish(self) -> None:
        if self.over:
            return
        self.over = True
        closed = self.view.get("room", {}).get("closed")
        self.tell(Text("The host closed the room." if closed else "The room is over.", style="bold"))
        self.show_standing(always=True)
        self.answer("room over")

    # -- showing -----------------------------------------------------------------------------------------

    def show_header(self) -> None:
        room = self.view["room"]
        assert self.rules is not None
        maker = "each player in turn" if room.get("maker") == "turns" else "the computer"
        self.tell(
            Text.assemble(
                ("Room ", "bold"),
                (visible(self.room, 64), "bold"),
                f": {self.rules.describe()}; ",
                f"{plural(int(room.get('rounds') or 0), 'round')}, codes set by {maker}, ",
                f"{visible(room.get('per_move'), 20)} a move.",
            )
        )
        if not self.seated:
            self.tell(
                Text("You are watching: you see the boards' key pegs, and each round whole once it ends.", style="dim")
            )
        elif room.get("status") == "waiting" and self.view.get("host") != self.me:
            self.tell(Text("Waiting for the host to start; type q to leave (Ctrl-C too).", style="dim"))

    def show_seats(self) -> None:
        seats = [(str(s.get("name")), str(s.get("status")), bool(s.get("host"))) for s in self.view.get("seats", [])]
        if seats == self.seats_shown:
            return
        self.seats_shown = seats
        line = Text("Seated: ")
        for k, (name, _status, host) in enumerate(seats):
            if k:
                line.append(", ")
            line.append_text(plain(name))
            if host:
                line.append(" (host)", style="dim")
        if self.me is not None and self.view.get("host") == self.me:
            line.append(". You are the host: type 'start' when everyone is here.")
        self.tell(line)

    def show_standing(self, always: bool = False) -> None:
        standing = self.view.get("standing") or []
        if not standing:
            return
        if not self.terminal.interactive:
            if always:
                parts = [f"{s.get('place')}. {visible(s.get('name'), 64)} {s.get('points')}" for s in standing]
                self.terminal.warn("standing: " + ", ".join(parts))
            return
        table = new_table(title="standing", box=None, padding=(0, 1))
        for column in ("", "player", "points", "guesses", ""):
            table.add_column(column, justify="right" if column in ("", "points", "guesses") else "left")
        for s in standing:
            mark = "you" if s.get("player") == self.me else ("" if s.get("status") == "present" else s.get("status"))
            table.add_row(
                plain(s.get("place")),
                plain(s.get("name")),
                plain(s.get("points")),
                plain(s.get("guesses")),
                Text(visible(mark or "", 20), style="dim"),
            )
        self.tell(table)

    def show_notes(self, first: bool) -> None:
        """The room's notes (who sat down, left, ran out of time) that are new since the last view."""
        notes = [str(n) for n in self.view.get("notes") or []]
        keep = next(
            (
                k
                for k in range(min(len(notes), len(self.notes)), -1, -1)
                if notes[:k] == self.notes[len(self.notes) - k :]
            ),
            0,
        )
        fresh = notes[keep:] if not first else []
        self.notes = notes
        for note in fresh:
            self.tell(Text(f"· {visible(note, 200)}", style="dim"))

    def board_table(self, rows: list[dict[str, Any]], title: str) -> RenderableType:
        assert self.rules is not None
        try:
            history = [(self.rules.parse(str(r["guess"])), Feedback(int(r["black"]), int(r["white"]))) for r in rows]
        except (KeypegError, KeyError, TypeError, ValueError):
            return Text(
                f"{title}: "
                + ", ".join(f"{visible(r.get('guess'), 40)} {r.get('black')} {r.get('white')}" for r in rows)
            )
        return board_of(self.rules, history, title)

    def code_text(self, code: str) -> Text:
        assert self.rules is not None
        try:
            return peg_text(self.rules, self.rules.parse(code))
        except KeypegError:
            return Text(code)

    def rules_example(self) -> str:
        return visible(self.rules.example()) if self.rules is not None else ""

    def say(self, line: str, shown: RenderableType) -> None:
        """A protocol line (piped), or what a person reads instead (terminal)."""
        if self.terminal.interactive:
            self.tell(shown)
        else:
            self.answer(line)

    def answer(self, line: str) -> None:
        if not self.terminal.interactive:
            self.terminal.answer(line)

    def tell(self, shown: RenderableType) -> None:
        """Something for the person at a terminal (nothing when piped: the protocol is enough)."""
        if self.terminal.interactive:
            if self.prompted is not None:
                self.terminal.out.print()
                self.prompted = None
            self.terminal.out.print(shown)

    # -- input -------------------------------------------------------------------------------------------

    def needs(self) -> str | None:
        """What this seat must type now: ``"code"`` (its code to set), ``"guess"``, or ``None``."""
        round_ = self.view.get("round")
        if self.over or not self.seated or not round_ or int(round_.get("number", 0)) != self.current:
            return None
        if self.role == "make" and not round_.get("code_set"):
            return "code"
        board = self.view.get("board")
        if self.role == "break" and isinstance(board, dict) and not board.get("over"):
            return "guess"
        return None

    def prompt(self, need: str) -> None:
        """The prompt of a terminal, once for each thing asked (with the clock then)."""
        board = self.view.get("board") or {}
        key = (need, self.current, len(board.get("rows") or []))
        if self.prompted == key or self.rules is None:
            return
        left = f" ({clock(self.deadline - time.monotonic())})" if self.deadline is not None else ""
        asked = (
            f"your code for round {self.current}{left}"
            if need == "code"
            else f"guess {len(board.get('rows') or []) + 1}/{self.rules.rows}{left}"
        )
        self.terminal.out.print(Text(asked + ": "), end="")
        self.prompted = key

    def line(self, text: str) -> int | None:
        """A line typed: a command, or a move; an exit code when it ends the command."""
        word = text.lower()
        if not self.terminal.interactive:
            self.pending.append(text)
            return None
        self.prompted = None
        if word in QUIT:
            return self.quit()
        if word in HELP:
            self.tell(Text(HELP_TEXT))
            return None
        if word in START and self.view.get("room", {}).get("status") == "waiting":
            if self.view.get("host") != self.me:
                self.terminal.warn("only the host can start the room")
                return None
            self.act("start", None)
            return None
        need = self.needs()
        if need is None:
            self.terminal.warn("nothing to type now: wait for your turn (q leaves the room, ? helps)")
            return None
        self.move(text, need)
        return None

    def move(self, text: str, need: str) -> None:
        """Send the code or the guess typed; a refusal is one line on stderr (the line is used up)."""
        assert self.rules is not None
        if need == "code":
            try:
                code = self.rules.parse(text)
            except KeypegError:  # its message would quote the code
                self.terminal.warn(
                    f"that is not a code of these rules ({self.rules.describe()}, e.g. {self.rules.example()}); again"
                )
                return
            self.act("code", {"code": str(code)})
            return
        try:
            guess = read_code(self.rules, text)
        except KeypegError as error:
            self.terminal.warn(str(error))
            return
        board = self.view.get("board") or {}
        number = (self.view.get("round") or {}).get("number")  # a guess sent after its round ended is refused
        self.act("guesses", {"guess": str(guess), "row": len(board.get("rows") or []) + 1, "round": number})

    def act(self, what: str, body: object) -> None:
        """POST a move and take the view it answers. A refusal (400, 409) is said and the room read again;
        a server down for a moment is tried again for :data:`MOVE_RETRY_FOR` seconds, backing off (a guess
        names its row: it is never counted twice)."""
        waited, delay = 0.0, 0.5
        while True:
            try:
                self.apply(self.server.post(f"/api/rooms/{self.room}/{what}", body))
                return
            except RoomUnavailable as error:
                if waited >= MOVE_RETRY_FOR:
                    raise RoomUnavailable(f"{error} (tried again for {waited:.0f} s)", error.status) from None
                time.sleep(delay)  # backing off, then the same move again
                waited, delay = waited + delay, min(delay * 2, 4.0)
            except (RoomNotFound, RoomForbidden) as error:
                if error.status == 404 or what != "start":
                    raise
                self.terminal.warn(str(error))
                return
            except RoomError as error:
                self.terminal.warn(str(error))
                self.apply(self.server.get(f"/api/rooms/{self.room}"))
                return

    def quit(self) -> int:
        """Leave the room (the seat keeps its place in the standing): 0 in a terminal, 1 piped."""
        self.leave()
        self.tell(Text("You left the room; the same link takes you back to your seat."))
        return 0 if self.terminal.interactive else 1

    def leave(self) -> None:
        """POST leave, once, if seated and the room is on; a failure is a note (the clock ends the seat's
        boards anyway)."""
        if not self.seated or self.over:
            return
        self.over = True
        try:
            self.server.post(f"/api/rooms/{self.room}/leave", None, timeout=5.0)
        except KeypegError as error:
            self.terminal.note(f"leaving the room failed: {error}")

    # -- the loop ----------------------------------------------------------------------------------------

    def run(self) -> int:
        """Follow the room to its end (0), or until this seat leaves: the exit code."""
        while not self.over:
            need = self.needs()
            if need is not None and self.pending:
                text = self.pending.popleft()
                self.ahead.release()
                if text.lower() in QUIT:
                    return self.quit()
                self.move(text, need)
                continue
            if need is not None and self.eof:
                self.terminal.warn("the input ended before the room did: you leave it")
                return self.quit()
            if need is not None and self.terminal.interactive:
                self.prompt(need)
            try:
                kind, value = self.events.get(timeout=1.0)
            except queue.Empty:
                continue
            if kind == "state":
                self.apply(value)
            elif kind == "fail":
                raise value
            elif value is None:
                self.eof = True
                if self.terminal.interactive:
                    self.terminal.out.print()
                    return self.quit()
            else:
                ended = self.line(value)
                if self.terminal.interactive:  # used now (piped: once taken from ``pending``)
                    self.ahead.release()
                if ended is not None:
                    return ended
        return 0


HELP_TEXT = (
    "Type a guess when asked (the rules' symbols, letters A.. or digits 1..), or your code when you are the "
    "round's codemaker. q leaves the room (the same link takes you back), start starts it (the host), "
    "? shows this."
)


def clock(seconds: float) -> str:
    """Seconds left as ``1:05`` (``0:00`` once out).

    >>> clock(65.2), clock(-3), clock(3700)
    ('1:05', '0:00', '61:40')
    """
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


# -- a guest's seat kept between runs ------------------------------------------------------------------


def seat_file(base: str, room: str) -> Path:
    """Where a guest's session for the room ``room`` of the server ``base`` is kept between runs (in keypeg's
    state folder, :func:`keypeg.storage.state_dir`): the same link takes the guest back to their seat after
    Ctrl-C or a crash."""
    key = hashlib.sha256(f"{base}\n{room}".encode()).hexdigest()[:32]
    return state_dir() / "rooms" / f"{key}.json"


def saved_session(base: str, room: str) -> dict[str, str] | None:
    """The cookies of the guest's session kept for this room, if any (a file that is not one is ignored)."""
    try:
        kept = json.loads(seat_file(base, room).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(kept, dict) or kept.get("base") != base or kept.get("room") != room:
        return None
    cookies = kept.get("cookies")
    if not isinstance(cookies, dict):
        return None
    return {str(k): str(v) for k, v in cookies.items() if isinstance(k, str) and isinstance(v, str)} or None


def keep_session(base: str, room: str, cookies: dict[str, str], warn: Callable[[str], None]) -> None:
    """Keep the guest's session for this room (a private file, written atomically); a failure is a warning:
    the seat is played on, but a crash loses it."""
    path = seat_file(base, room)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        atomic_write(path, json.dumps({"base": base, "room": room, "cookies": cookies}))
    except (OSError, KeypegError) as error:
        kept = visible(str(error), 200)
        warn(f"your seat's session was not kept ({kept}): after a crash the link cannot take you back")


def forget_session(base: str, room: str) -> None:
    """Remove the guest's session kept for this room (the room is over, or the seat was taken away)."""
    with contextlib.suppress(OSError):
        seat_file(base, room).unlink(missing_ok=True)


# -- the command -------------------------------------------------------------------------------------

PROTOCOL = """\b
Piped (stdin not a terminal), one line each on stdout, flushed at once:
  round N of M          round N's code is set: you break it now, a guess a line
  B W                   the score of each of your guesses (black, white)
  round N of M maker    you set round N's code ('turns'): write it on a line
  round N of M out      you sit round N out (you rejoined mid-round)
  round over CODE       round N ended (every board over): its code
  room over             the room ended (its last round, or the host closed it)
Lines you write before they are asked wait for it (the next round's
guesses may follow at once). 'q' or the end of input when a move is
asked leaves the room (exit 1). Watching, the same round lines (without
'maker' or 'out') and 'room over' are printed; nothing is read."""


def _password(terminal: Terminal, lines: Lines, user: str, from_stdin: bool) -> str:
    """``user``'s password: the first line of stdin (``--password-stdin``; a hidden prompt in a terminal),
    else ``$KEYPEG_PASSWORD``, else a hidden prompt in a terminal. Never an argument on the command line."""
    if from_stdin and not terminal.interactive:
        return lines.next() or ""
    if not from_stdin and "KEYPEG_PASSWORD" in os.environ:
        return os.environ["KEYPEG_PASSWORD"]
    if terminal.interactive:
        return str(click.prompt(f"password for {visible(user, 64)}", hide_input=True, default="", show_default=False))
    raise KeypegError(f"{visible(user, 64)} logs in with a password: give it with --password-stdin or $KEYPEG_PASSWORD")


@cli.command(epilog=PROTOCOL)
@click.argument("link")
@click.option("--name", "nickname", metavar="NICK", help="A guest's nickname (default: $KEYPEG_PLAYER or your login).")
@click.option("--user", metavar="NAME", help="Log in as this registered player instead of sitting as a guest.")
@click.option(
    "--password-stdin",
    is_flag=True,
    help="With --user: read the password from the first line of stdin (else $KEYPEG_PASSWORD, or a prompt).",
)
def room(link: str, nickname: str | None, user: str | None, password_stdin: bool) -> NoReturn:
    """Take a seat in a room of a 'keypeg serve' by its join link (the room's page shows it:
    http://HOST:PORT/rooms/ID/join?token=...), or watch it by its watching link (.../rooms/ID).

    In a terminal: the lobby until the host starts (the host may type 'start'), then each round: the
    others' progress as key pegs, your clock, your guesses (the rules' symbols, letters A.. or digits
    1..), your code when you are the codemaker; each round's end (the code, every board) and the
    standing. 'q' or Ctrl-C leaves the room (Ctrl-C: exit 130); the same link takes you back to your seat.
    """
    found = parse_link(link)
    if user is not None and nickname is not None:
        raise KeypegError("--name is a guest's nickname, --user a registered player's name: give one of them")
    if password_stdin and user is None:
        raise KeypegError("--password-stdin reads the password of --user NAME: give --user too")
    if found.watching and nickname is not None:
        raise KeypegError("--name is a guest's nickname for a seat: a watching link takes no seat")
    terminal = Terminal.detect()
    lines = Lines(terminal.warn)
    password = _password(terminal, lines, user, password_stdin) if user is not None else None
    seated = not found.watching
    guest = seated and user is None  # a guest's session is kept between runs: the link takes them back
    server = Server(found.base, cookies=saved_session(found.base, found.room) if guest else None)
    server.open_session()
    if user is not None:
        server.login(user, password or "")
    if seated:
        if user is None and nickname is None:
            from keypeg.cli.records import default_player

            nickname = default_player()
        body = {"token": found.token} | ({"nickname": nickname} if user is None else {})
        try:
            view = server.post(f"/api/rooms/{found.room}/join", body)
        except RoomNotFound:
            forget_session(found.base, found.room)
            raise
        if guest:
            cookies = {c.name: c.value for c in server.client.cookies.jar if c.value is not None}
            keep_session(found.base, found.room, cookies, terminal.warn)
    else:
        view = server.get(f"/api/rooms/{found.room}")
    events: queue.Queue[Event] = queue.Queue()
    seat = Seat(server, found.room, terminal, events, seated)
    stop = threading.Event()
    try:
        seat.apply(view)
        if not seat.over:
            threading.Thread(target=follow, args=(server.twin(), found.room, events, stop), daemon=True).start()
        if seated and not seat.over:
            threading.Thread(target=read_lines, args=(lines, events, seat.ahead), daemon=True).start()
        status = seat.run()
    except KeyboardInterrupt:
        seat.leave()
        terminal.warn("interrupted: you left the room" if seated else "interrupted")
        status = 130
    finally:
        stop.set()
        if guest and (seat.view.get("over") or _removed(seat)):
            forget_session(found.base, found.room)
    sys.exit(status)


def _removed(seat: Seat) -> bool:
    """Whether the room's last view shows this seat removed by the host."""
    mine = next((s for s in seat.view.get("seats") or [] if isinstance(s, dict) and s.get("player") == seat.me), None)
    return mine is not None and mine.get("status") == "kicked"
