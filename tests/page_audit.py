"""The measures of ``test_browser_pages.py``, taken on one page in a real browser: the bytes it and all it
loads took on the wire (Chrome DevTools Protocol, cache off), its cumulative layout shift (a
``PerformanceObserver`` of ``layout-shift`` set up before the page's own scripts), its size against the
viewport's (sideways and downwards scrolling), and axe-core's accessibility violations (the axe-core
that ships inside the ``axe-playwright-python`` package: nothing is fetched from the network).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from axe_playwright_python.base import AXE_SCRIPT

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, CDPSession, Page, Request

__all__ = [
    "AXE",
    "BUDGET",
    "CLS_LIMIT",
    "SHIFTS",
    "SERIOUS",
    "Figures",
    "Meter",
    "axe_violations",
    "measure",
    "settle",
    "write_table",
]

BUDGET = 150 * 1024
"""Bytes a page and all it loads may take on the wire (headers and bodies, fonts included)."""
CLS_LIMIT = 0.05
"""The cumulative layout shift a page may have."""
SERIOUS = frozenset({"serious", "critical"})
"""The impacts of axe-core's violations that fail a page."""

SHIFTS = """
(() => {
  window.keypegShifts = { total: 0, count: 0 };
  const add = (entries) => {
    for (const entry of entries) {
      if (entry.hadRecentInput) continue;
      window.keypegShifts.total += entry.value;
      window.keypegShifts.count += 1;
    }
  };
  try {
    const observer = new PerformanceObserver((list) => add(list.getEntries()));
    observer.observe({ type: "layout-shift", buffered: true });
    window.keypegShifts.take = () => add(observer.takeRecords());
  } catch (error) {
    window.keypegShifts.missing = String(error);
  }
})();
"""
"""An init script (run in every document before its own scripts): the layout shifts of the page, summed
as the cumulative layout shift is (those right after the user's input left out)."""

SETTLE = """
async () => {
  if (document.readyState !== "complete") {
    await new Promise((done) => window.addEventListener("load", done, { once: true }));
  }
  await document.fonts.ready;
  for (let frame = 0; frame < 2; frame += 1) await new Promise((done) => requestAnimationFrame(done));
}
"""
"""Wait for the page's load, its fonts and two frames drawn after them: the page's scripts have run and
what they changed has been laid out (an event each, no fixed wait)."""

READ = """
() => {
  const shifts = window.keypegShifts || { total: NaN, count: 0, missing: "no observer" };
  if (shifts.take) shifts.take();
  const scrolling = document.scrollingElement || document.documentElement;
  return {
    cls: shifts.total,
    shifts: shifts.count,
    missing: shifts.missing || "",
    scrollWidth: scrolling.scrollWidth,
    scrollHeight: scrolling.scrollHeight,
    innerWidth: window.innerWidth,
    innerHeight: window.innerHeight,
  };
}
"""


class Meter:
    """The bytes received for a page and all it loads, with the browser's cache off (a first visit): each
    request's response headers and body as they came on the wire (Playwright's ``request.sizes()``, which
    waits for the request to finish), an event stream (held open) by what the DevTools protocol saw of it
    so far (its headers and data). :meth:`start` before the page is loaded; :meth:`total` once it has
    settled."""

    def __init__(self, context: BrowserContext, page: Page) -> None:
        self.session: CDPSession = context.new_cdp_session(page)
        self.session.send("Network.enable")
        self.session.send("Network.setCacheDisabled", {"cacheDisabled": True})
        self.requests: list[Request] = []
        self.streamed: dict[str, int] = {}
        self.session.on("Network.responseReceived", self._response)
        self.session.on("Network.dataReceived", self._data)
        page.on("request", self._request)

    def _request(self, request: Request) -> None:
        self.requests.append(request)

    def _response(self, event: dict[str, Any]) -> None:
        if event.get("type") == "EventSource":
            self.streamed[event["requestId"]] = int(event["response"].get("encodedDataLength", 0))

    def _data(self, event: dict[str, Any]) -> None:
        if event["requestId"] in self.streamed:
            self.streamed[event["requestId"]] += int(event.get("encodedDataLength", 0))

    def start(self) -> None:
        self.requests.clear()
        self.streamed.clear()

    def sizes(self) -> dict[str, int]:
        """Bytes received per address (a request made twice counts twice, under its address), once every
        request but the event streams has finished."""
        found: dict[str, int] = {}
        streams = 0
        for request in list(self.requests):
            if request.url.startswith("data:"):
                continue  # nothing on the wire
            if request.resource_type == "eventsource":
                streams += 1
                continue
            if request.failure is not None or request.response() is None:
                continue  # refused or cut before an answer: nothing received
            sizes = request.sizes()
            size = sizes["responseHeadersSize"] + sizes["responseBodySize"]
            found[request.url] = found.get(request.url, 0) + size
        if streams:
            found["(event streams)"] = sum(self.streamed.values())
        return found

    def total(self) -> tuple[int, int]:
        """The bytes received since :meth:`start`, and the number of requests."""
        return sum(self.sizes().values()), len(self.requests)


