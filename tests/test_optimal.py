"""The optimal codebreaker: brute force agrees on small games; the published optima are reproduced."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from keypeg import Rules
from keypeg.analysis.export import verify_tree
from keypeg.cli import cli
from keypeg.errors import KeypegError
from keypeg.feedback import score_colors
from keypeg.kernels import CodeSpace
from keypeg.strategies import make_strategy
from keypeg.strategies.optimal import BIG, OptimalSolver, SearchProgress, lower_bounds, secret_set


@cache
def brute_force(rules: Rules, consistent_only: bool = False) -> float:
    """The fewest total guesses by trying every guess at every node (plain Python, no pruning)."""
    codes = [
        c
        for c in itertools.product(range(rules.num_colors), repeat=rules.pegs)
        if rules.repeats or len(set(c)) == len(c)
    ]
    win = (rules.pegs, 0)

    @cache
    def best(secrets: frozenset[tuple[int, ...]], rounds: int) -> float:
        if not secrets:
            return 0
        if rounds == 0:
            return float("inf")
        result = float("inf")
        for guess in sorted(secrets) if consistent_only else codes:
            parts: dict[tuple[int, int], set[tuple[int, ...]]] = {}
            for secret in secrets:
                parts.setdefault(score_colors(secret, guess), set()).add(secret)
            if len(parts) == 1 and win not in parts:
                continue  # learns nothing
            total = len(secrets) + sum(best(frozenset(p), rounds - 1) for f, p in parts.items() if f != win)
            result = min(result, total)
        return result

    return best(frozenset(codes), rules.rows)


SMALL = [
    Rules(2, 2),
    Rules(2, 3),
    Rules(3, 2),
    Rules(3, 3),
    Rules(2, 4),
    Rules(1, 5),
    Rules(2, 3, repeats=False),
    Rules(3, 4, repeats=False),
    Rules(2, 2, blanks=True),
    Rules(3, 3, rows=4),
    Rules(2, 4, rows=3),
    Rules(2, 4, rows=4),
    Rules(3, 2, rows=3),
    Rules(4, 2),
    Rules(4, 2, rows=4),  # the bound's branching is the game's own (6 answers, not the rules' 13): at the rows' edge
    Rules(4, 2, rows=3),
]


@pytest.mark.parametrize("rules", SMALL, ids=str)
def test_branch_and_bound_equals_brute_force(rules: Rules) -> None:
    expected = brute_force(rules)
    solver = OptimalSolver(rules)
    if expected == float("inf"):
        assert solver.solve() >= BIG
        return
    tree = solver.tree()
    assert tree.stats.total == expected
    assert tree.stats.max <= rules.rows
    assert verify_tree(tree).ok


@pytest.mark.parametrize("rules", [Rules(2, 3), Rules(3, 3), Rules(2, 4), Rules(3, 4, repeats=False)], ids=str)
def test_consistent_pool_equals_brute_force(rules: Rules) -> None:
    tree = OptimalSolver(rules, pool="consistent").tree()
    assert tree.stats.total == brute_force(rules, consistent_only=True)


@st.composite
def tiny_rules(draw: st.DrawFn) -> Rules:
    """Rule sets of 1 to 3 pegs and 2 to 4 colours, repeats or not, of at most 27 codes (the plain
    reference takes long above), with 1 to 6 rows."""
    pegs, colours, repeats = draw(st.integers(1, 3)), draw(st.integers(2, 4)), draw(st.booleans())
    assume(pegs <= colours or repeats)
    rules = Rules(pegs, colours, repeats=repeats, rows=draw(st.integers(1, 6)))
    assume(rules.size <= 27)
    return rules


@settings(max_examples=40)
@given(tiny_rules(), st.booleans())
def test_search_equals_the_plain_reference(rules: Rules, consistent: bool) -> None:
    expected = brute_force(rules, consistent_only=consistent)
    solver = OptimalSolver(rules, pool="consistent" if consistent else "all")
    if expected == float("inf"):
        assert solver.solve() >= BIG
        return
    tree = solver.tree()
    assert tree.stats.total == expected
    assert tree.stats.max <= rules.rows
    assert verify_tree(tree).ok


@settings(max_examples=20)
@given(tiny_rules())
def test_fewest_rounds_equal_the_plain_reference(rules: Rules) -> None:
    """The fewest guesses that always suffice, then the least total within them."""
    fewest = [r for r in range(1, rules.rows + 1) if brute_force(replace(rules, rows=r)) < float("inf")]
    solver = OptimalSolver(rules)
    if not fewest:
        with pytest.raises(KeypegError, match="within"):
            solver.fewest_rounds()
        return
    assert solver.fewest_rounds() == (fewest[0], brute_force(replace(rules, rows=fewest[0])))


def test_fewest_rounds_classic() -> None:
    """Koyama and Lai: within 5 guesses the optimum is 5626, one more than the 5625 that needs a 6th."""
    assert OptimalSolver(Rules(4, 6)).fewest_rounds() == (5, 5626)


@pytest.mark.parametrize("rules", [Rules(4, 4), Rules(3, 5), Rules(4, 4, rows=4)], ids=str)
def test_threads_prove_the_same_optimum(rules: Rules) -> None:
    alone = OptimalSolver(rules, threads=1).tree()
    together = OptimalSolver(rules, threads=2).tree()
    assert together.stats.total == alone.stats.total
    assert together.stats.max <= rules.rows
    assert verify_tree(together).ok


def test_a_thread_backs_up_to_the_set_another_thread_solved() -> None:
    """A thread's path holds, by depth, the set it is inside (two hashes) and its budget: it backs up to
    the shallowest one the shared table answers, exactly or with a bound at least that budget."""
    import numpy as np

    from keypeg.kernels import _optimal

    table = np.zeros((64, 4), dtype=np.int64)
    path = np.array([[11, 21, 100], [12, 22, 50], [13, 23, 30], [0, 0, 0]], dtype=np.int64)
    assert _optimal._solved_above(table, path, 0, 3) == -1
    _optimal._tt_put(table, 13, 23, 29, 0, -1, 5)  # a bound below the budget answers nothing
    assert _optimal._solved_above(table, path, 0, 3) == -1
    _optimal._tt_put(table, 12, 22, 50, 0, -1, 10)  # a bound at the budget does
    assert _optimal._solved_above(table, path, 0, 3) == 1
    _optimal._tt_put(table, 11, 21, 120, 1, 7, 20)  # an exact answer, above the bound
    assert _optimal._solved_above(table, path, 0, 3) == 0
    assert _optimal._solved_above(table, path, 2, 3) == -1  # only from the search's root down


def test_a_thread_gives_up_a_guess_other_threads_proved_loses() -> None:
    """A thread's path also holds, by depth, the guess it tries: the set's size, the best total when
    the guess was taken up, and each part's hashes and lower bound. Once the table's bounds for the
    parts (raised by other threads) add up to that best, the guess loses and the thread backs up."""
    import numpy as np

    from keypeg.kernels import _optimal

    table = np.zeros((64, 4), dtype=np.int64)
    path = np.zeros((3, _optimal.GUESS + 3 * 3), dtype=np.int64)
    path[1, 3:6] = 10, 40, 1  # 10 codes, best 40 so far, a guess under way
    path[1, _optimal.GUESS :] = [5, 15, 12, 6, 16, 8, 0, 0, 3]  # two parts in the table, one of two codes
    assert _optimal._refuted_above(table, path, 0, 2) == -1  # 10 + 12 + 8 + 3 = 33 < 40
    _optimal._tt_put(table, 5, 15, 20, 1, 4, 6)  # the first part solved: 20 guesses
    assert _optimal._refuted_above(table, path, 0, 2) == 1  # 10 + 20 + 8 + 3 = 41 >= 40
    assert _optimal._refuted_above(table, path, 0, 1) == -1  # a node at depth 1 looks above it only
    assert _optimal._refuted_above(table, path, 2, 3) == -1  # and from the search's root down
    path[1, 5] = 0  # no guess under way there
    assert _optimal._refuted_above(table, path, 0, 3) == -1

    known = np.array([12, 8, 3], dtype=np.int64)
    keys = np.array([[5, 15], [6, 16], [0, 0]], dtype=np.int64)
    counts = np.array([6, 4, 2], dtype=np.int64)
    left = np.array([0, 1, 2], dtype=np.int64)
    assert _optimal._refreshed(table, left, keys, counts, known) == 20 + 8 + 3
    assert known.tolist() == [20, 8, 3]


def test_progress_counts_no_more_parts_than_there_are(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads put off a part the other is searching to the end of their list; the parts
    reported solved are still among the first guess's parts (it said "parts 15/13")."""
    import keypeg.strategies.optimal as optimal_module

    monkeypatch.setattr(optimal_module, "POLL_SECONDS", 0.0005)
    seen: list[SearchProgress] = []
    for _ in range(5):
        OptimalSolver(Rules(4, 6), threads=2, progress=seen.append).solve()
    assert any(p.parts for p in seen)
    assert all(p.parts_done <= p.parts and p.first_guesses_done <= p.first_guesses for p in seen)


