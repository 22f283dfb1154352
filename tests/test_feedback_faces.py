"""The feedback variants (colours only, black pegs only) in every face: the CLI's --feedback, the presets,
the terminal's line protocol, the store, the web's forms, board, API and daily puzzle (issue 31)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from fastapi.testclient import TestClient

from keypeg import Feedback, Rules, find_variant, score
from keypeg.cli import cli
from keypeg.game import random_code
from keypeg.knowledge import Knowledge
from keypeg.play import codemakers
from keypeg.play.daily import share_grid
from keypeg.store import Store
from keypeg.web import create_app

SITE = "https://keypeg.test"
COLOURS = find_variant("classic-colours").rules
BLACK = find_variant("classic-black").rules


def run(args: list[str], lines: list[str] = ()) -> Result:  # type: ignore[assignment]
    result = CliRunner().invoke(cli, args, input="".join(f"{line}\n" for line in lines))
    assert "Traceback" not in result.output
    return result


# -- the command line ------------------------------------------------------------------------------


def test_the_feedback_option_scores_and_counts_under_each_feedback() -> None:
    assert run(["score", "RRGB", "GRBR"]).stdout.strip().endswith("1 black, 3 white")
    colours = run(["score", "RRGB", "GRBR", "--feedback", "colors"])  # the US spelling reads the same
    assert colours.exit_code == 0 and colours.stdout.strip() == "◆◆◆◆  4 colours right  (code broken)"
    black = run(["score", "RRGB", "GRBR", "--feedback", "black", "--json"])
    assert json.loads(black.stdout) == {"black": 1, "white": 0}
    # under colours a code is its colours: 3 codes of 1,296 have exactly the colours R, G and two B
    found = run(["candidates", "RGBB=4", "--feedback", "colours", "--json"])
    assert found.exit_code == 0, found.stderr
    assert json.loads(found.stdout)["count"] == 1  # the code RGBB, in any order, is one code
    refused = run(["candidates", "RRGG=1,1", "--feedback", "black"])
    assert refused.exit_code == 2 and refused.stderr.startswith("error:") and len(refused.stderr.splitlines()) == 1
    wrong = run(["score", "RRGB", "GRBR", "--feedback", "grey"])
    assert wrong.exit_code == 2 and "grey" in wrong.stderr and len(wrong.stderr.splitlines()) == 1


def test_the_presets_of_the_feedbacks_are_listed_and_found_by_their_aliases() -> None:
    listed = {v["name"]: v for v in json.loads(run(["variants", "--json"]).stdout)}
    assert listed["classic-colours"]["feedback"] == "colours" and listed["classic-black"]["feedback"] == "black"
    assert listed["classic"]["feedback"] == "standard"
    assert listed["classic-colours"]["codes"] == 126  # multisets of 4 of 6 colours
    assert find_variant("colours only") is find_variant("easy") is find_variant("classic-colours")
    assert find_variant("black-peg").rules.feedback == "black"
    from keypeg.variants import rules_from_options

    assert rules_from_options("classic", None, None, None, None, None, "colours").name == "classic-colours"
    assert rules_from_options("classic-black", None, None, None, None, None, "standard").name == "classic"
    table = run(["variants"]).stdout
    assert "colours only" in table and "black only" in table


# -- the terminal's line protocol ------------------------------------------------------------------


@pytest.mark.parametrize("feedback", ["colours", "black"])
def test_a_terminal_game_of_each_feedback_is_played_to_the_end(feedback: str) -> None:
    rules = Rules(3, 4, feedback=feedback)
    secret = rules.parse("DAB")  # under colours: ABD
    guesses = ["AAB", "BDA"] if feedback == "colours" else ["AAB", "BDA", "DAB"]  # BDA has ABD's colours
    played = run(["play", "-p", "3", "-c", "4", "--feedback", feedback, "--secret", "DAB", "--no-record"], guesses)
    assert played.exit_code == 0, played.stderr
    expected = [score(secret, rules.parse(g)) for g in guesses]
    assert played.stdout.splitlines() == [f"{f.black} 0" for f in expected]
    assert expected[-1] == rules.win
    # the computer breaks the code: scores typed as one number ("2", "2c", "2b") or "2,0"
    knowledge, lines = Knowledge(rules), []
    from keypeg.play.levels import level_strategy

    strategy = level_strategy(3, rules)
    while not knowledge.solved:
        guess = strategy.next_guess(knowledge)
        answer = score(secret, guess)
        knowledge = knowledge.add(guess, answer)
        lines.append((str(guess), answer))
    suffix = "c" if feedback == "colours" else "b"
    typed = ["1 1", *[f"{f.black}{suffix}" if k % 2 else f"{f.black},0" for k, (_, f) in enumerate(lines)]]
    solved = run(["solve", "-p", "3", "-c", "4", "--feedback", feedback, "--no-record"], typed)
    assert solved.exit_code == 0, solved.stderr
    assert solved.stdout.splitlines() == [g for g, _ in lines]
    assert "white" in solved.stderr  # '1 1' (a white peg) is refused with the reason, and read again


# -- the store --------------------------------------------------------------------------------------


def test_rules_are_stored_with_their_feedback_and_old_rows_load_as_standard(tmp_path: Path) -> None:
    from keypeg.store.models import GameRow
    from keypeg.store.plumbing import rules_of

    row = GameRow(id=1, pegs=4, colors=6, repeats=True, blanks=False, rows=12)
    row.rules = json.dumps({k: v for k, v in COLOURS.as_dict().items() if k != "feedback"})  # before issue 31
    assert rules_of(row).feedback == "standard"
    row.rules = json.dumps(COLOURS.as_dict())
    assert rules_of(row) == COLOURS and rules_of(row).feedback == "colours"
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    run(["play", "--variant", "classic-black", "--secret", "RGBY", "--db", url, "--player", "ann"], ["RGBY"])
    (record,) = Store(url).games.history(limit=None)
    assert record.rules.feedback == "black" and record.variant == "classic-black" and record.outcome == "solved"
    exported = run(["export", "--db", url, "--player", "ann"]).stdout.splitlines()
    assert "feedback" in exported[0].split(",") and ",black," in exported[1]


# -- the web ----------------------------------------------------------------------------------------


def browser(tmp_path: Path) -> tuple[TestClient, str]:
    client = TestClient(create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}"), base_url=SITE)
    found = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text)
    assert found is not None
    return client, found.group(1)


def error_of(html: str) -> str:
    found = re.search(r'class="error" role="alert">([^<]*)<', html)
    assert found is not None, "no error shown"
    return found.group(1)


@pytest.mark.parametrize("feedback", ["colours", "black"])
def test_a_web_game_of_each_feedback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, feedback: str) -> None:
    rules = COLOURS if feedback == "colours" else BLACK
    monkeypatch.setattr(codemakers.random, "SystemRandom", lambda: random.Random(3))  # type: ignore[attr-defined]
    secret = random_code(rules, random.Random(3))
    client, csrf = browser(tmp_path)
    assert 'name="feedback"' in client.get("/").text  # the Play form's rules fields
    started = client.post("/play", data={"csrf": csrf, "variant": "classic", "feedback": feedback})
    assert started.status_code == 200 and "/play/" in str(started.url)
    board = str(started.url)
    guess = next(c for c in Knowledge(rules).codes(limit=50) if c != secret)
    typed = str(guess)[::-1]  # any order: under colours the same code
    moved = client.post(f"{board}/guess", data={"csrf": csrf, "code": typed})
    assert moved.status_code == 200
    answer = score(secret, rules.parse(typed))
    said = f"{answer.black} colours right" if feedback == "colours" else f"{answer.black} black"
    if feedback == "colours" and answer.black == 1:
        said = "1 colour right"
    assert re.findall(r'score-text">([^<]*)<', moved.text) == [said]
    assert ('class="key colour"' in moved.text) == (feedback == "colours" and answer.black > 0)
    shown = "".join(sorted(typed, key="RGBYWK".index)) if feedback == "colours" else typed  # in colour order
    assert f", {shown}:</span>" in moved.text
    won = client.post(f"{board}/guess", data={"csrf": csrf, "code": str(secret)})
    assert "You broke the code" in won.text

    # the computer breaks your code: only the answers these rules can give are offered, others refused
    maker = client.post("/play", data={"csrf": csrf, "variant": "classic", "feedback": feedback, "role": "maker"})
    offered = re.findall(r'<option value="(\d+)">([^<]+)</option>', maker.text)
    assert [int(v) for v, _ in offered] == [f.black for f in rules.feedbacks()]
    refused = client.post(f"{maker.url}/score", data={"csrf": csrf, "black": "1", "white": "1"})
    assert refused.status_code == 400 and "white" in error_of(refused.text)
    assert 'data-feedback="' + feedback + '"' in maker.text


def test_the_api_takes_and_returns_the_feedback_and_the_daily_puzzle_of_a_variant(tmp_path: Path) -> None:
    client, _ = browser(tmp_path)
    token = client.get("/api/session").json()["csrf"]
    headers = {"X-CSRF-Token": token, "Origin": SITE}
    started = client.post("/api/games", json={"variant": "classic", "feedback": "colors"}, headers=headers)
    assert started.status_code == 201, started.text
    game = started.json()
    assert game["rules"]["feedback"] == "colours" and Rules.from_dict(game["rules"]) == COLOURS
    moved = client.post(f"/api/games/{game['id']}/guesses", json={"code": "KRRG"}, headers=headers).json()
    assert moved["white"] == 0 and moved["history"] == [{"guess": "RRGK", "black": moved["black"], "white": 0}]
    standard = client.post("/api/games", json={"variant": "classic"}, headers=headers).json()
    assert standard["rules"]["feedback"] == "standard"
    wrong = client.post("/api/games", json={"variant": "classic", "feedback": "grey"}, headers=headers)
    assert wrong.status_code == 422
    daily = client.get("/api/daily", params={"variant": "classic-black"}).json()
    assert daily["rules"]["feedback"] == "black"
    assert "What a guess is told: standard (black and white pegs)" in client.get("/docs").text  # the API page
    page = client.get("/daily", params={"variant": "classic-colours"})
    assert page.status_code == 200 and "classic-colours" in page.text
    grid = share_grid("2026-11-23", find_variant("classic-colours"), [("x", Feedback(2, 0)), ("y", COLOURS.win)], True)
    assert grid.splitlines()[1:] == ["◆◆··", "◆◆◆◆"]  # a colours puzzle's grid: pegs of a right colour
