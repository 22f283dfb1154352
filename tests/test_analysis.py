"""Whole-tree analysis, Kooi's tables, tree export and verification."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from keypeg import Feedback, Rules
from keypeg.analysis.export import load_tree, save_tree, tree_from_json, tree_to_json, tree_to_text, verify_tree
from keypeg.analysis.tables import first_guess_table
from keypeg.analysis.tree import TreeStats, build_tree
from keypeg.errors import KeypegError
from keypeg.feedback import score
from keypeg.kernels import CodeSpace
from keypeg.knowledge import Knowledge
from keypeg.strategies import make_strategy

CLASSIC = Rules(4, 6)


@pytest.fixture(scope="module")
def classic_table() -> dict[str, object]:
    rows = first_guess_table(CLASSIC, answer=Feedback(1, 0), second_round=True)
    return {str(r.guess): r for r in rows}


def test_kooi_tables_3_to_6(classic_table: dict) -> None:  # type: ignore[type-arg]
    """Kooi, Tables 3-6: largest part, expected size, entropy (bits), number of parts."""
    published = {
        "AAAA": (625, 511.9, 1.498, 5),
        "AAAB": (317, 235.9, 2.693, 11),
        "AABB": (256, 204.5, 2.885, 13),
        "AABC": (276, 185.3, 3.044, 14),
        "ABCD": (312, 188.2, 3.057, 14),
    }
    assert list(classic_table) == list(published)
    for guess, (largest, expected, entropy, parts) in published.items():
        row = classic_table[guess]
        assert row.largest == largest
        assert abs(row.expected_size - expected) < 0.1
        assert round(row.entropy, 3) == entropy
        assert row.parts == parts


def test_kooi_table_2_partition(classic_table: dict) -> None:  # type: ignore[type-arg]
    """Kooi, Table 2: 625 codes answer 0,0 to AAAA; every column sums to 1296."""
    assert classic_table["AAAA"].partition[Feedback(0, 0)] == 625
    for row in classic_table.values():
        assert sum(row.partition.values()) == 1296
        # the reference: count the codes per answer with the plain-Python scorer
    space = CodeSpace.of(CLASSIC)
    guess = CLASSIC.parse("AABC")
    counts: dict[Feedback, int] = {}
    for i in range(space.size):
        f = score(space.code(i), guess)
        counts[f] = counts.get(f, 0) + 1
    assert {f: n for f, n in classic_table["AABC"].partition.items() if n} == counts


def test_kooi_table_11(classic_table: dict) -> None:  # type: ignore[type-arg]
    """Kooi: after AABB answered 1,0 there are 34 kinds of partition; after ABCD, 52."""
    assert classic_table["AABB"].partitions_after == 34
    assert classic_table["ABCD"].partitions_after == 52


def test_kooi_table_12(classic_table: dict) -> None:  # type: ignore[type-arg]
    """Kooi, Table 12: parts after two guesses: 44, 104, 121, 132, 125."""
    totals = {g: sum(r.second_round.values()) for g, r in classic_table.items()}
    assert totals == {"AAAA": 44, "AAAB": 104, "AABB": 121, "AABC": 132, "ABCD": 125}


def test_tables_for_other_rules() -> None:
    rows = first_guess_table(Rules(3, 5, repeats=False))
    assert [str(r.guess) for r in rows] == ["ABC"]
    assert sum(rows[0].partition.values()) == 60


def test_stats_from_distribution() -> None:
    stats = TreeStats.from_distribution({2: 3, 1: 1, 3: 0})
    assert (stats.secrets, stats.total, stats.max) == (4, 7, 2)
    assert stats.average == pytest.approx(1.75)
    assert list(stats.distribution) == [1, 2]


@pytest.fixture(scope="module")
def knuth_tree():  # type: ignore[no-untyped-def]
    return build_tree(make_strategy("knuth"), CLASSIC)


def test_tree_replays_every_secret(knuth_tree) -> None:  # type: ignore[no-untyped-def]
    space = CodeSpace.of(CLASSIC)
    for i in range(0, space.size, 37):
        secret = space.code(i)
        played = knuth_tree.replay(secret)
        assert played[-1] == (secret, CLASSIC.win)
        assert len(played) <= 5
        knowledge = Knowledge(CLASSIC, tuple(played[:-1]))
        assert space.index(secret) in set(knowledge.candidates.tolist())


def test_json_round_trip_and_verify(knuth_tree, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "knuth.json"
    save_tree(knuth_tree, path)
    loaded = load_tree(path)
    assert tree_to_json(loaded) == tree_to_json(knuth_tree)
    result = verify_tree(loaded)
    assert result.ok
    assert result.stats.total == 5801


def test_verify_catches_a_wrong_guess(knuth_tree) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(tree_to_json(knuth_tree))
    data["tree"]["next"]["0,0"]["guess"] = "AAAA"  # cannot split the codes without A and B
    result = verify_tree(tree_from_json(json.dumps(data)))
    assert not result.ok
    data = json.loads(tree_to_json(knuth_tree))
    data["stats"]["distribution"]["5"] = 1
    assert not verify_tree(tree_from_json(json.dumps(data))).ok


@pytest.mark.parametrize(
    "text",
    ["", "{", "[]", '{"keypeg_tree": 1}', '{"keypeg_tree": 1, "rules": {"pegs": 4, "colors": 6}, "tree": {}}'],
)
def test_damaged_tree_files(text: str) -> None:
    with pytest.raises(KeypegError):
        tree_from_json(text)


def test_text_outline(knuth_tree) -> None:  # type: ignore[no-untyped-def]
    text = tree_to_text(knuth_tree)
    lines = text.splitlines()
    assert lines[1] == "AABB (1296)"
    assert any(line.startswith("  0,0 ") for line in lines)
    assert len(lines) == knuth_tree.root.nodes() + 1


def test_suspects_name_the_wrong_score() -> None:
    knowledge = Knowledge.from_text(CLASSIC, ["AABB=1,0", "CCDD=0,0", "EEFF=0,0"])
    assert not knowledge.is_consistent
    suspects = knowledge.check().suspects
    assert suspects
    for suspect in suspects:
        fixed = list(knowledge.history)
        fixed[suspect.number - 1] = (suspect.guess, suspect.correction)
        assert all(score(suspect.example, g) == f for g, f in fixed)
