"""Every page a user can reach, audited in a real browser (issue 29's "Done when"): Debian's chromium
(Playwright, headless) against a real ``keypeg serve``, at a phone's 390x844 (touch, without chromium's mobile
emulation, under which no layout shift is reported) and a desktop's 1280x800,
in the light and the dark theme (the system's colour scheme, emulated). On each page:

- axe-core (``axe-playwright-python``, its own copy of axe-core: no network) finds no violation of impact
  serious or critical;
- the page and all it loads take under 150 KB on the wire (headers and bodies, fonts included; the cache
  off, as a first visit);
- the cumulative layout shift is under 0.05 (measured once the page has loaded, its fonts are ready and
  two frames are drawn);
- at 390 px nothing scrolls sideways, and the classic board in play does not scroll at all at 390x844.

Each page is saved as ``test-artifacts/browser/pages/<page>-<size>-<theme>.png`` and its figures go in
``test-artifacts/browser/pages/figures.md`` (a table). The games, matches and daily attempt shown are set
up through the JSON API first (fast); the pages are then only looked at, so every case sees the same.

Skipped, saying why, without chromium (``/usr/bin/chromium``) or the ``playwright`` package.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

pytest.importorskip("axe_playwright_python", reason="axe-playwright-python is not installed (pip install -e '.[dev]')")

from browser_support import MARKS, SHOTS, Server, expect, launch, next_guess, serve
from keypeg import Feedback, score
from keypeg.variants import find_variant
from page_audit import AXE, BUDGET, CLS_LIMIT, SHIFTS, Figures, Meter, axe_violations, measure, settle, write_table

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

pytestmark = MARKS

PAGES = SHOTS / "pages"
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
THEMES = ("light", "dark")
PASSWORD = "a long enough password"
CLASSIC = find_variant("classic").rules


# -- the states the pages show, set up through the JSON API ----------------------------------------------


class Api:
    """A browser context's own requests (its cookies) to the JSON API, with the session's CSRF token."""

    def __init__(self, context: BrowserContext, base: str) -> None:
        self.request = context.request
        self.base = base
        self.csrf = self.get("/api/session")["csrf"]

    def get(self, path: str) -> Any:
        answer = self.request.get(path)
        assert answer.ok, f"GET {path}: {answer.status} {answer.text()}"
        return answer.json()

    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        headers = {"X-CSRF-Token": self.csrf, "Origin": self.base}
        answer = self.request.post(path, data=body or {}, headers=headers)
        assert answer.ok, f"POST {path}: {answer.status} {answer.text()}"
        found = answer.json()
        if isinstance(found, dict) and "csrf" in found:
            self.csrf = found["csrf"]  # a login is a new session
        return found


def guess_on(api: Api, game: dict[str, Any], count: int | None = None) -> dict[str, Any]:
    """Guess ``count`` times (to the end if None) with keypeg's own choice; the game as it is then."""
    rules = CLASSIC
    history = [(m["guess"], Feedback(m["black"], m["white"])) for m in game["history"]]
    while game["status"] == "playing" and (count is None or count > 0):
        guess = next_guess(rules, history)
        game = api.post(f"/api/games/{game['id']}/guesses", {"code": guess, "row": len(history) + 1})
        history.append((guess, Feedback(game["black"], game["white"])))
        count = None if count is None else count - 1
    return game


def in_play(api: Api, path: str, body: dict[str, Any], guesses: int) -> dict[str, Any]:
    """A game with ``guesses`` made and not over (a code broken by chance, 1 in hundreds: another game)."""
    for _ in range(5):
        game = guess_on(api, api.post(path, body), guesses)
        if game["status"] == "playing":
            return game
    raise AssertionError("five games in a row were won by chance")


def live_move(apis: dict[str, Api], match: str, codes: dict[str, str]) -> bool:
    """The move awaited in the live match, by whoever must make it (codes set from ``codes``); False once
    the match is over."""
    for name, api in apis.items():
        seen = api.get(f"/api/live/{match}")
        if seen["over"]:
            return False
        if seen["turn"] != seen["you"]:
            continue
        current = seen["current"]
        if seen["codemaker"] == seen["you"] and (current is None or "secret" not in current):
            api.post(f"/api/live/{match}/secret", {"code": codes[name]})
        else:
            rules = find_variant(seen["rules"].get("name") or "classic").rules
            history = [(m["guess"], Feedback(m["black"], m["white"])) for m in current["history"]]
            guess = next_guess(rules, history)
            api.post(f"/api/live/{match}/guesses", {"code": guess, "row": len(history) + 1})
        return True
    raise AssertionError(f"nobody's turn in live match {match}")


