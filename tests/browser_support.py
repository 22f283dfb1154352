"""What the browser tests share (``test_browser.py``, ``test_browser_live.py``): a real ``keypeg serve``
on a fresh store, Debian's chromium driven by Playwright, tabs that save a screenshot of every page
they visit under ``test-artifacts/browser/`` (at the repository's root) and gather console errors and
Content-Security-Policy violations, and the moves of a game on the board.

Importing it skips the importing test module when the ``playwright`` package is missing; each test
module also takes :data:`MARKS` as its ``pytestmark`` (slow, and skipped without chromium).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from conftest import keypeg_serve
from keypeg import Feedback, Rules
from keypeg.knowledge import Knowledge
from keypeg.store import Store

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Locator, Page

__all__ = [
    "CHROMIUM",
    "DESKTOP",
    "MARKS",
    "PHONE",
    "ROOT",
    "SHOTS",
    "Server",
    "Visit",
    "close_browser",
    "launch",
    "desktop_tab",
    "enter_guess",
    "expect",
    "next_guess",
    "open_tab",
    "read_score",
    "rows",
    "rows_text",
    "serve",
    "set_keys",
    "touch_drag",
]

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-artifacts" / "browser"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

MARKS = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no chromium at {CHROMIUM} (apt-get install chromium)"),
]
"""Every browser test module's ``pytestmark``."""

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="the playwright package is not installed (pip install playwright)"
)
expect = sync_api.expect


# -- the server and the browser ---------------------------------------------------------------------


@dataclass(frozen=True)
class Server:
    """A ``keypeg serve`` of the tests: its address and its store."""

    base: str
    db: str

    def store(self) -> Store:
        return Store(self.db)

    def game(self, public_id: str) -> Any:
        """The stored record of a game started on the web (its secret, moves and outcome)."""
        (found,) = [g for g in self.store().games.history(limit=None, with_moves=True) if g.public_id == public_id]
        return found

    def secret(self, public_id: str) -> str:
        """The secret of a game being played, from the store (never from the page)."""
        secret = self.store().games.saved(self.game(public_id).id).secret
        assert secret
        return str(secret)

    def not_breaking(self, public_id: str, rules: Rules, guess: str) -> str:
        """``guess``, or a code one peg away from it if ``guess`` is the game's secret: a first guess after
        which the game goes on (a hint breaks a random code once in ``rules.size`` games)."""
        if rules.parse(guess) != rules.parse(self.secret(public_id)):
            return guess
        colors = list(rules.parse(guess).colors)
        colors[0] = (colors[0] + 1) % rules.num_colors
        return str(rules.code(colors))


def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """``python -m keypeg serve`` on a free port and a fresh SQLite store (conftest's launcher), stopped at
    the end (each test module's ``server`` fixture); its log must show no failure."""
    folder = tmp_path_factory.mktemp("browser")
    db = f"sqlite:///{folder / 'web.sqlite3'}"
    with keypeg_serve(db, folder) as running:
        yield Server(running.base, db)
    said = running.said()
    assert "Traceback" not in said and "internal error" not in said, f"the server failed:\n{said}"


_cleared = False
_running: tuple[Iterator[Browser], Browser] | None = None


def launch() -> Iterator[Browser]:
    """Headless chromium (Debian's: no browser is downloaded); each test module's ``browser`` fixture.

    One chromium serves the browser test modules that run one after another: it starts with the first
    and stops (:func:`close_browser`, from conftest's ``pytest_runtest_teardown``) once the next test
    uses none, or the run ends. Every test opens contexts of its own in it; each module still has a
    ``keypeg serve`` and a store of its own (:func:`serve`)."""
    global _running
    if _running is None:
        started = _launched()
        _running = (started, next(started))
    yield _running[1]


def close_browser() -> None:
    """Stop the shared chromium, if it runs."""
    global _running
    if _running is not None:
        started, _ = _running
        _running = None
        next(started, None)


def _launched() -> Iterator[Browser]:
    global _cleared
    SHOTS.mkdir(parents=True, exist_ok=True)
    if not _cleared:  # once a run: the folder holds the screenshots of this run's browser tests
        for old in SHOTS.glob("*.png"):
            old.unlink()
        _cleared = True
    expect.set_options(timeout=20_000)  # the server's first moves compile its kernels
    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        yield launched
        launched.close()


