"""The proven lower bound (analysis/bounds.py, `keypeg bound`) and the rollout strategy (analysis/rollout.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from keypeg import Rules
from keypeg.analysis.bounds import counting_bound, lower_bound
from keypeg.analysis.rollout import RolloutPlan, heuristic_totals, rollout_tree
from keypeg.cli import cli
from keypeg.errors import KeypegError
from keypeg.kernels import CodeSpace
from keypeg.strategies.optimal import OptimalSolver
from keypeg.strategy_tree import tree_to_json, verify_tree

OPTIMA = {
    (2, 3): 21,
    (3, 3): 73,
    (2, 4): 45,
    (3, 4): 206,
    (4, 4): 905,
    (2, 5): 81,
    (3, 5): 451,
    (4, 5): 2463,
    (3, 6): 854,
    (4, 6): 5625,
}
"""The least totals of keypeg's exact search (benchmarks/results/survey.md); 4x6's is Koyama and Lai's
published optimum (5,625; Koyama and Lai 1993, J. Recreational Mathematics 25(4))."""
TIGHT = {(2, 3), (3, 3), (2, 4), (3, 4), (4, 4), (2, 5), (3, 5), (3, 6)}
"""Games whose optimum the bound three levels deep reaches exactly."""


@pytest.mark.parametrize(("pegs", "colors"), sorted(set(OPTIMA) - {(4, 6)}))
def test_the_bound_never_exceeds_the_optimum_and_grows_with_depth(pegs: int, colors: int) -> None:
    rules = Rules(pegs, colors)
    found = [lower_bound(rules, levels=levels).total for levels in range(4)]
    assert found[0] == counting_bound(rules, rules.size)
    assert found == sorted(found)  # each level is at least the one before
    assert found[-1] <= OPTIMA[(pegs, colors)]
    if (pegs, colors) in TIGHT:
        assert found[-1] == OPTIMA[(pegs, colors)]


def test_the_bound_of_classic_mastermind() -> None:
    """4x6 three levels deep: 5,612, 13 under Koyama and Lai's optimum; with AABC first, the opening of
    every optimal strategy known, the least of the openings."""
    found = lower_bound(Rules(4, 6), levels=3)
    assert found.total == 5612 <= OPTIMA[(4, 6)]
    assert [lower_bound(Rules(4, 6), levels=levels).total for levels in range(3)] == [4986, 5196, 5429]
    assert found.openings[0].guess == "AABC"
    assert [o.guess for o in found.openings] == ["AABC", "ABCD", "AABB", "AAAB", "AAAA"]


@pytest.mark.parametrize(("pegs", "colors"), [(2, 3), (3, 3), (2, 4)])
def test_the_optima_the_table_states_are_the_searchs_own(pegs: int, colors: int) -> None:
    assert OptimalSolver(Rules(pegs, colors)).solve() == OPTIMA[(pegs, colors)]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([(3, 3), (3, 4), (2, 5)]), st.integers(0, 10**6), st.integers(1, 2))
def test_the_bound_of_any_position_never_exceeds_its_optimum(game: tuple[int, int], seed: int, played: int) -> None:
    """After guesses scored against a secret, the codes that fit: bound (3 levels) <= the exact optimum."""
    from keypeg.analysis.bounds import _Bounder

    rules = Rules(*game)
    space = CodeSpace.of(rules)
    rng = np.random.default_rng(seed)
    secret = int(rng.integers(space.size))
    history: tuple[tuple[int, int], ...] = ()
    part = space.all
    for _ in range(played):
        guess = int(rng.integers(space.size))
        ordinal = int(space.feedbacks(guess, np.array([secret]))[0])
        history = (*history, (guess, ordinal))
        part = part[space.feedbacks(guess, part) == ordinal]
    bound = _Bounder(rules, None).bound(history, part, 3)
    value, _ = OptimalSolver(rules).value(part, history, rules.rows)
    assert bound <= value


def test_bound_command(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["bound", "-p", "4", "-c", "4", "--levels", "3", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["total"] == 905
    assert data["openings"][0]["bound"] == 905
    text = CliRunner().invoke(cli, ["bound", "-p", "3", "-c", "3"])
    assert text.exit_code == 0 and "at least 73 guesses" in text.stdout
    refused = CliRunner().invoke(cli, ["bound", "-p", "6", "-c", "9", "--levels", "3"])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "try --levels 1" in refused.stderr


# -- the rollout strategy --------------------------------------------------------------------------


def test_the_rollout_beats_every_heuristic_and_verifies(tmp_path: Path) -> None:
    rules = Rules(4, 5)
    plan = RolloutPlan(depth=2, width=3)
    result = rollout_tree(rules, plan, checkpoint=tmp_path / "plan.json")
    total = result.tree.stats.total
    assert total <= min(heuristic_totals(rules).values())
    assert OPTIMA[(4, 5)] <= total
    assert verify_tree(result.tree).ok
    again = rollout_tree(rules, RolloutPlan(depth=3, width=3), checkpoint=tmp_path / "plan.json")
    assert again.tree.stats.total <= total  # the deeper plan starts from the checkpoint's decisions
    with pytest.raises(KeypegError, match="another game or plan"):
        rollout_tree(rules, RolloutPlan(depth=2, width=2), checkpoint=tmp_path / "plan.json")


def test_the_rollout_finds_classic_masterminds_optimum() -> None:
    """Depth 2, width 4, exact subtrees up to 100 codes: 5,625 on 4x6, Koyama and Lai's optimum (the
    heuristics alone: 5,668 at best; the rollout without exact subtrees: 5,630)."""
    rules = Rules(4, 6)
    assert rollout_tree(rules, RolloutPlan(depth=2, width=4)).tree.stats.total == 5630
    found = rollout_tree(rules, RolloutPlan(depth=2, width=4, exact_below=100))
    assert found.tree.stats.total == OPTIMA[(4, 6)]
    assert found.exact_improved == 5
    assert verify_tree(found.tree).ok


def test_exact_subtrees_only_ever_lower_the_total() -> None:
    rules = Rules(3, 5)
    plain = rollout_tree(rules, RolloutPlan(depth=1, width=2))
    exact = rollout_tree(rules, RolloutPlan(depth=1, width=2, exact_below=40))
    assert exact.tree.stats.total == plain.tree.stats.total - exact.exact_improved
    assert exact.exact_improved > 0
    assert OPTIMA[(3, 5)] <= exact.tree.stats.total <= plain.tree.stats.total
    assert verify_tree(exact.tree).ok


def test_verify_reads_a_gzipped_tree(tmp_path: Path) -> None:
    """The 5x8 strategy ships gzipped (src/keypeg/data/super-5x8-rollout.json.gz, written by
    benchmarks/super.py); `keypeg verify` reads a tree written the same way (the 5x8 file's own check,
    32,768 secrets, is the benchmark's and the docs' command)."""
    tree = rollout_tree(Rules(3, 4), RolloutPlan(depth=1, width=2)).tree
    path = tmp_path / "tree.json.gz"
    path.write_bytes(gzip.compress(tree_to_json(tree).encode(), mtime=0))
    result = CliRunner().invoke(cli, ["verify", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["total"] == tree.stats.total
    path.write_bytes(gzip.compress(tree_to_json(tree).replace('"total": ', '"total": 1').encode()))
    wrong = CliRunner().invoke(cli, ["verify", str(path)])
    assert wrong.exit_code == 2 and "NOT verified" in wrong.stderr
    path.write_bytes(b"\x1f\x8b" + b"not gzip at all")
    broken = CliRunner().invoke(cli, ["verify", str(path)])
    assert broken.exit_code == 2 and "not a readable gzip file" in broken.stderr


def test_the_shipped_super_mastermind_tree_states_its_figures() -> None:
    """The shipped 5x8 tree: its stated figures (replayed in full by `keypeg verify`, see the docs)."""
    path = Path(__file__).resolve().parents[1] / "src" / "keypeg" / "data" / "super-5x8-rollout.json.gz"
    data = json.loads(gzip.decompress(path.read_bytes()))
    assert data["rules"]["pegs"] == 5 and data["rules"]["colors"] == 8
    assert data["stats"]["secrets"] == 32768
    assert data["stats"]["total"] == 178_520 < 179_751  # below the lowest published total (docs/super-mastermind.md)
    assert data["stats"]["max"] == 7
    assert data["tree"]["guess"] == "AABBC"