@pytest.mark.parametrize(
    ("progress", "proved"),
    [
        (SearchProgress(0, float("inf"), 10407, 0.1, 0, 0), None),  # the best fitting guess, tried first
        (SearchProgress(122_495, 11228, 10766, 2.9, 3, 5, 7, 10), None),
        (SearchProgress(987_654_321, 123_456, 123_400, 86_399.9, 1_295, 1_296, 26, 27), None),
        (SearchProgress(987_654_321, float("inf"), 0, 1.0, 0, 0), 123_456),  # the strategy read out after
    ],
)
def test_progress_line_fits_80_columns(progress: SearchProgress, proved: int | None) -> None:
    from keypeg.cli.optimal import progress_line

    lines = progress_line(progress, proved).splitlines()
    assert all(len(line) <= 80 for line in lines)
    shown = " ".join(lines)
    assert f"{progress.nodes:,}" in shown and "0/0" not in shown
    if proved is not None:
        assert f"{proved:,}" in shown and "none yet" not in shown
    elif progress.first_guesses:
        assert f"{progress.first_guesses_done:,}/{progress.first_guesses:,}" in shown
        assert f"{progress.parts_done}/{progress.parts}" in shown and f"{int(progress.best):,}" in shown


def test_a_busy_machine_gets_one_thread(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The threads of the search: the cores other work leaves idle now, read from Linux's count of
    runnable threads less this process's own (the load average, which remembers the last minute, only
    where that count is missing)."""
    import os

    import numba

    from keypeg import machine
    from keypeg.kernels import ExactSearch

    loadavg = tmp_path / "loadavg"
    monkeypatch.setattr(machine, "LOADAVG", loadavg)
    tasks = tmp_path / "task"
    monkeypatch.setattr(machine, "TASKS", tasks)

    def own_threads(*states: str) -> None:
        for old in tasks.glob("*/stat"):
            old.unlink()
        for number, state in enumerate(states, start=100):
            (tasks / str(number)).mkdir(parents=True, exist_ok=True)
            (tasks / str(number) / "stat").write_text(f"{number} (py thread) x) {state} 1 2 3\n")

    own_threads("R", "S", "S")  # the caller, two sleeping threads
    monkeypatch.setattr(os, "getloadavg", lambda: (1000.0, 1000.0, 1000.0))  # a minute of work gone by
    loadavg.write_text("1000.00 1000.00 1000.00 1/300 4242\n")  # nothing else runnable now
    assert machine.busy_cores() == 0.0
    assert ExactSearch.threads() == max(1, min(numba.get_num_threads(), machine.cores()))
    loadavg.write_text(f"0.00 0.00 0.00 {machine.cores() + 1}/300 4242\n")  # every core busy elsewhere
    assert machine.busy_cores() == machine.cores()
    assert ExactSearch.threads() == 1
    own_threads("R", "R", "R", "S")  # this process's workers, still spinning after a parallel kernel
    loadavg.write_text("0.00 0.00 0.00 3/300 4242\n")  # ... are all that runs: not other work
    assert machine.busy_cores() == 0.0
    assert ExactSearch.threads() == max(1, min(numba.get_num_threads(), machine.cores()))
    loadavg.write_text("0.00 0.00 0.00 4/300 4242\n")  # and one thread of another process
    assert machine.busy_cores() == 1.0
    loadavg.unlink()  # no such file: the load average
    assert machine.busy_cores() == 1000.0 and ExactSearch.threads() == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert machine.busy_cores() == 0.0 and ExactSearch.threads() >= 1


def test_a_full_table_costs_time_not_the_optimum(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a transposition table of 64 slots, sets keep evicting each other: the tree's walk finds
    sets gone and solves them again."""
    from keypeg import limits

    rules = Rules(4, 4)
    expected = OptimalSolver(rules).solve()
    monkeypatch.setattr(limits, "optimal_table_slots", lambda codes: 64)
    solver = OptimalSolver(rules, threads=2)
    tree = solver.tree()
    assert len(solver._search) <= 64
    assert tree.stats.total == expected
    assert verify_tree(tree).ok


