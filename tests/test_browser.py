"""The web pages in a real browser: Playwright drives Debian's chromium (headless) against a real
``keypeg serve``. Whole games in both roles, practice help, a match, players and the top 10, the
keyboard alone, a phone's width, and the plain forms without JavaScript; no console error and no
Content-Security-Policy violation anywhere. Every page visited is saved as a PNG under
``test-artifacts/browser/`` (at the repository's root) to be looked at.

The tests skip, saying why, when chromium (``/usr/bin/chromium``) or the ``playwright`` package is
missing; CI installs both.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from browser_support import (
    DESKTOP,
    MARKS,
    PHONE,
    Server,
    Visit,
    desktop_tab,
    enter_guess,
    expect,
    launch,
    next_guess,
    open_tab,
    read_score,
    rows,
    rows_text,
    serve,
    set_keys,
)
from keypeg import Feedback, Rules, score
from keypeg.knowledge import Knowledge
from keypeg.limits import MIN_RANKED_GAMES
from keypeg.variants import game_label
from keypeg.web.pages import RulesForm
from reference import secret_hidden

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser

pytestmark = MARKS


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture
def visit(browser: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Visit]:
    yield from desktop_tab(browser, server, request)


# -- playing --------------------------------------------------------------------------------------


def start_game(
    visit: Visit,
    *,
    role: str = "breaker",
    practice: bool = False,
    fields: dict[str, str] | None = None,
    label: str = "home",
) -> str:
    """Fill the Play form and start; the game's public id."""
    page = visit.page
    visit.goto("/", label)
    folded = page.locator("details:has(input[name=role]) > summary")  # the full form, under a disclosure
    if folded.count() and not page.locator("input[name=role][value=breaker]").is_visible():
        folded.click()
    for name, value in (fields or {}).items():
        page.locator(f"form[action='/play'] [name={name}]").fill(value)
    page.locator(f"input[name=role][value={role}]").check()
    if practice:
        page.get_by_label("Practice game").check()
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_url(re.compile(r"/play/[\w-]+$"))
    return page.url.rsplit("/", 1)[1]


def break_code(visit: Visit, rules: Rules, ways: tuple[str, ...], *, pages: list[str] | None = None) -> list:
    """Play a game as codebreaker to the end with keypeg's own guesses, entering them each of ``ways``
    in turn; checks the key pegs, rows left and the announcement after each guess. The page's HTML
    before each guess goes into ``pages``."""
    page = visit.page
    history: list[tuple[str, Feedback]] = []
    while True:
        if pages is not None:
            pages.append(page.content())
        guess = next_guess(rules, history)
        enter_guess(visit, guess, ways[len(history) % len(ways)])
        number = len(history) + 1
        expect(rows(visit)).to_have_count(number)
        feedback = read_score(visit, number)
        history.append((guess, feedback))
        expect(page.locator("#rows-left")).to_have_text(rows_text(rules.rows - number))
        expect(page.locator("#announce")).to_contain_text(
            f"Your guess {number}, {guess}: {feedback.black} black, {feedback.white} white."
        )
        visit.shot(f"guess{number}")
        if feedback == rules.win:
            return history
        assert number < rules.rows, "keypeg's guesses ran out of rows"


def contradicts(rules: Rules, history: list[tuple[str, Feedback]], guess: str, given: Feedback) -> bool:
    """Whether ``given`` fits some code on its own but no code together with the scores before it."""
    alone = Knowledge(rules, ((rules.parse(guess), given),))
    scored = Knowledge(rules, (*[(rules.parse(g), f) for g, f in history], (rules.parse(guess), given)))
    return alone.is_consistent and not scored.is_consistent


