"""The best opening: every distinct first guess up to symmetry, its tree, the best kept, and the cache."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from keypeg import Rules
from keypeg.analysis import openings as module
from keypeg.analysis.openings import Opening, best, best_opening, distinct_openings, opening_count, openings
from keypeg.cli import cli
from keypeg.strategies import make_strategy
from keypeg.strategy_tree import TreeStats

CLASSIC = Rules(4, 6)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


# -- the openings are the orbits of the game's symmetries ------------------------------------------


def all_codes(rules: Rules) -> Iterator[tuple[int, ...]]:
    """Every code, in plain Python (a blank is one more colour, as the scorer treats it)."""
    colours = range(rules.num_colors)
    if rules.repeats:
        return itertools.product(colours, repeat=rules.pegs)
    return itertools.permutations(colours, rules.pegs)


def orbits(rules: Rules) -> list[set[tuple[int, ...]]]:
    """The classes of codes that every permutation of the colours and of the pegs maps onto each other,
    by brute force."""
    pegs, colours = rules.pegs, rules.num_colors
    seen: set[tuple[int, ...]] = set()
    found = []
    for code in all_codes(rules):
        if code in seen:
            continue
        orbit = {
            tuple(relabel[code[p]] for p in order)
            for relabel in itertools.permutations(range(colours))
            for order in itertools.permutations(range(pegs))
        }
        seen |= orbit
        found.append(orbit)
    return found


SMALL_GAMES = [
    Rules(1, 3),
    Rules(2, 2),
    Rules(3, 2),
    Rules(3, 3),
    Rules(4, 2),
    Rules(4, 3),
    Rules(4, 4),
    Rules(3, 2, blanks=True),
    Rules(2, 4, repeats=False),
    Rules(3, 4, repeats=False),
    Rules(3, 3, repeats=False, blanks=True),
]


@pytest.mark.parametrize("rules", SMALL_GAMES, ids=repr)
def test_one_opening_per_orbit(rules: Rules) -> None:
    """The openings are exactly one code per orbit, each the smallest of its orbit (the largest with
    ``largest``), and as many as the cost guard counts without enumerating."""
    classes = orbits(rules)
    for largest in (False, True):
        found = [code.colors for code in distinct_openings(rules, largest=largest)]
        assert len(found) == len(classes) == opening_count(rules)
        pick = max if largest else min
        assert sorted(found) == sorted(pick(orbit) for orbit in classes)


@pytest.mark.parametrize("feedback", ["black", "colours"])
@pytest.mark.parametrize("game", [(3, 3), (4, 3), (3, 5)], ids=str)
def test_openings_under_other_feedbacks(game: tuple[int, int], feedback: str) -> None:
    """Black pegs only: the same symmetries, the same openings. Colours only: a code is its multiset of
    colours (written in colour order), permuted by the colours alone; the openings are the same patterns."""
    rules = Rules(*game, feedback=feedback)
    pegs, colours = game
    if feedback == "black":
        expected = sorted(min(orbit) for orbit in orbits(Rules(*game)))
    else:
        multisets = set(itertools.combinations_with_replacement(range(colours), pegs))
        classes = []
        while multisets:
            code = min(multisets)
            orbit = {tuple(sorted(relabel[c] for c in code)) for relabel in itertools.permutations(range(colours))}
            multisets -= orbit
            classes.append(min(orbit))
        expected = sorted(classes)
    assert [code.colors for code in distinct_openings(rules)] == expected == sorted(expected)
    found = openings(rules, make_strategy("worst-case"))
    assert all(o.stats.secrets == rules.size for o in found)
    assert best(found).total == min(o.total for o in found)


# The GPU solver's published lists of unique initial guesses (mikemag/Mastermind,
# docs/initial_guesses/Initial_Guesses.md, "Unique initial guess patterns for various game sizes").
PUBLISHED_PATTERNS = {
    (4, 6): "1111, 1112, 1122, 1123, 1234",
    (5, 3): "11111, 11112, 11122, 11123, 11223",
    (6, 2): "111111, 111112, 111122, 111222",
    (5, 8): "11111, 11112, 11122, 11123, 11223, 11234, 12345",
}
PUBLISHED_COUNTS = {(7, 4): 11, (7, 7): 15, (8, 3): 10, (8, 5): 18, (8, 8): 22}


@pytest.mark.parametrize("game", PUBLISHED_PATTERNS, ids=str)
def test_published_opening_patterns(game: tuple[int, int]) -> None:
    rules = Rules(*game)
    expected = ["".join("ABCDEFGH"[int(d) - 1] for d in code) for code in PUBLISHED_PATTERNS[game].split(", ")]
    assert [str(code) for code in distinct_openings(rules)] == expected


@pytest.mark.parametrize("game", PUBLISHED_COUNTS, ids=str)
def test_published_opening_counts(game: tuple[int, int]) -> None:
    assert opening_count(Rules(*game)) == PUBLISHED_COUNTS[game]


def test_without_repeats_there_is_one_opening() -> None:
    assert [str(code) for code in distinct_openings(Rules(4, 10, repeats=False))] == ["ABCD"]


# -- the best: least total, then worst case, then code order ---------------------------------------


def opening(rules: Rules, text: str, total: int, worst: int) -> Opening:
    """An opening with these figures (secrets solved in round ``worst`` and one earlier round)."""
    rest = rules.size - 1
    first = total - worst
    distribution = {worst: 1, first // rest: rest} if first % rest == 0 else {worst: 1}
    stats = TreeStats(rules.size, total, worst, distribution)
    return Opening(rules.parse(text), stats, 0.0, 0.0)


def test_best_breaks_ties_by_worst_case_then_code_order() -> None:
    found = [
        opening(CLASSIC, "AAAB", 5800, 6),
        opening(CLASSIC, "AABB", 5800, 5),
        opening(CLASSIC, "AABC", 5800, 5),
        opening(CLASSIC, "ABCD", 5801, 4),
    ]
    assert str(best(found).guess) == "AABB"
    assert str(best(found[2:]).guess) == "AABC"
    assert str(best([found[0], found[3]]).guess) == "AAAB"


@given(st.lists(st.tuples(st.integers(5000, 5010), st.integers(4, 7)), min_size=1, max_size=5))
def test_best_is_the_least_by_total_worst_and_order(figures: list[tuple[int, int]]) -> None:
    codes = ["AAAA", "AAAB", "AABB", "AABC", "ABCD"]
    found = [opening(CLASSIC, codes[k], total, worst) for k, (total, worst) in enumerate(figures)]
    expected = min(range(len(found)), key=lambda k: (figures[k][0], figures[k][1], k))
    assert best(found) is found[expected]


# -- published per-opening figures ------------------------------------------------------------------

# The GPU solver's whole trees from every opening of 4x6 (mikemag/Mastermind, Magruder 2020:
# docs/initial_guesses/mastermind_run_stats_find_ig_4p_20201205_175810_6bacb03.csv, totals from its
# histograms; its Knuth is worst-case, all codes as guesses). Its own-opening figures are Kooi's (2005)
# Table 7: worst-case 5,801 from AABB, most parts 5,668 from AABC.
PUBLISHED_4X6 = {
    "worst-case": {"AAAA": (6564, 6), "AAAB": (5905, 6), "AABB": (5801, 5), "AABC": (5803, 6), "ABCD": (5803, 6)},
    "most-parts": {"AAAA": (6365, 7), "AAAB": (5836, 6), "AABB": (5728, 6), "AABC": (5668, 6), "ABCD": (5759, 6)},
}


@pytest.mark.parametrize("name", PUBLISHED_4X6)
def test_published_totals_of_every_4x6_opening(name: str) -> None:
    found = openings(CLASSIC, make_strategy(name))
    assert {str(o.guess): (o.total, o.worst) for o in found} == PUBLISHED_4X6[name]


def test_knuth_aabb_is_the_only_opening_that_always_wins_in_five() -> None:
    """Knuth (1977): with AABB first, worst-case breaks every code in at most five guesses; the other
    first guesses need six."""
    found = openings(CLASSIC, make_strategy("knuth"))
    assert [str(o.guess) for o in found if o.worst <= 5] == ["AABB"]
    assert str(best(found).guess) == "AABB"


# -- --first best is the least of --first CODE -------------------------------------------------------


@pytest.mark.parametrize("name", ["expected-size", "entropy"])
def test_first_best_is_the_least_of_every_first_code(name: str) -> None:
    codes = [str(code) for code in distinct_openings(CLASSIC)]
    figures = {}
    for code in codes:
        status, out, _ = run("analyze", "-s", name, "-p", "4", "-c", "6", "--first", code, "--json")
        assert status == 0
        data = json.loads(out)
        figures[code] = (data["total"], data["max"])
    status, out, err = run("analyze", "-s", name, "-p", "4", "-c", "6", "--first", "best", "--json")
    assert status == 0
    data = json.loads(out)
    chosen = min(codes, key=lambda code: (*figures[code], codes.index(code)))
    assert data["conventions"]["first"] == chosen
    assert (data["total"], data["max"]) == figures[chosen]
    assert f"best opening for {name}: {chosen}" in err
    assert chosen == "AABC"  # entropy's own opening is ABCD (Kooi, 5,722); AABC does better: 5,680


def test_first_best_in_next_and_after_scored_guesses() -> None:
    status, out, _ = run("next", "-s", "entropy", "-p", "4", "-c", "6", "--first", "best")
    assert (status, out.strip()) == (0, "AABC")
    status, out, err = run("next", "-s", "entropy", "-p", "4", "-c", "6", "--first", "BEST", "AABC=1,1")
    assert status == 0 and "best opening" not in err  # the first guess is played already: nothing worked out


def test_openings_command_table_and_json() -> None:
    status, out, _ = run("openings", "-s", "knuth", "-s", "kooi", "-p", "4", "-c", "6")
    assert status == 0
    assert "best opening for worst-case: AABB (total 5,801, worst case 5)" in out
    assert "best opening for most-parts: AABC (total 5,668, worst case 6)" in out
    chosen = best_opening(Rules(3, 3), make_strategy("kooi", pool="consistent"))
    status, out, _ = run("openings", "-s", "kooi", "-p", "3", "-c", "3", "--pool", "consistent", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["conventions"]["pool"] == "consistent"
    assert [o["guess"] for o in data["openings"]] == ["AAA", "AAB", "ABC"]
    assert data["best"] == str(chosen.guess)
    assert all(o["cached"] for o in data["openings"])  # best_opening kept them


# -- the cache and the cost guard ----------------------------------------------------------------------


def figures(found: tuple[Opening, ...]) -> list[tuple[str, TreeStats]]:
    return [(str(o.guess), o.stats) for o in found]


def test_second_call_reads_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    rules, strategy = Rules(3, 4), make_strategy("most-parts")
    first = openings(rules, strategy)
    assert not any(o.cached for o in first)

    def no_tree(*args: object, **kwargs: object) -> None:
        raise AssertionError("a tree was grown again")

    monkeypatch.setattr("keypeg.analysis.tree.build_tree", no_tree)
    again = openings(rules, strategy)
    assert all(o.cached for o in again) and figures(again) == figures(first)
    with pytest.raises(AssertionError, match="grown again"):
        openings(rules, strategy, use_cache=False)
    other = make_strategy("most-parts", tie="last")  # other conventions, another entry
    with pytest.raises(AssertionError, match="grown again"):
        openings(rules, other)


def test_a_damaged_cache_is_worked_out_again() -> None:
    rules, strategy = Rules(3, 3), make_strategy("worst-case")
    expected = openings(rules, strategy)
    path = module.cache_path(rules, strategy)
    data = json.loads(path.read_text())
    data["openings"][0]["distribution"] = {"1": 5}  # not every secret
    path.write_text(json.dumps(data))
    found = openings(rules, strategy)
    assert [o.cached for o in found] == [False, True, True]
    assert figures(found) == figures(expected)
    path.write_text("{not json")
    assert not any(o.cached for o in openings(rules, strategy))


def test_the_cost_guard_counts_every_opening_not_kept() -> None:
    from keypeg.analysis.cost import analyze_cost

    rules, strategy = Rules(4, 6), make_strategy("entropy")
    one = analyze_cost(rules, "entropy")
    assert module.openings_cost(rules, strategy).seconds == pytest.approx(5 * one.seconds)
    openings(rules, strategy)
    assert module.openings_cost(rules, strategy).seconds == 0
    assert module.openings_cost(rules, strategy, use_cache=False).seconds == pytest.approx(5 * one.seconds)


def test_too_costly_a_job_is_one_line_and_no_cache_works_it_out_again() -> None:
    status, _, err = run("openings", "-p", "8", "-c", "12")
    assert status == 2
    assert err.startswith("error: the worst-case trees of 22 openings") and err.count("\n") == 1
    run("openings", "-p", "3", "-c", "3")
    status, out, _ = run("openings", "-p", "3", "-c", "3", "--no-cache", "--json")
    assert status == 0 and not any(o["cached"] for o in json.loads(out)["openings"])
