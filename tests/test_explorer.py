"""The strategy explorer (services/explorer.py, web/explore.py): every node's figures equal a slow
recomputation that replays the tree against every secret; the published totals (optimal 5,625, Knuth's
5,801); the page's numbers equal the JSON's; bad addresses are 4xx with a one-line reason; big games are
refused by the budget; a tree is built once (the gate passed then only), kept in memory (bounded) and in
the cache folder (a damaged file is built again)."""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules
from keypeg.analysis.compare import standard_strategy
from keypeg.analysis.tree import build_tree
from keypeg.code import Feedback
from keypeg.errors import KeypegError, NotFoundError
from keypeg.services import explorer
from keypeg.services.fair_share import FairShare, Who
from keypeg.web import create_app

CASES = [
    ("classic", "optimal"),
    ("classic", "worst-case"),
    ("classic", "most-parts"),
    ("classic-blanks", "expected-size"),
    ("3x4", "simple"),
    ("4x5-norepeats", "entropy"),
    ("mini", "careless"),
]
"""Games and strategies checked node by node: presets, a game of one's own, compiled and Python trees."""


def no_check(_: object) -> None:
    """A check that lets any tree be built (the web's budget is tested on its own)."""


@pytest.fixture(autouse=True)
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test starts with no tree in memory and a cache folder of its own."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("KEYPEG_CACHE", str(folder))
    explorer.forget()
    return folder


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}")


@pytest.fixture
def browser(app: FastAPI) -> TestClient:
    return TestClient(app, base_url="http://localhost")


@cache
def replayed(game: str, strategy: str) -> tuple[Rules, tuple[tuple[tuple[Feedback, ...], int], ...]]:
    """Every secret's answers and guesses, the tree (built as the CLI builds it) replayed against it one
    secret at a time with the plain scorer: the slow reference."""
    rules, games = replayed_secrets(game, strategy)
    return rules, tuple((answers, n) for answers, n, _ in games)


@cache
def replayed_secrets(game: str, strategy: str) -> tuple[Rules, tuple[tuple[tuple[Feedback, ...], int, str], ...]]:
    """:func:`replayed`, each game with its secret."""
    rules = explorer.rules_named(game)
    tree = build_tree(standard_strategy(strategy), rules)
    games = []
    for colors in _codes(rules):
        played = tree.replay(rules.code(colors))
        games.append((tuple(answer for _, answer in played), len(played), str(rules.code(colors))))
    return rules, tuple(games)


def _codes(rules: Rules) -> list[tuple[int, ...]]:
    codes: list[tuple[int, ...]] = [()]
    for _ in range(rules.pegs):
        codes = [(*c, k) for c in codes for k in range(rules.num_colors) if rules.repeats or k not in c]
    return codes


def reference(game: str, strategy: str, path: tuple[Feedback, ...]) -> dict[str, object]:
    """A node's figures from the replayed games: the secrets whose answers start with ``path``, split by
    their next answer, each part's count, guesses in all and at worst."""
    return every_node(game, strategy)[path]


@cache
def every_node(game: str, strategy: str) -> dict[tuple[Feedback, ...], dict[str, object]]:
    """:func:`reference` of every path at once: each game counted at each node it passes through."""
    _, games = replayed(game, strategy)
    parts: dict[tuple[Feedback, ...], dict[Feedback, list[int]]] = defaultdict(lambda: defaultdict(list))
    for answers, n in games:
        for k in range(len(answers)):
            parts[answers[:k]][answers[k]].append(n)
    nodes = {}
    for path, split in parts.items():
        ns = [n for part in split.values() for n in part]
        nodes[path] = {
            "secrets": len(ns),
            "total": sum(ns),
            "worst": max(ns),
            "round": len(path) + 1,
            "split": [
                (a, len(p), sum(p), max(p)) for a, p in sorted(split.items(), key=lambda i: (i[0].black, i[0].white))
            ],
        }
    return nodes


@cache
def secrets_left(game: str, strategy: str) -> dict[tuple[Feedback, ...], list[str]]:
    """The secrets whose answers start with each path, in code order (the replayed games are)."""
    left: dict[tuple[Feedback, ...], list[str]] = defaultdict(list)
    for answers, _, secret in replayed_secrets(game, strategy)[1]:
        for k in range(len(answers)):
            left[answers[:k]].append(secret)
    return left


def figures(node: explorer.ExploredNode) -> dict[str, object]:
    return {
        "secrets": node.secrets,
        "total": node.total,
        "worst": node.worst,
        "round": node.round,
        "split": [(b.answer, b.secrets, b.total, b.worst) for b in node.branches],  # in answer order
    }


