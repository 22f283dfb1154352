"""``keypeg survey``: every cell as ``analyze`` and ``optimal`` give it alone, resumable, guarded, in
every output format; bad input refused in one line."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from keypeg.analysis import survey as engine
from keypeg.analysis.cost import Estimate
from keypeg.cli import cli


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def surveyed(*args: str) -> list[dict[str, Any]]:
    code, out, err = run("survey", *args, "--json")
    assert code == 0, err
    cells: list[dict[str, Any]] = json.loads(out)["cells"]
    return cells


def alone(cell: dict[str, Any]) -> dict[str, Any]:
    """The cell's figures from ``analyze`` or ``optimal`` run alone."""
    game = ["-p", str(cell["pegs"]), "-c", str(cell["colors"]), "--repeats" if cell["repeats"] else "--no-repeats"]
    game += ["--feedback", cell.get("feedback", "standard")]
    if cell["strategy"] == "optimal":
        rows = ["--rows", str(cell["worst"])] if cell["objective"] == "worst-case" else []
        code, out, err = run("optimal", *game, *rows, "--pool", cell["pool"], "--no-save", "--json")
    else:
        seed = ["--seed", str(cell["seed"])] if cell["seed"] is not None else []
        code, out, err = run("analyze", *game, "-s", cell["strategy"], "--pool", cell["pool"], *seed, "--json")
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


@pytest.mark.parametrize(
    ("grid", "games"),
    [(["-p", "2", "-c", "3"], 2), pytest.param(["-p", "2-3", "-c", "3-4"], 8, marks=pytest.mark.slow)],
)
def test_every_cell_is_what_analyze_and_optimal_give_alone(grid: list[str], games: int) -> None:
    cells = surveyed(*grid, "--objective", "both")
    assert {(c["game"], c["strategy"], c["pool"], c["objective"]) for c in cells} >= {
        ("2x3", "worst-case", "all", ""),
        ("2x3-norepeats", "most-parts", "consistent", ""),
        ("2x3", "optimal", "all", "worst-case"),
        ("2x3", "genetic", "consistent", ""),
    }
    assert len(cells) == games * (4 + 2 * 5 + 2 * 2)  # 4 strategies of one pool, 5 of two, optimal 2 x 2
    for cell in cells:
        expected = alone(cell)
        assert cell["total"] == expected["total"], cell
        assert cell["average"] == pytest.approx(expected["average"])
        if cell["objective"] != "worst-case":
            assert cell["worst"] == expected["max"], cell
            assert cell["distribution"] == expected["distribution"], cell
    for cell in cells:  # the worst case proved: one guess fewer cannot always suffice
        if cell["objective"] == "worst-case":
            game = [
                "-p",
                str(cell["pegs"]),
                "-c",
                str(cell["colors"]),
                "--repeats" if cell["repeats"] else "--no-repeats",
            ]
            fewer = ["--rows", str(cell["worst"] - 1), "--pool", cell["pool"], "--no-save"]
            assert run("optimal", *game, *fewer)[0] != 0


def test_classic_figures_of_the_literature() -> None:
    cells = surveyed("-p", "4", "-c", "6", "--repeats", "-s", "knuth", "-s", "kooi", "-s", "optimal", "--pool", "all")
    totals = {c["strategy"]: c["total"] for c in cells}
    assert totals == {"worst-case": 5801, "most-parts": 5668, "optimal": 5625}


def test_a_rerun_works_out_only_the_missing_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    worked: list[str] = []
    real = engine.run_cell

    def counted(cell: engine.Cell) -> engine.CellOutcome | str:
        worked.append(cell.key)
        if len(worked) == 3:
            raise KeyboardInterrupt
        return real(cell)

    monkeypatch.setattr(engine, "run_cell", counted)
    grid = ["-p", "2", "-c", "3", "--repeats", "-s", "simple", "-s", "knuth", "-s", "kooi", "--pool", "all"]
    code, _, err = run("survey", *grid, "--csv", "s.csv")
    assert code == 130 and "interrupted: the finished cells are kept in keypeg-survey.json" in err
    kept = json.loads(Path("keypeg-survey.json").read_text())["cells"]
    first = list(worked)
    assert {c["strategy"] for c in kept} == {key.split()[1] for key in first[:2]}
    rows = list(csv.DictReader(Path("s.csv").read_text().splitlines()))  # the tables hold what was finished
    assert [r["strategy"] for r in rows if r["total"]] == [c["strategy"] for c in kept]
    assert [r["strategy"] for r in rows if "interrupted" in r["skipped"]] == [first[2].split()[1]]
    worked.clear()
    code, _, err = run("survey", *grid)
    assert code == 0 and "reusing 2 finished cells" in err
    assert worked == [first[2]]  # the interrupted cell, and nothing else

    # A kept cell is reused as kept, never worked out again (a forged total shows through).
    data = json.loads(Path("keypeg-survey.json").read_text())
    data["cells"][0]["total"] = 99
    Path("keypeg-survey.json").write_text(json.dumps(data))
    worked.clear()
    assert surveyed(*grid)[0]["total"] == 99 and worked == []


