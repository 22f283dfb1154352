"""The board in a real browser (Playwright and Debian's chromium against a real ``keypeg serve``): a whole
game of every kind (a rated game, a practice game with a hint and undo, a game of a match, the daily
puzzle, the computer breaking your code, a live match between two tabs) played by the mouse (clicks and
drag and drop), by the keyboard alone, and by touch on a phone (390x844), each checked against the game
the server stored; the classic board fits the phone without scrolling; and the page's ``score``
(static/score.js) agrees with Python's on every pair of codes of a few rule sets.

A game ends quickly: the guesses are keypeg's own choice (the first code that fits), then the secret read
from the store once a guess has been played (the secret is never in the page: the other browser tests
check it).
"""

from __future__ import annotations

import itertools
import re
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
    set_keys,
)
from keypeg import Feedback, Rules, score
from keypeg.play.daily import KEY_NAME, daily_secret, today
from keypeg.variants import find_variant

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, BrowserContext, Locator

pytestmark = MARKS

CLASSIC = find_variant("classic").rules
SMALL = Rules(3, 4)
"""The rules of the games the computer breaks: a few guesses each."""
PASSWORD = "a long enough password"
MODES = ("mouse", "keyboard", "touch")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def tab(browser: Browser, server: Server, name: str, mode: str) -> tuple[BrowserContext, Visit]:
    """A tab for ``mode``: a phone with a touch screen, or a desktop."""
    if mode == "touch":
        return open_tab(browser, server.base, name, viewport=PHONE, is_mobile=True, has_touch=True)
    return open_tab(browser, server.base, name, viewport=DESKTOP)


# -- moves by each means ---------------------------------------------------------------------------------


def press(visit: Visit, control: Locator, mode: str) -> None:
    """Use a button or a link: a click, a tap, or the keyboard (focused, then Enter)."""
    if mode == "touch":
        control.tap()
    elif mode == "keyboard":
        control.focus()
        visit.page.keyboard.press("Enter")
    else:
        control.click()


def guess_ways(mode: str) -> tuple[str, ...]:
    """How guesses are entered in ``mode``, in turn (see browser_support.enter_guess)."""
    return {"mouse": ("drag", "click"), "keyboard": ("type",), "touch": ("swipe", "tap")}[mode]


def send_form(visit: Visit, server: Server, path: str, fields: dict[str, str]) -> str:
    """Send a form the way the page does (the session's CSRF token, this site's origin): where it led.
    The Play, Match and Friends forms are the home page's business; the games are the board's."""
    page = visit.page
    csrf = page.request.get("/api/session").json()["csrf"]
    answer = page.request.post(path, form={"csrf": csrf, **fields}, headers={"Origin": server.base}, max_redirects=0)
    assert answer.status == 303, (answer.status, answer.text()[:400])
    location = answer.headers["location"]
    visit.goto(location, path.strip("/").replace("/", "-") or "home")
    return location


def register(visit: Visit, name: str) -> None:
    page = visit.page
    visit.goto("/players", "players")
    form = page.locator("form[action='/players/register']")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(PASSWORD)
    form.get_by_role("button", name="Register").click()
    expect(page.locator("header .who")).to_contain_text(f"Signed in as {name}")


def break_code(visit: Visit, server: Server, rules: Rules, mode: str, public_id: str) -> list[tuple[str, Feedback]]:
    """Play a game as codebreaker to the end on the board: keypeg's first guess, then the secret (read
    from the store); each score read off the board. The moves played."""
    history: list[tuple[str, Feedback]] = []
    ways = guess_ways(mode)
    while not history or history[-1][1] != rules.win:
        guess = next_guess(rules, history) if not history else server.secret(public_id)
        enter_guess(visit, guess, ways[len(history) % len(ways)])
        expect(rows(visit)).to_have_count(len(history) + 1)
        history.append((guess, read_score(visit, len(history) + 1)))
        visit.shot(f"guess{len(history)}")
    return history


