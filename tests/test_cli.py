"""The ``keypeg`` command line, through click's runner and once as the installed script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from keypeg import Rules
from keypeg.cli import cli
from keypeg.feedback import score_colors
from keypeg.variants import VARIANTS
from reference import legal_codes

CLASSIC = "RGBYWK"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def ok(*args: str) -> Result:
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result


# -- variants ------------------------------------------------------------------------------------------


def test_variants_lists_the_presets() -> None:
    output = ok("variants").output
    for name in ("classic", "mini", "super", "bulls-and-cows"):
        assert name in output


def test_variants_piped_fits_80_columns_and_splits_no_word() -> None:
    """Piped, Rich lays the table out in 80 columns: every name, alias and figure must still be whole."""
    env = {**os.environ, "COLUMNS": "80"}
    result = subprocess.run([sys.executable, "-m", "keypeg", "variants"], capture_output=True, text=True, env=env)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80 and "…" not in result.stdout
    words = {word for line in lines for word in line.split()}
    for variant in VARIANTS.values():
        assert {variant.name, *variant.aliases, f"{variant.rules.size:,}"} <= words


def test_variants_json() -> None:
    listed = json.loads(ok("variants", "--json").output)
    by_name = {item["name"]: item for item in listed}
    assert {"classic", "mini", "super", "bulls-and-cows"} <= set(by_name)
    assert set(by_name) == set(VARIANTS)
    assert (by_name["super"]["pegs"], by_name["super"]["colors"]) == (5, 8)
    assert "deluxe" in by_name["super"]["aliases"]
    assert by_name["bulls-and-cows"]["repeats"] is False
    assert by_name["bulls-and-cows"]["symbols"] == "0123456789"
    assert by_name["mini"]["rows"] == 6
    assert by_name["classic"]["codes"] == len(legal_codes(4, 6, True))


# -- score ---------------------------------------------------------------------------------------------


def test_score_classic_seed_example() -> None:
    assert "3 black, 0 white" in ok("score", "RRBB", "RRRB").output


def test_score_json_with_pegs_and_colours() -> None:
    result = ok("score", "AABB", "BBAB", "--pegs", "4", "--colors", "6", "--json")
    assert json.loads(result.output) == {"black": 1, "white": 2}


def test_score_bulls_and_cows_digits() -> None:
    black, white = score_colors((0, 1, 2, 3), (3, 2, 1, 0))
    assert f"{black} black, {white} white" in ok("score", "0123", "3210", "--variant", "bulls-and-cows").output
    result = ok("score", "0123", "3210", "-v", "bulls", "--json")
    assert json.loads(result.output) == {"black": black, "white": white}


def test_score_a_win_says_so() -> None:
    assert "broken" in ok("score", "RGBY", "rgby").output
    assert "broken" not in ok("score", "RGBY", "RGYB").output


MIXED = [
    (("--variant", "classic", "--rows", "8"), VARIANTS["classic"].rules.replace(rows=8), "RRBB", "RRRB"),
    (("--variant", "super", "--pegs", "4"), VARIANTS["super"].rules.replace(pegs=4), "RPOB", "PROK"),
    (("--variant", "classic", "--colors", "8"), Rules(4, 8), "AHGB", "HAGC"),
    (("--variant", "mini", "--blanks"), VARIANTS["mini"].rules.replace(blanks=True), "RR.B", "R.RB"),
    (("-v", "bulls-and-cows", "--repeats"), VARIANTS["bulls-and-cows"].rules.replace(repeats=True), "0012", "1200"),
]


@pytest.mark.parametrize(("args", "rules", "secret", "guess"), MIXED)
def test_variant_mixed_with_options(args: tuple[str, ...], rules: Rules, secret: str, guess: str) -> None:
    expected = score_colors(rules.parse(secret).colors, rules.parse(guess).colors)
    result = ok("score", secret, guess, *args, "--json")
    assert json.loads(result.output) == {"black": expected[0], "white": expected[1]}


def test_options_change_the_variant() -> None:
    # H is the eighth colour: only with --colors 8; 0 rows is refused, so --rows reaches the rules.
    assert run("score", "AHGB", "HAGC", "--variant", "classic").exit_code == 2
    assert run("score", "RRBB", "RRRB", "--variant", "classic", "--rows", "0").exit_code == 2
    assert run("score", "RR.B", "R.RB", "--variant", "mini").exit_code == 2
    assert run("score", "0012", "1200", "--variant", "bulls-and-cows").exit_code == 2


# -- candidates ----------------------------------------------------------------------------------------


def _fitting(history: list[tuple[tuple[int, ...], tuple[int, int]]]) -> list[tuple[int, ...]]:
    return [c for c in legal_codes(4, 6, True) if all(score_colors(c, g) == f for g, f in history)]


def test_candidates_count_matches_the_reference() -> None:
    # Knuth notation: 1 is the first colour.
    expected = _fitting([((0, 0, 1, 1), (1, 0)), ((1, 2, 3, 3), (0, 1))])
    data = json.loads(ok("candidates", "1122=1,0", "2344=0,1", "--json").stdout)
    assert data["count"] == len(expected)
    assert data["codes"] == ["".join(CLASSIC[c] for c in code) for code in expected[:10]]


def test_candidates_text_lists_the_first_few() -> None:
    expected = _fitting([((0, 0, 1, 1), (1, 0)), ((1, 2, 3, 3), (0, 1))])
    output = ok("candidates", "1122=1,0", "2344=0,1", "--limit", "3").output
    assert f"{len(expected)} of 1,296" in output
    assert "".join(CLASSIC[c] for c in expected[0]) in output
    assert "".join(CLASSIC[c] for c in expected[3]) not in output


def test_candidates_without_history_is_every_code() -> None:
    data = json.loads(ok("candidates", "--pegs", "3", "--colors", "4", "--json", "-n", "0").output)
    assert data == {"count": len(legal_codes(3, 4, True)), "count_is_lower_bound": False, "codes": []}


def test_candidates_none_fit() -> None:
    assert not _fitting([((0, 0, 1, 1), (4, 0)), ((0, 1, 2, 3), (4, 0))])
    result = run("candidates", "AABB=4,0", "ABCD=4,0", "--pegs", "4", "--colors", "6")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no code fits") and result.stdout == ""
    assert "Traceback" not in result.output


CONTRADICTING = ("RRGG=4,0", "BBYY=1,0")


@pytest.mark.parametrize("command", [["candidates"], ["candidates", "--json"], ["next"], ["next", "--json"], ["hint"]])
def test_scores_no_code_fits_are_bad_input_to_every_command_that_needs_a_code(command: list[str]) -> None:
    """One rule: a command that needs a code to fit refuses such scores as bad input (exit 2, one
    ``error:`` line naming the likely mistake, nothing on stdout)."""
    result = run(*command, *CONTRADICTING)
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no code fits") and "Likely mistake" in lines[0]
    assert result.stdout == ""


def test_a_long_likely_mistake_is_never_cut() -> None:
    """Fifteen pegs: three suspects named with their codes make a line of over 400 characters, all of it
    keypeg's own words, so none of it is cut (input quoted inside is cut on its own)."""
    guesses = ("AAABBBCCCDDDEEE", "FFFGGGHHHIIIJJJ", "KKKLLLMMMNNNOOO", "PPPQQQRRRSSSTTT")
    result = run("next", *(f"{g}=0,0" for g in guesses), "-p", "15", "-c", "20")
    assert result.exit_code == 2 and len(result.stderr) > 400
    assert result.stderr.rstrip().endswith("1 other score alone could be wrong") and "characters)" not in result.stderr