def make_code(visit: Visit, rules: Rules, secret: str, *, wrong_once: bool = False) -> int:
    """Play a game as codemaker: the browser keeps ``secret`` and fills in each score, which is sent;
    with ``wrong_once``, a score that contradicts the ones before it is sent once first, and must be
    refused with the likely mistake named. The number of guesses the computer took."""
    page = visit.page
    game = page.url.rsplit("/", 1)[1]
    black, white = page.locator("input[name=black]"), page.locator("input[name=white]")
    history: list[tuple[str, Feedback]] = []
    refused = False
    keeper = page.get_by_label("Let this browser score for me")
    expect(keeper).to_be_visible()
    keeper.fill(secret)
    while True:
        guess = page.locator("[data-keep-code]").get_attribute("data-guess")
        assert guess is not None
        truth = score(rules.parse(secret), rules.parse(guess))
        expect(keeper).to_have_value(secret)  # kept by the browser from one guess to the next
        expect(black).to_have_value(str(truth.black))
        expect(white).to_have_value(str(truth.white))
        if wrong_once and not refused and history:
            wrong = [f for f in rules.feedbacks() if f != truth and contradicts(rules, history, guess, f)]
            if wrong:
                set_keys(visit, wrong[0])
                page.get_by_role("button", name="Score it").click()
                alert = page.locator("main [role=alert]")
                expect(alert).to_contain_text("no code fits these scores")
                expect(alert).to_contain_text("Likely mistake: guess")
                expect(rows(visit)).to_have_count(len(history))
                assert page.url.endswith(f"/play/{game}"), page.url  # the board's address, not the form's
                visit.shot("refused")
                refused = True
                continue  # the page again, the right score filled in from the kept code
        page.get_by_role("button", name="Score it").click()
        history.append((guess, truth))
        expect(rows(visit)).to_have_count(len(history))
        read = read_score(visit, len(history))
        assert read == truth
        visit.shot(f"scored{len(history)}")
        if truth == rules.win:
            assert refused or not wrong_once, "no wrong score could be tried"
            return len(history)
        assert len(history) < rules.rows


# -- the tests ---------------------------------------------------------------------------------------


def register(visit: Visit, name: str, password: str) -> None:
    """Register ``name`` on the Players page (signed in as them from then on)."""
    visit.goto("/players", "players")
    form = visit.page.locator("form[action='/players/register']")
    form.get_by_label("Name").fill(name)
    form.get_by_label("Password").fill(password)
    form.get_by_role("button", name="Register").click()
    expect(visit.page.locator("header .who")).to_contain_text(f"Signed in as {name}")


def test_a_rated_game_as_codebreaker(visit: Visit, server: Server) -> None:
    page = visit.page
    rules = RulesForm().rules()  # classic, as the form comes
    register(visit, "Grace", "a long enough password")  # a guest's games are never rated
    public_id = start_game(visit)
    expect(page.locator(".badge")).to_have_text("rated")
    expect(page.locator("#rows-left")).to_have_text(rows_text(rules.rows))
    expect(page.get_by_role("button", name="Hint")).to_have_count(0)
    visit.shot("board")
    before: list[str] = []
    history = break_code(visit, rules, ("click", "type"), pages=before)
    assert len(before) == len(history)  # the page before each guess (the secret only after the last)
    expect(page.locator("p.won")).to_contain_text(f"You broke the code in {len(history)} guess")
    record = server.game(public_id)
    assert record.outcome == "solved" and record.rated and record.secret == history[-1][0]
    assert [(str(m.guess), m.feedback) for m in record.moves] == history
    for number, html in enumerate(before, 1):
        assert secret_hidden(html, record.secret, rules), f"the secret was in the page before guess {number}"
    expect(page.locator("main")).to_contain_text("The code was")
    assert record.secret in page.content()
    visit.goto(f"/play/{public_id}", "over")  # a finished game, loaded again
    expect(page.locator("p.won")).to_be_visible()
    expect(page.locator("#code")).to_have_count(0)