CSP_WATCH = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error("CSP violation: " + e.violatedDirective + " blocked " + e.blockedURI);
});
"""

UNNAMED = """
() => {
  const unnamed = [];
  for (const el of document.querySelectorAll("input, select, textarea, button")) {
    if (el.type === "hidden" || el.closest("[hidden]")) continue;
    const labelled = (el.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean)
      .map((id) => (document.getElementById(id) || {}).textContent || "").join(" ");
    const labels = Array.from(el.labels || []).map((l) => l.textContent).join(" ");
    const name = [el.getAttribute("aria-label"), labelled, labels, el.getAttribute("title"),
      el.tagName === "BUTTON" ? el.textContent : "", el.type === "submit" ? el.value : ""].join("").trim();
    if (!name) unnamed.push(el.outerHTML.slice(0, 160));
  }
  return unnamed;
}
"""

FAILED_LOAD = re.compile(r"Failed to load resource: the server responded with a status of (\d{3})")


@dataclass
class Visit:
    """A browser tab of one test: it saves a screenshot of every page it visits, and gathers console
    errors, uncaught exceptions and CSP violations (none are allowed, bar error statuses the test expects)."""

    page: Page
    name: str
    js: bool = True
    errors: list[str] = field(default_factory=list)
    allowed: set[int] = field(default_factory=set)
    shots: int = 0

    def __post_init__(self) -> None:
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))

    def _console(self, message: Any) -> None:
        if message.type != "error":
            return
        failed = FAILED_LOAD.search(message.text)
        where = message.location.get("url", "")
        if failed and (int(failed.group(1)) in self.allowed or where.endswith("/favicon.ico")):
            return  # an error status the test asked for; the icon the browser looks for by itself (none)
        self.errors.append(f"console: {message.text} ({where or self.page.url})")

    def goto(self, path: str, label: str) -> None:
        answer = self.page.goto(path)
        assert answer is not None and answer.ok, f"{path}: {answer.status if answer else 'no answer'}"
        self.shot(label)

    def shot(self, label: str) -> None:
        """Save the page as it looks now; check every form control on it has an accessible name."""
        self.page.wait_for_load_state()
        self.shots += 1
        self.page.screenshot(path=str(SHOTS / f"{self.name}-{self.shots:02d}-{label}.png"), full_page=True)
        if self.js:
            self.check_names()

    def check_names(self) -> None:
        """Every form control shown has an accessible name (a label, aria-label(ledby), a button's text)."""
        unnamed = self.page.evaluate(UNNAMED)
        assert not unnamed, f"form controls without an accessible name on {self.page.url}: {unnamed}"

    def clean(self) -> None:
        assert not self.errors, "\n".join(self.errors)


def open_tab(browser: Browser, base: str, name: str, **options: Any) -> tuple[BrowserContext, Visit]:
    context = browser.new_context(base_url=base, **options)
    if options.get("java_script_enabled", True):
        context.add_init_script(CSP_WATCH)
    return context, Visit(context.new_page(), name, js=options.get("java_script_enabled", True))


def desktop_tab(browser: Browser, server: Server, request: pytest.FixtureRequest) -> Iterator[Visit]:
    """A fresh desktop browser (1280 px wide, its own cookies) named after the test; no console error by
    the end (each test module's ``visit`` fixture)."""
    context, tab = open_tab(browser, server.base, request.node.name.removeprefix("test_"), viewport=DESKTOP)
    try:
        yield tab
        tab.clean()
    finally:
        context.close()


# -- playing --------------------------------------------------------------------------------------


def next_guess(rules: Rules, history: list[tuple[str, Feedback]]) -> str:
    """keypeg's own choice: the first code that fits every score so far."""
    knowledge = Knowledge(rules, tuple((rules.parse(g), f) for g, f in history))
    return str(knowledge.codes(1)[0])


def rows_text(left: int) -> str:
    return f"{left} {'row' if left == 1 else 'rows'} left"


PLAYED = "main [data-board=game] li.played, main [data-board=current] li.played"
"""The played rows of the board of the game being played (not the last game's, on a live match's page)."""


def rows(visit: Visit) -> Locator:
    """The played rows of the board, first guess first."""
    return visit.page.locator(PLAYED)


def enter_guess(visit: Visit, guess: str, how: str, *, button: str = "Guess") -> None:
    """Send a guess (or a code, with its ``button``) on the board: ``click`` the tray's pegs then the
    button, ``drag`` them from the tray into the holes (HTML5 drag and drop) then click the button,
    ``tap`` them (a touch screen), ``swipe`` them into the holes with a finger (touch events), or
    ``type`` them on the keyboard (the symbols, then Enter); ``field`` types it in the form's text field
    (a page without JavaScript) and clicks the button."""
    page = visit.page
    if how == "field":
        page.locator("#code").fill(guess)
        page.get_by_role("button", name=button, exact=True).click()
        return
    tray = page.locator("[data-tray]")
    expect(tray).to_be_visible()
    holes = page.locator("[data-hole]")
    expect(holes.first).to_be_enabled()  # board.js has set the row up
    if how == "type":
        page.keyboard.type(guess)
        expect(page.locator("[data-hole].peg")).to_have_count(len(guess))
        page.keyboard.press("Enter")
        return
    for k, symbol in enumerate(guess):
        peg = tray.locator(f"button[data-symbol='{symbol}']")
        if how == "tap":
            peg.tap()
        elif how == "swipe":
            touch_drag(visit, peg, holes.nth(k))
        elif how == "drag":
            peg.drag_to(holes.nth(k))
        else:
            peg.click()
        expect(holes.nth(k)).to_have_text(symbol)
    send = page.locator("form[data-compose]").get_by_role("button", name=button, exact=True)
    if how in ("tap", "swipe"):
        send.tap()
    else:
        send.click()


def touch_drag(visit: Visit, source: Locator, target: Locator) -> None:
    """A finger pressed on ``source``, moved over ``target`` and lifted there (the browser's own touch
    events, through the DevTools protocol: Playwright's touch screen only taps)."""
    page = visit.page
    target.scroll_into_view_if_needed()
    source.scroll_into_view_if_needed()
    start, end = source.bounding_box(), target.bounding_box()
    assert start is not None and end is not None
    x0, y0 = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    x1, y1 = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    cdp = page.context.new_cdp_session(page)
    moment = time.time()  # a finger's pace, 50 ms a step, held still at the end: a slide, not a fling

    def touch(kind: str, points: list[dict[str, float]], step: int) -> None:
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points, "timestamp": moment + step / 20})

    try:
        touch("touchStart", [{"x": x0, "y": y0}], 0)
        for step in range(1, 7):
            x, y = x0 + (x1 - x0) * min(step, 5) / 5, y0 + (y1 - y0) * min(step, 5) / 5
            touch("touchMove", [{"x": x, "y": y}], step)
        touch("touchEnd", [], 8)
    finally:
        cdp.detach()