def stored_moves(server: Server, public_id: str) -> list[tuple[str, Feedback]]:
    return [(str(m.guess), m.feedback) for m in server.game(public_id).moves]


def no_scroll(visit: Visit, label: str) -> None:
    """The page fits its window: no vertical, no sideways scrolling, and every row of the board shows."""
    tall, high, wide, across = visit.page.evaluate(
        "() => [document.scrollingElement.scrollHeight, window.innerHeight,"
        " document.scrollingElement.scrollWidth, document.documentElement.clientWidth]"
    )
    inner, shown = visit.page.evaluate(
        "() => { const rows = document.querySelector('ol.pb-rows'); return [rows.scrollHeight, rows.clientHeight]; }"
    )
    visit.shot(label)
    assert wide <= across, f"{label}: {wide} px wide in {across}"
    assert tall <= high, f"{label}: {tall} px high in {high} ({visit.page.url})"
    assert inner <= shown, f"{label}: the board's rows scroll ({inner} px in {shown}): every row should show"


def targets(visit: Visit) -> None:
    """Every hole of the current row and every peg of the tray is a button at least 44 px square."""
    sizes = visit.page.evaluate(
        "() => Array.from(document.querySelectorAll('[data-hole], [data-tray] button'))"
        ".map((b) => [b.tagName, b.getBoundingClientRect().width, b.getBoundingClientRect().height])"
    )
    assert len(sizes) == CLASSIC.pegs + CLASSIC.colors + 1, sizes
    assert all(tag == "BUTTON" and w >= 44 and h >= 44 for tag, w, h in sizes), sizes


# -- the games ---------------------------------------------------------------------------------------------


def rated_game(visit: Visit, server: Server, mode: str) -> None:
    page = visit.page
    url = send_form(visit, server, "/play", {"variant": "classic", "role": "breaker"})
    public_id = url.rsplit("/", 1)[1]
    expect(page.locator(".badge")).to_have_text("rated")
    expect(page.locator("[data-board=game] .pb-shield .hidden-peg")).to_have_count(CLASSIC.pegs)
    expect(page.locator("[data-board=game] li.pb-row")).to_have_count(CLASSIC.rows)
    if mode == "touch":
        no_scroll(visit, "classic-fits")
        targets(visit)
    history = break_code(visit, server, CLASSIC, mode, public_id)
    expect(page.locator("p.won")).to_contain_text(f"You broke the code in {len(history)} guess")
    expect(page.locator(".pb-shield.lifted .pb-peg")).to_have_count(CLASSIC.pegs)  # the shield lifted
    record = server.game(public_id)
    assert record.outcome == "solved" and record.rated and stored_moves(server, public_id) == history


def practice_game(visit: Visit, server: Server, mode: str) -> None:
    page = visit.page
    url = send_form(visit, server, "/play", {"variant": "classic", "role": "breaker", "practice": "yes"})
    public_id = url.rsplit("/", 1)[1]
    expect(page.locator(".badge")).to_have_text("practice")
    press(visit, page.get_by_role("button", name="Hint"), mode)
    hint = page.locator("main p[role=status]", has_text="Hint: try")
    expect(hint).to_be_visible()
    suggested = hint.locator(".visually-hidden").inner_text()
    enter_guess(visit, server.not_breaking(public_id, CLASSIC, suggested), guess_ways(mode)[0])
    expect(rows(visit)).to_have_count(1)
    visit.shot("hinted")
    press(visit, page.get_by_role("button", name="Undo my last guess"), mode)
    expect(rows(visit)).to_have_count(0)
    expect(page.locator("#rows-left")).to_have_text(f"{CLASSIC.rows} rows left")
    visit.shot("undone")
    history = break_code(visit, server, CLASSIC, mode, public_id)
    expect(page.locator("p.won")).to_be_visible()
    record = server.game(public_id)
    assert record.outcome == "solved" and not record.rated and stored_moves(server, public_id) == history


