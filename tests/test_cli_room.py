"""``keypeg room LINK``: a bot takes a seat in a room of a real ``keypeg serve`` through the line protocol
(driven line by line, or fed from a file) while another player plays on the JSON API and a spectator
watches by the watching link; bad links and refused logins are one line on stderr and an exit code;
Ctrl-C leaves the seat (exit 130); a dropped event stream is opened again."""

from __future__ import annotations

import contextlib
import fcntl
import os
import pty
import queue
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from conftest import environment, free_port, keypeg_serve, wait_until
from keypeg.cli import cli
from keypeg.cli import room as room_cli
from keypeg.errors import KeypegError

WAIT = 30.0
"""Seconds a test waits for a line or a state (a deadline for a busy machine, never a pause)."""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("rooms-cli")
    with keypeg_serve(f"sqlite:///{folder / 'rooms.sqlite3'}", folder) as running:
        yield running.base
    said = running.said()
    assert "Traceback" not in said, said


class Api:
    """A player on the JSON API: its cookie and CSRF token."""

    def __init__(self, base: str, name: str | None = None) -> None:
        self.client = httpx.Client(base_url=base, timeout=WAIT)
        self.headers = {"X-CSRF-Token": self.client.get("/api/session").json()["csrf"]}
        if name is not None:
            made = self.post("/api/players", {"name": name, "password": "long enough pw"})
            assert made.status_code == 201, made.text
            self.headers = {"X-CSRF-Token": made.json()["csrf"]}

    def post(self, path: str, body: object = None) -> httpx.Response:
        return self.client.post(path, json=body, headers=self.headers)

    def room(self, **settings: Any) -> dict[str, Any]:
        made = self.post("/api/rooms", {"pegs": 4, "colors": 6, "nickname": "Ann", **settings})
        assert made.status_code == 201, made.text
        return dict(made.json())

    def view(self, room: str) -> dict[str, Any]:
        return dict(self.client.get(f"/api/rooms/{room}").json())


