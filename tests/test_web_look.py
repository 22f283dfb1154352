"""The look of the web app, through FastAPI's TestClient: the installable app's manifest and icons, the
header every page shares (theme before the first paint, one manifest), the home page's one-click starts
with every other choice under one disclosure, the daily result's share block (text without the script),
and wide tables that scroll inside their box."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import struct
import zlib
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from keypeg import find_variant
from keypeg.play.daily import KEY_NAME, daily_secret, today
from keypeg.store import Store
from keypeg.web import create_app
from keypeg.web.pages import STATIC

ROOT = Path(__file__).resolve().parents[1]
SITE = "https://keypeg.test"


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


@pytest.fixture
def client(url: str) -> TestClient:
    return TestClient(create_app(url), base_url=SITE)


def make_icons() -> ModuleType:
    """scripts/make_icons.py, the drawing of the app's icons (a script, not a module of the package)."""
    spec = importlib.util.spec_from_file_location("make_icons", ROOT / "scripts" / "make_icons.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG file's width and height, read from its header."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", "not a PNG file"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# -- installable -----------------------------------------------------------------------------------


def test_the_manifest_is_served_as_a_manifest_and_names_icons_that_exist(client: TestClient) -> None:
    page = client.get("/")
    linked = re.search(r'<link rel="manifest" href="([^"]+)">', page.text)
    assert linked is not None, "no manifest linked"
    answer = client.get(linked.group(1))
    assert answer.status_code == 200 and answer.headers["content-type"] == "application/manifest+json"
    manifest = json.loads(answer.text)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["name"] and len(manifest["short_name"]) <= 12
    for colour in ("theme_color", "background_color"):
        assert re.fullmatch(r"#[0-9a-f]{6}", manifest[colour]), colour
    sizes: dict[tuple[str, str], str] = {}
    for icon in manifest["icons"]:
        got = client.get(icon["src"])
        assert got.status_code == 200 and got.headers["content-type"] == icon["type"], icon["src"]
        if icon["type"] == "image/png":
            width, height = png_size(got.content)
            assert icon["sizes"] == f"{width}x{height}", icon
        else:
            assert icon["type"] == "image/svg+xml" and got.text.startswith("<svg") and icon["sizes"] == "any"
        sizes[(icon["sizes"], icon.get("purpose", "any"))] = icon["src"]
    assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable"), ("any", "any")} <= set(sizes)


def test_the_committed_icons_are_what_the_script_draws() -> None:
    """The PNG files are the script's output (no image from elsewhere): drawn again, the same pixels (to
    a unit of rounding; compressors differ)."""
    from PIL import Image

    icons = make_icons()
    static = Path(STATIC)
    for name, size, maskable in (("icon-192.png", 192, False), ("icon-512.png", 512, False)):
        with Image.open(static / name) as committed:
            drawn = icons.draw(size, maskable=maskable).astype(int)
            assert np.abs(np.asarray(committed, dtype=int) - drawn).max() <= 1, name
    with Image.open(static / "icon-maskable-512.png") as committed:
        drawn = icons.draw(512, maskable=True).astype(int)
        assert np.abs(np.asarray(committed, dtype=int) - drawn).max() <= 1
    assert (static / "icon.svg").read_text() == icons.svg()


def test_a_maskable_icon_keeps_its_pegs_inside_the_safe_zone() -> None:
    """Outside the middle circle of 40 % radius (what a launcher may cut away) there is only the board."""
    icons = make_icons()
    pixels = icons.draw(512, maskable=True)
    y, x = np.mgrid[0:512, 0:512] + 0.5
    outside = np.hypot(x - 256, y - 256) > 0.4 * 512
    assert (pixels[outside][:, :3] == icons.BOARD).all() and (pixels[..., 3] == 255).all()
    assert not (pixels[~outside][:, :3] == icons.BOARD).all()


@settings(max_examples=40, deadline=None)
@given(arrays(np.uint8, st.tuples(st.integers(1, 9), st.integers(1, 9), st.just(4))))
def test_the_icon_writer_makes_png_files_that_decode_to_their_pixels(pixels: np.ndarray) -> None:
    from PIL import Image

    data = make_icons().png(pixels)
    with Image.open(io.BytesIO(data)) as decoded:
        assert decoded.mode == "RGBA" and decoded.size == (pixels.shape[1], pixels.shape[0])
        assert (np.asarray(decoded) == pixels).all()
    assert zlib.crc32(data[12:29]) == struct.unpack(">I", data[29:33])[0]  # the header's checksum


# -- every page's head and header --------------------------------------------------------------------


def test_the_theme_is_set_before_the_style_sheet_and_the_bar_has_both_colours(client: TestClient) -> None:
    html = client.get("/players").text
    head = html.split("</head>", 1)[0]
    early = head.index('<script src="/static/early.js"></script>')  # classic: runs before the first paint
    assert early < head.index('<link rel="stylesheet" href="/static/keypeg.css">')
    assert re.search(r'<meta name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: light\)">', head)
    assert re.search(r'<meta name="theme-color" content="#[0-9a-f]{6}" media="\(prefers-color-scheme: dark\)">', head)
    script = client.get("/static/early.js")
    assert script.status_code == 200 and "export" not in script.text and "import" not in script.text
    main = client.get("/static/main.js").text
    for part in ("theme", "share"):
        assert f'import {{ setUp as {part} }} from "./{part}.js";' in main and re.search(
            rf"const parts = \[[^\]]*\b{part}\b", main
        ), part
    css = client.get("/static/keypeg.css").text
    dark = re.findall(r':root\[data-theme="dark"\] \{([^}]*)\}', css)
    system = re.findall(r':root:not\(\[data-theme="light"\]\) \{([^}]*)\}', css)
    assert dark and system and dark[0].split() == system[0].split(), "the dark theme differs from the system's dark"
    for name in ("--ink", "--muted", "--paper", "--panel", "--line", "--accent", "--bad", "--good", "--focus"):
        assert f"{name}:" in dark[0] and f"{name}:" in css.split(":root[data-theme", 1)[0], name


def test_the_navigation_folds_into_a_menu_that_works_without_a_script(client: TestClient) -> None:
    html = client.get("/").text
    header = html.split('<header class="site">', 1)[1].split("</header>", 1)[0]
    menu = header.split('<details class="menu">', 1)[1]
    assert "<summary>" in menu and '<nav aria-label="Main">' in menu and 'class="who"' in menu
    assert "Playing as a guest" in menu and 'href="/players">log in</a>' in menu
    assert header.count("<nav") == 1, "one navigation, not a copy for each screen"


# -- the home page ---------------------------------------------------------------------------------


class Forms(HTMLParser):
    """The forms of a page: their attributes, named fields (with the submit buttons' names and values),
    and whether each lies inside a <details>."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, object]] = []
        self.details = 0
        self.opened = 0
        self.links: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag == "details":
            self.details += 1
            self.opened += 1
        elif tag == "form":
            self.forms.append({"attrs": found, "fields": [], "folded": self.details > 0})
        elif tag in ("input", "select", "textarea", "button") and self.forms and "name" in found:
            fields = self.forms[-1]["fields"]
            assert isinstance(fields, list)
            fields.append((tag, found))
        elif tag == "a" and "href" in found:
            self.links.append((found["href"], self.details > 0))

    def handle_endtag(self, tag: str) -> None:
        if tag == "details":
            self.details -= 1


def forms_of(html: str) -> Forms:
    parsed = Forms()
    parsed.feed(html.split('<main id="main"', 1)[1])
    return parsed


def one_click(html: str) -> dict[str, str]:
    """What the home page's "Play classic" button sends: its form's hidden fields and its own name."""
    (form,) = [f for f in forms_of(html).forms if not f["folded"]]
    fields = form["fields"]
    assert isinstance(fields, list) and form["attrs"] == {"method": "post", "action": "/play"}
    sent = {a["name"]: a["value"] for tag, a in fields if tag == "input" and a.get("type") == "hidden"}
    (button,) = [a for tag, a in fields if tag == "button"]
    assert "name" in button and button.get("type") == "submit"
    return {**sent, button["name"]: button["value"]}


def test_the_home_page_starts_four_ways_in_one_click_and_folds_the_rest_into_one_disclosure(
    client: TestClient,
) -> None:
    html = client.get("/").text
    sent = one_click(html)
    assert sent["variant"] == "classic" and sent["role"] == "breaker" and sent["csrf"] and len(sent["key"]) >= 20
    assert re.search(r">Play classic</strong>", html)
    parsed = forms_of(html)
    unfolded = {href for href, folded in parsed.links if not folded}
    assert {"/daily", "/live", "/watch"} <= unfolded
    for label in ("Today's puzzle", "Challenge a friend", "Watch the computer play"):
        assert f"<strong>{label}</strong>" in html, label
    assert parsed.opened == 1, "one disclosure"
    (folded,) = [f for f in parsed.forms if f["folded"]]
    fields = folded["fields"]
    assert isinstance(fields, list)
    names = {a["name"] for _, a in fields}
    assert {"variant", "pegs", "colors", "rows", "repeats", "blanks", "role", "level", "practice", "key"} <= names
    assert '<details class="more">' in html, "closed until asked for"


def test_the_one_click_form_starts_a_classic_game_to_break(client: TestClient, url: str) -> None:
    sent = one_click(client.get("/").text)
    started = client.post("/play", data=sent)
    assert started.status_code == 200 and re.search(r"/play/[\w-]+$", str(started.url))
    again = client.post("/play", data=sent)  # pressed twice: the same game
    assert again.url == started.url
    (record,) = Store(url).games.history(limit=None)
    assert record.variant == "classic" and record.role == "breaker" and record.rules == find_variant("classic").rules


def test_a_refused_start_opens_the_disclosure_to_show_the_reason(client: TestClient) -> None:
    csrf = one_click(client.get("/").text)["csrf"]
    refused = client.post("/play", data={"csrf": csrf, "variant": "", "pegs": "99", "colors": "6"})
    assert refused.status_code == 400 and 'role="alert"' in refused.text
    assert '<details class="more" open>' in refused.text


# -- the daily result ------------------------------------------------------------------------------


def test_the_daily_result_is_text_with_copy_and_share_buttons_hidden_until_the_script_shows_them(
    client: TestClient, url: str
) -> None:
    csrf = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
    assert client.post("/api/players", json={"name": "dora", "password": "long enough pw"}, headers=csrf).is_success
    csrf = {"X-CSRF-Token": client.get("/api/session").json()["csrf"]}
    game = client.post("/api/daily", json={"variant": "classic"}, headers=csrf).json()
    classic = find_variant("classic")
    secret = str(daily_secret(Store(url).keys.server_key(KEY_NAME), today(), classic))
    won = client.post(f"/api/games/{game['id']}/guesses", json={"code": secret}, headers=csrf).json()
    assert won["status"] == "won"
    for path in ("/daily?variant=classic", f"/play/{game['id']}"):
        html = client.get(path).text
        box = html.split("data-share", 1)[1].split("</section>", 1)[0]
        grid = re.search(r'<pre class="grid"[^>]*>([^<]*)</pre>', box)
        assert grid is not None and grid.group(1).startswith(f"keypeg daily {today()} classic: 1/"), path
        assert secret not in grid.group(1)
        assert re.search(r'<button type="button"[^>]*data-copy hidden>Copy</button>', box), path
        assert re.search(r'<button type="button"[^>]*data-share-sheet hidden>', box), path
        assert 'role="status" data-said' in box


# -- wide tables -----------------------------------------------------------------------------------


class Tables(HTMLParser):
    """Each table of a page, and whether a box that scrolls sideways (div.scroll) holds it."""

    def __init__(self) -> None:
        super().__init__()
        self.open: list[bool] = []
        self.tables: list[bool] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "div":
            found = dict(attrs)
            scrolls = "scroll" in (found.get("class") or "").split()
            assert not scrolls or found.get("tabindex") == "0", "a box that scrolls takes the keyboard's focus"
            self.open.append(scrolls)
        elif tag == "table":
            self.tables.append(any(self.open))

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self.open.pop()


def test_every_table_scrolls_inside_its_box(client: TestClient) -> None:
    csrf = one_click(client.get("/").text)["csrf"]
    tiny = "variant=&pegs=2&colors=3"
    started = client.post("/play", data={"csrf": csrf, "variant": "", "pegs": "2", "colors": "3", "practice": "yes"})
    client.post(f"{started.url}/guess", data={"csrf": csrf, "code": "AB", "row": "1"})
    match = client.post("/match", data={"csrf": csrf, "variant": "", "pegs": "2", "colors": "3", "games": "2"})
    pages = [
        "/players",
        "/top?variant=classic",
        f"/strategies?{tiny}",
        f"/analyse?{tiny}&scored=AB+0+1",
        "/daily",
        str(match.url),
    ]
    seen = 0
    for path in pages:
        answer = client.get(path)
        assert answer.status_code == 200, path
        found = Tables()
        found.feed(answer.text)
        assert all(found.tables), f"{path}: a table outside a box that scrolls"
        seen += len(found.tables)
    assert seen >= 5, "the pages showed too few tables to check"