def settle(page: Page) -> None:
    """Wait until the page has loaded, its fonts are ready and two frames have been drawn since."""
    page.evaluate(SETTLE)


@dataclass
class Figures:
    """What was measured on one page at one size in one theme, and what failed."""

    page: str
    size: str
    theme: str
    url: str
    bytes: int = 0
    requests: int = 0
    cls: float = 0.0
    shifts: int = 0
    scroll_width: int = 0
    scroll_height: int = 0
    inner_width: int = 0
    inner_height: int = 0
    serious: list[str] = field(default_factory=list)
    """axe-core's serious and critical violations, one line each."""
    lesser: int = 0
    """axe-core's other violations (moderate, minor): reported, never failing."""
    failures: list[str] = field(default_factory=list)
    elsewhere: list[str] = field(default_factory=list)
    """Addresses the page asked another host for (none may be: no third-party request at run time)."""
    heaviest: list[tuple[str, int]] = field(default_factory=list)
    seconds: float = 0.0
    """How long the audit of the page took (load, measures, screenshot, axe-core)."""


def measure(page: Page, meter: Meter, figures: Figures) -> None:
    """Read the bytes, the layout shift and the page's size once the page has settled."""
    settle(page)
    read = page.evaluate(READ)
    sizes = meter.sizes()
    figures.bytes, figures.requests = sum(sizes.values()), len(meter.requests)
    figures.heaviest = sorted(sizes.items(), key=lambda item: -item[1])[:4]
    origin = urlsplit(page.url).netloc
    figures.elsewhere = sorted(
        {r.url for r in meter.requests if not r.url.startswith("data:") and urlsplit(r.url).netloc != origin}
    )
    figures.cls, figures.shifts = float(read["cls"]), int(read["shifts"])
    figures.scroll_width, figures.scroll_height = int(read["scrollWidth"]), int(read["scrollHeight"])
    figures.inner_width, figures.inner_height = int(read["innerWidth"]), int(read["innerHeight"])
    if read["missing"]:
        figures.failures.append(f"the layout shifts could not be observed: {read['missing']}")


AXE = AXE_SCRIPT
"""axe-core as ``axe-playwright-python`` ships it (``axe.min.js`` inside the package): an init script of every
audited tab, so that it is in each page before it is run (sent to the browser once, not on every page)."""

RUN_AXE = "() => axe.run(document, { resultTypes: ['violations'] })"


def axe_violations(page: Page) -> tuple[list[str], int]:
    """axe-core run on the page as it is: its serious and critical violations, one readable line a rule
    (rule, impact, how many elements and the first few by selector, what is wrong with the first), and the
    number of lesser ones."""
    results = page.evaluate(RUN_AXE)
    serious: list[str] = []
    lesser = 0
    for violation in results["violations"]:
        if violation.get("impact") not in SERIOUS:
            lesser += 1
            continue
        nodes = violation["nodes"]
        targets = ", ".join(" ".join(str(t) for t in node.get("target", [])) for node in nodes[:3])
        more = f" and {len(nodes) - 3} more" if len(nodes) > 3 else ""
        summary = " ".join(nodes[0].get("failureSummary", "").split()) if nodes else violation.get("help", "")
        serious.append(
            f"{violation['id']} ({violation['impact']}), {len(nodes)} element(s): {targets}{more}: {summary}"
        )
    return serious, lesser


def write_table(rows: list[Figures], path: Path) -> None:
    """The figures as a Markdown table, a page a line (the figures the closing note quotes)."""
    lines = [
        "# Every page, measured in the browser",
        "",
        "Written by `tests/test_browser_pages.py` (Debian chromium, headless; cache off: a first visit) at "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC: {sum(not f.failures for f in rows)} of {len(rows)} pass.",
        f"Limits: under {BUDGET // 1024} KB transferred (headers and bodies, everything the page loads), "
        f"cumulative layout shift under {CLS_LIMIT}, no sideways scroll at 390 px, the classic board in play "
        "with no vertical scroll at 390x844, no serious or critical axe-core violation.",
        "",
        "| page | size | theme | KB | requests | CLS | width / viewport | height / viewport "
        "| axe serious+critical | axe lesser | audit s | verdict |",
        "|---|---|---|---:|---:|---:|---|---|---:|---:|---:|---|",
    ]
    for f in sorted(rows, key=lambda f: (f.page, f.size, f.theme)):
        said = " ".join("; ".join(f.failures).split())  # one line of the table
        verdict = "ok" if not f.failures else said.replace("|", "\\|")[:400]
        lines.append(
            f"| {f.page} | {f.size} | {f.theme} | {f.bytes / 1024:.1f} | {f.requests} | {f.cls:.4f} "
            f"| {f.scroll_width} / {f.inner_width} | {f.scroll_height} / {f.inner_height} "
            f"| {len(f.serious)} | {f.lesser} | {f.seconds:.2f} | {verdict} |"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