class Bot:
    """``keypeg room ...`` in a process of its own, stdin and stdout piped; its stdout lines as they come."""

    def __init__(self, *args: str, stdin: Any = subprocess.PIPE) -> None:
        command = [sys.executable, "-m", "keypeg", "room", *args]
        self.process = subprocess.Popen(
            command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment(), text=True
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def expect(self, *lines: str) -> None:
        for line in lines:
            try:
                got = self.lines.get(timeout=WAIT)
            except queue.Empty:
                raise AssertionError(f"no line {line!r} within {WAIT} s") from None
            assert got == line, f"{got!r} instead of {line!r}; stderr: {self.stderr()}"

    def write(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def end(self) -> int:
        return self.process.wait(timeout=WAIT)

    def stderr(self) -> str:
        if self.process.poll() is None:
            return "(running)"
        assert self.process.stderr is not None
        return self.process.stderr.read()


def seated(api: Api, room: str, count: int) -> bool:
    return wait_until(lambda: len([s for s in api.view(room)["seats"] if s["status"] == "present"]) >= count, WAIT)


def test_a_bot_breaks_and_makes_codes_through_the_line_protocol_with_a_spectator(base: str) -> None:
    ann = Api(base)
    made = ann.room(rounds=1, maker="turns")  # two seats: ann makes round 1's code, the bot round 2's
    room = made["id"]
    bot = Bot(base + made["join"], "--name", "bot")
    watcher = Bot(base + made["watch"])
    assert seated(ann, room, 2)
    assert ann.post(f"/api/rooms/{room}/start").status_code == 200
    assert ann.post(f"/api/rooms/{room}/code", {"code": "ABCD"}).status_code == 200
    bot.expect("round 1 of 2")
    watcher.expect("round 1 of 2")
    bot.write("AABB")
    bot.expect("1 1")
    bot.write("XYZ")  # refused on stderr, uses no row
    bot.write("1234")  # digits: read as ABCD, said on stderr
    bot.expect("4 0", "round over ABCD", "round 2 of 2 maker")
    watcher.expect("round over ABCD")
    bot.write("FFFF")
    assert wait_until(lambda: ann.view(room)["round"]["code_set"], WAIT)
    watcher.expect("round 2 of 2")
    board = ann.post(f"/api/rooms/{room}/guesses", {"guess": "AAAA"}).json()["board"]
    assert board["rows"] == [{"guess": "AAAA", "black": 0, "white": 0}]
    assert ann.post(f"/api/rooms/{room}/guesses", {"guess": "FFFF"}).json()["over"]
    bot.expect("round over FFFF", "room over")
    watcher.expect("round over FFFF", "room over")
    assert bot.end() == 0 and watcher.end() == 0
    said = bot.stderr()
    assert "Traceback" not in said and "1234 as ABCD" in said
    assert sum("XYZ" in line for line in said.splitlines()) == 1  # the refused guess: one line
    final = ann.view(room)
    assert [s["points"] for s in final["standing"]] == [2, 2]  # a point a guess for each maker
    assert {s["name"] for s in final["standing"]} == {"Ann (guest)", "bot (guest)"}


def test_a_bot_fed_from_a_file_plays_every_round(base: str, tmp_path: Path) -> None:
    ann = Api(base)
    made = ann.room(rounds=1, maker="turns")
    room = made["id"]
    moves = tmp_path / "moves"
    moves.write_text("AABB\nABCD\nEEFF\n")  # round 1's guesses, then round 2's code, all at once
    with moves.open() as given_lines:
        bot = Bot(base + made["join"], "--name", "filebot", stdin=given_lines)
        assert seated(ann, room, 2)
        ann.post(f"/api/rooms/{room}/start")
        ann.post(f"/api/rooms/{room}/code", {"code": "ABCD"})
        bot.expect("round 1 of 2", "1 1", "4 0", "round over ABCD", "round 2 of 2 maker")
        assert wait_until(lambda: ann.view(room)["round"]["code_set"], WAIT)
        ann.post(f"/api/rooms/{room}/guesses", {"guess": "EEFF"})
        bot.expect("round over EEFF", "room over")
        assert bot.end() == 0


def test_a_person_at_a_terminal_breaks_a_code_and_sets_one(base: str) -> None:
    ann = Api(base)
    made = ann.room(rounds=1, maker="turns")
    room = made["id"]
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0))
    command = [sys.executable, "-m", "keypeg", "room", base + made["join"], "--name", "Tess"]
    process = subprocess.Popen(command, stdin=child, stdout=child, stderr=child, env=environment() | {"TERM": "xterm"})
    os.close(child)
    shown: list[bytes] = []

    def read() -> None:
        with contextlib.suppress(OSError):  # EIO once the process ends
            while chunk := os.read(main, 4096):
                shown.append(chunk)

    threading.Thread(target=read, daemon=True).start()

    def screen() -> str:
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(shown).decode(errors="replace"))

    try:
        assert wait_until(lambda: "Waiting for the host to start" in screen(), WAIT), screen()
        assert seated(ann, room, 2)
        ann.post(f"/api/rooms/{room}/start")
        ann.post(f"/api/rooms/{room}/code", {"code": "ABCD"})
        assert wait_until(lambda: "guess 1/12" in screen(), WAIT), screen()
        os.write(main, b"ABCD\n")
        assert wait_until(lambda: "you set the code" in screen(), WAIT), screen()
        assert "Broken in 1 guess!" in screen() and "Round 1 over: the code was" in screen()
        os.write(main, b"FFFF\n")
        assert wait_until(lambda: ann.view(room)["round"]["code_set"], WAIT)
        ann.post(f"/api/rooms/{room}/guesses", {"guess": "AAAA"})
        assert wait_until(lambda: "Ann (guest): ····  0 black, 0 white  after 1 guess" in screen(), WAIT), screen()
        ann.post(f"/api/rooms/{room}/guesses", {"guess": "FFFF"})
        assert process.wait(timeout=WAIT) == 0
        assert "The room is over." in screen() and "Traceback" not in screen()
    finally:
        if process.poll() is None:
            process.kill()
        os.close(main)


def test_the_input_ending_before_the_room_leaves_it(base: str) -> None:
    ann = Api(base)
    made = ann.room(rounds=2)
    room = made["id"]
    bot = Bot(base + made["join"], "--name", "short")
    assert seated(ann, room, 2)
    ann.post(f"/api/rooms/{room}/start")
    bot.expect("round 1 of 2")
    assert bot.process.stdin is not None
    bot.process.stdin.close()
    assert bot.end() == 1
    assert "the input ended" in bot.stderr()
    seats = {s["name"]: s["status"] for s in ann.view(room)["seats"]}
    assert seats["short (guest)"] == "left"


