"""The analysis commands from the command line: analyze, tables, next, verify, replay."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from keypeg.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def test_analyze_json_keys() -> None:
    code, out, _ = run("analyze", "--strategy", "knuth", "--pegs", "4", "--colors", "6", "--json")
    assert code == 0
    data = json.loads(out)
    assert {"total", "average", "max", "distribution", "seconds"} <= data.keys()
    assert data["total"] == 5801
    assert data["distribution"] == {"1": 1, "2": 6, "3": 62, "4": 533, "5": 694}
    assert data["conventions"]["strategy"] == "worst-case"


def test_analyze_conventions_from_the_command_line() -> None:
    code, out, _ = run("analyze", "-s", "kooi", "--first", "AABC", "--tie", "last", "-p", "4", "-c", "6", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["distribution"]["4"] == 636
    assert data["conventions"] == {
        "strategy": "most-parts",
        "first": "AABC",
        "pool": "all",
        "tie": "last",
        "prefer_consistent": True,
        "seed": None,
    }


def test_analyze_compare_table_and_chart(tmp_path: Path) -> None:
    chart = tmp_path / "rounds.png"
    code, out, _ = run("analyze", "--compare", "-p", "4", "-c", "6", "--chart", str(chart))
    assert code == 0
    for figure in ("7,471", "5,801", "5,696", "5,722", "5,668"):
        assert figure in out
    assert chart.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("option", ["--chart", "--export"])
def test_analyze_checks_its_outputs_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    import keypeg.analysis.tree

    def worked(*args: object, **kwargs: object) -> None:
        raise AssertionError("the trees were built first")

    monkeypatch.setattr(keypeg.analysis.tree, "build_tree", worked)
    with monkeypatch.context() as without:
        without.setitem(sys.modules, "matplotlib", None)  # as if not installed
        code, out, err = run("analyze", "--compare", "-p", "4", "-c", "6", "--chart", str(tmp_path / "c.png"))
        assert (code, out) == (2, "")
        assert err == "error: charts need matplotlib: pip install 'keypeg[plot]'\n"
    # a folder that is not there: bad input
    code, out, err = run("analyze", "-s", "kooi", option, str(tmp_path / "no" / "such" / "folder.svg"))
    assert (code, out) == (2, "") and err.startswith("error: cannot write") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ((), "ties: a code that could be the secret first, then the first in code order"),
        (("--tie", "last"), "ties: a code that could be the secret first, then the last in code order"),
        (
            ("--tie", "random", "--seed", "3"),
            "ties: a code that could be the secret first, then one drawn at random (seed 3)",
        ),
        (("-s", "knuth", "--scoring", "mmstrat"), "ties (worst-case): the first in code order"),
    ],
)
def test_analyze_says_how_ties_were_broken(options: tuple[str, ...], said: str) -> None:
    code, out, _ = run("analyze", "-s", "kooi", "-p", "3", "-c", "3", *options)
    assert code == 0
    assert said in out.splitlines()


def test_analyze_compare_json() -> None:
    code, out, _ = run("analyze", "--compare", "-s", "simple", "-s", "irving", "--variant", "3x4", "--json")
    assert code == 0
    results = json.loads(out)["results"]
    assert [r["conventions"]["strategy"] for r in results] == ["simple", "expected-size"]
    assert all(r["secrets"] == 64 for r in results)


def test_export_verify_replay(tmp_path: Path) -> None:
    tree = tmp_path / "tree.json"
    code, _, _ = run("analyze", "-s", "knuth", "--export", str(tree))
    assert code == 0
    code, out, _ = run("verify", str(tree), "--json")
    assert code == 0
    assert json.loads(out)["ok"] is True
    code, out, _ = run("replay", str(tree), "RGBY")
    assert code == 0
    assert out.strip().splitlines()[-1].endswith("RGBY  4,0")
    for fmt in ("text", "lookup"):
        path = tmp_path / f"tree.{fmt}"
        assert run("analyze", "-s", "knuth", "--export", str(path), "--format", fmt)[0] == 0
        assert "RRGG" in path.read_text()


def test_verify_refuses_a_damaged_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"keypeg_tree": 1, "rules": {"pegs": 4}}')
    code, _, err = run("verify", str(bad))
    assert code == 2
    assert "damaged tree file" in err
    code, _, err = run("verify", str(tmp_path / "missing.json"))
    assert code == 2
    assert "cannot read" in err


@pytest.mark.parametrize(
    ("figure", "edit", "said"),
    [
        ("total", 5000, "the file states 5,000 guesses in all; the tree gives 5,668"),
        ("average", 4.2, "the file states 4.2 guesses on average; the tree gives 4.373457"),
        ("max", 5, "the file states 5 guesses at worst; the tree gives 6"),
        ("secrets", 1297, "the file states 1,297 secrets; the tree gives 1,296"),
        (
            "distribution",
            {"1": 1, "2": 12, "3": 72, "4": 635, "5": 570, "6": 7},
            "the file states 570 secrets solved in round 5; the tree gives 569",
        ),
    ],
)
def test_verify_refuses_figures_the_tree_contradicts(tmp_path: Path, figure: str, edit: object, said: str) -> None:
    tree = tmp_path / "tree.json"
    assert run("analyze", "-s", "kooi", "--export", str(tree))[0] == 0
    data = json.loads(tree.read_text())
    assert data["stats"]["total"] == 5668
    data["stats"][figure] = edit
    tree.write_text(json.dumps(data))
    code, out, err = run("verify", str(tree))
    assert code == 2 and out == ""
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and said in errors[0]
    assert err.count("\n") == 1


def test_verify_refuses_a_tree_that_needs_more_guesses_than_its_rows(tmp_path: Path) -> None:
    tree = tmp_path / "tree.json"
    assert run("analyze", "-s", "kooi", "--export", str(tree))[0] == 0
    data = json.loads(tree.read_text())
    worst = data["stats"]["max"]
    over = data["stats"]["distribution"][str(worst)]
    data["rules"]["rows"] = worst - 1  # every figure still true, but the rules allow one guess fewer
    tree.write_text(json.dumps(data))
    code, out, err = run("verify", str(tree))
    assert code == 2 and out == ""
    assert f"{over} secret" in err and f"rules' {worst - 1} rows (up to {worst})" in err


@pytest.mark.parametrize(
    "args", [["analyze", "-p", "3", "-c", "3", "--export"], ["stats", "--plot"], ["analyze", "--compare", "--chart"]]
)
def test_a_file_in_a_folder_that_is_not_there_is_bad_input(tmp_path: Path, args: list[str]) -> None:
    """Exit 2, as for a database URL in such a folder; 1 is for files that cannot be written."""
    missing = tmp_path / "nowhere" / ("t.png" if args[-1] != "--export" else "t.json")
    code, out, err = run(*args, str(missing))
    assert code == 2 and out == "" and err.startswith("error:") and "no folder" in err


def test_verify_says_many_problems_in_one_line(tmp_path: Path) -> None:
    tree = tmp_path / "tree.json"
    assert run("analyze", "-p", "3", "-c", "4", "-s", "kooi", "--export", str(tree))[0] == 0
    data = json.loads(tree.read_text())
    data["tree"]["next"] = {}  # every branch gone: a problem for each score of the first guess
    tree.write_text(json.dumps(data))
    code, out, err = run("verify", str(tree))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error:")
    assert "more problems: --json lists them" in err
    listed = json.loads(run("verify", str(tree), "--json")[1])["problems"]
    assert len(listed) > 2 and listed[0] in err


def test_tables_json_reproduces_kooi() -> None:
    code, out, _ = run("tables", "-p", "4", "-c", "6", "--json")
    assert code == 0
    rows = {r["guess"]: r for r in json.loads(out)["first_guesses"]}
    assert rows["AABB"]["largest"] == 256
    assert rows["AABC"]["second_round_total"] == 132
    assert rows["ABCD"]["partitions_after"] == 52


def test_tables_text() -> None:
    code, out, _ = run("tables", "--variant", "3x3")
    assert code == 0
    assert "Table 2" in out and "Table 12" in out


def test_next_and_explain() -> None:
    code, out, _ = run("next", "AABB=1,0", "-s", "knuth", "-p", "4", "-c", "6")
    assert code == 0
    guess = out.strip()
    code, out, _ = run("next", "AABB=1,0", "-s", "knuth", "-p", "4", "-c", "6", "--explain", "--json")
    data = json.loads(out)
    assert data["guess"] == guess
    assert data["candidates"] == 256
    chosen, *others = data["explain"]
    assert sum(chosen["parts"].values()) == 256
    assert all(chosen["largest"] <= other["largest"] for other in others)


def test_next_verbose_is_explain() -> None:
    """The original program's "verbose view" is --explain."""
    history = ("next", "RRGG=1,1", "-s", "knuth")
    explained, verbose = run(*history, "--explain"), run(*history, "--verbose")
    assert explained == verbose and explained[0] == 0
    assert "codes left after each answer" in verbose[1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("next", "AABB=1,0", "ABCD=0,0", "-p", "4", "-c", "6"), "no code fits"),
        (("next", "AABB=3,1", "-p", "4", "-c", "6"), "cannot happen"),
        (("analyze", "-s", "nonsense"), "unknown strategy"),
        (("analyze", "--first", "ZZZZ"), "unknown colour"),
        (("analyze", "-s", "knuth", "--chart", "out.pdf"), "must end in .png or .svg"),
        (("next", "AABB=4,0", "-p", "4", "-c", "6"), "already broken"),
    ],
)
def test_bad_input_is_one_clear_line(args: tuple[str, ...], message: str) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert message in err