def test_too_few_rows_is_a_clear_error() -> None:
    assert brute_force(Rules(3, 3, rows=3)) == float("inf")
    assert OptimalSolver(Rules(3, 3, rows=3)).solve() >= BIG
    code = CliRunner().invoke(cli, ["optimal", "-p", "3", "-c", "3", "--rows", "3", "--no-save"])
    assert code.exit_code == 2
    assert "within 3 guesses" in code.stderr


@pytest.mark.parametrize(
    "rules",
    [
        Rules(2, 2),
        Rules(3, 2),
        Rules(4, 2),
        Rules(5, 2),
        Rules(4, 3),
        Rules(3, 3, repeats=False),
        Rules(2, 2, blanks=True),
    ],
    ids=str,
)
def test_the_bounds_branching_is_the_most_answers_any_guess_gets(rules: Rules) -> None:
    """The counting bound's branching: the most non-winning answers of one guess over every code, by
    scoring every guess against every code in plain Python (the search scores one guess per class)."""
    from keypeg.feedback import score
    from keypeg.strategies.optimal import most_answers

    space = CodeSpace.of(rules)
    codes = [space.code(i) for i in range(space.size)]
    most = max(len({score(s, g) for s in codes} - {rules.win}) for g in codes)
    assert most_answers(space) == most <= len(rules.feedbacks()) - 1
    assert OptimalSolver(rules).branching == most


