"""Matches between people and the daily puzzle in a real browser (Playwright on Debian's chromium,
against a real ``keypeg serve``): two people play a whole match from two browsers while a third watches,
every move reaching the other pages by the live updates alone (the test never reloads them), no code
ever shown to its codebreaker or a spectator while its game is played, one of them on a phone's width;
a player who closes the page comes back to the same game; a page whose stream was refused or fell silent
follows the match again by itself; a late answer never takes a page back; the clock counts down in the
page and the tab's title says whose turn it is; a registered player plays the daily puzzle and gets the
grid to share and the day's board. No console error and no Content-Security-Policy violation anywhere,
every control named; every page is saved as a PNG under ``test-artifacts/browser/`` (``live-*``,
``reconnect-*``, ``outage-*``, ``late-*``, ``clock-*``, ``daily-*``).

Skipped, saying why, without chromium (``/usr/bin/chromium``) or the ``playwright`` package.
"""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

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
from conftest import code_shown
from keypeg import Feedback, Rules, score
from keypeg.play.daily import KEY_NAME, daily_secret, today
from keypeg.variants import find_variant

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, BrowserContext, Locator

pytestmark = MARKS

LIVE = 2_000
"""Milliseconds within which a move shows on the other pages of the match, by their live updates."""
RULES = find_variant("3x4").rules
PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


# -- helpers ------------------------------------------------------------------------------------------


def assert_no_code(visit: Visit, rules: Rules, code: str, when: str) -> None:
    found = code_shown(rules, code, visit.page.content())
    assert not found, f"{visit.name}'s page shows the code {code} (as {found}) {when}"


class Answers:
    """Every HTML answer a tab received for the match's page (loaded, sent back after a move, or fetched
    again by the live updates) and every page its stream brought (read off the wire through chromium's
    DevTools protocol, shown or not), to be searched for the code afterwards."""

    def __init__(self, visit: Visit, url: str) -> None:
        self.url = url
        self.got: list[Any] = []
        visit.page.on("response", self._seen)
        self.devtools = visit.page.context.new_cdp_session(visit.page)
        self.devtools.on("Network.eventSourceMessageReceived", self._brought)
        self.devtools.send("Network.enable")

    def _seen(self, response: Any) -> None:
        if response.url == self.url and response.request.method == "GET" and response.status == 200:
            self.got.append(response)

    def _brought(self, message: dict[str, Any]) -> None:
        page = json.loads(message["data"]).get("page")
        if page is not None:
            self.got.append(Brought(page))

    def between(self, start: int, end: int) -> list[str]:
        return [answer.text() for answer in self.got[start:end]]


class Brought(NamedTuple):
    """A page a stream's event brought, read as a response is."""

    html: str

    def text(self) -> str:
        return self.html


def moves_to_break(rules: Rules, code: str) -> int:
    """The guesses keypeg's choice (the first code that fits) takes to break ``code``."""
    history: list[tuple[str, Feedback]] = []
    while not history or history[-1][1] != rules.win:
        guess = next_guess(rules, history)
        history.append((guess, score(rules.parse(code), rules.parse(guess))))
    return len(history)


def register(visit: Visit, name: str) -> None:
    page = visit.page
    visit.goto("/players", "players")
    form = page.locator("form[action='/players/register']")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Register").click()
    expect(page.locator("header .who")).to_contain_text(f"Signed in as {name}")


def mark(visit: Visit) -> None:
    """Mark the page's window: a reload or a navigation would lose the mark (see :func:`unmoved`)."""
    visit.page.evaluate("() => { window.keypegStayed = true; }")


def unmoved(visit: Visit) -> None:
    """The page was never reloaded nor left since :func:`mark`: what changed on it, the script changed."""
    assert visit.page.evaluate("() => window.keypegStayed === true"), f"{visit.name}'s page was reloaded"


def fits(visit: Visit, label: str) -> None:
    """A screenshot, and the page does not scroll sideways (a phone's width)."""
    visit.shot(label)
    wide, screen = visit.page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert wide <= screen, f"{visit.name}: {label} ({visit.page.url}) scrolls sideways: {wide} px for {screen}"