@pytest.mark.parametrize(
    "args",
    [
        (
            "analyze",
            "-p",
            "3",
            "-c",
            "5",
            *(f"-s{name}" for name in ("knuth", "kooi", "irving", "simple", "neuwirth", "two-step", "random")),
        ),
        ("next", "AABB=1,0", "-p", "4", "-c", "6", "--explain", "--top", "12"),
        ("tables", "-p", "6", "-c", "3"),  # 96 columns unsplit; 729 codes (6x4 showed the same at 9 times the CPU)
    ],
)
def test_wide_tables_are_split_to_fit_80_columns(monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...]) -> None:
    from rich.console import Console

    import keypeg.cli.analysis

    screen = io.StringIO()
    monkeypatch.setattr(
        keypeg.cli.analysis, "out", Console(file=screen, width=80, force_terminal=True, color_system=None)
    )
    code, _, err = run(*args, "--seed", "1") if args[0] == "analyze" else run(*args)
    assert code == 0, err
    shown = screen.getvalue()
    assert all(len(line) <= 80 for line in shown.splitlines()) and "…" not in shown
    code, data, _ = run(*args, "--json", *(["--seed", "1"] if args[0] == "analyze" else []))
    parsed = json.loads(data)
    if args[0] == "analyze":
        figures = [f"{r['total']:,}" for r in parsed["results"]] + [
            r["conventions"]["strategy"] for r in parsed["results"]
        ]
    elif args[0] == "next":
        figures = [g["guess"] for g in parsed["explain"]]
    else:
        figures = [r["guess"] for r in parsed["first_guesses"]]
    tokens = shown.replace("│", " ").replace("┃", " ").split()
    assert all(figure in tokens for figure in figures)