def test_ctrl_c_leaves_the_seat_and_the_link_brings_a_registered_player_back(base: str) -> None:
    ann = Api(base)
    Api(base, "carol")  # registered, with a password
    made = ann.room(rounds=3)
    room = made["id"]
    link = base + made["join"]
    wrong = CliRunner().invoke(cli, ["room", link, "--user", "carol", "--password-stdin"], input="not hers\n")
    assert wrong.exit_code == 2 and wrong.output.startswith("error: ") and len(wrong.output.splitlines()) == 1
    none = CliRunner().invoke(cli, ["room", link, "--user", "carol"])
    assert none.exit_code == 2 and "--password-stdin or $KEYPEG_PASSWORD" in none.output
    bot = Bot(link, "--user", "carol", "--password-stdin")
    bot.write("long enough pw")
    assert seated(ann, room, 2)
    assert ann.post(f"/api/rooms/{room}/start").status_code == 200
    bot.expect("round 1 of 3")
    bot.process.send_signal(signal.SIGINT)
    assert bot.end() == 130
    said = bot.stderr()
    assert "interrupted: you left the room" in said and "Traceback" not in said
    seat = next(s for s in ann.view(room)["seats"] if s["player"] == "carol")
    assert seat["status"] == "left"
    back = Bot(link, "--user", "carol", "--password-stdin")  # the same link takes her back to her seat
    back.write("long enough pw")
    back.expect("round 1 of 3 out")  # back during a round: she sits it out
    assert next(s for s in ann.view(room)["seats"] if s["player"] == "carol")["status"] == "present"
    back.process.send_signal(signal.SIGINT)
    assert back.end() == 130


def test_ctrl_c_or_a_crash_and_the_link_brings_a_guest_back_to_the_seat(base: str) -> None:
    """M4: a guest's session is kept (a private file in keypeg's state folder) while the room goes on, so
    the same link takes the guest back after Ctrl-C or a crash; the file goes once the room is over."""
    ann = Api(base)
    made = ann.room(rounds=2)
    room, link = made["id"], base + made["join"]
    kept = room_cli.seat_file(base, room)
    bot = Bot(link, "--name", "ctrlc")
    assert seated(ann, room, 2)
    assert ann.post(f"/api/rooms/{room}/start").status_code == 200
    bot.expect("round 1 of 2")
    assert kept.exists() and kept.stat().st_mode & 0o777 == 0o600
    bot.process.send_signal(signal.SIGINT)
    assert bot.end() == 130
    mine = next(s for s in ann.view(room)["seats"] if s["name"] == "ctrlc (guest)")
    assert mine["status"] == "left"
    back = Bot(link, "--name", "ctrlc")
    back.expect("round 1 of 2 out")  # back during a round: it sits it out
    seats = [(s["player"], s["status"]) for s in ann.view(room)["seats"]]
    assert (mine["player"], "present") in seats and len(seats) == 2
    back.process.kill()  # a crash: nothing said to the server, the seat still present
    back.end()
    again = Bot(link, "--name", "ctrlc")
    again.expect("round 1 of 2 out")
    assert ann.post(f"/api/rooms/{room}/close").status_code == 200
    again.expect("round over " + ann.view(room)["rounds"][0]["code"], "room over")
    assert again.end() == 0
    assert not kept.exists()


def test_a_kicked_bot_is_told_and_ends(base: str) -> None:
    ann = Api(base)
    made = ann.room(rounds=1)
    room = made["id"]
    bot = Bot(base + made["join"], "--name", "kicked")
    assert seated(ann, room, 2)
    player = next(s["player"] for s in ann.view(room)["seats"] if s["name"] == "kicked (guest)")
    ann.post(f"/api/rooms/{room}/start")
    bot.expect("round 1 of 1")
    assert ann.post(f"/api/rooms/{room}/kick", {"player": player}).status_code == 200
    assert bot.end() == 2
    assert bot.stderr().strip() == "error: the host removed you from the room"


@pytest.mark.parametrize(
    ("link", "said"),
    [
        ("not a link", "is not a room's link"),
        ("ftp://host/rooms/abc", "starts with http:// or https://"),
        ("http://host/games/abc", "ends with /rooms/ID"),
        ("http://host/rooms/abc/join", "without its token"),
        ("http://host:99999/rooms/abc", "is not a room's link"),
        ("http://host/rooms/\x1b[2J/join?token=x", "\\x1b"),
    ],
)
def test_a_link_that_is_not_a_rooms_is_refused(link: str, said: str) -> None:
    result = CliRunner().invoke(cli, ["room", link])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and said in result.output and "\x1b" not in result.output