def test_lower_bounds() -> None:
    bounds = lower_bounds(20, 3, None)
    # 1 code in round 1, 3 in round 2, 9 in round 3, ...
    assert bounds[:6].tolist() == [0, 1, 3, 5, 7, 10]
    limited = lower_bounds(20, 3, 2)
    assert limited[4] == 7 and limited[5] >= BIG


def test_optimal_is_no_worse_than_heuristics() -> None:
    from keypeg.analysis.tree import build_tree

    rules = Rules(3, 5)
    optimum = OptimalSolver(rules).solve()
    for name in ("worst-case", "expected-size", "entropy", "most-parts"):
        assert optimum <= build_tree(make_strategy(name), rules).stats.total


@pytest.fixture(scope="module")
def classic_solver() -> OptimalSolver:
    return OptimalSolver(Rules(4, 6))


def test_koyama_lai_classic(classic_solver: OptimalSolver) -> None:
    """Koyama and Lai (1993): 5625 guesses over the 1296 secrets, at most 6."""
    tree = classic_solver.tree()
    assert tree.stats.total == 5625
    assert tree.stats.max == 6
    assert verify_tree(tree).ok


@pytest.mark.slow
@pytest.mark.parametrize(
    ("rules", "total", "worst"),
    [(Rules(4, 7), 11228, 6), (Rules(4, 10, repeats=False), 26274, 7)],
    ids=["4x7", "bulls-and-cows"],
)
def test_published_optima_searched(rules: Rules, total: int, worst: int) -> None:
    """Searched, not loaded: 4x7 (Ville, 2013) and bulls-and-cows, 4 of 10 digits without repeats."""
    tree = OptimalSolver(rules).tree()
    assert (tree.stats.total, tree.stats.max) == (total, worst)
    assert verify_tree(tree).ok


def test_codemaker_minimax_set() -> None:
    """The seed article: over the 1290 codes of two or more colours, the optimum is 5600."""
    rules = Rules(4, 6)
    secrets = secret_set(CodeSpace.of(rules), "two-or-more-colours")
    assert secrets is not None and secrets.size == 1290
    assert OptimalSolver(rules, secrets=secrets).solve() == 5600


def test_cli_optimal_saves_and_next_uses_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["total"] == OptimalSolver(Rules(3, 4)).solve()
    saved = Path(data["saved"])
    assert saved.parent == tmp_path
    first = json.loads(saved.read_text())["tree"]["guess"]
    result = runner.invoke(cli, ["next", "-s", "optimal", "-p", "3", "-c", "4", "--json"])
    assert json.loads(result.stdout)["guess"] == first
    verified = runner.invoke(cli, ["verify", str(saved)])
    assert verified.exit_code == 0 and "verified" in verified.stdout


