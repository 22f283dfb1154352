"""The web app as ``keypeg serve --workers 2`` runs it: real worker processes over one store.

A game's state lives in the store, not in a worker: one session's moves go through either worker
(each move here is sent on a connection the other worker accepted), two guesses sent at once to one
game are each applied once or refused (409), and a game played in the terminal shows in the same
player's web history. PostgreSQL from ``$KEYPEG_TEST_POSTGRES`` (a fresh database per test), and
SQLite with one worker, which always runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from conftest import environment, keypeg_serve
from keypeg import Feedback, find_variant, score
from keypeg.knowledge import Knowledge
from keypeg.store import Store

pytestmark = pytest.mark.slow

CLASSIC = find_variant("classic").rules
KEYPEG = [sys.executable, "-m", "keypeg"]
COOKIE = "keypeg_session"


# -- a real server ----------------------------------------------------------------------------------


@dataclass
class Server:
    base: str
    port: int
    process: subprocess.Popen[bytes]

    def processes(self) -> set[int]:
        """The server's process and its descendants (its workers)."""
        found, todo = set(), [self.process.pid]
        while todo:
            pid = todo.pop()
            found.add(pid)
            with suppress(OSError):
                for task in Path(f"/proc/{pid}/task").iterdir():
                    todo += [int(child) for child in (task / "children").read_text().split()]
        return found

    def worker_of(self, response: httpx.Response) -> int | None:
        """The process that accepted the connection ``response`` came on (Linux: from /proc; else None)."""
        stream = response.extensions.get("network_stream")
        if stream is None or not Path("/proc/net/tcp").exists():
            return None
        client_port = stream.get_extra_info("client_addr")[1]
        inodes = {
            fields[9]
            for fields in (line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:])
            if int(fields[1].rsplit(":", 1)[1], 16) == self.port and int(fields[2].rsplit(":", 1)[1], 16) == client_port
        }
        for pid in self.processes():
            with suppress(OSError):
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    with suppress(OSError):
                        if os.readlink(fd) in {f"socket:[{inode}]" for inode in inodes}:
                            return pid
        return None

    def client(self, cookies: dict[str, str], *, avoid: int | None = None) -> tuple[httpx.Client, int | None]:
        """A browser's connection with these cookies, accepted by a worker other than ``avoid``, and that
        worker (opening new connections until one is: each worker takes some of them)."""
        deadline = time.monotonic() + 30
        while True:
            browser = httpx.Client(base_url=self.base, cookies=cookies, timeout=30)
            worker = self.worker_of(browser.get("/api/session"))
            if worker is None or avoid is None or worker != avoid:
                return browser, worker
            browser.close()
            if time.monotonic() > deadline:
                pytest.fail(f"30 s of new connections all went to worker {avoid}")


@contextmanager
def serving(url: str, workers: int) -> Iterator[Server]:
    """``keypeg serve --workers N --db URL`` on a free loopback port (conftest's launcher), once it
    answers; stopped after."""
    with keypeg_serve(url, workers=workers) as running:
        yield Server(running.base, running.port, running.process)


def new_session(server: Server) -> tuple[dict[str, str], dict[str, str]]:
    """A guest's session: its cookie and the CSRF header its page would send."""
    with httpx.Client(base_url=server.base) as browser:
        csrf = browser.get("/api/session").json()["csrf"]
        return {COOKIE: browser.cookies[COOKIE]}, {"X-CSRF-Token": csrf}


def secret_of(url: str, public_id: str) -> str:
    """The computer's secret, read from the store's private side (the test plays against it knowingly)."""
    store = Store(url)
    secret = store.games.saved(store.games.owned(public_id)[0]).secret
    assert secret is not None
    return secret


def stored_moves(url: str, public_id: str) -> list[tuple[str, int, int]]:
    store = Store(url)
    return [
        (m.guess, m.feedback.black, m.feedback.white) for m in store.games.record(store.games.owned(public_id)[0]).moves
    ]


# -- (a) one session, any worker --------------------------------------------------------------------


def play_across_workers(server: Server, url: str, workers: int) -> None:
    """A whole game of one session, every request on a new connection and every move (and every read of
    the board) on a worker other than the move before's."""
    cookies, csrf = new_session(server)
    browser, worker = server.client(cookies)
    made = browser.post("/api/games", json={"variant": "classic"}, headers=csrf)
    assert made.status_code == 201, made.text
    game = made.json()
    secret = CLASSIC.parse(secret_of(url, game["id"]))
    seen, knowledge, expected = {worker}, Knowledge(CLASSIC), []
    while game["status"] == "playing":
        guess = knowledge.codes(limit=1)[0]  # the first code that fits every score so far
        browser.close()
        browser, worker = server.client(cookies, avoid=worker if workers > 1 else None)
        seen.add(worker)
        answer = browser.post(f"/api/games/{game['id']}/guesses", json={"code": str(guess)}, headers=csrf)
        assert answer.status_code == 200, answer.text
        game = answer.json()
        truth = score(secret, guess)
        assert (game["black"], game["white"]) == (truth.black, truth.white)
        expected.append((str(guess), truth.black, truth.white))
        assert [(m["guess"], m["black"], m["white"]) for m in game["history"]] == expected
        knowledge = knowledge.add(guess, Feedback(game["black"], game["white"]))
        browser.close()
        browser, worker = server.client(cookies, avoid=worker if workers > 1 else None)  # the board: the other one
        seen.add(worker)
        board = browser.get(f"/api/games/{game['id']}").json()
        assert [(m["guess"], m["black"], m["white"]) for m in board["history"]] == expected
    browser.close()
    assert game["status"] == "won" and game["secret"] == str(secret)
    assert stored_moves(url, game["id"]) == expected
    if None not in seen:
        assert len(seen) == workers, f"requests went to {len(seen)} worker(s), not {workers}"


