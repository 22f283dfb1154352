"""Scores under black and colours feedback are written one way per feedback in every face: in words for people
(:meth:`Rules.show`), one number in files and JSON keys (:meth:`Rules.key`); standard feedback keeps ``B,W``."""

from __future__ import annotations

import json
import os
import re
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from keypeg import Feedback, Rules
from keypeg.analysis.export import tree_to_json, tree_to_lookup, tree_to_text
from keypeg.analysis.tree import build_tree
from keypeg.cli import cli
from keypeg.cli.play import solve_help
from keypeg.services import explorer
from keypeg.strategies import make_strategy
from keypeg.web import create_app

SITE = "https://keypeg.test"


def test_a_score_is_shown_and_keyed_per_feedback() -> None:
    standard, black, colours = (Rules(3, 3, feedback=f) for f in ("standard", "black", "colours"))
    assert (standard.show(Feedback(1, 2)), standard.key(Feedback(1, 2))) == ("1,2", "1,2")
    assert (black.show(Feedback(2, 0)), black.key(Feedback(2, 0))) == ("2 black", "2")
    assert (colours.show(Feedback(1, 0)), colours.key(Feedback(1, 0))) == ("1 colour right", "1")
    for rules in (standard, black, colours):
        assert all(rules.parse_feedback(rules.key(f)) == f for f in rules.feedbacks())  # read back as written


def test_the_exports_write_one_number_under_colours_and_the_lookup_reads_back() -> None:
    rules = Rules(3, 3, feedback="colours")
    tree = build_tree(make_strategy("most-parts"), rules)
    lookup = tree_to_lookup(tree).splitlines()
    assert lookup[0] == "# history (GUESS=N ...) -> next guess"
    for line in lookup[2:]:
        for scored in line.split(" -> ")[0].split():
            rules.parse_scored(scored)  # GUESS=N, as the command line takes it
    assert "," not in "".join(lookup[1:]) and "," not in "".join(tree_to_text(tree).splitlines()[1:])
    standard = tree_to_lookup(build_tree(make_strategy("most-parts"), Rules(3, 3))).splitlines()
    assert standard[0] == "# history (GUESS=B,W ...) -> next guess" and "=1,0 " in "\n".join(standard)


def test_tables_and_solve_help_say_scores_in_the_rules_words() -> None:
    shown = CliRunner().invoke(cli, ["tables", "-p", "3", "-c", "3", "--feedback", "colours", "--no-second-round"])
    assert shown.exit_code == 0, shown.output
    assert "1 colour right" in shown.stdout and "after 1 colour right" in shown.stdout
    assert not re.search(r"\b\d,0\b", shown.stdout)
    assert "'fix 2 1'" in solve_help(Rules(4, 6, feedback="black"))
    assert "'fix 2 1 0'" in solve_help(Rules(4, 6))


def test_the_api_keys_scores_by_one_number_and_advises_json_clients(tmp_path: Path) -> None:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url=SITE)
    headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"], "Origin": SITE}
    game = {"pegs": 3, "colors": 3, "feedback": "black"}
    breaker = client.post("/api/games", json={**game, "practice": True}, headers=headers).json()
    explained = client.post(f"/api/games/{breaker['id']}/help/explain", headers=headers)
    assert explained.status_code == 200, explained.text
    parts = [key for ranked in explained.json()["ranked"] for key in ranked["parts"]]
    assert parts and all(key.isdigit() for key in parts)
    maker = client.post("/api/games", json={**game, "role": "maker"}, headers=headers).json()
    refused = client.post(f"/api/games/{maker['id']}/scores", json={"black": 2, "white": 1}, headers=headers)
    assert refused.status_code == 400 and "'2b'" not in refused.text and "white 0" in refused.text
    explored = client.get("/api/explore/3x3-black/most-parts")
    assert explored.status_code == 200, explored.text
    answers = [b["answer"] for b in explored.json()["branches"]]
    assert answers and all(a.isdigit() for a in answers)
    deeper = client.get("/api/explore/3x3-black/most-parts", params={"path": answers[0]})  # read back as written
    assert deeper.status_code == 200 and deeper.json()["trail"][0]["answer"] == answers[0]
    assert deeper.json()["path"] == answers[0] and deeper.json()["page"].endswith(f"/most-parts/{answers[0]}")
    page = client.get(deeper.json()["page"])  # the page's address reads back too
    assert page.status_code == 200 and f"?path={answers[0]}" in page.text