def test_outputs_parse_alike() -> None:
    grid = ["-p", "3", "-c", "3-4", "-s", "entropy", "-s", "simple", "--pool", "all"]
    code, out, _ = run("survey", *grid, "--markdown", "s.md", "--csv", "s.csv", "-o", "s.json")
    assert code == 0
    cells = json.loads(Path("s.json").read_text())["cells"]
    rows = list(csv.DictReader(Path("s.csv").read_text().splitlines()))
    table = [line for line in Path("s.md").read_text().splitlines() if line.startswith("| ")]
    header = [h.strip() for h in table[0].strip("|").split("|")]
    marked = [dict(zip(header, (v.strip() for v in line.strip("|").split("|")), strict=True)) for line in table[1:]]
    assert len(cells) == len(rows) == len(marked) == 8  # 3x3, 3x4, with and without repeats; two strategies
    for cell, row, mark in zip(cells, rows, marked, strict=True):
        for shown in (row, mark):
            assert (shown["game"], shown["strategy"], shown["pool"]) == (cell["game"], cell["strategy"], cell["pool"])
            assert (int(shown["total"]), int(shown["worst"]), shown["first"]) == (
                cell["total"],
                cell["worst"],
                cell["first"],
            )
            assert float(shown["average"]) == pytest.approx(cell["average"], abs=5e-5)
        assert row["skipped"] == ""
        assert f"{cell['game']}: {cell['codes']} codes" in out and f" {cell['total']:,} " in out
    assert "Knuth's and Kooi's convention" in Path("s.md").read_text()


def test_json_goes_to_stdout_and_files_only_where_asked() -> None:
    grid = ["-p", "2", "-c", "2", "--repeats", "-s", "simple", "--pool", "all"]
    code, out, err = run("survey", *grid, "--json")
    assert code == 0, err
    printed = json.loads(out)  # the whole of stdout is one JSON object: no tables, no text
    assert [c["strategy"] for c in printed["cells"]] == ["simple"] and printed["skipped"] == []
    assert sorted(p.name for p in Path().iterdir() if p.suffix == ".json") == ["keypeg-survey.json"]
    code, out, err = run("survey", *grid, "--json", "-o", "report.json")
    assert code == 0, err
    saved = json.loads(Path("report.json").read_text())
    assert saved == json.loads(out) and [c["total"] for c in saved["cells"]] == [c["total"] for c in printed["cells"]]
    code, out, _ = run("survey", *grid, "--output", "again.json")
    assert code == 0 and "2x2: 4 codes" in out and json.loads(Path("again.json").read_text())["cells"]


def test_a_cell_over_its_guard_is_skipped_and_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    real = engine.cell_cost

    def dear(cell: engine.Cell) -> Estimate:
        estimate = real(cell)
        return replace(estimate, seconds=1e6) if cell.strategy == "two-step" else estimate

    monkeypatch.setattr(engine, "cell_cost", dear)
    grid = ["-p", "3", "-c", "4", "--repeats", "-s", "simple", "-s", "two-step", "--pool", "all"]
    code, out, _ = run("survey", *grid, "--csv", "s.csv")
    assert code == 0
    assert "skipped 3x4 two-step (pool all):" in out and "--force runs it anyway" in out
    rows = {r["strategy"]: r for r in csv.DictReader(Path("s.csv").read_text().splitlines())}
    assert rows["simple"]["total"] and rows["simple"]["skipped"] == ""
    assert rows["two-step"]["total"] == "" and "more than" in rows["two-step"]["skipped"]
    code, out, err = run("survey", *grid, "--force")
    assert code == 0 and "skipped" not in out and "reusing 1 finished cell" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pegs", "5-2"], "is not within 1-15"),
        (["--pegs", "two"], "is not a number, a range"),
        (["--colors", "1"], "is not within 2-26"),
        (["--colors", "2-99"], "is not within 2-26"),
        (["--pegs", "2-3-4"], "is not a number, a range"),
        (["--pegs", "6", "--max-codes", "10"], "no game of the grid"),
        (["--pegs", "2", "-s", "nosuch"], "unknown strategy"),
        (["--pegs", "2", "--workers", "0"], "--workers"),
    ],
)
def test_bad_input_is_one_line(args: list[str], message: str) -> None:
    code, out, err = run("survey", *args)
    assert code == 2
    assert out == "" and err.count("\n") == 1 and err.startswith("error:") and message in err