def test_a_game_where_the_computer_breaks_my_code(visit: Visit, server: Server) -> None:
    page = visit.page
    rules = RulesForm().rules()
    visit.allowed.add(409)  # the wrong score is refused with 409 Conflict
    public_id = start_game(visit, role="maker")
    expect(page.locator("h1")).to_have_text("The computer breaks your code")
    visit.shot("board")
    guesses = make_code(visit, rules, "BYKW", wrong_once=True)
    expect(page.locator("p.lost")).to_contain_text(f"The computer broke your code in {guesses} guess")
    record = server.game(public_id)
    assert record.role == "maker" and record.outcome == "solved" and record.guesses == guesses


def test_a_practice_game_offers_hint_explain_coach_and_undo(visit: Visit, server: Server) -> None:
    page = visit.page
    rules = RulesForm().rules()
    public_id = start_game(visit, practice=True)
    expect(page.locator(".badge")).to_have_text("practice")
    page.get_by_role("button", name="Hint").click()
    hint = page.locator("main p[role=status]", has_text="Hint: try")
    expect(hint).to_be_visible()
    suggested = hint.locator(".visually-hidden").inner_text()
    from keypeg.play.levels import level_choice

    assert rules.parse(suggested) == level_choice(Knowledge(rules, [])).guess  # the hint: level 3's first guess
    assert page.url.endswith(f"/play/{public_id}"), page.url  # a reload shows the board again
    visit.shot("hint")
    page.get_by_role("button", name="Explain the best guesses").click()
    table = page.locator("table.figures")
    expect(table).to_be_visible()
    expect(table.locator("caption")).to_contain_text("Codes left after each answer")
    assert table.locator("thead th").count() >= 2
    visit.shot("explain")
    enter_guess(visit, server.not_breaking(public_id, rules, suggested), "type")
    expect(rows(visit)).to_have_count(1)
    page.get_by_role("button", name="Coach my last guess").click()
    expect(page.locator("main p[role=status]", has_text="Coach:")).to_be_visible()
    visit.shot("coach")
    page.get_by_role("button", name="Undo my last guess").click()
    expect(rows(visit)).to_have_count(0)
    expect(page.locator("#rows-left")).to_have_text(rows_text(rules.rows))
    expect(page.get_by_role("button", name="Undo my last guess")).to_have_count(0)
    visit.shot("undone")
    assert page.reload().ok
    expect(page.locator("h1")).to_have_text("You break the code")


def test_a_match_of_two_games_against_the_computer(visit: Visit, server: Server) -> None:
    page = visit.page
    fields = {"pegs": "3", "colors": "4"}
    rules = RulesForm(pegs="3", colors="4").rules()
    visit.goto("/match", "new")
    for name, value in fields.items():
        page.locator(f"form[action='/match'] [name={name}]").fill(value)
    page.get_by_label("Games").select_option("2")
    page.get_by_role("button", name="Start the match").click()
    page.wait_for_url(re.compile(r"/match/[\w-]+$"))
    match_url = page.url
    expect(page.locator("h1")).to_have_text("Your match: you 0, the computer 0")
    visit.shot("match")

    page.get_by_role("link", name="Play game 1 of 2").click()  # the computer makes the first code
    expect(page.locator("h1")).to_have_text("You break the code")
    visit.shot("game1")
    mine = len(break_code(visit, rules, ("type", "click")))
    page.get_by_role("button", name="Count this game and go on with the match").click()
    page.wait_for_url(match_url)
    expect(page.locator("h1")).to_have_text(f"Your match: you 0, the computer {mine}")
    expect(page.locator("main tbody tr")).to_have_count(1)
    visit.shot("after-game1")

    page.get_by_role("link", name="Play game 2 of 2").click()
    expect(page.locator("h1")).to_have_text("The computer breaks your code")
    visit.shot("game2")
    theirs = make_code(visit, rules, "CAD")
    page.get_by_role("button", name="Count this game and go on with the match").click()
    page.wait_for_url(match_url)
    expect(page.locator("h1")).to_have_text(f"Your match: you {theirs}, the computer {mine}")
    rows = page.locator("main tbody tr")
    expect(rows).to_have_count(2)
    assert rows.nth(0).locator("td").all_inner_texts() == ["1", "the computer", str(mine), "yes", str(mine)]
    assert rows.nth(1).locator("td").all_inner_texts() == ["2", "you", str(theirs), "yes", str(theirs)]
    winner = "you win" if theirs > mine else "the computer wins" if mine > theirs else "a draw"
    expect(page.locator("main")).to_contain_text(f"The match is over: {winner}.")
    visit.shot("over")