def board(visit: Visit) -> Locator:
    return rows(visit)


def played(visit: Visit) -> Locator:
    """The rows of the table of games played."""
    return visit.page.locator("main table", has=visit.page.locator("th", has_text="codemaker")).locator("tbody tr")


def create_match(visit: Visit, *, nickname: str | None = None) -> tuple[str, str, str]:
    """Create a 3x4 match of 2 games on /live; its address, the invitation and the link to watch."""
    page = visit.page
    visit.goto("/live", "new")
    form = page.locator("form[action='/live']")
    form.locator("[name=variant]").select_option("3x4")
    form.get_by_label("Games").select_option("2")
    if nickname is not None:
        form.get_by_label("Your name for this match").fill(nickname)
    form.get_by_role("button", name="Create the match").click()
    page.wait_for_url(re.compile(r"/live/[\w-]+$"))
    expect(page.locator("main")).to_contain_text(f"{RULES.describe()} · 2 games")
    invite = page.get_by_label("Send this link to the person you want to play").input_value()
    watch = page.get_by_label("Anyone can watch at").input_value()
    assert watch == page.url and invite.startswith(f"{page.url}/join?token="), (invite, watch)
    return page.url, invite, watch


def join_match(visit: Visit, invite: str, host: str, nickname: str) -> None:
    page = visit.page
    visit.goto(invite, "join")
    expect(page.locator("h1")).to_have_text(f"Join {host}'s match")
    page.get_by_label("Your name for this match").fill(nickname)
    page.get_by_role("button", name="Join the match").click()
    page.wait_for_url(re.compile(r"/live/[\w-]+$"))


def shows_guess(visit: Visit, number: int, guess: str, feedback: Feedback, rows_left: int) -> None:
    """Guess ``number`` and its score show on the page within :data:`LIVE` (no reload)."""
    expect(board(visit)).to_have_count(number, timeout=LIVE)
    row = board(visit).nth(number - 1)
    expect(row).to_contain_text(f"{guess}:", timeout=LIVE)
    expect(row.locator(".score-text")).to_have_text(f"{feedback.black} black, {feedback.white} white", timeout=LIVE)
    expect(row.locator(".key.black")).to_have_count(feedback.black)
    expect(row.locator(".key.white")).to_have_count(feedback.white)
    expect(visit.page.locator("main")).to_contain_text(f"{rows_left} {'row' if rows_left == 1 else 'rows'} left")


def guess_once(breaker: Visit, rules: Rules, history: list[tuple[str, Feedback]], game: int, how: str) -> Feedback:
    """The codebreaker's next guess (keypeg's choice by the scores read so far), entered on their page;
    the score read back from it. The winning guess ends the game: its board gives way to the next game's
    (or the match's end), and the game shows in the table of games played, broken."""
    guess, number = next_guess(rules, history), len(history) + 1
    enter_guess(breaker, guess, how)
    row, counted = board(breaker).nth(number - 1), played(breaker).nth(game - 1)
    expect(row.or_(counted).first).to_be_visible()
    if counted.count():
        expect(counted.locator("td").nth(3)).to_have_text(str(number))
        expect(counted.locator("td").nth(4)).to_have_text("yes")
        feedback = rules.win
    else:
        feedback = read_score(breaker, number)
    history.append((guess, feedback))
    return feedback


# -- the tests ----------------------------------------------------------------------------------------


