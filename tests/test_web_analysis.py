"""The Analyse and Strategies pages and their API: the same counts as a plain enumeration, the likely
mistake named, the same totals and guesses as the command line, results kept across processes, the web's
guards (400, never a 5xx), and text from outside escaped."""

from __future__ import annotations

import html
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keypeg import Rules, score
from keypeg.analysis import compare as compare_module
from keypeg.analysis import tree as tree_module
from keypeg.analysis.cost import TooCostlyError, TooSlowError
from keypeg.cli import cli
from keypeg.code import Code, Feedback
from keypeg.knowledge import Knowledge
from keypeg.strategies import NAMES, make_strategy
from keypeg.variants import find_variant
from keypeg.web import analysis_api, create_app
from reference import rules_codes

ADVISED = ["worst-case", "expected-size", "entropy", "most-parts", "simple"]


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Kept analyses go to a folder of the test's own, never the user's cache."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("KEYPEG_CACHE", str(folder))
    return folder


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'web.sqlite3'}"


@pytest.fixture
def browser(url: str) -> TestClient:
    return TestClient(create_app(url), base_url="https://keypeg.test")


def reference_count(rules: Rules, history: list[tuple[Code, Feedback]]) -> tuple[int, list[str]]:
    """How many codes fit, and the first 50, by scoring every code with the plain scorer."""
    fits = [
        str(rules.code(colors))
        for colors in rules_codes(rules)
        if all(score(rules.code(colors), guess) == feedback for guess, feedback in history)
    ]
    return len(fits), fits[:50]


def page_count(text: str) -> int:
    """The count of fitting codes the Analyse page shows (0 when it says none fits)."""
    if "no code fits these scores" in text:
        return 0
    if "The code is broken" in text:
        return 1
    found = re.search(r"<strong>([\d,]+)</strong> of [\d,]+ codes", text)
    assert found is not None, text[-2000:]
    return int(found.group(1).replace(",", ""))


def lines(history: list[tuple[Code, Feedback]], equals: bool = False) -> list[str]:
    return [f"{g}={f.black},{f.white}" if equals else f"{g} {f.black} {f.white}" for g, f in history]


def played(rules: Rules, secret: Code, guesses: list[str]) -> list[tuple[Code, Feedback]]:
    return [(rules.parse(g), score(secret, rules.parse(g))) for g in guesses]


CASES = [
    ({"variant": "classic"}, ["RRGG", "BBYY"]),
    ({"variant": "classic"}, []),
    ({"variant": "3x4"}, ["AAB"]),
    ({"variant": "bulls-and-cows"}, ["0123", "4567"]),
    ({"variant": "classic-blanks"}, ["RR..", "GBYW"]),
    ({"variant": "", "pegs": "5", "colors": "3"}, ["AABBC", "CCCAA", "ABCAB"]),
]


@pytest.mark.parametrize(("fields", "guesses"), CASES, ids=[f"{f}-{len(g)}" for f, g in CASES])
def test_the_page_and_the_api_count_as_the_plain_enumeration(
    browser: TestClient, fields: dict[str, str], guesses: list[str]
) -> None:
    from keypeg.web.pages import RulesForm

    rules = RulesForm(**fields).rules()
    secret = rules.code(random.Random(len(guesses)).choice(rules_codes(rules)))
    history = played(rules, secret, guesses)
    count, first = reference_count(rules, history)
    assert count == Knowledge(rules, tuple(history)).count
    shown = browser.get("/analyse", params={**fields, "scored": "\n".join(lines(history))})
    assert shown.status_code == 200 and page_count(shown.text) == count
    body: dict[str, Any] = {k: (int(v) if v.isdigit() else v or None) for k, v in fields.items()}
    answer = browser.post("/api/analyse", json={**body, "scored": lines(history, equals=True)})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert (data["count"], data["candidates"], data["consistent"]) == (count, first, True)
    if count <= 50:
        for code in first:
            assert html.escape(code) in shown.text


def test_each_strategy_advises_what_next_prints(browser: TestClient) -> None:
    scored = ["RRGG=1,0", "BBYY=0,1"]
    data = browser.post("/api/analyse", json={"variant": "classic", "scored": scored}).json()
    assert [s["strategy"] for s in data["strategies"]] == [
        "worst-case",
        "expected-size",
        "entropy",
        "most-parts",
        "simple",
    ]
    for advised in data["strategies"]:
        done = CliRunner().invoke(cli, ["next", "-s", advised["strategy"], *scored, "--json"])
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["guess"] == advised["guess"] == advised["ranked"][0]["guess"]
        assert len(advised["ranked"]) == 4 and sum(advised["ranked"][0]["parts"].values()) == data["count"]
    shown = browser.get("/analyse", params={"variant": "classic", "scored": "\n".join(scored)}).text
    assert "worst-case (Knuth)" in shown and "Codes left after each answer" in shown