@pytest.mark.parametrize(("game", "strategy"), CASES)
def test_every_node_on_the_way_to_every_secret_equals_the_replayed_games(game: str, strategy: str) -> None:
    """For every secret, each node its game passes through: the counts (summing to the node's), the guesses
    in all (so the average) and at worst equal those of the games replayed one secret at a time."""
    rules, games = replayed(game, strategy)
    tree = explorer.explored_tree(rules, strategy, check=no_check)
    paths = {answers[:k] for answers, _ in games for k in range(len(answers))}
    for path in paths:
        node = explorer.node_of(tree, path)
        assert figures(node) == reference(game, strategy, path), path
        assert sum(b.secrets for b in node.branches) == node.secrets
        assert node.expected == node.total / node.secrets
        assert [s.answer for s in node.trail] == list(path)
        if node.secrets <= explorer.LISTED:  # the secrets left, listed in code order
            assert [str(code) for code in node.listed] == secrets_left(game, strategy)[path]
        else:
            assert node.listed == ()
    assert tree.stats.total == sum(n for _, n in games) and tree.stats.secrets == rules.size


def test_the_published_totals() -> None:
    """The optimal strategy on classic Mastermind: 5,625 guesses over 1,296 secrets (4.3403 on average, 6
    at worst; Koyama and Lai); Knuth's worst-case: 5,801, never more than 5."""
    rules = explorer.rules_named("classic")
    optimal = explorer.explore(rules, "optimal", check=no_check)
    assert optimal.expected * 1296 == pytest.approx(5625) and optimal.total == 5625 and optimal.worst == 6
    assert round(optimal.expected, 4) == 4.3403
    knuth = explorer.explore(rules, "knuth", check=no_check)
    assert (knuth.strategy, knuth.total, knuth.worst, str(knuth.guess)) == ("worst-case", 5801, 5, "RRGG")


def test_a_solved_game_s_optimum_is_followed_not_searched(browser: TestClient) -> None:
    """Bulls and Cows is solved (its optimal tree ships with keypeg): its tree is built by following it,
    within a request's budget (a search would take about 45 s: refused), 26,274 guesses over 5,040 secrets."""
    answer = browser.get("/api/explore/bulls-and-cows/optimal")
    assert answer.status_code == 200, answer.text
    assert (answer.json()["total"], answer.json()["secrets"], answer.json()["worst"]) == (26274, 5040, 7)
    unsolved = browser.get("/api/explore/5x5/optimal")  # no solved tree: the search's estimate, refused
    assert unsolved.status_code == 400 and "more than the 5 s" in unsolved.json()["error"]


@given(st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99)), max_size=explorer.MAX_PATH))
def test_a_path_reads_back_as_written(answers: list[tuple[int, int]]) -> None:
    path = tuple(Feedback(b, w) for b, w in answers)
    assert explorer.parse_path(explorer.path_text(path)) == path
    assert explorer.parse_path("/" + explorer.path_text(path) + "/") == path


@pytest.mark.parametrize("bad", ["1", "1,", "a,b", "1;0", "1,0,0", "-1,0", "1,0//2,1", "100,0", "1 ,0"])
def test_a_path_written_wrong_is_refused(bad: str) -> None:
    with pytest.raises(KeypegError, match="not an answer"):
        explorer.parse_path(bad)


def test_games_and_strategies_by_name() -> None:
    assert explorer.rules_named("Mastermind") == explorer.rules_named("classic")
    own = explorer.rules_named("5x7-norepeats")
    assert (own.pegs, own.colors, own.repeats, own.blanks) == (5, 7, False, False)
    assert explorer.game_name(own) == "5x7-norepeats" and explorer.game_name(explorer.rules_named("super")) == "super"
    assert explorer.strategy_named("Kooi") == "most-parts"
    for unknown in ("nope", "4x", "x" * 100):
        with pytest.raises(NotFoundError, match="no game called"):
            explorer.rules_named(unknown)
    with pytest.raises(NotFoundError, match="unknown strategy"):
        explorer.strategy_named("nope")


# -- the web ------------------------------------------------------------------------------------------


def split_on_page(text: str) -> list[tuple[str, int, str, str]]:
    """Each answer card of a node's page: its answer, count, average and worst as shown."""
    found = []
    for card in re.findall(r"<li>\s*<(?:a|div) class=\"branch.*?</(?:a|div)>\s*</li>", text, re.S):
        answer = re.search(r'class="score-text">(\d+) black, (\d+) white<', card)
        count = re.search(r'class="count"><strong>([\d,]+)</strong>', card)
        expected = re.search(r'class="expected">([\d.]+)<', card)
        worst = re.search(r'class="worst">(\d+)<', card) or re.search(r"broken in guess (\d+)<", card)
        assert answer and count and worst, card
        shown = expected[1] if expected else "broken"
        found.append((f"{answer[1]},{answer[2]}", int(count[1].replace(",", "")), shown, worst[1]))
    return found