def test_a_whole_match_between_two_people_with_a_third_watching(browser: Browser, server: Server) -> None:
    rules = RULES
    codes = {1: "DCA", 2: "CAB"}  # not runs of the palette (ABCD), and the match has a winner
    assert moves_to_break(rules, codes[1]) != moves_to_break(rules, codes[2])
    a_context, ann = open_tab(browser, server.base, "live-ann", viewport=DESKTOP)
    b_context, bea = open_tab(browser, server.base, "live-bea", viewport=PHONE, is_mobile=True, has_touch=True)
    c_context, eve = open_tab(browser, server.base, "live-eve", viewport=DESKTOP)
    everyone = (ann, bea, eve)
    try:
        register(ann, "ann")
        match_url, invite, watch = create_match(ann)
        expect(ann.page.locator("h1")).to_have_text("ann 0 · waiting for a second player")
        ann.shot("invite")
        mark(ann)

        join_match(bea, invite, "ann", "Bea")
        assert bea.page.url == match_url
        names = {ann.name: "ann", bea.name: "Bea (guest)"}
        expect(bea.page.locator("h1")).to_have_text("ann 0 · Bea (guest) 0")
        expect(bea.page.locator("main")).to_contain_text("you are Bea (guest)")
        fits(bea, "joined")
        mark(bea)
        # ann's page sees her friend sit down by itself: the invitation gives way to the first game
        expect(ann.page.locator("h1")).to_have_text("ann 0 · Bea (guest) 0", timeout=LIVE)
        expect(ann.page.get_by_label("Send this link to the person you want to play")).to_have_count(0)

        eve.goto(watch, "watch")
        expect(eve.page.locator("main")).to_contain_text("you are watching")
        mark(eve)
        answers = {tab.name: Answers(tab, match_url) for tab in everyone}

        points = {ann.name: 0, bea.name: 0}
        for game, (maker, breaker, how) in enumerate(((ann, bea, "click"), (bea, ann, "type")), 1):
            code = codes[game]
            for tab in everyone:
                expect(tab.page.locator("main")).to_contain_text(
                    f"Game {game} of 2: {names[maker.name]} makes the code, {names[breaker.name]} breaks it.",
                    timeout=LIVE,
                )
            expect(maker.page.locator("main")).to_contain_text("Your turn.")
            expect(maker.page.get_by_role("region", name=re.compile("^Your code for this game"))).to_be_visible()
            expect(breaker.page.locator("main")).to_contain_text(f"Waiting for {names[maker.name]}.")
            expect(breaker.page.locator("#code")).to_have_count(0)
            maker.shot(f"game{game}-make")
            assert_no_code(maker, rules, code, "before it was set")  # the check below can see it
            start = {tab.name: len(answers[tab.name].got) for tab in everyone}

            enter_guess(maker, code, how, button="Set the code")
            expect(maker.page.locator("main")).to_contain_text("your code")
            expect(maker.page.locator("main")).to_contain_text(f"Waiting for {names[breaker.name]}.")
            assert code in maker.page.content()
            maker.shot(f"game{game}-set")
            # the codebreaker's page and the spectator's follow by themselves
            expect(breaker.page.locator("main")).to_contain_text("Your turn.", timeout=LIVE)
            expect(eve.page.locator("main")).to_contain_text(f"Waiting for {names[breaker.name]}.", timeout=LIVE)
            for tab in (breaker, eve):
                expect(tab.page.locator("main")).to_contain_text(f"{rules.rows} rows left", timeout=LIVE)
                expect(tab.page.locator("main")).not_to_contain_text("your code")
                assert_no_code(tab, rules, code, f"once game {game} began")
            breaker.shot(f"game{game}-break")

            history: list[tuple[str, Feedback]] = []
            while True:
                end = {tab.name: len(answers[tab.name].got) for tab in everyone}
                feedback = guess_once(breaker, rules, history, game, ("click", "type")[len(history) % 2])
                number, guess = len(history), history[-1][0]
                if breaker is bea:
                    fits(bea, f"game{game}-guess{number}")  # her phone: no sideways scrolling
                else:
                    breaker.shot(f"game{game}-guess{number}")
                if feedback == rules.win:
                    break
                for tab in (maker, eve):
                    shows_guess(tab, number, guess, feedback, rules.rows - number)
                for tab in (breaker, eve):
                    assert_no_code(tab, rules, code, f"after guess {number} of game {game}")
                expect(maker.page.locator("main")).to_contain_text("your code")
                assert number < rules.rows
            points[maker.name] += number
            assert number == moves_to_break(rules, code)
            for tab in (breaker, eve):  # every page they were sent while the game was played, not only the last
                received = answers[tab.name].between(start[tab.name], end[tab.name])
                assert tab is breaker or len(received) >= number, f"{tab.name} was not sent the moves: {received}"
                fetched = [
                    a for a in answers[tab.name].got[start[tab.name] : end[tab.name]] if not isinstance(a, Brought)
                ]
                assert tab is breaker or not fetched, f"{tab.name} asked for the page again: its stream brings it (M5)"
                for html in received:
                    leaked = code_shown(rules, code, html)
                    assert not leaked, f"{tab.name} was sent the code {code} (as {leaked}) during game {game}"
            for tab in everyone:  # the game counted everywhere: its row in the table, the new score
                counted = played(tab).nth(game - 1).locator("td")
                expect(counted).to_have_text(
                    [str(game), names[maker.name], names[breaker.name], str(number), "yes"], timeout=LIVE
                )
                expect(tab.page.locator("h1")).to_have_text(f"ann {points[ann.name]} · Bea (guest) {points[bea.name]}")
            eve.shot(f"game{game}-over")

        winner = ann if points[ann.name] > points[bea.name] else bea
        loser = bea if winner is ann else ann
        over = f"The match is over: {names[winner.name]} wins."
        for tab in everyone:
            expect(tab.page.locator("main")).to_contain_text(over, timeout=LIVE)
            expect(tab.page.locator("h1")).to_have_text(f"ann {points[ann.name]} · Bea (guest) {points[bea.name]}")
            expect(tab.page.locator("#code")).to_have_count(0)
            expect(played(tab)).to_have_count(2)
            unmoved(tab)  # every change reached every page by the live updates alone
        expect(winner.page.locator("p.won")).to_have_text(over)
        expect(loser.page.locator("p.lost")).to_have_text(over)
        fits(bea, "end")
        ann.shot("end")
        eve.shot("end")

        ann.goto("/players", "standing")
        main = ann.page.locator("main")
        won = "1 won, 0 lost, 0 drawn" if winner is ann else "0 won, 1 lost, 0 drawn"
        expect(main).to_contain_text(
            f"1 finished: {won}; {points[ann.name]} points for you, {points[bea.name]} against."
        )
        latest = ann.page.locator("main table", has=ann.page.locator("th", has_text="started")).locator("tbody tr")
        expect(latest).to_have_count(2)
        # both games, newest first: ann broke the guest's code, then the guest broke hers (the guest is
        # named here as the store knows her, by her guest id: her nickname is kept with the match only)
        rows = [latest.nth(k).locator("td").all_inner_texts() for k in range(2)]
        guest = re.fullmatch(r"ann broke (.+)'s code", rows[0][2])
        assert guest and rows[1][2] == f"{guest[1]} broke ann's code" and guest[1] != "ann", rows
        assert [r[3:6] for r in rows] == [
            [str(points[bea.name]), "solved", "no"],
            [str(points[ann.name]), "solved", "no"],
        ]
        ann.goto("/live", "listing")
        expect(ann.page.locator("main li", has_text="ann against Bea (guest)")).to_contain_text("(over)")
        for tab in everyone:
            tab.clean()
    finally:
        for context in (a_context, b_context, c_context):
            context.close()


