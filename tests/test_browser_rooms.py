"""A room in a real browser (Playwright on Debian's chromium, against a real ``keypeg serve``): four people
play three rounds on the same codes: two registered players on desktops, a guest on a phone (390x844,
touch), and a bot seated through ``keypeg room LINK`` (the line protocol), while a spectator follows by
the room's stream alone (never reloaded). The spectator's page (every <main> it showed) and every event its
stream brought never hold a code or a guess of the round in play: only key pegs, until the round ends.
A player who reloads mid-round finds their board with their guesses. No console error and no
Content-Security-Policy violation anywhere; every page is saved as a PNG under ``test-artifacts/browser/``
(``room-*``).

Skipped, saying why, without chromium (``/usr/bin/chromium``) or the ``playwright`` package.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import pytest

from browser_support import (
    DESKTOP,
    MARKS,
    PHONE,
    Server,
    Visit,
    enter_guess,
    expect,
    launch,
    next_guess,
    open_tab,
    read_score,
    rows,
    serve,
)
from conftest import NOISE, code_shown, environment
from keypeg import Feedback
from keypeg.variants import find_variant

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, BrowserContext

pytestmark = MARKS

RULES = find_variant("3x4").rules
LIVE_FOCUS = 20_000
"""Milliseconds within which the focus is back on the Guess button after a guess (a deadline, not a pause)."""
ROUNDS = 3
PASSWORD = "a long enough password"

RECORDER = """
(() => {
  // Every event a room's stream brings, every <main> the page shows (as loaded, and each one swapped in),
  // and every <main> of a page a stream's event brought (shown or not), with what the round in play is:
  // read back by the test.
  window.roomSeen = { events: [], pages: [], brought: [] };
  const Native = window.EventSource;
  window.EventSource = class extends Native {
    constructor(url, options) {
      super(url, options);
      for (const kind of ["state", "alive", "message"]) {
        this.addEventListener(kind, (event) => {
          window.roomSeen.events.push({ kind, data: event.data });
          const page = JSON.parse(event.data).page;
          if (page) look(new DOMParser().parseFromString(page, "text/html").querySelector("main"), "brought");
        });
      }
    }
  };
  const look = (main, into = "pages") => {
    if (!main) return;
    const marker = main.querySelector("[data-room-events]");
    const inPlay = main.cloneNode(true);
    inPlay.querySelectorAll("[data-ended]").forEach((el) => el.remove());
    window.roomSeen[into].push({
      round: marker ? marker.getAttribute("data-round") : "",
      text: inPlay.textContent,
      html: inPlay.innerHTML,
      pegs: inPlay.querySelectorAll(".peg, .pb-row.played, [data-hole]").length,
    });
  };
  document.addEventListener("DOMContentLoaded", () => look(document.querySelector("main")));
  document.addEventListener("keypeg:page", (event) => look(event.detail));
})();
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