def test_the_likely_wrong_score_is_named(browser: TestClient) -> None:
    scored = "RRGG 1 0\nRRGG 2 0"
    shown = browser.get("/analyse", params={"variant": "classic", "scored": scored})
    assert shown.status_code == 200
    assert "no code fits these scores" in shown.text and "Likely mistake: guess 2 (RRGG) scored 2,0" in shown.text
    assert re.search(r'class="suspect"><span class="n">2</span>', shown.text)  # the row marked
    assert "likely wrong: 1 black, 0 white would fit" in shown.text
    data = browser.post("/api/analyse", json={"variant": "classic", "scored": scored.splitlines()}).json()
    assert not data["consistent"] and data["count"] == 0 and data["strategies"] == []
    assert data["message"].startswith("no code fits") and "Likely mistake" in data["message"]
    assert [s["number"] for s in data["suspects"]] == [2, 1]
    assert data["suspects"][0] == {"number": 2, "guess": "RRGG", "given": "2,0", "correction": "1,0"}


def test_a_broken_code_is_said(browser: TestClient) -> None:
    data = browser.post("/api/analyse", json={"variant": "classic", "scored": ["RRGG 1 1", "RGBY 4 0"]}).json()
    assert data["solved"] and data["count"] == 1 and data["strategies"] == []
    assert "The code is broken" in browser.get("/analyse", params={"scored": "RGBY 4 0"}).text


def test_a_game_too_large_to_enumerate_still_gets_an_answer(browser: TestClient) -> None:
    body = {"pegs": 8, "colors": 12, "scored": ["AABBCCDD 1 0", "EEFFGGHH 0 2"]}
    data = browser.post("/api/analyse", json=body).json()
    assert data["consistent"] and data["count_is_lower_bound"] and data["count"] >= 50
    assert len(data["candidates"]) == 50
    assert [s["strategy"] for s in data["strategies"]] == ["genetic"]
    assert {s["strategy"] for s in data["left_out"]} == {
        "worst-case",
        "expected-size",
        "entropy",
        "most-parts",
        "simple",
    }
    rules = Rules(8, 12)
    guess = rules.parse(data["strategies"][0]["guess"])  # the genetic codebreaker plays a code that fits
    assert score(guess, rules.parse("AABBCCDD")) == Feedback(1, 0) and score(
        guess, rules.parse("EEFFGGHH")
    ) == Feedback(0, 2)
    shown = browser.get("/analyse", params={"variant": "", "pegs": "8", "colors": "12", "scored": ""})
    assert shown.status_code == 200 and "genetic" in shown.text and "no figures before the first score" in shown.text
    wrong = browser.post("/api/analyse", json={**body, "scored": ["AABBCCDD 1 0", "AABBCCDD 2 0"]}).json()
    assert not wrong["consistent"] and "Likely mistake: guess 2" in wrong["message"]


# -- strategies ----------------------------------------------------------------------------------------


def cli_results(variant: str, *names: str) -> dict[str, dict[str, Any]]:
    args = ["analyze", "--compare", "--variant", variant, "--json"]
    for name in names:
        args += ["-s", name]
    done = CliRunner().invoke(cli, args)
    assert done.exit_code == 0, done.output
    return {r["conventions"]["strategy"]: r for r in json.loads(done.stdout)["results"]}


def test_the_strategies_totals_are_the_command_lines(browser: TestClient) -> None:
    data = browser.get("/api/strategies", params={"variant": "3x4"}).json()
    results = {r["strategy"]: r for r in data["results"]}
    assert tuple(results) == NAMES
    assert data["secrets"] == 64 and data["left_out"] == []
    expected = cli_results(
        "3x4", "simple", "worst-case", "expected-size", "entropy", "most-parts", "two-step", "optimal"
    )
    for name, result in expected.items():
        for key in ("secrets", "total", "max", "distribution", "average"):
            assert results[name][key] == result[key], (name, key)
    rules = find_variant("3x4").rules
    for name in ("random", "careless", "genetic"):  # the seeded ones: as build_tree plays them with seed 0
        built = tree_module.build_tree(make_strategy(name, seed=0), rules)
        assert (results[name]["total"], results[name]["max"]) == (built.stats.total, built.stats.max)
        assert results[name]["conventions"]["seed"] == 0
    shown = browser.get("/strategies", params={"variant": "3x4"})
    assert shown.status_code == 200
    for name, result in expected.items():
        assert f"{result['total']:,}" in shown.text and name in shown.text
    assert shown.text.count('<rect class="bar s-') == sum(len(r["distribution"]) for r in results.values())