class Seated(NamedTuple):
    """Max's and Noor's tabs (each a desktop browser of its own), seated at one match, Max to set the code."""

    max_: Visit
    noor: Visit
    match_url: str
    noor_context: BrowserContext
    """Noor's browser, to open the match again in."""


@contextmanager
def seated(browser: Browser, server: Server, name: str) -> Iterator[Seated]:
    """Max makes a match in one tab and Noor, a guest in another, joins it; both browsers closed after."""
    m_context, max_ = open_tab(browser, server.base, f"{name}-max", viewport=DESKTOP)
    n_context, noor = open_tab(browser, server.base, f"{name}-noor", viewport=DESKTOP)
    try:
        match_url, invite, _ = create_match(max_, nickname="Max")
        join_match(noor, invite, "Max (guest)", "Noor")
        expect(max_.page.locator("main")).to_contain_text("Your turn.", timeout=LIVE)
        yield Seated(max_, noor, match_url, n_context)
    finally:
        m_context.close()
        n_context.close()


def test_a_player_who_closes_the_page_comes_back_to_the_same_game(browser: Browser, server: Server) -> None:
    rules, code = RULES, "DDA"  # four guesses
    with seated(browser, server, "reconnect") as (max_, noor, match_url, n_context):
        mark(max_)
        enter_guess(max_, code, "type", button="Set the code")
        expect(noor.page.locator("main")).to_contain_text("Your turn.", timeout=LIVE)
        history: list[tuple[str, Feedback]] = []
        for _ in range(2):
            guess_once(noor, rules, history, 1, "type")
            shows_guess(max_, len(history), history[-1][0], history[-1][1], rules.rows - len(history))
        noor.shot("before")
        noor.clean()
        noor.page.close()  # mid-game, on her turn: the stream is cut

        again = Visit(n_context.new_page(), "reconnect-noor-again")
        again.goto(match_url, "back")
        expect(again.page.locator("main")).to_contain_text("Your turn.")
        expect(board(again)).to_have_count(2)
        for number, (guess, feedback) in enumerate(history, 1):
            assert read_score(again, number) == feedback
            expect(board(again).nth(number - 1)).to_contain_text(f"{guess}:")
        assert_no_code(again, rules, code, "after coming back")
        mark(again)
        while history[-1][1] != rules.win:  # and she goes on to break the code
            if guess_once(again, rules, history, 1, "click") != rules.win:
                shows_guess(max_, len(history), history[-1][0], history[-1][1], rules.rows - len(history))
        for tab in (max_, again):
            expect(played(tab).nth(0).locator("td")).to_have_text(
                ["1", "Max (guest)", "Noor (guest)", str(len(history)), "yes"], timeout=LIVE
            )
            expect(tab.page.locator("h1")).to_have_text(f"Max (guest) {len(history)} · Noor (guest) 0")
            expect(tab.page.locator("main")).to_contain_text("Game 2 of 2: Noor (guest) makes the code")
            unmoved(tab)
        again.shot("game2")
        max_.shot("game2")
        max_.clean()
        again.clean()