def match_game(visit: Visit, server: Server, mode: str) -> None:
    page = visit.page
    match_url = send_form(visit, server, "/match", {"variant": "classic", "games": "2"})
    press(visit, page.get_by_role("link", name="Play game 1 of 2"), mode)
    page.wait_for_url(re.compile(r"/play/[\w-]+$"))
    public_id = page.url.rsplit("/", 1)[1]
    expect(page.get_by_role("link", name="your match")).to_be_visible()
    history = break_code(visit, server, CLASSIC, mode, public_id)
    press(visit, page.get_by_role("button", name="Count this game and go on with the match"), mode)
    page.wait_for_url(f"**{match_url}")
    expect(page.locator("h1")).to_have_text(f"Your match: you 0, the computer {len(history)}")
    assert server.game(public_id).outcome == "solved" and stored_moves(server, public_id) == history


def daily_game(visit: Visit, server: Server, mode: str) -> None:
    page = visit.page
    classic = find_variant("classic")
    url = send_form(visit, server, "/daily", {"variant": "classic"})
    public_id = url.rsplit("/", 1)[1]
    expect(page.locator(".badge")).to_contain_text("the daily puzzle of")
    history = break_code(visit, server, CLASSIC, mode, public_id)
    assert history[-1][0] == str(daily_secret(server.store().keys.server_key(KEY_NAME), today(), classic))
    expect(page.locator("p.won")).to_be_visible()
    assert server.game(public_id).outcome == "solved" and stored_moves(server, public_id) == history


def maker_game(visit: Visit, server: Server, mode: str, secret: str) -> None:
    """The computer breaks ``secret``: each of its guesses scored on the key holes (clicked, tapped, or
    typed: b for a black peg, w for a white one, then Enter); its reasoning's bars a tap away."""
    page = visit.page
    rules = SMALL
    url = send_form(visit, server, "/play", {"variant": "", "pegs": "3", "colors": "4", "role": "maker"})
    public_id = url.rsplit("/", 1)[1]
    history: list[tuple[str, Feedback]] = []
    while not history or history[-1][1] != rules.win:
        guess = page.locator("[data-keep-code]").get_attribute("data-guess") or ""
        truth = score(rules.parse(secret), rules.parse(guess))
        if not history:
            press(visit, page.get_by_text("How the computer chose its guess"), mode)
            expect(page.locator("svg.pb-chart .pb-bar").first).to_be_visible()
            visit.shot("reasoning")
        if mode == "keyboard":
            page.locator("h1").focus()
            page.keyboard.type("b" * truth.black + "w" * truth.white)
            expect(page.locator("[data-key-holes] .key.black")).to_have_count(truth.black)
            expect(page.locator("[data-key-holes] .key.white")).to_have_count(truth.white)
            page.keyboard.press("Enter")
        else:
            set_keys(visit, truth, "tap" if mode == "touch" else "click")
            press(visit, page.get_by_role("button", name="Score it"), mode)
        history.append((guess, truth))
        expect(rows(visit)).to_have_count(len(history))
        assert read_score(visit, len(history)) == truth
        visit.shot(f"scored{len(history)}")
        assert len(history) < rules.rows
    expect(page.locator("p.lost")).to_contain_text(f"The computer broke your code in {len(history)} guess")
    record = server.game(public_id)
    assert record.role == "maker" and record.outcome == "solved" and stored_moves(server, public_id) == history


@pytest.mark.parametrize("mode", MODES)
def test_a_whole_game_of_each_kind(browser: Browser, server: Server, mode: str) -> None:
    context, visit = tab(browser, server, f"board-{mode}", mode)
    try:
        register(visit, f"board-{mode}")  # a guest's games are never rated, and the daily puzzle needs a name
        rated_game(visit, server, mode)
        practice_game(visit, server, mode)
        match_game(visit, server, mode)
        daily_game(visit, server, mode)
        maker_game(visit, server, mode, {"mouse": "DCA", "keyboard": "BAD", "touch": "CBB"}[mode])
        visit.clean()
    finally:
        context.close()