@pytest.mark.parametrize(
    ("game", "strategy", "path"),
    [
        ("classic", "optimal", ""),
        ("classic", "most-parts", "1,0/2,1"),
        ("classic", "knuth", "0,0"),
        ("3x4", "simple", ""),
    ],
)
def test_the_page_shows_the_json_s_numbers(browser: TestClient, game: str, strategy: str, path: str) -> None:
    data = browser.get(f"/api/explore/{game}/{strategy}", params={"path": path}).json()
    page = browser.get(f"/explore/{game}/{strategy}" + (f"/{path}" if path else ""))
    assert page.status_code == 200
    text = html.unescape(page.text)
    expected = [
        (b["answer"], b["secrets"], "broken" if b["breaks"] else f"{b['expected']:.3f}", str(b["worst"]))
        for b in data["branches"]
    ]
    assert split_on_page(text) == expected
    assert f"<strong>{data['secrets']:,}</strong>" in text and f"<strong>{data['expected']:.3f}</strong>" in text
    assert f"Guess {data['round']}" in text and data["page"] == f"/explore/{game}/{data['strategy']}" + (
        f"/{path}" if path else ""
    )
    for branch in data["branches"]:  # each answer links to its node, whose JSON is the branch's figures
        if branch["breaks"]:
            continue
        assert f'href="/explore/{game}/{data["strategy"]}/{branch["path"]}"' in text
    child = next(b for b in data["branches"] if not b["breaks"])
    below = browser.get(f"/api/explore/{game}/{strategy}", params={"path": child["path"]}).json()
    assert (below["secrets"], below["expected"], below["worst"], below["guess"]) == (
        child["secrets"],
        child["expected"],
        child["worst"],
        child["next_guess"],
    )
    assert [s["answer"] for s in below["trail"]] == child["path"].split("/")


def test_the_breadcrumb_goes_back_up(browser: TestClient) -> None:
    text = browser.get("/explore/classic/most-parts/1,0/2,1/0,2").text
    crumbs = re.search(r'<nav class="crumbs".*?</nav>', text, re.S)
    assert crumbs is not None
    links = re.findall(r'href="([^"]+)"', crumbs[0])
    assert links == [
        "/explore/classic/most-parts",
        "/explore/classic/most-parts/1,0",
        "/explore/classic/most-parts/1,0/2,1",
    ]
    assert 'aria-current="page"' in crumbs[0]


@pytest.mark.parametrize(
    ("address", "status", "reason"),
    [
        ("/explore/nope/optimal", 404, "no game called 'nope'"),
        ("/explore/classic/nope", 404, "unknown strategy 'nope'"),
        ("/explore/classic/optimal/x", 400, "'x' is not an answer"),
        ("/explore/classic/optimal/9,9", 404, "no secret gets RRGB=9,9"),
        ("/explore/classic/optimal/1,0/4,0", 404, "4,0 breaks the code at"),
        ("/explore/classic/optimal/" + "/".join(["0,0"] * 65), 400, "no game goes past 64"),
        ("/explore/1x1/simple", 400, "colour"),
        ("/explore/grand/most-parts", 400, "more than the 5 s the web app allows a request"),
        ("/explore/classic/two-step", 400, "more than the 5 s the web app allows a request"),
    ],
)
def test_a_bad_address_is_4xx_with_a_one_line_reason(
    browser: TestClient, address: str, status: int, reason: str
) -> None:
    page = browser.get(address)
    assert page.status_code == status
    shown = re.findall(r'<p class="error" role="alert">([^<]*)</p>', page.text)
    assert len(shown) == 1 and reason in html.unescape(shown[0]) and "Traceback" not in page.text
    assert '<form class="pick"' in page.text  # the form is there to choose again
    game, strategy, *rest = address.removeprefix("/explore/").split("/", 2)
    answer = browser.get(f"/api/explore/{game}/{strategy}", params={"path": rest[0] if rest else ""})
    assert answer.status_code == status
    error = answer.json()["error"]
    assert reason in error and "\n" not in error


def test_the_form_sends_the_browser_to_the_node_s_address(browser: TestClient) -> None:
    chosen = browser.get("/explore", params={"game": "mastermind", "strategy": "knuth"}, follow_redirects=False)
    assert (chosen.status_code, chosen.headers["location"]) == (303, "/explore/classic/worst-case")
    own = {"game": "", "strategy": "simple", "pegs": "5", "colors": "7", "repeats": "no", "blanks": ""}
    chosen = browser.get("/explore", params=own, follow_redirects=False)
    assert (chosen.status_code, chosen.headers["location"]) == (303, "/explore/5x7-norepeats/simple")
    page = browser.get(chosen.headers["location"])
    assert page.status_code == 200 and 'name="pegs" min="1" max="15" value="5"' in page.text
    alone = browser.get("/explore", params={"strategy": "knuth"}, follow_redirects=False)  # no game: classic's
    assert (alone.status_code, alone.headers["location"]) == (303, "/explore/classic/worst-case")
    wrong = browser.get("/explore", params={"game": "classic", "strategy": "nope"}, follow_redirects=False)
    assert wrong.status_code == 404 and "unknown strategy" in html.unescape(wrong.text)
    start = browser.get("/explore")
    assert (
        start.status_code == 200 and "Guess 1" in start.text and 'href="/explore/classic/most-parts/1,0"' in start.text
    )