def read_score(visit: Visit, number: int) -> Feedback:
    """The key pegs drawn on row ``number`` of the board (and its text for screen readers, the same)."""
    row = rows(visit).nth(number - 1)
    expect(row).to_be_attached()
    found = Feedback(row.locator(".key.black").count(), row.locator(".key.white").count())
    expect(row.locator(".score-text")).to_have_text(f"{found.black} black, {found.white} white")
    return found


def set_keys(visit: Visit, feedback: Feedback, how: str = "click") -> None:
    """Score the computer's guess on the board: each key hole clicked (or tapped, or pressed with the
    keyboard: Tab to it, Space) until it shows its colour of ``feedback`` (black ones first)."""
    holes = visit.page.locator("[data-key-hole]")
    expect(holes.first).to_be_enabled()
    for k in range(holes.count()):
        wanted = "black" if k < feedback.black else "white" if k < feedback.black + feedback.white else "empty"
        hole = holes.nth(k)
        for _ in range(3):
            if wanted in (hole.get_attribute("class") or "").split():
                break
            if how == "tap":
                hole.tap()
            elif how == "type":
                hole.focus()
                visit.page.keyboard.press("Space")
            else:
                hole.click()
        expect(hole).to_have_class(re.compile(rf"\b{wanted}\b"))
