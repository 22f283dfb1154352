"""Watch the computer play (``/watch``, ``GET /api/watch``, :mod:`keypeg.services.watch`): every step's counts
are a plain enumeration's, the game ends with the secret found within the rows or says it was not, the reason
shown is the strategy's own figure, bad input is one line and 4xx, the JSON is the page, the address replays
the game, and a game kept or read from a solved tree never waits at the analysis gate."""

from __future__ import annotations

import html
import math
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from keypeg import Rules, score
from keypeg.analysis.cost import Estimate, TooCostlyError
from keypeg.code import Code, Feedback
from keypeg.services import watch as watching
from keypeg.services.fair_share import FairShare
from keypeg.strategies import NAMES
from keypeg.variants import find_variant
from keypeg.web import analysis_api, create_app
from reference import rules_codes

CLASSIC = find_variant("classic").rules


@pytest.fixture(autouse=True)
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No game kept from another test; kept analyses in a folder of the test's own."""
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path / "cache"))
    watching.forget_games()


@pytest.fixture
def browser(tmp_path: Path) -> TestClient:
    return TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url="https://keypeg.test")


def allow(estimate: Estimate) -> None:
    """A check that lets everything through."""


@cache
def every_code(rules: Rules) -> tuple[Code, ...]:
    return tuple(rules.code(colors) for colors in rules_codes(rules))


def fitting(rules: Rules, history: list[tuple[Code, Feedback]]) -> list[Code]:
    """The codes that fit ``history``, by scoring every code with the plain scorer."""
    return [c for c in every_code(rules) if all(score(c, guess) == given for guess, given in history)]


def plain_parts(codes: list[Code], guess: Code) -> Counter[Feedback]:
    return Counter(score(code, guess) for code in codes)


SMALL = [Rules(3, 4), Rules(4, 4, rows=6), Rules(3, 5, repeats=False), CLASSIC]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(SMALL), name=st.sampled_from(NAMES), seed=st.integers(0, 2**40))
def test_every_count_is_the_plain_enumeration_and_the_game_ends_as_said(rules: Rules, name: str, seed: int) -> None:
    game = watching.watch(rules, name, seed=seed, check=allow)
    history: list[tuple[Code, Feedback]] = []
    assert 1 <= len(game.steps) <= rules.rows
    for number, step in enumerate(game.steps, 1):
        assert step.number == number
        assert step.feedback == score(game.secret, step.guess)
        assert step.before == len(fitting(rules, history))
        history.append((step.guess, step.feedback))
        assert step.after == len(fitting(rules, history))
        assert step.broke == (step.feedback == rules.win)
        assert step.reason and "\n" not in step.reason
    assert not any(step.broke for step in game.steps[:-1])
    if game.solved:
        assert game.steps[-1].guess == game.secret and game.steps[-1].after == 1
        assert f"in {len(game.steps)} guess" in game.outcome
    else:
        assert len(game.steps) == rules.rows and "did not break it" in game.outcome


def test_a_game_out_of_rows_says_the_code_held() -> None:
    rules = CLASSIC.replace(rows=2)
    game = watching.watch(rules, "worst-case", seed=3, check=allow)
    assert not game.solved and len(game.steps) == 2
    assert game.outcome == "The code held: the computer did not break it within the 2 rows."


def test_the_secret_is_drawn_from_the_seed_or_given() -> None:
    drawn = watching.watch(CLASSIC, "simple", seed=11, check=allow)
    assert watching.watch(CLASSIC, "simple", seed=11, check=allow).secret == drawn.secret
    given = watching.watch(CLASSIC, "simple", seed=11, secret="RGBY", check=allow)
    assert str(given.secret) == "RGBY" and given.steps[-1].guess == CLASSIC.parse("RGBY")


@pytest.mark.parametrize("seed", [7, 42])
def test_the_reason_is_the_strategys_own_figure(seed: int) -> None:
    """Worst-case names the largest part, expected-size the expected size, entropy the bits, most parts the
    parts: each as a plain recomputation over the codes that fit finds it."""
    for name in ("worst-case", "expected-size", "entropy", "most-parts", "optimal"):
        game = watching.watch(CLASSIC, name, seed=seed, check=allow)
        history: list[tuple[Code, Feedback]] = []
        for step in game.steps:
            codes = fitting(CLASSIC, history)
            sizes = list(plain_parts(codes, step.guess).values())
            history.append((step.guess, step.feedback))
            if len(codes) == 1:
                assert step.reason == "Only one code fits the scores: it plays it."
                continue
            assert f"splits the {len(codes):,} codes that fit into {len(sizes)} parts" in step.reason
            if name == "worst-case":
                assert step.reason.endswith(f", the largest {max(sizes):,}.")
            elif name == "expected-size":
                expected = sum(n * n for n in sizes) / len(codes)
                assert step.reason.endswith(f"leaving {expected:,.1f} codes on average.")
            elif name == "entropy":
                bits = -sum(n / len(codes) * math.log2(n / len(codes)) for n in sizes)
                assert step.reason.endswith(f": {bits:.2f} bits of information.")
            else:
                assert step.reason.endswith(f", the largest {max(sizes):,}.")