def test_players_register_log_in_history_and_the_top_10(visit: Visit, server: Server) -> None:
    page = visit.page
    name, password = "Ada", "a long enough password"
    visit.allowed.add(401)  # the wrong password
    register(visit, name, password)
    expect(page.locator("h1")).to_have_text(name)
    visit.shot("registered")
    page.get_by_role("button", name="Log out").click()
    expect(page.locator("header .who")).to_contain_text("Playing as a guest")
    visit.shot("logged-out")
    login = page.locator("form[action='/players/login']")
    login.get_by_label("Name").fill(name)
    login.get_by_label("Password").fill("not the password")
    login.get_by_role("button", name="Log in").click()
    expect(page.locator("main [role=alert]")).to_have_text("wrong name or password")
    expect(page.locator("header .who")).to_contain_text("Playing as a guest")
    visit.shot("wrong-password")
    login = page.locator("form[action='/players/login']")
    expect(login.get_by_label("Name")).to_have_value(name)  # kept for the second try
    login.get_by_label("Password").fill(password)
    login.get_by_role("button", name="Log in").click()
    expect(page.locator("header .who")).to_contain_text(f"Signed in as {name}")
    visit.shot("logged-in")

    tiny = {"pegs": "2", "colors": "3"}
    rules = RulesForm(**tiny).rules()
    guesses = []
    for game in range(1, MIN_RANKED_GAMES + 1):
        if game == MIN_RANKED_GAMES:  # one game short: not ranked yet
            visit.goto("/top?variant=classic&pegs=2&colors=3", "top-before")
            expect(page.locator("main")).to_contain_text("Nobody has enough rated games")
        start_game(visit, fields=tiny, label=f"home{game}")
        guesses.append(len(break_code(visit, rules, ("type",))))

    visit.goto("/players", "history")
    expect(page.locator("main")).to_contain_text(f"{MIN_RANKED_GAMES} finished games, {MIN_RANKED_GAMES} won")
    latest = page.locator("main table", has=page.locator("th", has_text="started")).locator("tbody tr")
    expect(latest).to_have_count(MIN_RANKED_GAMES)
    for k in range(MIN_RANKED_GAMES):
        cells = latest.nth(k).locator("td").all_inner_texts()
        assert cells[1:6] == [game_label(rules), "you broke the code", str(guesses[-1 - k]), "solved", "yes"]
    expect(page.locator("svg.chart")).to_be_visible()

    visit.goto("/top", "top")
    form = page.locator("form[action='/top']")
    for key, value in tiny.items():
        form.locator(f"[name={key}]").fill(value)
    form.get_by_role("button", name="Show").click()
    expect(page.locator("h1")).to_have_text(f"Top 10: {game_label(rules)}")
    ranked = page.locator("main tbody tr", has_text=name)
    expect(ranked).to_have_count(1)
    cells = ranked.locator("td").all_inner_texts()
    assert cells[1:3] == [name, str(MIN_RANKED_GAMES)]
    assert float(cells[3]) == pytest.approx(sum(guesses) / len(guesses), abs=0.005)
    visit.shot("top-after")