def settled(visit: Visit, match_url: str) -> None:
    """The match's page shows its latest state (its live updates have all come): nothing will replace it
    while a row is being filled."""
    version = visit.page.request.get(f"/api{match_url}").json()["version"]
    expect(visit.page.locator("[data-live-events]")).to_have_attribute("data-version", str(version))


@pytest.mark.parametrize("mode", MODES)
def test_a_live_match_between_two_tabs(browser: Browser, server: Server, mode: str) -> None:
    """Two people play a live match of two games, each setting a code on the tray and breaking the
    other's on the board; the server's record of the match is what they played."""
    host_context, host = tab(browser, server, f"board-live-host-{mode}", mode)
    guest_context, guest = tab(browser, server, f"board-live-guest-{mode}", mode)
    rules = CLASSIC
    try:
        match_url = send_form(host, server, "/live", {"variant": "classic", "games": "2"})
        invite = host.page.get_by_label("Send this link to the person you want to play").input_value()
        guest.goto(invite, "join")
        guest.page.get_by_label("Your name for this match").fill(f"Guest {mode}")
        press(guest, guest.page.get_by_role("button", name="Join the match"), mode)
        guest.page.wait_for_url(f"**{match_url}")
        played: list[list[tuple[str, Feedback]]] = []
        for game, (maker, breaker, code) in enumerate(((host, guest, "RGBB"), (guest, host, "YKWR")), 1):
            expect(maker.page.get_by_role("region", name=re.compile("^Your code for this game"))).to_be_visible(
                timeout=5_000
            )
            settled(maker, match_url)
            enter_guess(maker, code, guess_ways(mode)[0], button="Set the code")
            expect(maker.page.locator("[data-board=current] .pb-shield.mine .pb-peg")).to_have_count(rules.pegs)
            maker.shot(f"game{game}-set")
            expect(breaker.page.locator("[data-tray]")).to_be_visible(timeout=5_000)  # its turn, by the stream
            expect(breaker.page.locator("[data-board=current] .pb-shield .hidden-peg")).to_have_count(rules.pegs)
            history: list[tuple[str, Feedback]] = []
            while not history or history[-1][1] != rules.win:
                guess = next_guess(rules, history) if not history else code
                if guess == code and not history:
                    guess = "RRRR" if code != "RRRR" else "GGGG"
                settled(breaker, match_url)
                enter_guess(breaker, guess, guess_ways(mode)[len(history) % len(guess_ways(mode))])
                feedback = score(rules.parse(code), rules.parse(guess))
                history.append((guess, feedback))
                if feedback != rules.win:
                    expect(rows(breaker)).to_have_count(len(history))
                    assert read_score(breaker, len(history)) == feedback
                    expect(rows(maker)).to_have_count(len(history), timeout=5_000)  # the maker's board follows
                    breaker.shot(f"game{game}-guess{len(history)}")
            played.append(history)
        for visit in (host, guest):
            expect(visit.page.locator("main")).to_contain_text("The match is over", timeout=5_000)
            visit.shot("over")
        state: dict[str, Any] = host.page.request.get(f"/api{match_url}").json()
        assert [(g["guesses"], g["broken"]) for g in state["played"]] == [(len(h), True) for h in played]
        host.clean()
        guest.clean()
    finally:
        host_context.close()
        guest_context.close()