def test_a_room_the_server_does_not_have_or_a_wrong_token(base: str) -> None:
    made = Api(base).room()
    for link, code, said in (
        (f"{base}/rooms/nosuchroom/join?token=abc", 2, "error: "),
        (f"{base}{made['watch']}/join?token=wrongtoken", 2, "error: "),
        (f"http://127.0.0.1:{free_port()}/rooms/abc", 1, "error: cannot reach"),
    ):
        result = CliRunner().invoke(cli, ["room", link, "--name", "x"] if "join" in link else ["room", link])
        assert result.exit_code == code, result.output
        assert result.output.startswith(said) and len(result.output.splitlines()) == 1, result.output
    both = CliRunner().invoke(cli, ["room", f"{base}{made['join']}", "--name", "x", "--user", "y"])
    assert both.exit_code == 2 and "give one of them" in both.output


@given(
    st.sampled_from(["http://127.0.0.1:8000", "https://keypeg.example", "http://[::1]:9/sub"]),
    st.from_regex(r"[A-Za-z0-9_-]{1,64}", fullmatch=True),
    st.one_of(st.none(), st.from_regex(r"[A-Za-z0-9]{1,64}", fullmatch=True)),
)
def test_a_link_is_read_back(base: str, room: str, token: str | None) -> None:
    link = f"{base}/rooms/{room}" + (f"/join?token={token}" if token is not None else "")
    assert room_cli.parse_link(link) == room_cli.Link(base, room, token)


@given(st.text(max_size=80))
def test_any_text_is_a_link_or_a_clear_refusal(text: str) -> None:
    try:
        found = room_cli.parse_link(text)
    except KeypegError as error:
        assert "link" in str(error)
    else:
        assert found.base.startswith(("http://", "https://"))


class Dropping:
    """A server whose stream drops at once the first ``drops`` times, then sends one state."""

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.opened = 0

    def events(self, path: str, stop: threading.Event) -> Iterator[dict[str, Any]]:
        self.opened += 1
        if self.opened <= self.drops:
            raise httpx.ReadError("the stream dropped")
        yield {"version": 7}
        stop.set()

    def unreachable(self, error: Exception) -> KeypegError:
        return KeypegError(f"cannot reach it: {error}")


def test_a_dropped_stream_is_opened_again_and_one_that_stays_down_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(room_cli, "STREAM_BACKOFF", 0.01)
    events: queue.Queue[room_cli.Event] = queue.Queue()
    server = Dropping(drops=2)
    room_cli.follow(server, "r", events, threading.Event())  # type: ignore[arg-type]
    assert server.opened == 3 and events.get_nowait() == ("state", {"version": 7})
    monkeypatch.setattr(room_cli, "STREAM_RETRIES", 1)
    room_cli.follow(Dropping(drops=5), "r", events, threading.Event())  # type: ignore[arg-type]
    kind, error = events.get_nowait()
    assert kind == "fail" and "cannot reach it" in str(error)


def hostile_view(version: int, over: bool = False) -> dict[str, Any]:
    """A room's view whose every text is markup or a control sequence, as a server not to be trusted sends."""
    name = "[bold red]Eve\x1b[2J"
    board = {"player": "eve", "name": name, "rows": [{"guess": "ABCD", "black": 1, "white": 0}], "guesses": 1,
             "over": True, "broken": True, "ended": "broken\x07", "seconds": "[blink]3", "points": "[i]1"}  # fmt: skip
    return {
        "version": version,
        "room": {
            "rules": {"pegs": 4, "colors": 6},
            "maker": "computer",
            "rounds": 1,
            "per_move": "[u]2 min",
            "status": "over" if over else "playing",
        },
        "you": "me",
        "seats": [{"player": "me", "name": "me", "status": "present"}, {"player": "eve", "name": name}],
        "round": None if over else {"number": 1, "of": "1\x1b[2J", "maker": None, "code_set": True, "boards": [board]},
        "board": None if over else {"rows": [], "over": False},
        "rounds": [{"number": 1, "code": "AB\x1b[2JCD", "maker": None, "boards": [board]}] if over else [],
        "standing": [{"place": "[b]1", "player": "eve", "name": name, "points": 1, "guesses": 1}],
        "clock": {"yours": None},
        "notes": ["[red]Eve\x1b]0;title\x07 sat down"] if over else [],
        "over": over,
    }