def test_a_game_with_the_keyboard_alone(visit: Visit, server: Server) -> None:
    page = visit.page
    keys = page.keyboard

    def tab_to(selector: str, key: str = "Tab") -> None:
        for _ in range(40):
            if page.evaluate("(s) => document.activeElement.matches(s)", selector):
                return
            keys.press(key)
        raise AssertionError(f"{key} never reached {selector}")

    visit.goto("/", "home")
    keys.press("Tab")
    expect(page.get_by_role("link", name="Skip to the content")).to_be_focused()
    visit.shot("skip-link")
    keys.press("Enter")
    expect(page.locator("main")).to_be_focused()  # the next Tab goes into the page's content
    if page.locator("details:has(input[name=pegs]):not([open])").count():  # the full form, folded
        tab_to("details:has(input[name=pegs]) > summary")
        keys.press("Enter")
    tab_to("input[name=pegs]")
    keys.type("3")
    tab_to("input[name=colors]")
    keys.type("4")
    keys.press("Enter")  # sends the form
    page.wait_for_url(re.compile(r"/play/[\w-]+$"))
    public_id = page.url.rsplit("/", 1)[1]
    rules = RulesForm(pegs="3", colors="4").rules()
    code = page.locator("#code")
    expect(page.locator("[data-tray]")).to_be_visible()
    visit.shot("board")

    first, at = next_guess(rules, []), ""  # its pegs chosen on the tray: Tab (back) to each, Enter
    for symbol in first:
        tab_to(f"[data-tray] button[data-symbol='{symbol}']", "Shift+Tab" if symbol < at else "Tab")
        keys.press("Enter")
        at = symbol
    expect(code).to_have_value(first)
    tab_to("form[data-compose] button[type=submit]:not([form])")
    keys.press("Enter")
    expect(rows(visit)).to_have_count(1)
    history = [(first, read_score(visit, 1))]
    visit.shot("guess1")

    while history[-1][1] != rules.win:  # the others typed, then Enter
        guess = next_guess(rules, history)
        expect(page.locator("h1")).to_be_focused()  # the page shown after every answer: its heading, then type
        slip = next(s for s in "ABCD" if s != guess[-1])
        keys.type(guess[:-1] + slip)
        keys.press("Backspace")  # a slip, taken back
        keys.type(guess[-1])
        expect(code).to_have_value(guess)
        keys.press("Enter")
        expect(rows(visit)).to_have_count(len(history) + 1)
        history.append((guess, read_score(visit, len(history) + 1)))
        expect(page.locator("#announce")).to_contain_text(f"Your guess {len(history)}, {guess}")
        visit.shot(f"guess{len(history)}")
    expect(page.locator("p.won")).to_be_visible()
    expect(page.get_by_role("link", name="Play again")).to_be_focused()
    record = server.game(public_id)
    assert record.outcome == "solved" and record.guesses == len(history) and record.rules.pegs == 3


def test_the_phone_layout_never_scrolls_sideways(browser: Browser, server: Server) -> None:
    context, visit = open_tab(browser, server.base, "phone", viewport=PHONE, is_mobile=True, has_touch=True)
    page = visit.page

    def fits(label: str, path: str | None = None) -> None:
        if path is not None:
            page.goto(path)
        visit.shot(label)
        # On a phone an overflowing page is zoomed out, and window.innerWidth grows with it: the screen's
        # width is the layout viewport's (clientWidth), the device's 390 px.
        wide, screen, inner = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth, window.innerWidth]"
        )
        assert wide <= screen == inner == PHONE["width"], f"{label} ({page.url}) scrolls sideways: {wide} px wide"

    try:
        fits("home", "/")
        start_game(visit, practice=True, label="home-again")
        fits("board")
        enter_guess(visit, "RGBY", "click")
        expect(rows(visit)).to_have_count(1)
        page.get_by_role("button", name="Explain the best guesses").click()
        expect(page.locator("table.figures")).to_be_visible()
        fits("board-explained")
        start_game(visit, role="maker", label="home-maker")
        fits("maker")
        page.get_by_text("How the computer chose its guess").click()
        fits("maker-reasoning")
        fits("players", "/players")
        fits("top", "/top?variant=classic")
        fits("match-new", "/match")
        page.get_by_role("button", name="Start the match").click()
        page.wait_for_url(re.compile(r"/match/[\w-]+$"))
        fits("match")
        visit.clean()
    finally:
        context.close()