def test_many_rows_scroll_inside_the_board_and_the_row_played_stays_in_view(browser: Browser, server: Server) -> None:
    """30 rows of 6 pegs on a phone: the past rows scroll inside the board; the current row, the tray and
    the button stay in the window, which does not scroll. Codes typed in digits (Knuth's notation) and the
    colour-blind pegs, kept by the browser, are checked on the way."""
    context, visit = tab(browser, server, "board-many-rows", "touch")
    page = visit.page
    rules = Rules(6, 8, rows=30)
    try:
        url = send_form(visit, server, "/play", {"variant": "", "pegs": "6", "colors": "8", "rows": "30"})
        public_id = url.rsplit("/", 1)[1]
        history: list[tuple[str, Feedback]] = []
        for _ in range(2):
            guess = next_guess(rules, history)
            page.locator("h1").focus()
            page.keyboard.type("".join(str(rules.parse(guess).colors[k] + 1) for k in range(rules.pegs)))
            expect(page.locator("#code")).to_have_value(guess)  # the digits read as the rules' own symbols
            page.keyboard.press("Enter")
            expect(rows(visit)).to_have_count(len(history) + 1)
            history.append((guess, read_score(visit, len(history) + 1)))
        tall, high, scrolls = page.evaluate(
            "() => { const rows = document.querySelector('ol.pb-rows');"
            " return [document.scrollingElement.scrollHeight, innerHeight, rows.scrollHeight > rows.clientHeight]; }"
        )
        assert scrolls and tall <= high, (tall, high, scrolls)
        for shown in ("li.pb-row.current", "[data-tray]", "form[data-compose] button[type=submit]:not([form])"):
            expect(page.locator(shown)).to_be_in_viewport(ratio=1)
        visit.shot("many-rows")
        page.get_by_role("button", name="Shapes: colour-blind pegs").tap()
        expect(page.locator("html")).to_have_class(re.compile(r"\bpb-contrast\b"))
        page.reload()
        expect(page.locator("html")).to_have_class(re.compile(r"\bpb-contrast\b"))  # kept by this browser
        expect(page.get_by_role("button", name="Shapes: colour-blind pegs")).to_have_attribute("aria-pressed", "true")
        visit.shot("colour-blind")
        assert stored_moves(server, public_id) == history
        visit.clean()
    finally:
        context.close()


def test_the_pages_score_agrees_with_keypegs_on_every_pair(browser: Browser, server: Server) -> None:
    """static/score.js against keypeg.score: every pair of codes of a few rule sets, in one evaluation."""
    sets = [Rules(3, 3), Rules(2, 4, blanks=True), Rules(4, 4, repeats=False), Rules(3, 5)]
    codes = []
    for rules in sets:
        found = []
        for colors in itertools.product(range(rules.num_colors), repeat=rules.pegs):
            if rules.repeats or len(set(colors)) == rules.pegs:
                found.append(rules.format(colors))
        codes.append(found)
    context, visit = tab(browser, server, "board-score", "mouse")
    try:
        visit.goto("/", "home")
        scored = visit.page.evaluate(
            """async (sets) => {
              const { score } = await import("/static/score.js");
              return sets.map((codes) => codes.map((s) => codes.map((g) => score(s, g))));
            }""",
            codes,
        )
        pairs = 0
        for rules, found, table in zip(sets, codes, scored, strict=True):
            for secret, line in zip(found, table, strict=True):
                for guess, (black, white) in zip(found, line, strict=True):
                    assert Feedback(black, white) == score(rules.parse(secret), rules.parse(guess)), (secret, guess)
                    pairs += 1
        assert pairs == sum(len(found) ** 2 for found in codes) > 2_000
        visit.clean()
    finally:
        context.close()


REFUSING_STORAGE = """
for (const name of ["localStorage", "sessionStorage"]) {
  const refuse = () => { throw new DOMException("The operation is insecure.", "SecurityError"); };
  Object.defineProperty(window, name, { get: refuse });
}
"""
"""A browser that blocks site data: reading either storage throws."""


