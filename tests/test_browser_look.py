"""The look in a real browser (Debian's chromium, Playwright, a real ``keypeg serve``): the theme switch
(light, dark, as the system; kept across a reload), the compact header on a phone and in one row on a
desktop, the home page's one click, the daily result's Copy and Share buttons, the pages without
JavaScript, no sideways scrolling at 390 px, and axe-core's accessibility check (no serious or critical
violation) in both themes. Screenshots go to ``test-artifacts/browser/look-*.png``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest

from browser_support import DESKTOP, MARKS, PHONE, Server, expect, launch, open_tab, serve
from keypeg import find_variant
from keypeg.play.daily import KEY_NAME, daily_secret, today

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser, Page

pytestmark = MARKS

HEADER_MOST = 56
"""The most pixels the header may take on a 390 x 844 phone."""
LIGHT_PAPER, DARK_PAPER = "rgb(246, 244, 239)", "rgb(18, 20, 24)"
"""The page's background in each theme (keypeg.css's --paper)."""
PAGES = (
    ("home", "/"),
    ("daily", "/daily"),
    ("players", "/players"),
    ("top", "/top?variant=classic"),
    ("strategies", "/strategies?variant=&pegs=2&colors=3"),
    ("analyse", "/analyse?variant=&pegs=2&colors=3&scored=AB+0+1"),
    ("match-new", "/match"),
    ("live-new", "/live"),
    ("missing", "/play/no-such-game"),
)
"""The pages this file looks at (the board's pages are test_browser.py's)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def paper(page: Page) -> str:
    return str(page.evaluate("() => getComputedStyle(document.body).backgroundColor"))


def theme_of(page: Page) -> str | None:
    found = page.evaluate("() => document.documentElement.getAttribute('data-theme')")
    return None if found is None else str(found)


def header_height(page: Page) -> float:
    return float(page.evaluate("() => document.querySelector('header.site').getBoundingClientRect().height"))


def sideways(page: Page) -> tuple[int, int]:
    """The page's width and the screen's (the layout viewport's): equal when nothing scrolls sideways."""
    wide, screen = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    return int(wide), int(screen)


AT_BODY = """
new MutationObserver((changes, watch) => {
  if (!document.body) return;
  window.keypegThemeAtBody = document.documentElement.getAttribute("data-theme");
  watch.disconnect();
}).observe(document, { childList: true, subtree: true });
"""
"""An init script: the theme set on <html> as the parser reaches <body>, before anything is drawn (and
before any module script runs)."""


def test_the_theme_switch_changes_keeps_and_follows_the_system(browser: Browser, server: Server) -> None:
    context, visit = open_tab(browser, server.base, "look-theme", viewport=PHONE, color_scheme="light")
    context.add_init_script(AT_BODY)
    page = visit.page
    switch = page.locator("header button[data-theme-switch]")
    try:
        visit.goto("/", "system-light")
        assert theme_of(page) is None and paper(page) == LIGHT_PAPER
        expect(switch).to_have_accessible_name("Theme: as the system")
        switch.click()
        expect(switch).to_have_accessible_name("Theme: light")
        switch.click()
        expect(switch).to_have_accessible_name("Theme: dark")
        assert theme_of(page) == "dark" and paper(page) == DARK_PAPER
        expect(page.locator("#announce")).to_have_text("Theme: dark")
        visit.goto("/players", "dark-kept")  # another page: the choice holds, from the first paint
        assert theme_of(page) == "dark" and paper(page) == DARK_PAPER
        page.reload()
        assert theme_of(page) == "dark" and paper(page) == DARK_PAPER
        assert page.evaluate("() => window.keypegThemeAtBody") == "dark", "the theme came after the first paint"
        expect(switch).to_have_accessible_name("Theme: dark")
        page.emulate_media(color_scheme="dark")
        switch.click()  # dark -> as the system
        expect(switch).to_have_accessible_name("Theme: as the system")
        assert theme_of(page) is None and paper(page) == DARK_PAPER
        page.emulate_media(color_scheme="light")
        assert paper(page) == LIGHT_PAPER
        page.reload()
        assert theme_of(page) is None and paper(page) == LIGHT_PAPER
        assert page.evaluate("() => window.localStorage.getItem('keypeg-theme')") is None
        switch.click()  # as the system -> light, over a dark system
        page.emulate_media(color_scheme="dark")
        page.reload()
        assert theme_of(page) == "light" and paper(page) == LIGHT_PAPER
        visit.shot("light-over-dark")
        visit.clean()
    finally:
        context.close()