SESSION_CHANGE = 40_000
"""Milliseconds within which a match's tab follows a session changed in another tab: the server checks a
stream's session every few seconds and ends it, and the browser opens it again (its own delay)."""


def test_a_guest_who_registers_in_another_tab_finds_the_match_tab_signed_in_with_the_seat(
    browser: Browser, server: Server
) -> None:
    """Noor, a guest seated in a match, registers in another tab of the same browser: the match's tab,
    left open, is loaded again for her new session by itself (signed in, her turn, the board hers)."""
    with seated(browser, server, "session") as (max_, noor, _match_url, n_context):
        enter_guess(max_, "DDA", "type", button="Set the code")
        expect(noor.page.locator("main")).to_contain_text("Your turn.", timeout=LIVE)
        other = Visit(n_context.new_page(), "session-noor-other-tab")
        other.goto("/players", "players")
        form = other.page.locator("form[action='/players/register']")
        form.get_by_label("Name").fill("noorreg")
        form.get_by_label("Password").fill(PASSWORD)
        form.get_by_role("button", name="Register").click()
        expect(other.page.locator("header")).to_contain_text("Signed in as noorreg")
        expect(noor.page.locator("header")).to_contain_text("Signed in as noorreg", timeout=SESSION_CHANGE)
        expect(noor.page.locator("main")).to_contain_text("Your turn.")
        enter_guess(noor, "ABC", "type")  # her form works: the new session's token
        expect(board(noor)).to_have_count(1, timeout=LIVE)
        noor.shot("after")
        for tab in (noor, other, max_):
            tab.clean()


NOTIFICATIONS = """() => {
  window.asked = 0;
  window.told = [];
  window.Notification = class {
    static permission = "default";
    static async requestPermission() {
      window.asked += 1;
      window.Notification.permission = "granted";
      return "granted";
    }
    constructor(title) { window.told.push(title); }
  };
  Object.defineProperty(document, "hidden", { get: () => true });
}"""
"""The browser's notifications stood in for, the page taken as looked away from: how often permission
was asked (``asked``), and the titles of the notifications shown (``told``)."""