@pytest.mark.parametrize("refusing", [False, True], ids=["storage", "storage-refused"])
def test_the_kept_code_is_read_in_any_notation_and_a_browser_refusing_storage_still_plays(
    browser: Browser, server: Server, refusing: bool
) -> None:
    context, visit = tab(browser, server, f"keeper-{refusing}", "mouse")
    if refusing:
        context.add_init_script(REFUSING_STORAGE)
    page = visit.page
    rules = find_variant("classic").rules  # its own symbols R G B Y W K, not letters: B is blue, not green
    send_form(visit, server, "/play", {"variant": "classic", "role": "maker"})
    guess = page.locator("[data-keep-code]").get_attribute("data-guess") or ""
    mine = page.get_by_label("Let this browser score for me: my code")
    for typed in ("1 2 3 4", "ABCD", "abcd", "rgby"):  # digits, letters, the symbols: one code, read whole
        mine.fill(typed)
        truth = score(rules.parse("RGBY"), rules.parse(guess))
        expect(page.locator("input[name=black]")).to_have_value(str(truth.black))
        expect(page.locator("input[name=white]")).to_have_value(str(truth.white))
        expect(page.locator("[data-shield-holes] .pb-peg")).to_have_count(rules.pegs)
    send_form(visit, server, "/play", {"variant": "classic", "role": "breaker", "practice": "yes"})
    enter_guess(visit, next_guess(rules, []), "click")  # the board works whatever the storage
    expect(rows(visit)).to_have_count(1)
    context.close()


def test_enter_sends_the_row_after_pegs_clicked_and_adds_a_peg_reached_by_tab(browser: Browser, server: Server) -> None:
    context, visit = tab(browser, server, "enter", "mouse")
    page = visit.page
    rules = find_variant("classic").rules
    send_form(visit, server, "/play", {"variant": "classic", "role": "breaker", "practice": "yes"})
    tray = page.locator("[data-tray]")
    for symbol in "RGBY":
        tray.locator(f"button[data-symbol='{symbol}']").click()  # the last one keeps the focus
    page.keyboard.press("Enter")
    expect(rows(visit)).to_have_count(1)
    expect(page.get_by_text(f"{rules.rows - 1} rows left")).to_be_visible()
    peg = page.locator("[data-tray] button[data-symbol='K']")
    peg.focus()  # reached from the keyboard: Enter is the peg's own
    page.keyboard.press("Enter")
    expect(page.locator("button[data-hole='0']")).to_have_accessible_name(re.compile("^Hole 1: black"))
    expect(rows(visit)).to_have_count(1)
    context.close()


def test_a_colours_game_is_scored_on_the_key_holes_with_neutral_pegs(browser: Browser, server: Server) -> None:
    """Issue 31: the computer breaks a colours-only code; the kept code fills the one number a colours score
    is, a key hole tapped is a neutral peg (no white), and the row shows the pegs of a right colour."""
    context, visit = tab(browser, server, "colours-maker", "mouse")
    page = visit.page
    rules = find_variant("classic-colours").rules
    send_form(visit, server, "/play", {"variant": "classic-colours", "role": "maker"})
    guess = page.locator("[data-keep-code]").get_attribute("data-guess") or ""
    truth = score(rules.parse("YBGR"), rules.parse(guess))  # any order: the colours R G B Y
    page.get_by_label("Let this browser score for me: my code").fill("ybgr")
    expect(page.locator("[name=black]")).to_have_value(str(truth.black))
    expect(page.locator("[data-key-holes] .key.colour")).to_have_count(truth.black)
    expect(page.locator("[data-key-holes] .key.white")).to_have_count(0)
    page.locator("[data-key-hole]").nth(truth.black).click()  # one more, then taken off again: never white
    expect(page.locator("[data-key-holes] .key.colour")).to_have_count(truth.black + 1)
    page.locator("[data-key-hole]").nth(truth.black).click()
    expect(page.locator("[data-key-holes] .key.empty")).to_have_count(rules.pegs - truth.black)
    page.get_by_role("button", name="Score it").click()
    expect(rows(visit)).to_have_count(1)
    expect(page.locator("li.pb-row.played .key.colour")).to_have_count(truth.black)
    expect(page.locator("li.pb-row.played .score-text")).to_have_text(rules.say(truth))
    visit.shot("colours-scored")
    context.close()
