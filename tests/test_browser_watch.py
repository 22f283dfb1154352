"""Watch the computer play, in Debian's chromium against a real ``keypeg serve``: the page plays the game at
the fastest speed and ends showing the secret; Pause stops it (the page's clock run on by Playwright, no
sleep); less motion starts on the whole game; without JavaScript the links step through it. Screenshots
at 390x844 and 1280x800 under ``test-artifacts/browser/watch-*``."""

from __future__ import annotations

import json
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest

from browser_support import MARKS, PHONE, Server, expect, launch, open_tab, serve

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser

pytestmark = MARKS

GAME = "/watch?variant=classic&strategy=worst-case&seed=7"
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launch()


def the_game(server: Server) -> dict[str, Any]:
    with urllib.request.urlopen(server.base + GAME.replace("/watch", "/api/watch")) as answer:
        found: dict[str, Any] = json.load(answer)
    return found


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_the_page_plays_the_game_at_the_fastest_speed_and_ends_showing_the_secret(
    browser: Browser, server: Server, size: str, viewport: dict[str, int]
) -> None:
    game = the_game(server)
    context, visit = open_tab(browser, server.base, f"watch-{size}", viewport=viewport)
    try:
        page = visit.page
        page.goto(GAME)
        page.get_by_label("Seconds a step").fill("0.5")
        expect(page.locator("[data-speed-shown]")).to_have_text("0.5 s")
        expect(page.get_by_role("button", name="Pause")).to_be_visible()  # a new game plays at once
        visit.shot("playing")
        end = page.locator("[data-watch-end]")
        expect(end).to_be_visible(timeout=5_000 + 1_000 * len(game["steps"]))
        expect(end).to_contain_text(game["outcome"])
        expect(end.locator(".visually-hidden")).to_have_text(game["secret"])
        expect(page.locator("li.watch-step:visible")).to_have_count(len(game["steps"]))
        expect(page.get_by_role("button", name="Play")).to_be_visible()  # it stopped by itself at the end
        assert "step=" not in page.url
        assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        page.evaluate("() => window.scrollTo(0, 0)")  # the sticky controls where they sit, in the whole-page shot
        visit.shot("ended")
        visit.clean()
    finally:
        context.close()


def test_pause_stops_it_and_step_goes_on_by_one(browser: Browser, server: Server) -> None:
    game = the_game(server)
    context, visit = open_tab(browser, server.base, "watch-pause", viewport=DESKTOP)
    try:
        page = visit.page
        page.clock.install()
        page.goto(GAME + "&step=0")  # a shared address at a step: it waits for Play
        shown = page.locator("li.watch-step:visible")
        expect(shown).to_have_count(0)
        page.clock.run_for(10_000)
        expect(shown).to_have_count(0)
        page.get_by_role("button", name="Play").click()
        page.clock.run_for(100)
        expect(shown).to_have_count(1)
        page.clock.run_for(1_500)  # the default speed: 1.5 s a step
        expect(shown).to_have_count(2)
        page.get_by_role("button", name="Pause").click()
        page.clock.run_for(30_000)
        expect(shown).to_have_count(2)
        expect(page.locator("[data-where]")).to_have_text(f"Step 2 of {len(game['steps'])}")
        assert "step=2" in page.url  # the address keeps the step: a reload comes back to it
        page.get_by_role("button", name="Step", exact=True).click()
        expect(shown).to_have_count(3)
        page.get_by_role("button", name="Step back").click()
        expect(shown).to_have_count(2)
        page.get_by_role("button", name="The whole game").click()
        expect(shown).to_have_count(len(game["steps"]))
        expect(page.locator("[data-watch-end]")).to_be_visible()
        visit.shot("paused-then-whole")
        visit.clean()
    finally:
        context.close()


@pytest.mark.parametrize(("size", "viewport"), [("phone", PHONE), ("desktop", DESKTOP)])
def test_less_motion_starts_on_the_whole_game(browser: Browser, server: Server, size: str, viewport: Any) -> None:
    """Nothing moves until Play is pressed; shot in the dark theme."""
    game = the_game(server)
    context, visit = open_tab(
        browser, server.base, f"watch-calm-dark-{size}", viewport=viewport, reduced_motion="reduce", color_scheme="dark"
    )
    try:
        page = visit.page
        page.goto(GAME)
        expect(page.locator("li.watch-step:visible")).to_have_count(len(game["steps"]))
        expect(page.get_by_role("button", name="Play")).to_be_visible()
        page.locator("details.watch-figures").first.locator("summary").click()
        visit.shot("whole")
        visit.clean()
    finally:
        context.close()


def test_without_javascript_the_links_step_through_the_game(browser: Browser, server: Server) -> None:
    game = the_game(server)
    context, visit = open_tab(browser, server.base, "watch-nojs", viewport=PHONE, java_script_enabled=False)
    try:
        page = visit.page
        visit.goto(GAME, "whole")
        expect(page.locator("li.watch-step:visible")).to_have_count(len(game["steps"]))
        expect(page.locator("[data-watch-end]")).to_contain_text(game["outcome"])
        page.get_by_role("link", name="Watch it step by step").click()
        expect(page.locator("li.watch-step:visible")).to_have_count(0)
        page.get_by_role("link", name="Next step").click()
        page.get_by_role("link", name="Next step").click()
        expect(page.locator("li.watch-step:visible")).to_have_count(2)
        visit.shot("step-2")
        page.get_by_role("link", name="The whole game").click()
        expect(page.locator("li.watch-step:visible")).to_have_count(len(game["steps"]))
        visit.goto("/watch?strategy=optimal", "new-game")  # a new game: sent on to an address of its own
        assert "seed=" in page.url
        visit.clean()
    finally:
        context.close()