def _no_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make any optimal search fail the test."""

    def searched(self: OptimalSolver, upper: float = float("inf")) -> int:
        raise AssertionError("searched again")

    monkeypatch.setattr(OptimalSolver, "solve", searched)


def test_cli_optimal_reuses_the_saved_optimum_unless_restart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    runner = CliRunner()
    first = json.loads(runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--json"]).stdout)
    assert first["source"] == "search" and first["nodes"] > 0
    saved = first["saved"]
    with monkeypatch.context() as patched:
        _no_search(patched)
        again = runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--json"])
        assert again.exit_code == 0, again.output
        data = json.loads(again.stdout)
        assert (data["source"], data["file"]) == ("saved", saved)
        assert (data["total"], data["distribution"]) == (first["total"], first["distribution"])
        text = runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--rows", "5"])
        assert text.exit_code == 0, text.output
        assert f"the optimum saved in {saved} on " in text.stdout and "--restart searches again" in text.stdout
        other = runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--pool", "consistent", "--json"])
        assert "searched again" in other.stderr  # another pool: nothing saved, so it searches
    restarted = json.loads(runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--restart", "--json"]).stdout)
    assert restarted["source"] == "search" and restarted["total"] == first["total"]


def test_cli_optimal_passes_over_a_saved_optimum_that_does_not_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache is a folder anyone may edit: a saved tree with a guess changed is not shown as the
    optimum, nor played from; the search runs again and saves a sound one."""
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    runner = CliRunner()
    first = json.loads(runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--json"]).stdout)
    saved = Path(first["saved"])
    data = json.loads(saved.read_text())
    branch = next(child for child in data["tree"]["next"].values() if "next" in child)
    branch["guess"] = data["tree"]["guess"]  # the first guess again: it splits nothing there
    saved.write_text(json.dumps(data))
    again = json.loads(runner.invoke(cli, ["optimal", "-p", "3", "-c", "4", "--json"]).stdout)
    assert again["source"] == "search" and again["total"] == first["total"]
    from keypeg import Rules
    from keypeg.storage import load_optimal_tree

    reloaded = load_optimal_tree(Rules(3, 4), "all")
    assert reloaded is not None and reloaded.stats.total == first["total"]


def test_cli_optimal_shows_the_shipped_optimum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    _no_search(monkeypatch)
    result = CliRunner().invoke(cli, ["optimal", "--variant", "bulls-and-cows", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["source"], data["total"], data["max"]) == ("shipped", 26274, 7)
    assert Path(data["file"]).parent.name == "data"
    text = CliRunner().invoke(cli, ["optimal"])
    assert "the optimum shipped with keypeg" in text.stdout and "5,625" in text.stdout
    assert "from RRGB" in text.stdout  # in the rules' own symbols, whatever the shipped file's
    assert "seconds" not in text.stdout  # nothing was timed: no "0.00" for a search that did not run


def test_an_exported_optimum_of_a_secret_set_verifies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree over the codes of two or more colours is replayed against those codes, not all."""
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    tree = tmp_path / "t.json"
    args = ["optimal", "-p", "3", "-c", "3", "--secrets", "two-or-more-colours", "--export", str(tree)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    verified = CliRunner().invoke(cli, ["verify", str(tree), "--json"])
    assert verified.exit_code == 0, verified.output
    data = json.loads(verified.stdout)
    assert data["ok"] and data["secrets"] == 24 == 3**3 - 3


def _interrupted(rules: Rules, monkeypatch: pytest.MonkeyPatch) -> OptimalSolver:
    """A solver whose search was stopped by Ctrl-C (a real SIGINT) once it had searched 1,000 sets."""
    import signal

    import keypeg.strategies.optimal as optimal_module

    def interrupt(progress: SearchProgress) -> None:
        if progress.nodes >= 1000:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(optimal_module, "POLL_SECONDS", 0.002)
    solver = OptimalSolver(rules, progress=interrupt)
    with pytest.raises(KeyboardInterrupt):
        solver.solve()
    return solver


def test_ctrl_c_stops_and_the_search_resumes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    rules = Rules(5, 4)
    fresh = OptimalSolver(rules)
    expected = fresh.solve()
    stopped = _interrupted(rules, monkeypatch)
    assert 0 < stopped.nodes < fresh.nodes
    saved = stopped.checkpoint()
    assert saved is not None and saved.is_file()
    stopped.progress = None
    assert stopped.solve() == expected  # the same solver goes on after Ctrl-C
    resumed = OptimalSolver(rules, resume=True)
    assert resumed.resumed > 0
    assert resumed.solve() == expected
    assert resumed.nodes < fresh.nodes
    assert resumed.tree().stats.total == expected
    resumed.forget_checkpoint()
    assert not saved.exists()


def test_cli_resumes_and_refuses_a_corrupt_checkpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    rules = Rules(5, 4)
    path = _interrupted(rules, monkeypatch).checkpoint()
    assert path is not None
    runner = CliRunner()
    result = runner.invoke(cli, ["optimal", "-p", "5", "-c", "4", "--no-save", "--json"])
    assert result.exit_code == 0, result.output
    assert "resuming" in result.stderr
    assert json.loads(result.stdout)["total"] == OptimalSolver(rules).solve()
    assert not path.exists()
    path.write_bytes(b"not a saved search")
    broken = runner.invoke(cli, ["optimal", "-p", "5", "-c", "4", "--no-save"])
    assert broken.exit_code == 2
    assert "unreadable" in broken.stderr and "Traceback" not in broken.output
    restarted = runner.invoke(cli, ["optimal", "-p", "5", "-c", "4", "--no-save", "--restart", "--json"])
    assert restarted.exit_code == 0


@pytest.mark.parametrize(
    ("variant", "total", "worst"),
    [("classic", 5625, 6), ("mini", 5625, 6), ("classic-blanks", 11228, 6), ("bulls-and-cows", 26274, 7)],
)
def test_shipped_optimal_trees_verify(
    variant: str, total: int, worst: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The optima keypeg ships (Koyama and Lai's 5625, also within Mini's 6 rows; with blanks, the
    4x7 optimum 11228 of Ville; bulls-and-cows 26274), too long to search in CI, replay against
    every secret, and perfect play uses them at once."""
    from keypeg import find_variant
    from keypeg.strategies.optimal import load_optimal

    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))  # only the shipped trees
    rules = find_variant(variant).rules
    tree = load_optimal(rules, "all")
    assert tree is not None
    assert (tree.stats.total, tree.stats.max, tree.stats.secrets) == (total, worst, rules.size)
    assert verify_tree(tree).ok
    from keypeg.play.levels import strategy_for

    strategy, note = strategy_for("optimal", rules)
    assert note is None and strategy.name == "optimal"