FORGED = '{"keypeg_survey": 1, "cells": [{"pegs": 2, "colors": 2, "repeats": true, "strategy": "nosuch", "pool": "all",'
FORGED += ' "objective": "", "codes": 4, "first": "AA", "total": 8, "worst": 3, "seconds": 0}]}'


@pytest.mark.parametrize(
    "content", ["not json", '{"cells": []}', '{"keypeg_survey": 1, "cells": [{"pegs": 2}]}', FORGED]
)
def test_a_results_file_not_the_surveys_is_refused(content: str) -> None:
    Path("other.json").write_text(content)
    code, _, err = run("survey", "-p", "2", "-c", "2", "--results", "other.json")
    assert code == 2 and err.startswith("error:") and "is not a keypeg survey results file" in err
    assert Path("other.json").read_text() == content


@pytest.mark.slow
def test_two_local_workers_give_the_same_cells() -> None:
    here = surveyed("-p", "2-3", "-c", "3", "--objective", "both", "--results", "here.json")
    there = surveyed("-p", "2-3", "-c", "3", "--objective", "both", "--results", "there.json", "--workers", "2")
    timed = ("seconds", "cpu_seconds", "nodes")  # the sets searched vary with the threads that shared the work
    strip = [{k: v for k, v in c.items() if k not in timed} for c in here]
    assert [{k: v for k, v in c.items() if k not in timed} for c in there] == strip