@dataclass
class World:
    """The server, the people (each a saved browser state: cookies) and the addresses of what they see."""

    server: Server
    people: dict[str, Any]
    paths: dict[str, str]


def build(browser: Browser, server: Server) -> World:
    """Ada (registered, with finished games: her history), Bea (a guest) and what the pages show: games in
    play in both roles and one over, a practice game, a match against the computer, a finished daily
    attempt, live matches waiting, in play and over."""
    contexts = {name: browser.new_context(base_url=server.base) for name in ("ada", "bea")}
    try:
        ada, bea = (Api(contexts[name], server.base) for name in ("ada", "bea"))
        ada.post("/api/players", {"name": "ada", "password": PASSWORD})
        paths: dict[str, str] = {}
        over = guess_on(ada, ada.post("/api/games", {"variant": "classic"}))
        paths["game-over"] = f"/play/{over['id']}"
        paths["game-breaker"] = f"/play/{in_play(ada, '/api/games', {'variant': 'classic'}, 2)['id']}"
        paths["practice-hint"] = f"/play/{in_play(ada, '/api/games', {'practice': True}, 1)['id']}"
        maker = ada.post("/api/games", {"variant": "classic", "role": "maker"})
        truth = score(CLASSIC.parse("BYKW"), CLASSIC.parse(maker["guess"]))
        ada.post(f"/api/games/{maker['id']}/scores", {"black": truth.black, "white": truth.white, "row": 1})
        paths["game-maker"] = f"/play/{maker['id']}"
        match = ada.post("/api/matches", {"variant": "classic", "games": 2})
        guess_on(ada, ada.get(f"/api/games/{match['game']}"), 1)
        paths["match"] = f"/match/{match['id']}"
        paths["match-game"] = f"/play/{match['game']}"
        guess_on(ada, ada.post("/api/daily", {"variant": "classic"}))
        paths["daily-result"] = "/daily?variant=classic"

        live = {"variant": "classic", "games": 2, "move_seconds": 86_400}
        waiting = ada.post("/api/live", live)
        paths["live-waiting"] = waiting["watch"]
        paths["live-join"] = waiting["invite"]
        playing = ada.post("/api/live", live)
        bea.post(f"/api/live/{playing['id']}/join", {"token": playing["token"], "nickname": "Bea"})
        apis = {"ada": ada, "bea": bea}
        live_move(apis, playing["id"], {"ada": "RGBY", "bea": "RGBY"})  # ada sets her code
        live_move(apis, playing["id"], {})  # Bea's first guess
        paths["live-playing"] = playing["watch"]
        finished = ada.post("/api/live", {**live, "variant": "3x4"})
        bea.post(f"/api/live/{finished['id']}/join", {"token": finished["token"], "nickname": "Bea"})
        while live_move(apis, finished["id"], {"ada": "DCA", "bea": "CAB"}):
            pass
        paths["live-over"] = finished["watch"]
        lobby = ada.post("/api/rooms", {"variant": "classic", "rounds": 2, "move_seconds": 86_400})
        bea.post(f"/api/rooms/{lobby['id']}/join", {"token": lobby["token"], "nickname": "Bea"})
        paths["room-lobby"] = lobby["watch"]
        room = ada.post("/api/rooms", {"variant": "classic", "rounds": 2, "move_seconds": 86_400})
        bea.post(f"/api/rooms/{room['id']}/join", {"token": room["token"], "nickname": "Bea"})
        ada.post(f"/api/rooms/{room['id']}/start")
        ada.post(f"/api/rooms/{room['id']}/guesses", {"guess": "RRGG", "row": 1})  # Bea's board waits for her
        paths["room-playing"] = room["watch"]
        people = {name: context.storage_state() for name, context in contexts.items()}
    finally:
        for context in contexts.values():
            context.close()
    return World(server, people, paths)


# -- the pages ------------------------------------------------------------------------------------------


def show_hint(page: Page) -> None:
    page.get_by_role("button", name="Hint").click()
    expect(page.locator("main [role=status]", has_text="Hint")).to_be_visible()


def explore_node(page: Page) -> str:
    """A node one answer below the explorer's root: the deepest link under /explore/ on the root page."""
    assert (answer := page.goto("/explore")) is not None and answer.ok, "/explore does not answer"
    links = page.eval_on_selector_all("main a[href^='/explore/']", "(all) => all.map((a) => a.getAttribute('href'))")
    assert links, "the explorer's root links to no node"
    return str(max(links, key=lambda href: (href.count("/"), len(href))))