def test_a_gzipped_optimal_tree_is_found_like_a_plain_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The large optima keypeg ships are gzipped: found by their name, rows read before the suffixes."""
    import gzip

    from keypeg.storage import find_optimal_tree
    from keypeg.strategy_tree import tree_to_json

    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    rules = Rules(3, 3)
    tree = OptimalSolver(rules).tree()
    path = tmp_path / "optimal-3x3-all-all-rows12.json.gz"
    path.write_bytes(gzip.compress(tree_to_json(tree).encode()))
    found = find_optimal_tree(rules, "all", cache=tmp_path)
    assert found is not None and found.path == path and found.tree.stats.total == tree.stats.total == 73
    assert find_optimal_tree(Rules(3, 3, rows=3), "all", cache=tmp_path) is None  # 4 guesses needed


@pytest.mark.parametrize(
    ("name", "rules", "total", "worst"),
    [
        ("optimal-6x3-all-all-rows12.json", Rules(6, 3), 2649, 5),
        ("optimal-4x9-all-all-rows12.json.gz", Rules(4, 9), 34666, 8),  # 249 CPU s of search, 2,449,091 sets
    ],
)
def test_a_new_optimum_keypeg_ships_verifies(
    name: str, rules: Rules, total: int, worst: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31's survey ships each optimum it found beyond the published ones (src/keypeg/data, gzipped
    when large), with the search's CPU seconds and sets searched: ``keypeg verify`` replays it against every
    secret, and perfect play finds it."""
    import keypeg
    from keypeg.strategies.optimal import load_optimal
    from keypeg.strategy_tree import load_tree

    path = Path(keypeg.__file__).parent / "data" / name
    verified = CliRunner().invoke(cli, ["verify", str(path), "--json"])
    assert verified.exit_code == 0, verified.output
    figures = json.loads(verified.stdout)
    assert figures["ok"] and (figures["total"], figures["max"], figures["secrets"]) == (total, worst, rules.size)
    conventions = load_tree(path).conventions
    assert conventions["strategy"] == "optimal" and conventions["nodes"] > 0 and conventions["cpu_seconds"] >= 0
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))  # only the shipped trees
    shipped = load_optimal(rules, "all")
    assert shipped is not None and shipped.stats.total == total