class Bot:
    """``keypeg room LINK --name bot`` driven line by line: it breaks each round's code with keypeg's own
    choice of guess, reading the ``B W`` lines, until ``room over``."""

    def __init__(self, link: str) -> None:
        command = [sys.executable, "-m", "keypeg", "room", link, "--name", "bot"]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
            env=environment(),
        )
        self.said: list[str] = []
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _write(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def _play(self) -> None:
        assert self.process.stdout is not None
        history: list[tuple[str, Feedback]] = []
        guess = ""
        for raw in self.process.stdout:
            line = raw.strip()
            self.said.append(line)
            if re.fullmatch(r"round \d+ of \d+", line):
                history = []
                guess = next_guess(RULES, history)
                self._write(guess)
            elif re.fullmatch(r"\d+ \d+", line):
                black, white = map(int, line.split())
                history.append((guess, Feedback(black, white)))
                if black < RULES.pegs:
                    guess = next_guess(RULES, history)
                    self._write(guess)
            elif line == "room over":
                break

    def end(self) -> int:
        try:
            return self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def seats(visit: Visit) -> Any:
    return visit.page.locator("main .rm-seats li")


def board_or_next_round(visit: Visit, number: int, guesses: int) -> bool:
    """Wait for the page after a guess: True when it shows the player's board with ``guesses`` rows, False
    when round ``number`` ended meanwhile (this guess broke the code, and the room moved on)."""
    page = visit.page
    page.wait_for_function(
        """([number, guesses]) => {
          const marker = document.querySelector("main [data-room-events]");
          if (!marker) return false;
          if (marker.getAttribute("data-round") !== String(number)) return true;
          return document.querySelectorAll("main [data-board=current] li.played").length === guesses;
        }""",
        arg=[number, guesses],
    )
    return page.locator("main [data-room-events]").get_attribute("data-round") == str(number)


def play_round(visit: Visit, number: int, how: str, stop_after: int | None = None) -> list[str]:
    """Break round ``number``'s code on the page's board (the tray, ``how``), keypeg's own choice each time;
    the guesses made (``stop_after`` of them at most, the round left in play)."""
    page = visit.page
    expect(page.locator("main [data-room-events]")).to_have_attribute("data-round", str(number))
    history: list[tuple[str, Feedback]] = []
    made: list[str] = []
    while stop_after is None or len(made) < stop_after:
        guess = next_guess(RULES, history)
        enter_guess(visit, guess, how)
        made.append(guess)
        if not board_or_next_round(visit, number, len(made)):
            break
        feedback = read_score(visit, len(made))
        history.append((guess, feedback))
        if feedback.black == RULES.pegs:
            expect(page.locator("main .rm-done")).to_contain_text("You broke the code")
            break
        said = f"Guess {len(made)}: {feedback.black} black, {feedback.white} white"
        expect(page.locator("#announce")).to_have_text(said)  # the score said to a screen reader at once
    return made


def code_in_play(server: Server) -> str:
    """The code of the round in play, as the server keeps it (the test's own knowledge, never a page's)."""
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as connection:
        columns = {row[1] for row in connection.execute("PRAGMA table_info(rooms)")}
        hidden = "secret" if "secret" in columns else "NULL"  # the private side of the round in play
        state, secret = connection.execute(f"SELECT state, {hidden} FROM rooms ORDER BY id DESC LIMIT 1").fetchone()
    code: str = json.loads(secret)["code"] if secret else json.loads(state)["current"]["code"]
    return code


def in_play_of(view: dict[str, Any]) -> int | None:
    round_ = view.get("round")
    return round_["number"] if round_ and not view.get("over") else None


def test_a_room_of_four_plays_three_rounds_with_a_spectator(server: Server, browser: Browser) -> None:
    contexts: list[BrowserContext] = []

    def tab(name: str, **options: Any) -> Visit:
        context, visit = open_tab(browser, server.base, f"room-{name}", **options)
        contexts.append(context)
        return visit

    ada, bea = tab("ada", viewport=DESKTOP), tab("bea", viewport=DESKTOP)
    kim = tab("kim", viewport=PHONE, has_touch=True, is_mobile=True)
    spectator = tab("spectator", viewport=DESKTOP)
    spectator.page.context.add_init_script(RECORDER)
    bot: Bot | None = None
    try:
        for visit, name in ((ada, "ada"), (bea, "bea")):
            visit.page.goto("/players")
            form = visit.page.locator("form[action='/players/register']")
            form.get_by_label("Name").fill(name)
            form.get_by_label("Password").fill(PASSWORD)
            form.get_by_role("button", name="Register").click()
            expect(visit.page.locator("header")).to_contain_text(f"Signed in as {name}")

        # ada makes the room from the home page's link, with the rules form
        ada.goto("/", "home")
        ada.page.get_by_role("link", name=re.compile("Play in a room")).click()
        ada.page.locator("select[name=variant]").select_option("3x4")
        ada.page.locator("select[name=rounds]").select_option(str(ROUNDS))
        ada.page.locator("select[name=move_seconds]").select_option("3600")
        ada.shot("new")
        ada.page.get_by_role("button", name="Make the room").click()
        expect(ada.page.locator("main h1")).to_have_text("A room, waiting to start")
        join = ada.page.locator("#join-link").input_value()
        watch = ada.page.locator("#watch-link").input_value()
        assert "/join?token=" in join and watch.endswith(watch.rsplit("/", 1)[1])
        room = watch.rsplit("/", 1)[1]
        ada.page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        ada.page.get_by_role("button", name="Copy the players' link").click()
        expect(ada.page.locator("#announce")).to_have_text("Copied the link.")
        assert ada.page.evaluate("() => navigator.clipboard.readText()") == join
        ada.shot("lobby")

        spectator.goto(f"/rooms/{room}", "watching")
        refetched: list[str] = []  # the spectator's room page asked for again (its stream brings it: review M5)
        spectator.page.on("request", lambda r: refetched.append(r.url) if r.url.endswith(f"/rooms/{room}") else None)
        bea.page.goto(join)
        bea.page.get_by_role("button", name="Join the room").click()
        kim.page.goto(join)
        kim.page.get_by_label("Your name in the room").fill("Kim")
        kim.page.get_by_role("button", name="Join the room").tap()
        expect(kim.page.locator("main h1")).to_have_text("A room, waiting to start")
        bot = Bot(join)
        expect(seats(ada)).to_have_count(4)  # the host's lobby followed every seat taken, by its stream
        expect(seats(spectator)).to_have_count(4)
        kim.shot("lobby")
        ada.shot("lobby-full")

        ada.page.get_by_role("button", name="Start the room").click()
        for number in range(1, ROUNDS + 1):
            if number == 2:  # bea reloads mid-round: her board comes back with her guesses, playable
                expect(bea.page.locator("main [data-room-events]")).to_have_attribute("data-round", "2")
                made = [next(c for c in ("AAA", "BBB") if c != code_in_play(server))]  # not the code: the round goes on
                enter_guess(bea, made[0], "click")
                assert board_or_next_round(bea, number, 1), "a guess that is not the code ended the round"
                bea.page.reload()
                expect(rows(bea)).to_have_count(1)
                expect(rows(bea).first.locator(".visually-hidden").first).to_contain_text("Guess 1: ")
                expect(rows(bea).first.locator(".visually-hidden").first).to_contain_text(f", {made[0]}:")
                expect(bea.page.locator("[data-tray]")).to_be_visible()
                bea.shot("reloaded")
                play_round_on(bea, number, made)
            else:
                play_round(bea, number, "click")
            play_round(ada, number, "type")
            kim.shot(f"round-{number}")
            play_round(kim, number, "tap")
            if number == 1:
                spectator.shot("round-1")
        for visit in (ada, bea, kim, spectator):
            expect(visit.page.locator("main h1")).to_contain_text("The room is over")
        assert len(refetched) <= 1, f"the spectator's page asked for itself {len(refetched)} times, not once at most"
        assert bot.end() == 0, "\n".join(bot.said)
        assert bot.said.count("room over") == 1 and sum(line.startswith("round over") for line in bot.said) == ROUNDS
        for visit, name in ((ada, "ada-over"), (kim, "kim-over"), (spectator, "spectator-over")):
            visit.shot(name)
            width = visit.page.evaluate("document.scrollingElement.scrollWidth")
            assert width <= visit.page.viewport_size["width"], f"{visit.name} scrolls sideways: {width} px"  # type: ignore[index]
        standing = spectator.page.locator("main .rm-standing tbody tr")
        expect(standing).to_have_count(4)

        final = json.loads(
            spectator.page.evaluate(
                "() => fetch(location.pathname.replace('/rooms/', '/api/rooms/')).then((r) => r.text())"
            )
        )
        codes = {r["number"]: r["code"] for r in final["rounds"]}
        guesses = {r["number"]: {row["guess"] for b in r["boards"] for row in b["rows"]} for r in final["rounds"]}
        assert sorted(codes) == list(range(1, ROUNDS + 1))
        check_spectator(spectator, codes, guesses)
        for visit in (ada, bea, kim, spectator):
            visit.clean()
    finally:
        if bot is not None and bot.process.poll() is None:
            bot.process.kill()
        for context in contexts:
            context.close()


def play_round_on(visit: Visit, number: int, made: list[str]) -> None:
    """Go on breaking round ``number``'s code after ``made`` (the board's scores read again)."""
    history = [(guess, read_score(visit, k + 1)) for k, guess in enumerate(made)]
    if history and history[-1][1].black == RULES.pegs:
        return
    while True:
        guess = next_guess(RULES, history)
        enter_guess(visit, guess, "click")
        if not board_or_next_round(visit, number, len(history) + 1):
            return
        feedback = read_score(visit, len(history) + 1)
        history.append((guess, feedback))
        if feedback.black == RULES.pegs:
            return


def check_spectator(spectator: Visit, codes: dict[int, str], guesses: dict[int, set[str]]) -> None:
    """Every page the spectator was shown and every event of its stream: while round N was in play, no code
    of round N and no guess, in any notation (only key pegs)."""
    seen = spectator.page.evaluate("() => window.roomSeen")
    states = [json.loads(e["data"]) for e in seen["events"] if e["kind"] == "state"]
    assert len(states) >= 10, f"the spectator's stream brought {len(states)} states"
    rounds_seen = {in_play_of(view) for view in states} - {None}
    assert rounds_seen == set(codes), f"the stream showed rounds {rounds_seen} in play"
    for view in states:
        assert view["you"] is None and view["board"] is None, "a spectator was given a board"
        number = in_play_of(view)
        if number is None:
            continue
        in_play = view["round"]
        assert "code" not in in_play, f"round {number}'s code was sent to the spectator"
        for board in in_play["boards"]:
            assert all(set(row) == {"black", "white"} for row in board["rows"]), f"a guess of round {number} sent"
        text = json.dumps({k: v for k, v in view.items() if k not in ("room", "rounds", "last_round", "page")})
        assert not code_shown(RULES, codes[number], text), f"round {number}'s code in the stream: {text}"
        plain = NOISE.sub("-", text)
        assert not [g for g in guesses[number] if g in plain], f"a guess of round {number} in the stream: {text}"
    pages, brought = seen["pages"], seen["brought"]  # the pages a state brought: checked as the pages shown
    assert {int(p["round"]) for p in pages if p["round"]} == set(codes), "the page did not follow every round"
    assert {int(p["round"]) for p in brought if p["round"]} == set(codes), "the stream brought no page of a round"
    for shown in pages + brought:
        if not shown["round"]:
            continue
        number = int(shown["round"])
        assert shown["pegs"] == 0, f"a peg (a guess or a code) on the spectator's page in round {number}"
        found = code_shown(RULES, codes[number], shown["text"])
        assert not found, f"round {number}'s code {codes[number]} shown to the spectator as {found}"


@contextmanager
def ann_and_bob_seated(
    browser: Browser, server: Server, label: str, sizes: tuple[Any, Any], **options: Any
) -> Iterator[tuple[Visit, Visit]]:
    """Ann makes a one-round 3x4 room by the form (an hour a move) and Bob joins it by its link, each in a
    browser of their own (``sizes``); neither has a console error by the end; both browsers closed after."""
    contexts: list[BrowserContext] = []
    visits: list[Visit] = []
    try:
        for name, size in zip((f"{label}-ann", f"{label}-bob"), sizes, strict=True):
            context, visit = open_tab(browser, server.base, f"room-{name}", viewport=size, **options)
            contexts.append(context)
            visits.append(visit)
        ann, bob = visits
        ann.goto("/rooms/new", "new")
        ann.page.locator("select[name=variant]").select_option("3x4")
        ann.page.locator("select[name=rounds]").select_option("1")
        ann.page.locator("select[name=move_seconds]").select_option("3600")
        ann.page.get_by_label("Your name in the room").fill("Ann")
        ann.page.get_by_role("button", name="Make the room").click()
        expect(ann.page.locator("main h1")).to_have_text("A room, waiting to start")
        bob.page.goto(ann.page.locator("#join-link").input_value())
        bob.page.get_by_label("Your name in the room").fill("Bob")
        bob.page.get_by_role("button", name="Join the room").click()
        expect(bob.page.locator("main")).to_contain_text("Waiting for the host to start")
        yield ann, bob
        for visit in visits:
            visit.clean()
    finally:
        for context in contexts:
            context.close()


def test_a_room_without_javascript_is_plain_forms(server: Server, browser: Browser) -> None:
    """Without JavaScript a room is made, joined, started and played with plain forms: each answer (a
    redirect to the room) shows it as it is; the host's page is brought up to date by a reload."""
    with ann_and_bob_seated(browser, server, "plain", (DESKTOP, PHONE), java_script_enabled=False) as (ann, bob):
        ann.page.reload()
        expect(ann.page.locator("main .rm-seats li")).to_have_count(2)
        ann.page.get_by_role("button", name="Start the room").click()
        expect(ann.page.locator("main h1")).to_have_text("Round 1 of 1")  # the start's answer came before a reload
        for visit in (ann, bob):
            visit.page.reload()
            expect(visit.page.locator("main h1")).to_have_text("Round 1 of 1")
            history: list[tuple[str, Feedback]] = []
            while not history or history[-1][1].black < RULES.pegs:
                guess = next_guess(RULES, history)
                enter_guess(visit, guess, "field")
                if "over" in visit.page.locator("main h1").inner_text():
                    break
                history.append((guess, read_score(visit, len(history) + 1)))
            visit.shot("played")
        expect(bob.page.locator("main h1")).to_contain_text("The room is over")
        ann.page.reload()
        expect(ann.page.locator("main h1")).to_contain_text("The room is over")
        expect(ann.page.locator("main .rm-standing tbody tr")).to_have_count(2)
        ann.shot("over")


def test_the_focus_stays_on_the_guess_button_after_a_guess_sent_from_the_keyboard(
    server: Server, browser: Browser
) -> None:
    """A keyboard player sends a guess with Enter on the Guess button: the page is brought up to date in
    place, and the focus comes back to the next row's Guess button (review: it fell to the page's body, and
    a Tab user started again from the top after every guess)."""
    with ann_and_bob_seated(browser, server, "keys", (DESKTOP, DESKTOP)) as (ann, _):
        expect(ann.page.locator("main .rm-seats li")).to_have_count(2)
        ann.page.get_by_role("button", name="Start the room").click()
        expect(ann.page.locator("main h1")).to_have_text("Round 1 of 1")
        for guess in ("ABC", "BCD"):
            ann.page.locator("main").get_by_role("button", name="Guess", exact=True).focus()
            ann.page.keyboard.type(guess)
            ann.page.keyboard.press("Enter")
            expect(rows(ann).filter(has_text=f"{guess}:")).to_have_count(1)
            ann.page.wait_for_function(  # once the guess's own answer is in (the stream may bring the row first)
                "() => document.activeElement.closest('main') !== null"
                " && document.activeElement.textContent.trim() === 'Guess'",
                timeout=LIVE_FOCUS,
            )
        ann.shot("focus")