def test_a_note_is_one_line_on_a_pipe() -> None:
    result = run("hint", "-p", "15", "-c", "20")
    notes = [line for line in result.stderr.splitlines() if line]
    assert result.exit_code == 0 and len(notes) == 1 and notes[0].startswith("note:") and "genetic" in notes[0]


def test_hint_and_next_agree_that_a_broken_code_needs_no_guess() -> None:
    answers = [run(command, "RRGG=1,1", "GRBY=4,0") for command in ("hint", "next")]
    assert [a.exit_code for a in answers] == [2, 2] and answers[0].stdout == answers[1].stdout == ""
    assert answers[0].stderr == answers[1].stderr == "error: the code is already broken: GRBY\n"


@pytest.mark.parametrize("as_json", [False, True])
def test_check_answers_no_by_its_exit_status_without_an_error_line(as_json: bool) -> None:
    """``check`` is asked whether the scores fit: "no" is its answer (exit 1, on stdout), not an error."""
    result = run("check", *CONTRADICTING, *(["--json"] if as_json else []))
    assert result.exit_code == 1 and "error:" not in result.output
    assert (json.loads(result.stdout)["consistent"] is False) if as_json else "inconsistent" in result.stdout
    assert run("check", "RRGG=1,0").exit_code == 0


# -- notation ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "notation", "shown"), [("BBCA", "letters", "GGBR"), ("2231", "digits", "GGBR"), ("GGBR", "own", None)]
)
def test_a_code_not_in_the_rules_own_symbols_is_echoed_as_read(typed: str, notation: str, shown: str | None) -> None:
    result = ok("score", "RGBY", typed)
    expected = score_colors((0, 1, 2, 3), (1, 1, 2, 0))  # GGBR against RGBY
    assert f"{expected[0]} black, {expected[1]} white" in result.stdout
    if shown is None:
        assert "note" not in result.stderr
    else:
        assert f"note: read in {notation}" in result.stderr and f"{typed} as {shown}" in result.stderr