def test_the_clock_counts_down_and_the_title_says_whose_turn_it_is(browser: Browser, server: Server) -> None:
    """Each page counts the move's time down by itself (the server sent the seconds left once), and the
    tab's title says "(Your turn)" to the one who must act, moving to the other by the live updates; a
    player who clicked "Notify me" is notified when their turn comes, and nobody is asked without it."""
    with seated(browser, server, "clock") as (max_, noor, match_url, _):
        expect(max_.page).to_have_title("(Your turn) Live match · keypeg")
        expect(noor.page).to_have_title("Live match · keypeg")
        for tab in (max_, noor):
            timer = tab.page.get_by_role("timer")
            expect(timer).to_have_text(re.compile(r"^[12]:\d\d$"))  # 2 min a move, by default
            shown = timer.inner_text()
            expect(timer).not_to_have_text(shown)  # it ticks: a second later it says less
            expect(tab.page.get_by_role("button", name="Notify me when it is my turn")).to_be_visible()
            tab.page.evaluate(NOTIFICATIONS)
        max_.shot("title")
        noor.page.get_by_role("button", name="Notify me when it is my turn").click()
        expect(noor.page.get_by_role("button", name="Notify me when it is my turn")).to_be_hidden()
        asked = Requests(noor, match_url)
        enter_guess(max_, "DDA", "type", button="Set the code")
        expect(noor.page).to_have_title("(Your turn) Live match · keypeg", timeout=LIVE)  # never reloaded
        expect(noor.page.locator("main")).to_contain_text("Your turn.")
        assert asked.count == 0, "noor's page asked for itself again: its stream brings it (review M5)"
        expect(max_.page).to_have_title("Live match · keypeg")
        expect(noor.page.get_by_role("timer")).to_have_text(re.compile(r"^[12]:\d\d$"), timeout=LIVE)
        assert noor.page.evaluate("[window.asked, window.told]") == [1, ["(Your turn) Live match · keypeg"]]
        assert max_.page.evaluate("window.asked") == 0  # he never clicked: never asked
        noor.shot("turn")
        max_.clean()
        noor.clean()


class Requests:
    """The GETs of a page's own address a tab makes (the page fetched again), counted."""

    def __init__(self, visit: Visit, url: str) -> None:
        self.url, self.count = url, 0
        visit.page.on("request", self._seen)

    def _seen(self, request: Any) -> None:
        if request.url == self.url and request.method == "GET":
            self.count += 1


PARSED_VERSIONS = """() => {
  const parse = DOMParser.prototype.parseFromString;
  window.parsedVersions = [];
  DOMParser.prototype.parseFromString = function (...args) {
    const page = parse.apply(this, args);
    const marker = page.querySelector("[data-live-events]");
    if (marker) window.parsedVersions.push(Number(marker.getAttribute("data-version")));
    return page;
  };
}"""
"""Notes the version of every page the live script parses: the script decides whether to show a page it
fetched right after parsing it, in the same task, so once a version is noted the decision is made."""


def test_a_late_answer_never_takes_a_page_back(browser: Browser, server: Server) -> None:
    """Two moves in quick succession: the page a follower fetched after the first may arrive after the one
    it fetched after the second; the older must not replace the newer (the pages fetched: a stream whose
    states bring none, as one that cannot)."""
    rules, code = RULES, "DDA"  # four guesses
    with seated(browser, server, "late") as (max_, noor, match_url, _):
        pageless(max_, match_url)
        enter_guess(max_, code, "type", button="Set the code")
        expect(noor.page.locator("main")).to_contain_text("Your turn.", timeout=LIVE)
        held: list[tuple[Any, Any]] = []

        def hold_the_first(route: Any) -> None:
            if held:
                route.continue_()
            else:  # the page as it is now, answered only later
                held.append((route, route.fetch()))

        max_.page.route(match_url, hold_the_first)
        max_.page.evaluate(PARSED_VERSIONS)  # which pages the follower's script reads, by their version
        history: list[tuple[str, Feedback]] = []
        guess_once(noor, rules, history, 1, "type")
        for _ in range(1500):  # up to 30 s: a busy machine fetches late
            if held:
                break
            max_.page.wait_for_timeout(20)
        assert held, "max's page did not fetch itself again after the first guess"
        guess_once(noor, rules, history, 1, "type")
        shows_guess(max_, 2, history[-1][0], history[-1][1], rules.rows - 2)
        shown = max_.page.locator("[data-live-events]").get_attribute("data-version")
        assert shown is not None
        route, stale = held[0]
        late = re.search(r'data-version="(\d+)"', stale.text())
        assert late is not None and int(late.group(1)) < int(shown), (late, shown)  # the held page is older
        parsed = max_.page.evaluate("() => window.parsedVersions.length")
        route.fulfill(response=stale)  # the page after the first guess arrives last
        # the script has read it, and decided whether to show it in the same task
        max_.page.wait_for_function(
            "([from, late]) => window.parsedVersions.slice(from).includes(late)",
            arg=[parsed, int(late.group(1))],
            timeout=30_000,
        )
        assert board(max_).count() == 2  # still the newer page: two guesses
        assert max_.page.locator("[data-live-events]").get_attribute("data-version") == shown
        max_.page.unroute(match_url)
        max_.shot("after")
        max_.clean()
        noor.clean()