def test_the_header_is_one_short_row_and_its_menu_opens(browser: Browser, server: Server) -> None:
    context, visit = open_tab(browser, server.base, "look-header", viewport=PHONE)
    page = visit.page
    try:
        for label, path in PAGES[:3]:
            visit.goto(path, label)
            assert header_height(page) <= HEADER_MOST, f"{path}: the header is {header_height(page)} px tall"
        players = page.get_by_role("link", name="Players", exact=True)
        expect(players).to_be_hidden()  # folded into the menu
        page.get_by_text("Menu", exact=True).click()
        expect(players).to_be_visible()
        expect(page.locator("header .who")).to_be_visible()
        visit.shot("menu-open")
        page.keyboard.press("Escape")  # closes it, back on its button
        expect(players).to_be_hidden()
        expect(page.locator("header summary")).to_be_focused()
        page.get_by_text("Menu", exact=True).click()
        page.mouse.click(10, PHONE["height"] - 10)  # a click elsewhere closes it too
        expect(players).to_be_hidden()
        page.get_by_text("Menu", exact=True).click()
        players.click()
        page.wait_for_url("**/players")
        page.set_viewport_size(DESKTOP)
        visit.goto("/", "desktop")
        expect(page.get_by_text("Menu", exact=True)).to_be_hidden()
        tops = page.evaluate(
            "() => Array.from(document.querySelectorAll('header.site a, header.site .who, header.site button'))"
            ".map((el) => Math.round(el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2))"
        )
        assert max(tops) - min(tops) <= 2 and header_height(page) <= HEADER_MOST, f"not one row: {tops}"
        page.get_by_role("link", name="Strategies", exact=True).click()
        page.wait_for_url("**/strategies")
        visit.clean()
    finally:
        context.close()


def test_play_classic_starts_a_game_in_one_click(browser: Browser, server: Server) -> None:
    context, visit = open_tab(browser, server.base, "look-one-click", viewport=PHONE)
    page = visit.page
    try:
        visit.goto("/", "home")
        for name in ("Play classic", "Today's puzzle", "Challenge a friend", "Watch the computer play"):
            box = page.get_by_role("button" if name == "Play classic" else "link", name=name).bounding_box()
            assert box is not None and box["y"] + box["height"] <= PHONE["height"], f"{name} is below the fold"
        expect(page.locator("main input[name=pegs]")).to_be_hidden()  # the other choices: folded
        page.get_by_role("button", name="Play classic").click()
        page.wait_for_url(re.compile(r"/play/[\w-]+$"))
        record = server.game(page.url.rsplit("/", 1)[1])
        assert record.variant == "classic" and record.role == "breaker"
        visit.clean()
    finally:
        context.close()


def test_chromium_finds_the_app_installable(browser: Browser, server: Server) -> None:
    """The browser's own reading of the manifest: no error, and nothing against installing the app but
    the test's private window (Playwright's contexts are incognito)."""
    context, visit = open_tab(browser, server.base, "look-install", viewport=DESKTOP)
    page = visit.page
    try:
        page.goto("/")
        page.wait_for_load_state("networkidle")
        devtools = context.new_cdp_session(page)
        manifest = devtools.send("Page.getAppManifest")
        assert manifest["url"].endswith("/static/manifest.webmanifest") and manifest["errors"] == []
        refusals = devtools.send("Page.getInstallabilityErrors")["installabilityErrors"]
        assert {r["errorId"] for r in refusals} <= {"in-incognito"}, refusals
        visit.clean()
    finally:
        context.close()


def win_the_daily(page: Page, server: Server, name: str) -> str:
    """Register ``name`` and break today's classic code at once, through the API; the game's id."""
    base = {"Origin": server.base}
    csrf = page.request.get("/api/session").json()["csrf"]
    made = page.request.post(
        "/api/players", data={"name": name, "password": "long enough pw"}, headers={**base, "X-CSRF-Token": csrf}
    )
    assert made.ok, made.text()
    csrf = page.request.get("/api/session").json()["csrf"]
    headers = {**base, "X-CSRF-Token": csrf}
    game = page.request.post("/api/daily", data={"variant": "classic"}, headers=headers).json()
    secret = str(daily_secret(server.store().keys.server_key(KEY_NAME), today(), find_variant("classic")))
    won = page.request.post(f"/api/games/{game['id']}/guesses", data={"code": secret}, headers=headers).json()
    assert won["status"] == "won", won
    return str(game["id"])