def test_the_classic_figures(browser: TestClient) -> None:
    """The literature's totals: Knuth 5,801, Irving 5,696, Neuwirth 5,722, Kooi 5,668, the optimum 5,625."""
    data = browser.get("/api/strategies", params={"variant": "classic"}).json()
    totals = {r["strategy"]: r["total"] for r in data["results"]}
    assert {k: totals[k] for k in ("simple", "worst-case", "expected-size", "entropy", "most-parts", "optimal")} == {
        "simple": 7471,
        "worst-case": 5801,
        "expected-size": 5696,
        "entropy": 5722,
        "most-parts": 5668,
        "optimal": 5625,
    }
    assert {s["strategy"] for s in data["left_out"]} <= {"two-step", "genetic"}


def counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    built: list[str] = []
    real = tree_module.build_tree

    def build(strategy: Any, rules: Rules, **options: Any) -> Any:
        built.append(strategy.name)
        return real(strategy, rules, **options)

    monkeypatch.setattr(tree_module, "build_tree", build)
    return built


def test_results_are_kept_for_every_worker(url: str, monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    built = counting_builds(monkeypatch)
    first = TestClient(create_app(url)).get("/api/strategies", params={"variant": "3x4"}).json()
    assert len(built) == 10 and not any(r["cached"] for r in first["results"])
    other = TestClient(create_app(url))  # another worker: only the cache folder is shared
    again = other.get("/api/strategies", params={"variant": "3x4"}).json()
    assert len(built) == 10 and all(r["cached"] for r in again["results"])
    assert [r["total"] for r in again["results"]] == [r["total"] for r in first["results"]]
    assert other.get("/strategies", params={"variant": "3x4"}).status_code == 200 and len(built) == 10
    # the same game under other rows or symbols is the same result, but the optimal tree depends on the rows
    other.get("/api/strategies", params={"variant": "3x4", "rows": "4"})
    assert built[10:] == ["optimal"]
    # a damaged or foreign cache file is ignored, and replaced
    for path in cache.glob("analysis-3x4-worst-case-*.json"):
        path.write_text('{"key": "nonsense"', encoding="utf-8")
    other.get("/api/strategies", params={"variant": "3x4"})
    assert built[11:] == ["worst-case"]


def test_a_refusal_is_never_kept(monkeypatch: pytest.MonkeyPatch, cache: Path) -> None:
    rules = find_variant("3x4").rules
    built = counting_builds(monkeypatch)

    def too_slow(done: float) -> None:
        raise TooSlowError(f"took too long at {done:.0%}", conclusive=True)

    with pytest.raises(TooSlowError):
        compare_module.summarise(rules, "entropy", check=lambda e: None, watch=too_slow)
    assert not list(cache.glob("analysis-*.json"))  # nothing kept of a refusal
    found = compare_module.summarise(rules, "entropy", check=lambda e: None)  # time to spare: worked out
    assert built == ["entropy", "entropy"] and not found.cached and found.stats.secrets == rules.size
    assert compare_module.summarise(rules, "entropy", check=lambda e: None).cached and len(built) == 2
    # a refusal an older keypeg kept is ignored, and the figures worked out again
    path = compare_module.cache_path(rules, compare_module.standard_strategy("worst-case"))
    key = compare_module._key(rules, compare_module.standard_strategy("worst-case"))
    path.write_text(json.dumps({"keypeg_analysis": 1, "key": key, "too_slow": "took too long"}), encoding="utf-8")
    kept = compare_module.summarise(rules, "worst-case", check=lambda e: None)
    assert built[2:] == ["worst-case"] and not kept.cached and "too_slow" not in path.read_text(encoding="utf-8")


def slow_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock that stands still but when a test moves it: no test depends on the machine's speed."""
    clock = [1000.0]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    return clock


def test_a_strategy_too_slow_for_one_request_is_worked_out_by_a_later_one(
    browser: TestClient, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    clock = slow_clock(monkeypatch)
    built = counting_builds(monkeypatch)
    real = tree_module.build_tree
    slow = {"genetic": 30.0}  # the last one

    def build(strategy: Any, rules: Rules, **options: Any) -> Any:
        tree = real(strategy, rules, **options)
        clock[0] += slow.get(strategy.name, 0.0)  # the work took that long...
        options["progress"](0)  # ...and the watch sees it
        return tree

    monkeypatch.setattr(tree_module, "build_tree", build)
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (5.0, 1 << 30))
    first = browser.get("/api/strategies", params={"variant": "3x4"}).json()
    assert "took 30 s" in dict((o["strategy"], o["reason"]) for o in first["left_out"])["genetic"]
    assert not list(cache.glob("analysis-3x4-genetic-*.json"))  # the refusal is not kept
    slow.clear()
    again = browser.get("/api/strategies", params={"variant": "3x4"}).json()
    genetic = [r for r in again["results"] if r["strategy"] == "genetic"]
    assert genetic and not genetic[0]["cached"] and built.count("genetic") == 2
    assert list(cache.glob("analysis-3x4-genetic-*.json"))


def test_compiling_the_kernels_is_not_counted_by_the_time_guard(
    browser: TestClient, monkeypatch: pytest.MonkeyPatch, cache: Path
) -> None:
    from numba.core import event

    clock = slow_clock(monkeypatch)
    compiles = []
    real = tree_module.compile_tree_kernel

    def cold_compile() -> None:  # a first run: numba compiles the tree kernel, slowly
        if not compiles:
            with event.trigger_event("numba:compile", data={}):
                clock[0] += 60.0
        compiles.append(1)
        real()

    monkeypatch.setattr(tree_module, "compile_tree_kernel", cold_compile)
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (1.0, 1 << 30))  # a tiny budget
    answer = browser.get("/api/strategies", params={"variant": "3x4"})
    assert answer.status_code == 200
    data = answer.json()
    assert compiles and {"simple", "worst-case", "entropy"} <= {r["strategy"] for r in data["results"]}
    assert not any(r["cached"] for r in data["results"])  # worked out by this request, compile and all
    assert data["left_out"] == [] or all("took" not in o["reason"] for o in data["left_out"])