def _screen(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """Make the survey print to an 80-column terminal; returns what it shows."""
    from rich.console import Console

    import keypeg.cli.survey

    screen = io.StringIO()
    console = Console(file=screen, width=80, force_terminal=True, color_system=None, highlight=False)
    monkeypatch.setattr(keypeg.cli.survey, "out", console)
    return screen


def _fits(text: str, figures: list[str]) -> None:
    """Every line of ``text`` fits 80 columns, nothing is cut, and every figure is shown whole."""
    assert all(len(line) <= 80 for line in text.splitlines())
    assert "…" not in text
    shown = [token.rstrip(",") for token in text.replace("│", " ").split()]
    for figure in figures:
        assert figure in shown, figure


def test_the_survey_fits_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    screen = _screen(monkeypatch)
    code, _, err = run("survey", "-p", "3", "-c", "3", "--objective", "both")
    assert code == 0, err
    cells = json.loads(Path("keypeg-survey.json").read_text())["cells"]
    figures = {c["strategy"] for c in cells} | {c["pool"] for c in cells} | {f"{c['average']:.4f}" for c in cells}
    _fits(screen.getvalue(), sorted(figures))


def test_the_widest_survey_rows_fit_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The longest names and figures a survey shows: 12 pegs' first guess, 1,425 s, a 5-digit total."""
    from keypeg.cli.survey import _tables

    screen = _screen(monkeypatch)
    import keypeg.cli.survey

    cells = [
        engine.CellOutcome(
            engine.Cell(12, 2, True, "optimal", "consistent", "worst-case"), 4096, "AAAAAABBBBBB", 41234, 13, 1425.5
        ),
        engine.CellOutcome(
            engine.Cell(12, 2, True, "expected-size", "consistent"), 4096, "AAAAAAABBBBB", 52345, 14, 0.25
        ),
    ]
    for table in _tables(cells):
        keypeg.cli.survey.out.print(table)
    _fits(screen.getvalue(), ["AAAAAABBBBBB", "41,234", "10.0669", "1425.50", "52,345", "12.7795", "expected-size"])


def test_the_optimal_rows_keep_cpu_seconds_and_sets_searched_and_save_verified_trees() -> None:
    from keypeg.strategy_tree import load_tree, verify_tree

    grid = ["-p", "3", "-c", "3", "--repeats", "-s", "optimal", "-s", "simple", "--objective", "both"]
    code, _, err = run("survey", *grid, "--pool", "all", "--trees", "trees", "--markdown", "s.md")
    assert code == 0, err
    cells = {(c["strategy"], c["objective"]): c for c in json.loads(Path("keypeg-survey.json").read_text())["cells"]}
    for objective in ("total", "worst-case"):
        optimal = cells["optimal", objective]
        assert optimal["nodes"] > 0 and optimal["cpu_seconds"] >= 0
    assert "nodes" not in cells["simple", ""] and cells["simple", ""]["cpu_seconds"] >= 0
    table = [line for line in Path("s.md").read_text().splitlines() if line.startswith("| ")]
    assert table[0].endswith("| cpu seconds | nodes |")
    assert table[-1].startswith("| 3x3 | 27 | optimal | all | worst-case |") and table[-1].endswith(
        f" | {cells['optimal', 'worst-case']['nodes']} |"
    )
    assert [p.name for p in Path("trees").iterdir()] == ["optimal-3x3-all-all-rows12.json"]  # least total only
    tree = load_tree(Path("trees/optimal-3x3-all-all-rows12.json"))
    assert verify_tree(tree).ok and tree.stats.total == cells["optimal", "total"]["total"] == 73
    assert tree.conventions["nodes"] == cells["optimal", "total"]["nodes"]
    assert tree.conventions["cpu_seconds"] >= 0


def test_results_kept_before_cpu_seconds_were_load_and_show_blank() -> None:
    cell = {"pegs": 2, "colors": 2, "repeats": True, "strategy": "simple", "pool": "consistent", "objective": ""}
    cell.update(codes=4, first="AA", total=8, worst=3, seconds=0.5)
    old = {"keypeg_survey": 1, "cells": [cell]}
    Path("old.json").write_text(json.dumps(old))
    code, _, err = run(
        "survey", "-p", "2", "-c", "2", "--repeats", "-s", "simple", "--results", "old.json", "--csv", "s.csv"
    )
    assert code == 0 and "reusing 1 finished cell" in err
    (row,) = csv.DictReader(Path("s.csv").read_text().splitlines())
    assert (row["total"], row["seconds"], row["cpu seconds"], row["nodes"]) == ("8", "0.50", "", "")


def test_tables_only_works_nothing_out_and_lists_the_missing_cells(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = ["-p", "2", "-c", "2-3", "--repeats", "-s", "simple", "--csv", "s.csv"]
    code, _, err = run("survey", "-p", "2", "-c", "2", "--repeats", "-s", "simple")
    assert code == 0, err

    def refused(cell: engine.Cell) -> str:
        raise AssertionError(f"{cell.key} worked out")

    monkeypatch.setattr(engine, "run_cell", refused)
    code, out, err = run("survey", *grid, "--tables-only")
    assert code == 0, err
    rows = {r["game"]: r for r in csv.DictReader(Path("s.csv").read_text().splitlines())}
    assert rows["2x2"]["total"] == "8" and rows["2x2"]["skipped"] == ""
    assert rows["2x3"]["total"] == "" and rows["2x3"]["skipped"].startswith("not worked out yet: the same command")
    assert "by keypeg's cost model" in rows["2x3"]["skipped"] and "skipped 2x3 simple" in out


def test_every_feedback_cell_is_what_analyze_and_optimal_give_alone() -> None:
    cells = surveyed(
        "-p",
        "2",
        "-c",
        "3",
        "--feedback",
        "black",
        "--feedback",
        "colors",
        "-s",
        "optimal",
        "-s",
        "entropy",
        "--objective",
        "both",
    )
    games = ["2x3-colours", "2x3-norepeats-colours", "2x3-black", "2x3-norepeats-black"]
    assert list(dict.fromkeys(c["game"] for c in cells)) == games and len(cells) == 4 * (2 + 4)
    assert {c["feedback"] for c in cells} == {"black", "colours"}
    for cell in cells:
        expected = alone(cell)
        assert (cell["total"], cell["codes"]) == (expected["total"], expected["secrets"]), cell
    kept = engine.Results(Path("keypeg-survey.json"))
    assert {o.cell.rules.feedback for o in kept.outcomes.values()} == {"black", "colours"}