SHARE_SHEET = """
navigator.share = (data) => { window.keypegShared = data; return Promise.resolve(); };
navigator.canShare = () => true;
"""
"""A share sheet for a browser that has none (chromium on Linux): what was shared is kept to be read."""


def test_copy_puts_the_daily_result_on_the_clipboard_and_share_opens_the_sheet(
    browser: Browser, server: Server
) -> None:
    context, visit = open_tab(
        browser, server.base, "look-share", viewport=PHONE, permissions=["clipboard-read", "clipboard-write"]
    )
    page = visit.page
    try:
        visit.goto("/", "home")
        game = win_the_daily(page, server, "sharer")
        for label, path in (("result", "/daily?variant=classic"), ("game", f"/play/{game}")):
            visit.goto(path, label)
            box = page.locator("[data-share]")
            grid = box.locator("pre.grid").inner_text().strip()
            assert grid.startswith(f"keypeg daily {today()} classic: 1/"), grid
            expect(box.get_by_role("button", name="Share…")).to_be_hidden()  # no share sheet here
            box.get_by_role("button", name="Copy").click()
            expect(box.locator("[data-said]")).to_have_text(re.compile("^Copied"))
            assert page.evaluate("() => navigator.clipboard.readText()") == grid
            visit.shot(f"{label}-copied")
        context.add_init_script(SHARE_SHEET)
        visit.goto("/daily?variant=classic", "with-share-sheet")
        sheet = page.get_by_role("button", name="Share…")
        sheet.click()
        page.wait_for_function("() => window.keypegShared !== undefined")
        shared: Any = page.evaluate("() => window.keypegShared")
        assert shared["text"] == page.locator("pre.grid").inner_text().strip() and shared["url"].endswith("/daily")
        visit.clean()
    finally:
        context.close()


def test_without_javascript_the_menu_the_one_click_and_the_grid_still_work(browser: Browser, server: Server) -> None:
    context, visit = open_tab(browser, server.base, "look-nojs", viewport=PHONE, java_script_enabled=False)
    page = visit.page
    try:
        visit.goto("/", "home")
        expect(page.locator("header button[data-theme-switch]")).to_be_hidden()  # it needs the script
        page.get_by_text("Menu", exact=True).click()
        expect(page.get_by_role("link", name="Players", exact=True)).to_be_visible()
        page.get_by_text("Menu", exact=True).click()
        page.get_by_text("Other rules, your role").click()
        expect(page.locator("main input[name=pegs]")).to_be_visible()
        visit.shot("more-open")
        page.get_by_role("button", name="Play classic").click()
        page.wait_for_url(re.compile(r"/play/[\w-]+$"))
        win_the_daily(page, server, "plain")
        visit.goto("/daily?variant=classic", "result")
        expect(page.locator("pre.grid")).to_contain_text(f"keypeg daily {today()} classic: 1/")
        expect(page.get_by_role("button", name="Copy")).to_be_hidden()
        visit.clean()
    finally:
        context.close()


def test_every_page_fits_a_phone_with_colours_that_read_in_both_themes(browser: Browser, server: Server) -> None:
    """No sideways scrolling and a short header at 390 px, and axe-core's colour contrast rule (WCAG AA)
    met in both themes, each disclosure open (test_browser_pages.py runs every rule of axe-core on every
    page)."""
    from axe_playwright_python.sync_playwright import Axe

    axe = Axe()
    context, visit = open_tab(browser, server.base, "look-pages", viewport=PHONE)
    visit.allowed.add(404)  # the missing game's page
    page = visit.page
    failures: list[str] = []
    try:
        for label, path in PAGES:
            page.goto(path)
            page.locator("main details").evaluate_all("(all) => all.forEach((d) => { d.open = true; })")
            wide, screen = sideways(page)
            assert wide <= screen, f"{path} scrolls sideways at {PHONE['width']} px: {wide} px wide"
            assert header_height(page) <= HEADER_MOST, path
            for scheme, background in (("light", LIGHT_PAPER), ("dark", DARK_PAPER)):
                page.emulate_media(color_scheme=scheme)
                assert paper(page) == background, f"{path} in the {scheme} theme"
                visit.shot(f"{label}-{scheme}")
                found = axe.run(page, options={"runOnly": ["color-contrast"]}).response["violations"]
                failures += [f"{path} ({scheme}): {[n['target'] for n in v['nodes']][:3]}" for v in found]
        page.set_viewport_size(DESKTOP)
        for label, path in PAGES[:2]:
            visit.goto(path, f"desktop-{label}")
        assert not failures, "colours that do not read:\n" + "\n".join(failures)
        visit.clean()
    finally:
        context.close()