def test_the_compile_clock_counts_what_numba_compiles() -> None:
    import numba

    from keypeg.analysis import cost

    before = cost.compiling_seconds()

    @numba.njit(cache=False)
    def twice(x: int) -> int:
        return 2 * x

    assert twice(21) == 42
    assert cost.compiling_seconds() > before


def test_keypeg_serve_loads_the_kernels_before_its_first_request(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.analysis import cost
    from keypeg.web.app import app_from_environment

    loaded: list[tuple[str, ...]] = []
    monkeypatch.setattr(cost, "load_kernels", lambda *kernels: loaded.append(kernels))
    TestClient(create_app(url)).get("/api/session")
    assert loaded == []  # the app the tests make starts at once
    monkeypatch.setenv("KEYPEG_DB", url)
    with TestClient(app_from_environment()) as client:  # as keypeg serve starts each worker
        assert loaded == [()]
        assert client.get("/api/session").status_code == 200
    assert loaded == [()]


# -- guards --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [{"variant": "", "pegs": "8", "colors": "12"}, {"variant": "", "pegs": "15", "colors": "26"}],
)
def test_big_rules_are_refused_with_400(browser: TestClient, params: dict[str, str]) -> None:
    page = browser.get("/strategies", params=params)
    assert page.status_code == 400 and "would take" in page.text and "the web app allows a request" in page.text
    api = browser.get("/api/strategies", params={k: v for k, v in params.items() if v})
    assert api.status_code == 400 and "would take" in api.json()["error"]


def test_work_beyond_the_budget_is_refused_or_left_out(browser: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (10.0, 1 << 20))  # 1 MiB: not even the codes of 6x6
    refused = browser.get("/analyse", params={"variant": "6x6", "scored": "AABBCC 1 0"})
    assert refused.status_code == 400 and "of memory" in refused.text
    api = browser.post("/api/analyse", json={"variant": "6x6"})
    assert api.status_code == 400 and "the web app allows a request" in api.json()["error"]
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (0.05, 1 << 30))  # some strategies fit, others not
    data = browser.post("/api/analyse", json={"variant": "super"}).json()
    assert data["left_out"] and all("would take" in s["reason"] for s in data["left_out"])