def events_of(match_url: str) -> re.Pattern[str]:
    """The address of the match's event stream, whatever its query (the page's script asks ``?page=true``)."""
    return re.compile(re.escape(f"{match_url.replace('/live/', '/api/live/')}/events") + r"(\?.*)?$")


def pageless(visit: Visit, match_url: str) -> None:
    """The tab's stream of the match asked without ``page=true``: its states bring no page, and the script
    fetches the page again at each one (as it does for a state that brings none). Reloaded to open it so."""
    visit.page.route(events_of(match_url), lambda route: route.continue_(url=route.request.url.split("?")[0]))
    visit.goto(match_url, "pageless")


class Outage:
    """The match's event stream on one tab, as a store outage makes it: answered 503 ("down"), never
    answered ("silent", a connection gone quiet), or served ("up"); the requests the tab made."""

    def __init__(self, visit: Visit, match_url: str) -> None:
        self.mode, self.asked = "up", 0
        self.held: list[Any] = []
        visit.allowed.add(503)
        visit.page.route(events_of(match_url), self.answer)

    def answer(self, route: Any) -> None:
        self.asked += 1
        if self.mode == "down":
            route.fulfill(status=503, content_type="application/json", body='{"error": "down"}')
        elif self.mode == "silent":
            self.held.append(route)  # never answered: the stream says nothing
        else:
            route.continue_()

    def wait_asked(self, visit: Visit, count: int) -> None:
        for _ in range(1500):  # up to 30 s
            if self.asked >= count:
                return
            visit.page.wait_for_timeout(20)
        raise AssertionError(f"the page asked for its stream {self.asked} times, not {count}")


def test_a_page_follows_the_match_again_after_an_outage(browser: Browser, server: Server) -> None:
    """A stream refused (503) is opened again with a backoff, a stream gone silent for longer than two
    keep-alives too; either way the page shows the move made meanwhile, without a reload."""
    rules, code = RULES, "DDA"
    with seated(browser, server, "outage") as (max_, noor, match_url, _):
        refused = Outage(noor, match_url)
        refused.mode = "down"
        noor.goto(match_url, "down")  # the page loads; its stream is refused
        mark(noor)
        enter_guess(max_, code, "type", button="Set the code")
        refused.wait_asked(noor, 2)  # refused, and asked again
        refused.mode = "up"
        expect(noor.page.locator("main")).to_contain_text("Your turn.", timeout=20_000)
        unmoved(noor)
        quiet = Outage(max_, match_url)
        quiet.mode = "silent"
        max_.goto(match_url, "silent")  # the page loads; its stream never says a word
        mark(max_)
        quiet.wait_asked(max_, 1)
        quiet.mode = "up"
        history: list[tuple[str, Feedback]] = []
        guess_once(noor, rules, history, 1, "type")
        expect(board(max_)).to_have_count(1, timeout=20_000)  # the watchdog opened the stream again
        unmoved(max_)
        max_.shot("after")
        max_.clean()
        noor.clean()