def test_the_plain_forms_work_without_javascript(browser: Browser, server: Server) -> None:
    context, visit = open_tab(browser, server.base, "nojs", viewport=DESKTOP, java_script_enabled=False)
    page = visit.page
    rules = RulesForm().rules()
    visit.allowed.add(400)  # the bad guess
    try:
        public_id = start_game(visit)
        expect(page.locator("[data-tray]")).to_be_hidden()  # the tray needs the script
        visit.shot("board")
        secret = server.store().games.saved(server.game(public_id).id).secret
        history: list[tuple[str, Feedback]] = []
        for number in (1, 2):
            guess = next_guess(rules, history)
            if guess == secret:  # the game must go on: the secret was drawn at random (1 game in ~100)
                guess = next(code for code in ("RRRR", "GGGG") if code != secret)
            page.locator("#code").fill(guess)
            page.get_by_role("button", name="Guess", exact=True).click()
            page.wait_for_url(f"**/play/{public_id}")
            expect(rows(visit)).to_have_count(number)
            history.append((guess, read_score(visit, number)))
            expect(page.locator("#rows-left")).to_have_text(rows_text(rules.rows - number))
            visit.shot(f"guess{number}")
        record = server.game(public_id)
        assert [(str(m.guess), m.feedback) for m in record.moves] == history
        assert secret and secret_hidden(page.content(), secret, rules)
        page.locator("#code").fill("XYZ")
        page.get_by_role("button", name="Guess", exact=True).click()
        expect(page.locator("main [role=alert]")).to_be_visible()
        visit.shot("refused")

        start_game(visit, role="maker", label="home-maker")
        expect(page.locator("[data-keep-code]")).to_be_hidden()
        guess = page.locator("[data-keep-code]").get_attribute("data-guess") or ""
        truth = score(rules.parse("GGBB"), rules.parse(guess))
        page.locator("input[name=black]").fill(str(truth.black))
        page.locator("input[name=white]").fill(str(truth.white))
        page.get_by_role("button", name="Score it").click()
        expect(rows(visit)).to_have_count(1)
        assert read_score(visit, 1) == truth
        visit.shot("scored")

        start_game(visit, practice=True, label="home-practice")
        page.get_by_role("button", name="Hint").click()
        expect(page.locator("main p[role=status]", has_text="Hint: try")).to_be_visible()
        visit.shot("hint")
        visit.clean()
    finally:
        context.close()


def test_the_watch_catches_what_it_watches_for(visit: Visit) -> None:
    """A check that cannot fail proves nothing: an inline style (refused by the CSP), a script error and
    a control without a name are each caught."""
    page = visit.page
    visit.goto("/", "home")
    page.evaluate("() => document.body.setAttribute('style', 'color: red')")
    page.evaluate("() => window.setTimeout(() => { throw new Error('planted'); }, 0)")
    for wanted in ("CSP violation: style-src", "uncaught: planted"):
        for _ in range(300):  # up to 30 s: a busy machine reports late
            if any(wanted in e for e in visit.errors):
                break
            page.wait_for_timeout(100)
        assert any(wanted in e for e in visit.errors), visit.errors
    visit.errors.clear()
    page.evaluate("() => document.querySelector('main').append(document.createElement('input'))")
    with pytest.raises(AssertionError, match="without an accessible name"):
        visit.check_names()


def test_the_api_docs_run_under_the_sites_policy(visit: Visit) -> None:
    visit.page.goto("/docs/try")  # Swagger UI's own controls are not the site's to name: no shot's name check
    expect(visit.page.locator(".opblock").first).to_be_visible()
    assert visit.page.locator(".opblock-summary-path", has_text="/api/games").count() >= 1