def test_worst_case_plays_a_guess_with_the_smallest_largest_part() -> None:
    """The first guess's largest part is the least any code's is (Knuth's 256 on classic): every first guess
    is one of AAAA, AAAB, AABB, AABC, ABCD with its colours and pegs renamed, which changes no part's size."""
    game = watching.watch(CLASSIC, "worst-case", seed=5, check=allow)
    codes = fitting(CLASSIC, [])
    shapes = [CLASSIC.code(colors) for colors in ((0, 0, 0, 0), (0, 0, 0, 1), (0, 0, 1, 1), (0, 0, 1, 2), (0, 1, 2, 3))]
    best = min(max(plain_parts(codes, guess).values()) for guess in shapes)
    assert best == 256 and game.steps[0].chosen.largest == best and "the largest 256." in game.steps[0].reason


def test_a_careless_player_is_said_to_forget() -> None:
    for seed in range(40):
        game = watching.watch(CLASSIC, "careless", seed=seed, check=allow)
        forgetful = [s for s in game.steps if s.forgotten]
        if forgetful:
            step = forgetful[0]
            earlier = game.steps[: step.number - 1]
            assert all(score(step.guess, earlier[k - 1].guess) != earlier[k - 1].feedback for k in step.forgotten)
            assert "It forgot the score" in step.reason
            return
    pytest.fail("no careless game of 40 forgot a score")


def test_a_kept_game_and_a_solved_tree_need_no_check() -> None:
    def refuse(estimate: Estimate) -> None:
        raise TooCostlyError("no more work")

    with pytest.raises(TooCostlyError):
        watching.watch(CLASSIC, "entropy", seed=9, check=refuse)
    first = watching.watch(CLASSIC, "entropy", seed=9, check=allow)
    again = watching.watch(CLASSIC, "entropy", seed=9, check=refuse)
    assert again.cached and not first.cached and again.steps == first.steps
    optimal = watching.watch(CLASSIC, "optimal", seed=9, check=refuse)  # the shipped optimal tree answers
    assert optimal.strategy == "optimal" and optimal.solved and optimal.note is None


# -- the web ---------------------------------------------------------------------------------------------


def page_steps(text: str) -> list[dict[str, Any]]:
    """The steps a page shows: guess, score, counts and reason, and whether each is hidden."""
    found = []
    for match in re.finditer(r'<li class="watch-step" ([^>]*)>(.*?)</li>', text, re.S):
        attributes = dict(re.findall(r'data-([a-z]+)="([^"]*)"', match.group(1)))
        reason = re.search(r'<p class="watch-why" data-reason>([^<]*)</p>', match.group(2))
        assert reason is not None
        black, white = attributes["score"].split(",")
        found.append(
            {
                "number": int(attributes["step"]),
                "guess": attributes["guess"],
                "black": int(black),
                "white": int(white),
                "before": int(attributes["before"]),
                "after": int(attributes["after"]),
                "reason": html.unescape(reason.group(1)),
                "hidden": " hidden" in match.group(1) or match.group(1).endswith("hidden"),
            }
        )
    return found


@pytest.mark.parametrize(
    "query",
    [
        {"variant": "classic", "strategy": "worst-case", "seed": "7"},
        {"variant": "classic", "strategy": "genetic", "seed": "123456789"},
        {"variant": "classic", "strategy": "kooi", "secret": "KKWW", "seed": "1"},
        {"variant": "", "pegs": "3", "colors": "5", "repeats": "no", "strategy": "careless", "seed": "4"},
        {"variant": "mini", "strategy": "optimal", "seed": "2"},
    ],
)
def test_the_json_is_the_page(browser: TestClient, query: dict[str, str]) -> None:
    shown = browser.get("/watch", params=query)
    assert shown.status_code == 200, shown.text[-500:]
    api_query = {k: ("true" if v == "yes" else "false" if v == "no" else v) for k, v in query.items() if v}
    data = browser.get("/api/watch", params=api_query).json()
    steps = page_steps(shown.text)
    assert [{k: v for k, v in s.items() if k != "hidden"} for s in steps] == [
        {k: s[k] for k in ("number", "guess", "black", "white", "before", "after", "reason")} for s in data["steps"]
    ]
    assert not any(s["hidden"] for s in steps)  # without ?step, the whole game
    text = html.unescape(shown.text)
    assert data["outcome"] in text and f'<span class="visually-hidden">{data["secret"]}</span>' in text
    assert data["seed"] == int(query["seed"])
    reloaded = browser.get(data["address"])  # the address replays the same game
    assert page_steps(reloaded.text) == steps


def test_a_new_game_gets_an_address_of_its_own(browser: TestClient) -> None:
    sent = browser.get("/watch", params={"strategy": "entropy"}, follow_redirects=False)
    assert sent.status_code == 303
    where = sent.headers["location"]
    assert re.fullmatch(r"/watch\?variant=classic&strategy=entropy&seed=\d+", where)
    first, second = browser.get(where), browser.get(where)
    assert first.status_code == second.status_code == 200 and page_steps(first.text) == page_steps(second.text)
    data = browser.get("/api/watch", params={"strategy": "entropy"}).json()
    assert data["address"].startswith("/watch?variant=classic&strategy=entropy&seed=")
    assert page_steps(browser.get(data["address"]).text)[0]["guess"] == data["steps"][0]["guess"]