@dataclass(frozen=True)
class Case:
    """A page to audit: whose browser looks at it, its address (or how to find it), what is done on it
    before it is measured, and whether it shows the classic board in play."""

    name: str
    who: str
    path: str | Callable[[Page], str]
    act: Callable[[Page], None] | None = None
    board: bool = False
    status: int = 200
    sizes: tuple[str, ...] = ("phone", "desktop")
    themes: tuple[str, ...] = THEMES


CASES = [
    Case("home", "guest", "/"),
    Case("game-breaker", "ada", "game-breaker", board=True),
    Case("game-maker", "ada", "game-maker", board=True),
    Case("game-over", "ada", "game-over"),
    Case("practice-hint", "ada", "practice-hint", act=show_hint, board=True),
    Case("match", "ada", "match"),
    Case("match-game", "ada", "match-game", board=True),
    Case("daily", "guest", "/daily"),
    Case("daily-result", "ada", "daily-result"),
    Case("live-new", "ada", "/live"),
    Case("live-join", "bea", "live-join"),
    Case("live-waiting", "ada", "live-waiting"),
    Case("live-playing", "bea", "live-playing", board=True),
    Case("live-over", "ada", "live-over"),
    Case("room-lobby", "ada", "room-lobby"),
    Case("room-playing", "bea", "room-playing"),
    Case("analyse", "guest", "/analyse?variant=classic&scored=RRGG+1+0%0ABBYR+0+2"),
    Case("strategies", "guest", "/strategies?variant=classic"),
    Case("players-out", "guest", "/players"),
    Case("players-in", "ada", "/players"),
    Case("top", "guest", "/top?variant=classic"),
    Case("docs", "guest", "/docs"),
    Case("error-404", "guest", "/no-such-page", status=404),
    Case("watch", "guest", "/watch"),
    Case("explore", "guest", "/explore"),
    Case("explore-node", "guest", explore_node),
]


def params() -> list[Any]:
    found = []
    for case in CASES:
        for size in case.sizes:
            for theme in case.themes:
                found.append(pytest.param(case, size, theme, id=f"{case.name}-{size}-{theme}"))
    return found


# -- the audit ------------------------------------------------------------------------------------------


class Audit:
    """One browser, one server, and a tab per person, size and theme (made on first use, kept)."""

    def __init__(self, browser: Browser, world: World) -> None:
        self.browser = browser
        self.world = world
        self.tabs: dict[tuple[str, str, str], tuple[BrowserContext, Page, Meter]] = {}
        self.figures: list[Figures] = []

    def tab(self, who: str, size: str, theme: str) -> tuple[Page, Meter]:
        key = (who, size, theme)
        if key not in self.tabs:
            self.tabs[key] = self.open(who, size, theme)
        _, page, meter = self.tabs[key]
        return page, meter

    def open(self, who: str, size: str, theme: str, **options: Any) -> tuple[BrowserContext, Page, Meter]:
        """A new browser for ``who`` (their cookies) at ``size`` in ``theme``, measuring, with axe-core."""
        phone = size == "phone"
        # A phone's size and touch, without chromium's mobile emulation: under it no layout shift is reported
        # (seen: a 300 px insertion above the content scores 0 with it, 0.31 without). No page's style depends
        # on more than the width (no pointer or hover queries), so the layout is the phone's.
        settings: dict[str, Any] = {"has_touch": phone, **options}
        context = self.browser.new_context(
            base_url=self.world.server.base,
            viewport=SIZES[size],  # type: ignore[arg-type]
            color_scheme=theme,  # type: ignore[arg-type]
            storage_state=self.world.people.get(who),
            **settings,
        )
        context.add_init_script(SHIFTS)
        context.add_init_script(AXE)
        page = context.new_page()
        return context, page, Meter(context, page)

    def close(self) -> None:
        for context, _, _ in self.tabs.values():
            context.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


@pytest.fixture(scope="module")
def audit(browser: Browser, server: Server) -> Iterator[Audit]:
    PAGES.mkdir(parents=True, exist_ok=True)  # a page's screenshot is replaced by this run's
    audit = Audit(browser, build(browser, server))
    try:
        yield audit
    finally:
        audit.close()
        write_table(audit.figures, PAGES / "figures.md")