@pytest.mark.parametrize("interactive", [True, False])
def test_text_from_the_server_is_shown_literally(interactive: bool, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from rich.console import Console

    screen = io.StringIO()
    terminal = room_cli.Terminal(interactive, out=Console(file=screen, width=200, color_system=None))
    seat = room_cli.Seat(None, "r", terminal, queue.Queue(), seated=True)  # type: ignore[arg-type]
    seat.apply(hostile_view(1))
    seat.apply(hostile_view(2, over=True))
    shown = screen.getvalue() + capsys.readouterr().out
    assert "\x1b" not in shown and "\x07" not in shown
    if interactive:
        assert "[bold red]Eve\\x1b[2J" in shown and "[blink]3" in shown and "[b]1" in shown and "[u]2 min" in shown
    else:
        assert shown.splitlines() == ["round 1 of 1\\x1b[2J", "round over AB\\x1b[2JCD", "room over"]
    fresh = room_cli.Seat(None, "r", terminal, queue.Queue(), seated=True)  # type: ignore[arg-type]
    with pytest.raises(room_cli.RoomUnavailable, match="not a room"):
        fresh.apply({"version": 3, "room": {"rules": {"pegs": 4, "colors": 6}}, "rounds": "x"})


class Down:
    """A server that cannot be reached for its first ``fails`` moves (``None``: never reached)."""

    def __init__(self, fails: int | None) -> None:
        self.fails, self.sent = fails, 0

    def post(self, path: str, body: object = None, **options: Any) -> dict[str, Any]:
        self.sent += 1
        if self.fails is None or self.sent <= self.fails:
            raise room_cli.RoomUnavailable("cannot reach http://127.0.0.1:9: connection refused", 0)
        return {}


def test_a_move_is_tried_again_for_about_10_s_while_the_server_is_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """L9: a piped bot's guess sent while the server is down is tried again, backing off, for about
    :data:`MOVE_RETRY_FOR` seconds (then one line saying why), never given up at once."""
    waits: list[float] = []
    monkeypatch.setattr(room_cli.time, "sleep", waits.append)
    terminal = room_cli.Terminal(False)
    seat = room_cli.Seat(Down(fails=4), "r", terminal, queue.Queue(), seated=True)  # type: ignore[arg-type]
    seat.act("guesses", {"guess": "AB", "row": 1})
    assert seat.server.sent == 5 and waits == [0.5, 1.0, 2.0, 4.0]  # type: ignore[attr-defined]
    waits.clear()
    seat = room_cli.Seat(Down(fails=None), "r", terminal, queue.Queue(), seated=True)  # type: ignore[arg-type]
    with pytest.raises(room_cli.RoomUnavailable) as down:
        seat.act("guesses", {"guess": "AB", "row": 1})
    assert room_cli.MOVE_RETRY_FOR <= sum(waits) <= room_cli.MOVE_RETRY_FOR + 4.0 and max(waits) <= 4.0
    said = str(down.value)
    assert "cannot reach" in said and "tried again for" in said and "\n" not in said


class EndlessInput:
    """Stdin that never ends (``yes RRGG |``): the lines read so far counted."""

    def __init__(self) -> None:
        self.read = 0

    def next(self) -> str:
        self.read += 1
        return "RRGG"


def test_an_endless_input_is_read_no_further_than_the_lines_ahead_allow() -> None:
    """A bot piping moves before they are asked for: the input thread reads at most LINES_AHEAD unused
    lines, then waits until the command uses one (an endless input never fills the memory)."""
    endless, events, ahead = EndlessInput(), queue.Queue[room_cli.Event](), threading.Semaphore(room_cli.LINES_AHEAD)
    threading.Thread(target=room_cli.read_lines, args=(endless, events, ahead), daemon=True).start()
    assert wait_until(lambda: events.qsize() == room_cli.LINES_AHEAD, WAIT)
    assert not ahead.acquire(blocking=False) and endless.read == room_cli.LINES_AHEAD  # waiting: nothing more read
    events.get()
    ahead.release()  # one line used
    assert wait_until(lambda: events.qsize() == room_cli.LINES_AHEAD, WAIT)
    assert endless.read == room_cli.LINES_AHEAD + 1