def test_step_n_shows_the_first_n_steps_with_links(browser: TestClient) -> None:
    query = {"variant": "classic", "strategy": "worst-case", "seed": "7"}
    total = len(browser.get("/api/watch", params=query).json()["steps"])
    shown = browser.get("/watch", params={**query, "step": "2"})
    steps = page_steps(shown.text)
    assert [s["hidden"] for s in steps] == [False, False] + [True] * (total - 2)
    assert re.search(r'<p class="watch-end[^"]*" role="status" data-watch-end hidden>', shown.text)
    assert "step=3" in shown.text and "step=1" in shown.text and 'rel="next"' in shown.text
    last = browser.get("/watch", params={**query, "step": "99"})
    assert not any(s["hidden"] for s in page_steps(last.text)) and 'rel="next"' not in last.text


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"strategy": "nosuch", "seed": "1"}, "unknown strategy"),
        ({"secret": "ZZZZ", "seed": "1"}, "unknown colour"),
        ({"secret": "RGB", "seed": "1"}, "4"),
        ({"variant": "", "pegs": "6", "colors": "10", "seed": "1"}, "too many for watching the computer play"),
        ({"variant": "nosuch", "seed": "1"}, "unknown variant"),
        ({"seed": "-1"}, "the seed must be a whole number"),
        ({"seed": "1", "step": "x"}, "the step must be a whole number"),
    ],
)
def test_bad_input_is_one_line_and_400(browser: TestClient, query: dict[str, str], words: str) -> None:
    shown = browser.get("/watch", params=query)
    assert shown.status_code == 400
    error = re.search(r'<p class="error" role="alert">([^<]*)</p>', shown.text)
    assert error is not None and "\n" not in error.group(1) and words in html.unescape(error.group(1))
    api_query = {k: v for k, v in query.items() if v and k != "step"}
    answer = browser.get("/api/watch", params=api_query)
    if "step" not in query:
        assert answer.status_code in (400, 422) and "\n" not in answer.json()["error"]
        assert answer.status_code == 422 or words in answer.json()["error"]


def test_work_beyond_the_budget_is_refused_with_the_reason(browser: TestClient) -> None:
    query = {"variant": "", "pegs": "5", "colors": "8", "strategy": "two-step", "seed": "1"}
    shown = browser.get("/watch", params=query)
    assert shown.status_code == 400 and "would take" in shown.text and "the web app allows a request" in shown.text
    answer = browser.get("/api/watch", params={k: v for k, v in query.items() if v})
    assert answer.status_code == 400 and "would take" in answer.json()["error"]


def test_the_budget_counts_the_time_taken_not_every_estimate(
    browser: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The genetic codebreaker's decisions are estimated at 0.9 s each, and take a tenth of that: three of
    them pass a budget of 2.5 s (each checked against the time really left), and a budget of 0.5 s
    refuses the first."""
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (2.5, 1 << 30))
    answer = browser.get("/api/watch", params={"strategy": "genetic", "seed": "1"})
    assert answer.status_code == 200, answer.text
    assert sum(1 for step in answer.json()["steps"] if step["before"] > 2) >= 3  # 2.7 s of estimates
    monkeypatch.setattr(analysis_api, "WEB_BUDGET", (0.5, 1 << 30))
    refused = browser.get("/api/watch", params={"strategy": "genetic", "seed": "4"})
    assert refused.status_code == 400 and "would take" in refused.json()["error"]


def test_a_kept_game_never_waits_at_the_gate(tmp_path: Path) -> None:
    """With no place for an analysis, a game to be worked out is 429; one kept, or one the solved optimal
    tree answers, is served."""
    closed = TestClient(
        create_app(f"sqlite:///{tmp_path / 'closed.sqlite3'}", share=FairShare(analyses_at_once=0, waiting=0)),
        base_url="https://keypeg.test",
    )
    query = {"strategy": "most-parts", "seed": "17"}
    busy = closed.get("/api/watch", params=query)
    assert busy.status_code == 429 and "Retry-After" in busy.headers
    assert closed.get("/watch", params=query).status_code == 429
    watching.watch(CLASSIC, "most-parts", seed=17, check=allow)  # kept, as an earlier request would have
    assert closed.get("/api/watch", params=query).json()["cached"] is True
    assert closed.get("/watch", params=query).status_code == 200
    assert closed.get("/api/watch", params={"strategy": "optimal", "seed": "17"}).status_code == 200


def test_every_strategy_can_be_watched_on_classic(browser: TestClient) -> None:
    for name in NAMES:
        data = browser.get("/api/watch", params={"strategy": name, "seed": "2"}).json()
        assert data["strategy"] == name and data["solved"] and data["note"] is None, data
        assert all(s["ranked"] or s["over"] == "unavailable" for s in data["steps"])