def test_the_api_reads_a_feedback_in_any_case_and_names_the_choices(tmp_path: Path) -> None:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url=SITE)
    headers = {"X-CSRF-Token": client.get("/api/session").json()["csrf"], "Origin": SITE}
    started = client.post("/api/games", json={"pegs": 3, "colors": 3, "feedback": "Black"}, headers=headers)
    assert started.status_code == 201, started.text
    assert started.json()["rules"]["feedback"] == "black"
    compared = client.get("/api/strategies", params={"pegs": 2, "colors": 3, "feedback": "COLOURS"})  # a query
    assert compared.status_code == 200 and compared.json()["rules"]["feedback"] == "colours"
    wrong = client.post("/api/games", json={"pegs": 3, "colors": 3, "feedback": "Grey"}, headers=headers)
    assert wrong.status_code == 422 and all(name in wrong.text for name in ("'standard'", "'colours'", "'black'"))


@pytest.mark.parametrize(
    ("key", "value"), [("cpu_seconds", -5), ("nodes", "many"), ("cpu_seconds", "1 s"), ("nodes", -1), ("depth", 2.5)]
)
def test_verify_refuses_an_ill_typed_or_negative_figure(tmp_path: Path, key: str, value: object) -> None:
    data = json.loads(tree_to_json(build_tree(make_strategy("most-parts"), Rules(2, 3))))
    path = tmp_path / "tree.json"
    data["conventions"].update(cpu_seconds=0.5, nodes=12)  # figures as the optimal search records them
    path.write_text(json.dumps(data))
    assert CliRunner().invoke(cli, ["verify", str(path)]).exit_code == 0
    data["conventions"][key] = value
    path.write_text(json.dumps(data))
    refused = CliRunner().invoke(cli, ["verify", str(path)])
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert len(refused.stderr.splitlines()) == 1 and key in refused.stderr


@pytest.mark.parametrize("game", ["4x6", "5x5"])  # presets of 10 rows, where a game of one's own has 12
def test_an_explored_variant_has_the_rows_of_its_standard_game(game: str) -> None:
    standard = explorer.rules_named(game)
    for feedback in ("black", "colours", "colors"):
        variant = explorer.rules_named(f"{game}-{feedback}")
        assert variant.rows == standard.rows and variant.feedback == feedback.replace("colors", "colours")
        assert explorer.rules_named(explorer.game_name(variant)) == variant  # the address names it again
    assert explorer.rules_named(f"{game}-norepeats-black").rows == explorer.rules_named("5x7").rows == 12


def test_a_second_ctrl_c_while_the_optimal_search_saves_does_not_cut_the_save_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from keypeg.strategies.optimal import OptimalSolver

    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    saved = tmp_path / "saved.npz"

    def interrupted(self: OptimalSolver) -> int:
        raise KeyboardInterrupt  # the first Ctrl-C, mid-search

    def checkpoint(self: OptimalSolver) -> Path:
        os.kill(os.getpid(), signal.SIGINT)  # the second, while the memo is written
        os.kill(os.getpid(), signal.SIGTERM)  # and a process group's SIGTERM
        saved.write_bytes(b"memo")
        return saved

    monkeypatch.setattr(OptimalSolver, "solve", interrupted)
    monkeypatch.setattr(OptimalSolver, "checkpoint", checkpoint)
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    result = CliRunner().invoke(cli, ["optimal", "-p", "2", "-c", "2", "--no-save"])
    assert result.exit_code == 130, result.output
    assert saved.exists() and result.stderr.startswith("interrupted: the search so far is saved")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before  # heard again afterwards