def check(figures: Figures, case: Case, size: str) -> list[str]:
    """What fails the page, one line each."""
    failed = list(figures.failures)
    if figures.serious:
        failed.append(
            f"axe-core: {len(figures.serious)} serious or critical violations:\n  " + "\n  ".join(figures.serious)
        )
    if figures.bytes >= BUDGET:
        heaviest = ", ".join(f"{urlsplit(url).path or url} {n / 1024:.1f} KB" for url, n in figures.heaviest)
        failed.append(f"{figures.bytes / 1024:.1f} KB transferred (limit {BUDGET // 1024} KB): {heaviest}")
    if figures.elsewhere:
        failed.append(f"requests to another host: {', '.join(figures.elsewhere)}")
    if not figures.cls < CLS_LIMIT:
        failed.append(f"cumulative layout shift {figures.cls:.4f} ({figures.shifts} shifts; limit {CLS_LIMIT})")
    width, height = SIZES[size]["width"], SIZES[size]["height"]
    if size == "phone" and figures.scroll_width > width:
        failed.append(f"scrolls sideways: {figures.scroll_width} px wide for {width}")
    if size == "phone" and case.board and figures.scroll_height > height:
        failed.append(f"the classic board in play scrolls: {figures.scroll_height} px high for {height}")
    return failed


@pytest.mark.parametrize(("case", "size", "theme"), params())
def test_every_page(audit: Audit, case: Case, size: str, theme: str) -> None:
    page, meter = audit.tab(case.who, size, theme)
    path = case.path(page) if callable(case.path) else audit.world.paths.get(case.path, case.path)
    began = time.monotonic()
    meter.start()
    answer = page.goto(path)
    assert answer is not None and answer.status == case.status, f"{path}: {answer.status if answer else None}"
    loaded = None
    if case.act is not None:  # the page's own shifts as it loaded; those after the player's click are theirs
        settle(page)
        loaded = page.evaluate("() => { keypegShifts.take(); return [keypegShifts.total, keypegShifts.count]; }")
        case.act(page)
    figures = Figures(case.name, size, theme, page.url)
    measure(page, meter, figures)
    if loaded is not None:
        figures.cls, figures.shifts = float(loaded[0]), int(loaded[1])
    page.screenshot(path=str(PAGES / f"{case.name}-{size}-{theme}.png"), full_page=True, animations="disabled")
    figures.serious, figures.lesser = axe_violations(page)
    figures.failures = check(figures, case, size)
    figures.seconds = time.monotonic() - began
    audit.figures.append(figures)
    assert not figures.failures, f"{case.name} at {size} in {theme} ({path}):\n" + "\n".join(figures.failures)


def test_the_audit_sees_what_it_measures(audit: Audit) -> None:
    """A check that cannot fail proves nothing: a page that shifts, overflows, weighs and breaks an axe rule
    on purpose (changed in the browser after it loaded) fails each check."""
    context, page, meter = audit.open("guest", "phone", "dark", bypass_csp=True)  # to ask another host
    audit.tabs[("planted", "phone", "dark")] = (context, page, meter)  # closed with the others
    meter.start()
    assert (answer := page.goto("/top")) is not None and answer.ok
    settle(page)  # drawn: a shift is of what was drawn
    page.evaluate(
        """() => {
          const main = document.querySelector("main");
          const block = document.createElement("div");
          block.append(document.createElement("img"));  // an image without alternative text: critical
          main.prepend(block);
          window.keypegPush = () => {  // the page's content pushed down
            const pushed = document.createElement("p");
            pushed.textContent = "pushed";
            block.append(pushed);
          };
        }"""
    )
    # pushed down frame after frame until the observer has seen the shifts add up (drawn frames, no fixed wait)
    page.wait_for_function(
        "() => { keypegPush(); keypegShifts.take(); return keypegShifts.total >= 0.1; }", polling="raf"
    )
    page.evaluate(  # then wider than the phone
        "() => { const wide = document.createElement('div'); wide.style.width = '1200px'; wide.style.height = '1px';"
        " document.querySelector('main').append(wide); }"  # a box, not a word: a long word wraps in <main>
    )
    page.evaluate(  # more bytes than a page may take: the API's schema, three times (the cache is off)
        "() => Promise.all([1, 2, 3].map((k) => fetch(`/openapi.json?k=${k}`).then((r) => r.text())))"
    )
    page.evaluate("() => fetch('http://localhost:9/elsewhere.js', { mode: 'no-cors' }).catch(() => null)")
    figures = Figures("planted", "phone", "dark", page.url)
    measure(page, meter, figures)
    figures.serious, figures.lesser = axe_violations(page)
    failed = "\n".join(check(figures, Case("planted", "guest", "/top", board=True), "phone"))
    assert "image-alt (critical)" in failed, failed
    assert "cumulative layout shift" in failed, failed
    assert "scrolls sideways" in failed, failed
    assert "the classic board in play scrolls" in failed, failed
    assert re.search(r"\d+\.\d KB transferred .* /openapi\.json", failed), failed
    assert "requests to another host: http://localhost:9/elsewhere.js" in failed, failed