def test_a_history_typed_in_letters_says_how_each_guess_was_read() -> None:
    result = ok("candidates", "AACC=2,0", "GGYY=2,0", "5566=0,0")
    note = result.stderr.strip()
    assert note.count("\n") == 0 and "AACC as RRBB" in note and "5566 as WWKK" in note
    assert "letters" in note and "digits" in note and "GGYY as" not in note


def test_a_guess_played_in_letters_is_echoed_on_stderr_by_the_protocol() -> None:
    result = CliRunner().invoke(cli, ["play", "--secret", "RGBY", "--no-record"], input="AABB\nRGBY\n")
    assert result.exit_code == 0 and result.stdout.splitlines() == ["1 1", "4 0"]
    assert "AABB as RRGG" in result.stderr


# -- errors ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (("score", "RRBX", "RRRB"), "X"),
        (("score", "RRB", "RRRB"), "RRB"),
        (("score", "RRBB", "RRRB", "--variant", "nope"), "nope"),
        (("score", "AAAAA", "ABCDE", "--pegs", "5", "--colors", "3", "--no-repeats"), "5"),
        (("candidates", "AABB=3,1"), "3 black 1 white"),
        (("candidates", "AABB=1"), "1"),
        (("candidates", "AABB"), "AABB"),
        (("score", "0012", "0123", "--variant", "bulls-and-cows"), "0012"),
        (("score", "AABB", "AABB", "--pegs", "0"), "0"),
        (("score", "RRBB", "RRRB", "--variant", "classic", "--rows", "0"), "rows"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args: tuple[str, ...], quoted: str) -> None:
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith("error:")
    assert quoted in lines[0]
    assert result.stdout == ""


# -- the installed script ---------------------------------------------------------------------------------


def test_installed_script() -> None:
    script = Path(sys.executable).with_name("keypeg")
    assert script.exists(), f"the keypeg script is not installed next to {sys.executable}"
    done = subprocess.run(
        [str(script), "score", "RRBB", "RRRB", "--json"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"black": 3, "white": 0}
    bad = subprocess.run(
        [str(script), "score", "RRBB", "RRRX"], capture_output=True, text=True, timeout=60, check=False
    )
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    assert bad.stderr.strip().startswith("error:")
    assert "RRRX" in bad.stderr


# -- options several commands share ------------------------------------------------------------------


SHARED = ("--strategy", "--pool", "--tie", "--scoring", "--force", "--db", "--json")
"""Options declared once (cli/options.py, cli/common.py's json_option) and taken by several commands."""


def _shared_options() -> dict[str, list[tuple[str, click.Option]]]:
    found: dict[str, list[tuple[str, click.Option]]] = {}
    for name, command in sorted(cli.commands.items()):
        for param in command.params:
            for flag in param.opts if isinstance(param, click.Option) else ():
                if flag in SHARED and not (name == "match" and flag == "--scoring"):  # a match's points
                    found.setdefault(flag, []).append((name, param))
    return found


def test_a_shared_option_means_the_same_in_every_command() -> None:
    """Each shared option has one help text, one kind of value and one destination everywhere; only
    --pool's default differs by command (and survey also takes 'both'), saying so in its help."""
    found = _shared_options()
    assert {"analyze", "next", "survey", "optimal"} <= {name for name, _ in found["--pool"]}
    assert {"analyze", "next", "survey", "tables", "check", "candidates"} <= {name for name, _ in found["--force"]}
    assert {"survey", "analyze", "next"} <= {name for name, _ in found["--json"]}
    for flag, uses in found.items():
        assert len(uses) >= 2, flag
        if flag == "--pool":
            for name, option in uses:
                assert option.help is not None and option.help.startswith("Guess from all codes or only the codes")
                assert {"all", "consistent"} <= set(option.type.choices), name  # type: ignore[attr-defined]
            continue
        first_name, first = uses[0]
        for name, option in uses[1:]:
            same = (option.help, option.name, option.is_flag, option.multiple, repr(option.type), option.default)
            assert same == (first.help, first.name, first.is_flag, first.multiple, repr(first.type), first.default), (
                f"{flag}: {name} differs from {first_name}"
            )


def test_survey_json_is_on_stdout_like_every_json() -> None:
    result = run("survey", "-p", "2", "-c", "2", "--repeats", "-s", "simple", "--pool", "all", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["cells"][0]["strategy"] == "simple"