def test_the_daily_puzzle_in_the_browser(browser: Browser, server: Server) -> None:
    classic = find_variant("classic")
    rules, day = classic.rules, today()
    context, tab = open_tab(browser, server.base, "daily", viewport=DESKTOP)
    page = tab.page
    try:
        register(tab, "dora")
        tab.goto("/daily", "daily")
        expect(page.locator("h1")).to_have_text(f"The daily puzzle: {day}")
        expect(page.locator("main")).to_contain_text("Nobody has finished today's classic puzzle yet.")
        page.get_by_role("button", name="Play today's classic puzzle").click()
        page.wait_for_url(re.compile(r"/play/[\w-]+$"))
        game_url = page.url
        expect(page.locator(".badge")).to_have_text(f"the daily puzzle of {day} classic")
        expect(page.get_by_role("button", name="Hint")).to_have_count(0)
        tab.shot("board")

        pages: list[str] = []
        history: list[tuple[str, Feedback]] = []
        for how in ("click", "type"):
            pages.append(page.content())
            guess = next_guess(rules, history)
            enter_guess(tab, guess, how)
            expect(board(tab)).to_have_count(len(history) + 1)
            history.append((guess, read_score(tab, len(history) + 1)))
            tab.shot(f"guess{len(history)}")
            if history[-1][1] == rules.win:
                break
        # the day's page again, mid-attempt: it goes on with the same game, it does not start another
        other = Visit(context.new_page(), "daily-again")
        other.goto("/daily", "going-on")
        other.page.get_by_role("button", name="Go on with today's classic puzzle").click()
        other.page.wait_for_url(game_url)
        expect(board(other)).to_have_count(len(history))
        other.clean()
        other.page.close()
        pages.append(page.content())

        secret = str(daily_secret(server.store().keys.server_key(KEY_NAME), day, classic))  # only now
        for number, html in enumerate(pages):
            found = code_shown(rules, secret, html)
            assert not found, f"the page showed the code {secret} (as {found}) after {number} guesses"
        if history[-1][1] != rules.win:
            enter_guess(tab, secret, "type")
            expect(board(tab)).to_have_count(len(history) + 1)
            history.append((secret, read_score(tab, len(history) + 1)))
        guesses = len(history)
        expect(page.locator("p.won")).to_contain_text(f"You broke the code in {guesses} guess")
        tab.shot("won")

        page.get_by_role("link", name="The day's board").click()
        page.wait_for_url(re.compile(r"/daily\?variant=classic$"))
        grid = page.locator("pre.grid")
        head, *rows = grid.inner_text().splitlines()
        assert head == f"keypeg daily {day} classic: {guesses}/{rules.rows}", head
        assert len(rows) == guesses and rows[-1] == "●" * rules.pegs, rows
        assert all(len(row) == rules.pegs and set(row) <= set("●○·") for row in rows), rows
        for row, (_, feedback) in zip(rows, history, strict=True):
            assert (row.count("●"), row.count("○")) == (feedback.black, feedback.white)
        expect(page.locator("main")).to_contain_text("Streak: 1 day in a row.")
        ranked = page.locator("main tbody tr")
        expect(ranked).to_have_count(1)
        assert ranked.locator("td").all_inner_texts()[:3] == ["1", "dora", str(guesses)]
        expect(page.get_by_role("button", name=re.compile("today's classic puzzle"))).to_have_count(0)
        tab.shot("result")
        page.set_viewport_size(PHONE)
        fits(tab, "result-phone")
        page.go_back()
        fits(tab, "won-phone")
        page.go_forward()
        page.set_viewport_size(DESKTOP)

        # a second attempt, the Play form sent again: back to the day's page, no new game
        csrf = page.request.get("/api/session").json()["csrf"]
        answer = page.request.post(
            "/daily", form={"csrf": csrf, "variant": "classic"}, headers={"Origin": server.base}, max_redirects=0
        )
        assert answer.status == 303 and answer.headers["location"] == "/daily?variant=classic", answer.headers
        tab.goto("/daily?variant=classic", "again")
        expect(page.locator("pre.grid")).to_have_text(grid.inner_text())
        attempts = server.store().daily.games(f"{day} classic", "dora")
        assert len(attempts) == 1 and attempts[0].outcome == "solved" and attempts[0].guesses == guesses
        tab.clean()
    finally:
        context.close()
