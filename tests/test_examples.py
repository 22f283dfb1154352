"""The scripts of ``examples/`` run as a reader runs them (``python examples/NAME.py ...``, a process of its own,
at small sizes), and what they print is checked against keypeg: the figures, the games, the bot's wins on a
real ``keypeg serve``."""

from __future__ import annotations

import importlib.util
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import environment, keypeg_serve
from keypeg import Feedback, History, Rules, analyze, best_guess, find_variant, optimal, score

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CPU = re.compile(r"in [\d.]+ CPU s")
"""The one figure of the learner's that changes from run to run."""
SCRIPTS = ("random_agent", "compare_policies", "learn_3x3", "json_api_bot", "adversary")


def run(name: str, *args: str, code: int = 0) -> str:
    """``python examples/NAME.py ARGS`` with the keypeg under test; its output, once it exits with ``code``."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), *args],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == code, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    if code == 0:
        assert done.stderr == "", done.stderr
    return done.stdout if code == 0 else done.stderr


def in_process(name: str, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """What ``main(ARGS)`` of ``examples/NAME.py``, loaded in this process, prints (quicker than a process)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    capsys.readouterr()
    assert module.main(list(args)) == 0
    return capsys.readouterr().out


def table(text: str, first: str) -> dict[str, list[str]]:
    """The rows of the table whose header starts with ``first``, by their first word."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    rows: dict[str, list[str]] = {}
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        name, *cells = re.split(r"\s{2,}", line.strip())
        rows[name] = cells
    return rows


def number(cell: str) -> float:
    return float(cell.replace(",", ""))


def test_every_example_is_listed_in_the_readme_and_has_a_docstring_saying_how_to_run_it() -> None:
    readme = (EXAMPLES / "README.md").read_text()
    assert sorted(path.stem for path in EXAMPLES.glob("*.py")) == sorted(SCRIPTS)
    for name in SCRIPTS:
        source = (EXAMPLES / f"{name}.py").read_text()
        assert f"`{name}.py`" in readme
        assert source.startswith('"""') and f"python examples/{name}.py" in source.split('"""')[1]


def test_the_random_agent_wins_every_game_masked_and_counts_every_game_unmasked() -> None:
    said = run("random_agent", "--games", "12", "--show")
    assert said.startswith("A random agent on 4 pegs, 6 colours, repeats, 12 rows (1,296 codes), 12 games each way")
    rows = table(said, "agent")
    won, lost = int(rows["masked"][0]), int(rows["masked"][1])
    assert (won, lost) == (12, 0)
    assert 1 <= number(rows["masked"][2]) <= 12
    assert int(rows["unmasked"][0]) + int(rows["unmasked"][1]) == 12
    shown = said.split("The first masked game:\n")[1].splitlines()
    moves = [line.split() for line in shown if re.match(r"\s*\d+\s", line)]
    secret = find_variant("classic").rules.parse(moves[-1][1])
    assert moves[-1][2] == "●●●●" and shown[-1] == f"broken in {len(moves)} guesses"
    for move in moves:  # every score drawn is the guess's score against the secret the game ended on
        drawn = score(find_variant("classic").rules.parse(move[1]), secret)
        assert move[2] == "●" * drawn.black + "○" * drawn.white + "·" * (4 - drawn.black - drawn.white)


def test_compare_policies_prints_the_trees_figures_and_a_two_line_agent_plays_as_shapiros_strategy() -> None:
    said = run(
        "compare_policies",
        "--variant",
        "3x3",
        *(f"-s{name}" for name in ("random", "knuth", "optimal")),
        "-sfirst-fitting",
        "-ssimple",
    )
    rows = table(said, "policy")
    rules = find_variant("3x3").rules
    knuth, best = analyze(rules, "knuth").stats, optimal(rules).stats
    assert rows["knuth"][:4] == ["27", str(knuth.total), f"{knuth.average:.3f}", str(knuth.max)]
    assert rows["optimal"][:4] == ["27", str(best.total), f"{best.average:.3f}", str(best.max)]
    assert rows["random"][0] == "27" and number(rows["random"][1]) >= best.total
    assert all(row[4] == "0" for row in rows.values())  # no failures
    assert rows["first-fitting"][:5] == rows["simple"][:5] == ["27", "89", "3.296", "5", "0"]


def test_the_learner_reaches_the_optimum_it_prints_and_prints_the_same_again_with_the_same_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    said = run("learn_3x3")
    rows = table(said, "player")
    best = optimal(Rules(3, 3)).stats
    assert rows["optimal"] == [str(best.total), f"{best.average:.3f}", str(best.max)]  # 73 over 27 secrets
    learnt = number(rows["Q-learning agent"][1])
    assert learnt - best.average < 0.08  # at most 75 guesses; 10,000 games gave 73 for 27 seeds of 0-29, 74 for 3
    assert f"the agent averages {learnt - best.average:.3f} guesses a game more than the optimum" in said
    once, again = (in_process("learn_3x3", capsys, "--episodes", "200", "--seed", "5") for _ in "ab")
    assert re.sub(CPU, "", once) == re.sub(CPU, "", again) and "seed 5" in once


def test_the_bot_wins_its_games_on_a_running_server_with_keypegs_best_guesses(tmp_path: Path) -> None:
    with keypeg_serve(f"sqlite:///{tmp_path / 'bot.sqlite3'}", tmp_path) as server:
        said = run("json_api_bot", "--url", server.base, "--games", "2", "--pegs", "3", "--colors", "3")
        # a strategy too costly for the server's rules: one line, no game shown, and no game left open there
        refused = run("json_api_bot", "--url", server.base, "--variant", "super", "--strategy", "two-step", code=2)
    assert said.splitlines()[-1].startswith("won 2 of 2 games")
    rules = Rules(3, 3)
    games = said.split("game ")[1:]
    assert len(games) == 2
    for game in games:
        secret = rules.parse(re.search(r"the secret was (\w+)", game).group(1))  # type: ignore[union-attr]
        history = History(rules)
        for guess, black, white in re.findall(r"\d+\. (\w+) .* (\d) black, (\d) white", game):
            assert str(best_guess(history).guess) == guess  # Knuth's guess, from the server's scores
            assert score(rules.parse(guess), secret) == Feedback(int(black), int(white))
            history = history.add(guess, (int(black), int(white)))
        assert history.solved and f"won in {len(history)} guesses" in game
    assert refused.count("\n") == 1 and refused.startswith("error: the two-step guess on 5 pegs, 8 colours"), refused
    with sqlite3.connect(tmp_path / "bot.sqlite3") as db:  # the two won and the one refused, resigned
        assert db.execute("SELECT count(*), count(ended_at) FROM games").fetchone() == (3, 3)


def test_the_adversary_never_makes_a_strategy_need_more_than_its_worst_case() -> None:
    said = run("adversary", "--pegs", "3", "--colors", "3", "-s", "knuth", "-s", "simple", "-s", "optimal")
    rows = table(said, "codebreaker")
    rules = Rules(3, 3)
    assert set(rows) == {"knuth", "simple", "optimal"}
    for name, (guesses, worst, moves) in rows.items():
        tree = optimal(rules) if name == "optimal" else analyze(rules, name)
        assert int(worst) == tree.stats.max
        assert 1 <= int(guesses) <= int(worst)
        played = [move.split("=") for move in moves.split()]
        secret = rules.parse(played[-1][0])
        assert [rules.parse_feedback(given) for _, given in played] == [
            score(rules.parse(g), secret) for g, _ in played
        ]
    assert "knuth against the adversary, move by move:" in said and f"broken in {rows['knuth'][0]} guess" in said


@pytest.mark.parametrize("name", ["random_agent", "compare_policies", "learn_3x3", "adversary"])
def test_a_bad_rule_set_is_one_line_of_error(name: str) -> None:
    said = run(name, "--pegs", "0", code=2)
    assert said.count("\n") == 1 and said.startswith("error: pegs must be from 1"), said


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_bad_seed_is_one_line_of_error_before_anything_is_played(name: str) -> None:
    """keypeg's one rule for seeds (a whole number from 0), said by the library (the bot: before it reaches
    any server), not a traceback from numpy or Gymnasium."""
    said = run(name, "--seed", "-1", "--pegs", "2", "--colors", "2", code=2)
    assert said.splitlines()[-1].endswith("seed must be a whole number from 0, not -1"), said
    assert "Traceback" not in said and said.count("\n") <= (4 if name == "json_api_bot" else 1)  # argparse's usage


def test_a_policy_that_cannot_play_the_board_gets_a_row_saying_why_and_the_others_play() -> None:
    """No strategy breaks every 3x3 secret within 3 guesses: there is no optimum to follow."""
    said = run("compare_policies", "--variant", "3x3", "--rows", "3")
    rows = table(said, "policy")
    assert rows["optimal"] == [
        "n/a",
        "optimal cannot play 3x3, 3 rows: no strategy solves every secret within 3 guesses",
    ]
    assert rows["knuth"][0] == rows["random"][0] == "27" and int(rows["knuth"][4]) > 0  # played, failures counted


def test_a_policy_too_costly_to_play_says_the_scripts_option_that_plays_it_anyway() -> None:
    said = run("compare_policies", "--variant", "super", "-s", "optimal", "--episodes", "1")
    assert table(said, "policy")["optimal"][1].endswith("; --force runs it anyway") and "force=True" not in said


def test_the_adversary_example_says_which_strategy_cannot_play_and_plays_the_others() -> None:
    said = run("adversary", "--variant", "super", "-s", "optimal", "-s", "simple")
    rows = table(said, "codebreaker")
    assert rows["optimal"][0] == "n/a" and rows["optimal"][1].startswith("optimal cannot play super: the optimal guess")
    assert rows["optimal"][1].endswith("; --force runs it anyway")  # the script's option, not the library's force=True
    assert rows["simple"][2].endswith("=5,0") and said.startswith("simple against the adversary, move by move:")


def test_one_row_is_said_in_the_singular() -> None:
    said = run("random_agent", "--variant", "3x3", "--rows", "1", "--games", "1")
    assert said.startswith("A random agent on 3 pegs, 3 colours, repeats, 1 row (27 codes), 1 game each way")