def test_one_session_plays_a_whole_game_across_both_workers(postgres: str) -> None:
    with serving(postgres, workers=2) as server:
        play_across_workers(server, postgres, workers=2)


def test_one_session_plays_a_whole_game_on_sqlite_with_one_worker(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    with serving(url, workers=1) as server:
        play_across_workers(server, url, workers=1)


# -- (b) two guesses at once ------------------------------------------------------------------------


def at_once(posts: list[tuple[httpx.Client, str, object]], headers: dict[str, str]) -> list[httpx.Response | None]:
    """POST each (browser, path, body) from a thread of its own, all released together; the answers
    (``None``: none within 60 s)."""
    start = threading.Barrier(len(posts))
    answers: list[httpx.Response | None] = [None] * len(posts)

    def send(k: int) -> None:
        browser, path, body = posts[k]
        start.wait()
        answers[k] = browser.post(path, json=body, headers=headers)

    threads = [threading.Thread(target=send, args=(k,)) for k in range(len(posts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers


def test_two_guesses_sent_at_once_are_each_applied_once_or_refused(postgres: str) -> None:
    with serving(postgres, workers=2) as server:
        cookies, csrf = new_session(server)
        first, worker = server.client(cookies)
        second, _ = server.client(cookies, avoid=worker)  # each browser tab on its own worker
        made = first.post("/api/games", json={"variant": "classic", "rows": 30}, headers=csrf)
        assert made.status_code == 201, made.text
        public_id = made.json()["id"]
        secret = CLASSIC.parse(secret_of(postgres, public_id))
        codes = iter(str(code) for code in Knowledge(CLASSIC).codes() if code != secret)  # none ends the game
        applied: list[str] = []
        statuses: Counter[int] = Counter()
        for round_ in range(12):  # 24 guesses at most: the game (30 rows) goes on
            same = round_ % 2 == 0  # a double click: the same guess twice; else two tabs, two guesses
            sent = [next(codes)] * 2 if same else [next(codes), next(codes)]
            path = f"/api/games/{public_id}/guesses"
            answers = at_once([(first, path, {"code": sent[0]}), (second, path, {"code": sent[1]})], csrf)
            done = [a for a in answers if a is not None]
            assert len(done) == 2, "a guess got no answer within 60 s"
            statuses.update(a.status_code for a in done)
            assert all(a.status_code in (200, 409) for a in done), [a.text for a in done]
            for answer in sorted((a for a in done if a.status_code == 200), key=lambda a: len(a.json()["history"])):
                history = answer.json()["history"]
                assert [m["guess"] for m in history[:-1]] == applied  # applied after every move before it
                assert history[-1]["guess"] in sent
                truth = score(secret, CLASSIC.parse(history[-1]["guess"]))
                assert (answer.json()["black"], answer.json()["white"]) == (truth.black, truth.white)
                applied.append(history[-1]["guess"])
        board = first.get(f"/api/games/{public_id}").json()
        first.close()
        second.close()
    assert statuses[200] == len(applied) >= 12  # each round applied one guess at least, none twice
    assert [m["guess"] for m in board["history"]] == applied
    assert [guess for guess, _, _ in stored_moves(postgres, public_id)] == applied


# -- (c) the terminal and the web, one player -------------------------------------------------------


def test_a_game_played_in_the_terminal_shows_in_the_players_web_history(postgres: str) -> None:
    def keypeg_cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*KEYPEG, *args, "--db", postgres], input=stdin, capture_output=True, text=True, env=environment()
        )
        assert done.returncode == 0, done.stderr
        return done

    keypeg_cli("player", "Ann", "--password", "--password-stdin", stdin="correct horse\n")
    played = keypeg_cli(
        "play", "--secret", "RGBY", "--player", "ann", "--password-stdin", stdin="correct horse\nRRGG\nRGBY\n"
    )
    assert played.stdout.split() == ["1", "1", "4", "0"]
    with serving(postgres, workers=2) as server, httpx.Client(base_url=server.base) as browser:
        csrf = {"X-CSRF-Token": browser.get("/api/session").json()["csrf"]}
        assert browser.get("/api/history").json() == []  # a guest sees no one's games
        wrong = browser.post("/api/login", json={"name": "ann", "password": "wrong horse"}, headers=csrf)
        assert wrong.status_code == 401
        login = browser.post("/api/login", json={"name": "ANN", "password": "correct horse"}, headers=csrf)
        assert login.status_code == 200 and login.json()["player"] == "Ann"
        (game,) = browser.get("/api/history").json()
        assert game["player"] == "Ann" and game["outcome"] == "solved" and game["secret"] == "RGBY"
        assert [(m["guess"], m["black"], m["white"]) for m in game["moves"]] == [("RRGG", 1, 1), ("RGBY", 4, 0)]
        assert game["rated"] is False  # a game with a given secret is practice
        csrf = {"X-CSRF-Token": login.json()["csrf"]}
        made = browser.post("/api/games", json={"variant": "classic"}, headers=csrf).json()
        browser.post(f"/api/games/{made['id']}/resign", headers=csrf)
    kept = Store(postgres).games.history("ann", with_moves=True)  # and the web's game is the terminal's player's
    assert [(g.player, g.outcome) for g in kept] == [("Ann", "resigned"), ("Ann", "solved")]