def test_a_tree_is_built_once_and_passes_the_gate_only_then(
    app: FastAPI, browser: TestClient, fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first visit builds the tree (the gate counts it); every later node of it, a reload, another
    process reading the cache folder: none passes the gate, and all show the same figures."""
    share: FairShare = app.state.fair_share
    started: list[Who] = []
    start = share._start_analysis

    def counted(who: Who) -> None:
        started.append(who)
        start(who)

    monkeypatch.setattr(share, "_start_analysis", counted)
    first = browser.get("/api/explore/classic/most-parts").json()
    assert len(started) == 1 and not first["cached"]
    for path in ["", "1,0", "1,0/2,1", "0,0/0,2"]:
        assert browser.get("/api/explore/classic/most-parts", params={"path": path}).status_code == 200
    assert browser.get("/explore/classic/most-parts/1,1").status_code == 200
    assert len(started) == 1
    assert len(list(fresh.glob("explore-4x6-most-parts-*.json"))) == 1
    explorer.forget()  # another process: the tree is read from the cache folder
    again = browser.get("/api/explore/classic/most-parts").json()
    assert len(started) == 1 and again["cached"] and again["branches"] == first["branches"]


def test_a_kept_tree_never_waits_for_a_busy_worker(app: FastAPI, browser: TestClient) -> None:
    browser.get("/api/explore/classic/optimal")
    share: FairShare = app.state.fair_share
    monkeypatch_busy = pytest.MonkeyPatch()
    try:
        monkeypatch_busy.setattr(share, "_start_analysis", lambda who: pytest.fail("the gate was asked"))
        assert browser.get("/api/explore/classic/optimal", params={"path": "1,0"}).status_code == 200
    finally:
        monkeypatch_busy.undo()


def test_a_damaged_cache_file_is_built_again(fresh: Path) -> None:
    rules = explorer.rules_named("classic")
    built = explorer.explored_tree(rules, "worst-case", check=no_check)
    (kept,) = fresh.glob("explore-4x6-worst-case-*.json")
    good = json.loads(kept.read_text())
    damages = {
        "a size": lambda d: d["sizes"].__setitem__(3, d["sizes"][3] + 1),
        "a parent after its child": lambda d: d["parents"].__setitem__(2, 5),
        "a winning answer": lambda d: d["feedbacks"].__setitem__(1, 20),
        "a colour": lambda d: d["colors"].__setitem__(0, 9),
        "short": lambda d: d["parents"].pop(),
        "not JSON": None,
    }
    for what, damage in damages.items():
        data = json.loads(json.dumps(good))
        if damage is None:
            kept.write_text("{" + json.dumps(data)[:100])
        else:
            damage(data)
            kept.write_text(json.dumps(data))
        explorer.forget()
        checked: list[object] = []
        again = explorer.explored_tree(rules, "worst-case", check=checked.append)
        assert len(checked) == 1 and not again.cached, what  # built again, not read
        assert again.stats == built.stats
    explorer.forget()
    assert explorer.explored_tree(rules, "worst-case", check=pytest.fail).cached  # the sound file is read


def test_trees_kept_in_memory_are_bounded(monkeypatch: pytest.MonkeyPatch, fresh: Path) -> None:
    monkeypatch.setattr(explorer, "KEPT_TREES", 2)
    rules = explorer.rules_named("3x3")
    for name in ("simple", "worst-case", "entropy"):
        explorer.explored_tree(rules, name, check=no_check)
    for kept in fresh.glob("explore-*"):
        kept.unlink()
    explorer.explored_tree(rules, "entropy", check=pytest.fail)  # the last two are kept
    explorer.explored_tree(rules, "worst-case", check=pytest.fail)
    checked: list[object] = []
    explorer.explored_tree(rules, "simple", check=checked.append)  # the first is gone
    assert len(checked) == 1


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 1295), st.integers(0, 5))
def test_any_secret_s_way_is_an_address(secret: int, depth: int) -> None:
    """Any prefix of a secret's answers is a node of the tree, whose trail repeats the answers."""
    rules, games = replayed("classic", "most-parts")
    answers = games[secret][0][:depth]
    path = answers if not answers or answers[-1] != rules.win else answers[:-1]
    node = explorer.explore(rules, "most-parts", path, check=no_check)
    assert figures(node) == reference("classic", "most-parts", path)