def test_the_search_for_the_likely_mistake_stays_within_the_budget(
    browser: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twelve random scores on classic: looking through every set of them would take about a minute."""
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (1.0, 1 << 30))
    rng = random.Random(1)
    rules = find_variant("classic").rules
    scored = [f"{rules.code([rng.randrange(6) for _ in range(4)])} 0 {rng.randrange(3)}" for _ in range(12)]
    data = browser.post("/api/analyse", json={"variant": "classic", "scored": scored}).json()
    assert not data["consistent"] and data["suspects"] == []
    assert "would have to change, too many ways to name the likely ones" in data["message"]


@pytest.mark.parametrize(
    ("scored", "words"),
    [
        ("RRGG 1 0\nRRGX 1 0", "line 2:"),
        ("RRGG 5 0", "line 1:"),
        ("RRGG", "line 1: cannot read"),
        ("RRGG 1", "line 1:"),
        ("RRGG=1,0\n" * 101, "101 scored guesses: at most 100"),
        ("RRGG 1 0 " * 600, "characters long"),
        ("RRGG 99999999999999999999 0", "line 1:"),
    ],
)
def test_bad_input_is_one_line_and_400(browser: TestClient, scored: str, words: str) -> None:
    shown = browser.get("/analyse", params={"variant": "classic", "scored": scored})
    assert shown.status_code == 400 and words in html.unescape(shown.text)
    error = re.search(r'<p class="error" role="alert">([^<]*)</p>', shown.text)
    assert error is not None and "\n" not in error.group(1)
    api = browser.post("/api/analyse", json={"variant": "classic", "scored": scored.splitlines()})
    assert api.status_code in (400, 422) and "error" in api.json() and "Traceback" not in api.text


@pytest.mark.parametrize(
    "params",
    [
        {"variant": "nosuch"},
        {"pegs": "x"},
        {"pegs": "0"},
        {"variant": "", "pegs": "5", "colors": "3", "repeats": "no"},
        {"repeats": "maybe"},
        {"colors": "9999"},
    ],
)
def test_bad_rules_are_a_page_with_the_reason(browser: TestClient, params: dict[str, str]) -> None:
    for path in ("/analyse", "/strategies"):
        shown = browser.get(path, params=params)
        assert shown.status_code == 400 and 'class="error"' in shown.text and "<form" in shown.text


def test_bad_api_values_are_json_errors(browser: TestClient) -> None:
    for response in (
        browser.get("/api/strategies", params={"pegs": "0"}),
        browser.get("/api/strategies", params={"repeats": "maybe"}),
        browser.get("/api/strategies", params={"variant": "nosuch"}),
        browser.post("/api/analyse", json={"scored": ["RRGG 1 0\nBBYY 0 1"]}),
        browser.post("/api/analyse", json={"scored": ["RRGG 1 0"] * 101}),
        browser.post("/api/analyse", json={"pegs": 5, "colors": 3, "repeats": False}),
        browser.post("/api/analyse", json={"variant": "classic", "scored": [], "scores": ["RRGG 1 0"]}),
        browser.post("/api/analyse", json={"rows": True}),
        browser.post("/api/analyse", content=b"not json", headers={"content-type": "application/json"}),
    ):
        assert response.status_code in (400, 422) and set(response.json()) == {"error"}, response.text


def test_hostile_text_is_escaped(browser: TestClient) -> None:
    for params in (
        {"variant": "classic", "scored": "<script>alert(1)</script>"},
        {"variant": "classic", "scored": "RRGG 1 0\n<img src=x onerror=alert(1)> 1 0"},
        {"variant": "<script>alert(1)</script>"},
        {"variant": "", "pegs": "<b>4</b>"},
    ):
        for path in ("/analyse", "/strategies"):
            shown = browser.get(path, params=params)
            assert shown.status_code == (200 if path == "/strategies" and "scored" in params else 400)
            assert "<script>alert" not in shown.text and "<img src=x" not in shown.text and "<b>4" not in shown.text
            assert "inline" not in shown.headers["content-security-policy"]
    textarea = browser.get("/analyse", params={"scored": "</textarea><script>alert(1)</script>"}).text
    assert "&lt;/textarea&gt;&lt;script&gt;" in textarea and "</textarea><script>" not in textarea


def test_no_inline_style_or_script(browser: TestClient) -> None:
    for path, params in (("/analyse", {"scored": "RRGG 1 0"}), ("/strategies", {"variant": "3x4"})):
        shown = browser.get(path, params=params).text
        assert " style=" not in shown and "<style" not in shown and " on" + "click=" not in shown
        assert re.findall(r"<script[^>]*>", shown) == [
            '<script src="/static/early.js">',  # the theme chosen and the script's mark, before the first paint
            '<script type="module" src="/static/main.js">',
        ]


# -- a property --------------------------------------------------------------------------------------


@st.composite
def small_positions(draw: st.DrawFn) -> tuple[dict[str, Any], list[str], int, list[str]]:
    """Small rules, a history scored against a secret (now and then one score changed), as the API's
    body, and the plain enumeration's count and first codes."""
    pegs = draw(st.integers(1, 4))
    colors = draw(st.integers(2, 5))
    blanks = draw(st.booleans())
    repeats = draw(st.booleans()) if pegs <= colors + int(blanks) else True
    rules = Rules(pegs, colors, repeats=repeats, blanks=blanks)
    codes = rules_codes(rules)
    secret = rules.code(draw(st.sampled_from(codes)))
    guesses = [rules.code(draw(st.sampled_from(codes))) for _ in range(draw(st.integers(0, 4)))]
    history = [(g, score(secret, g)) for g in guesses]
    if history and draw(st.booleans()):
        k = draw(st.integers(0, len(history) - 1))
        history[k] = (history[k][0], draw(st.sampled_from(rules.feedbacks())))
    count, first = reference_count(rules, history)
    body = {"pegs": pegs, "colors": colors, "repeats": repeats, "blanks": blanks}
    return body, lines(history, equals=draw(st.booleans())), count, first


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(small_positions())
def test_random_small_positions_count_as_the_plain_enumeration(
    browser: TestClient, position: tuple[dict[str, Any], list[str], int, list[str]]
) -> None:
    body, scored, count, first = position
    data = browser.post("/api/analyse", json={**body, "scored": scored}).json()
    assert (data["count"], data["candidates"], data["consistent"]) == (count, first, count > 0)
    if count == 0:
        assert data["message"].startswith("no code fits") and data["strategies"] == []
    elif not data["solved"]:
        assert len(data["strategies"]) == 5 and data["left_out"] == []
    params = {k: ("yes" if v is True else "no" if v is False else str(v)) for k, v in body.items()}
    shown = browser.get("/analyse", params={**params, "variant": "", "scored": "\n".join(scored)})
    assert shown.status_code == 200 and page_count(shown.text) == count


def test_the_budget_counts_what_is_spent_and_stops_what_runs_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from keypeg.analysis import cost

    clock = [100.0]
    monkeypatch.setattr("time.monotonic", lambda: clock[0])
    budget = cost.Budget(5.0, 1 << 30, "the web app allows a request")
    budget(cost.Estimate("the first tree", 0, 3.0))
    with pytest.raises(TooCostlyError, match="more than the 2 s left of the 5 s the web app allows a request"):
        budget(cost.Estimate("the second tree", 0, 3.0))
    budget.watch(0.5)  # within the budget: nothing
    clock[0] += 6.0
    with pytest.raises(TooSlowError, match="the first tree took 6 s for 50% of it") as slow:
        budget.watch(0.5)
    assert slow.value.conclusive  # it had the whole budget
    with pytest.raises(TooCostlyError, match="no time is left of the 5 s"):
        budget(cost.Estimate("the third tree", 0, 1.0))
    late = cost.Budget(5.0, 1 << 30, "allowed")
    clock[0] += 4.0
    late(cost.Estimate("a quick tree", 0, 0.1))
    clock[0] += 2.0
    with pytest.raises(TooSlowError) as cut:
        late.watch(0.9)
    assert not cut.value.conclusive  # it started with a second left: it may fit another time


def test_loading_the_kernels_is_a_few_tiny_calls() -> None:
    from keypeg.analysis import cost

    cost.load_kernels()  # every kernel the web uses, on a game of 9 codes: no error, nothing to return
    assert cost.cold_kernels(cost.WEB_KERNELS) == ()  # each one compiled (or loaded): none left for a visitor
    assert cost.OPTIMAL_SEARCH in cost.WEB_KERNELS  # the Strategies page searches small games' optimum
    cost.load_kernels(cost.EVERYDAY_KERNELS)


def test_a_cold_optimal_search_is_not_refused_for_its_compile_time(
    browser: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg import kernels

    monkeypatch.setattr(kernels, "cold_kernels", lambda wanted=kernels.EVERYDAY_KERNELS: tuple(wanted))  # a first run
    data = browser.get("/api/strategies", params={"variant": "3x4"}).json()  # within the 5 s of a request
    assert "optimal" in {r["strategy"] for r in data["results"]}, data["left_out"]
