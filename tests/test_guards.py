"""Guards before big work, and bad input: one line on stderr, the right exit code, nothing left behind.

No test here allocates more than a few megabytes: the guards are exercised on small games with the
budget lowered (``$KEYPEG_MEMORY_LIMIT``, ``$KEYPEG_TIME_LIMIT``), and the known big cases are refused
before anything is allocated.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import keypeg.kernels  # noqa: F401  (loaded before any test changes numba's environment)
from keypeg import storage
from keypeg.analysis import cost
from keypeg.cli import cli
from keypeg.rules import Rules


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    assert "Traceback" not in result.output + result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result.exit_code, result.stdout, result.stderr


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1, stderr
    assert "internal error" not in errors[0]
    return errors[0]


# -- guards ----------------------------------------------------------------------------------------


def test_memory_guard_refuses_with_the_estimate_and_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_MEMORY_LIMIT", "1K")
    code, out, err = run("tables", "-p", "3", "-c", "3", "--json")
    line = one_error_line(err)
    assert code == 2 and out == ""
    assert "of memory" in line and "--force" in line and "KEYPEG_MEMORY_LIMIT" in line
    assert "KiB" in line  # the estimate itself
    code, out, _ = run("tables", "-p", "3", "-c", "3", "--json", "--force")
    assert code == 0 and json.loads(out)["first_guesses"]


def test_time_guard_refuses_with_the_estimate_and_the_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_TIME_LIMIT", "0")
    for args in (["analyze", "-p", "3", "-c", "3"], ["next", "-p", "3", "-c", "3"], ["optimal", "-p", "2", "-c", "3"]):
        code, _, err = run(*args, "--json", "--no-save" if args[0] == "optimal" else "--json")
        line = one_error_line(err)
        assert code == 2 and "would take" in line and "--force" in line, line
    code, out, _ = run("analyze", "-p", "3", "-c", "3", "--json", "--force")
    assert code == 0 and json.loads(out)["secrets"] == 27


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["tables", "-p", "6", "-c", "16"], "Kooi's tables"),
        (["next", "--variant", "super", "-s", "optimal"], "optimal guess"),
        (["analyze", "-p", "6", "-c", "9"], "worst-case tree"),
        (["analyze", "-p", "5", "-c", "8", "-s", "two-step"], "two-step tree"),
        (["optimal", "-p", "5", "-c", "8"], "exact optimal search"),
    ],
)
def test_known_big_work_is_refused_before_it_starts(args: list[str], words: str) -> None:
    tracemalloc.start()
    try:
        code, _, err = run(*args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    line = one_error_line(err)
    assert code == 2 and words in line and "--force" in line
    assert peak < 50 * 2**20  # refused before the codes are enumerated


def test_verify_of_a_huge_game_is_refused_before_enumerating(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small file claiming 7 pegs of 11 colours (19 million codes): the code space is estimated, not built."""
    path = tmp_path / "big.json"
    rules = Rules(7, 11).as_dict()
    path.write_text(json.dumps({"keypeg_tree": 1, "rules": rules, "tree": {"guess": "AABBCCD", "size": 5}}))
    monkeypatch.setenv("KEYPEG_MEMORY_LIMIT", "512M")
    tracemalloc.start()
    try:
        code, _, err = run("verify", str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    line = one_error_line(err)
    assert code == 2 and "19,487,171" in line and "--force" in line
    assert peak < 50 * 2**20


def test_the_code_space_estimate_follows_the_arrays() -> None:
    """The estimate is within a third of what building the code space really takes (numpy reports its
    allocations to tracemalloc)."""
    from keypeg.kernels import CodeSpace, _game_arrays

    rules = Rules(6, 7)
    _game_arrays.cache_clear()
    tracemalloc.start()
    try:
        CodeSpace(rules)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    estimate = cost.space_cost(rules).memory
    assert 0.75 * peak <= estimate <= 1.33 * peak


def test_budget_settings_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_MEMORY_LIMIT", "lots")
    code, _, err = run("tables", "-p", "3", "-c", "3")
    assert code == 2 and "512M" in one_error_line(err)
    monkeypatch.delenv("KEYPEG_MEMORY_LIMIT")
    monkeypatch.setenv("KEYPEG_TIME_LIMIT", "-1")
    code, _, err = run("tables", "-p", "3", "-c", "3")
    assert code == 2 and "KEYPEG_TIME_LIMIT" in one_error_line(err)


def test_available_memory_is_read() -> None:
    from keypeg import limits, machine

    available = machine.available_memory()
    assert available is None or available > 0
    assert limits.parse_bytes("1.5G") == 3 * 2**29


# -- the first run -----------------------------------------------------------------------------------


def test_a_cold_kernel_cache_is_announced_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import keypeg.cli.analysis as analysis

    monkeypatch.setattr(analysis, "_announced", set())
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "empty"))  # numba is loaded: it keeps its own cache
    assert cost.cold_kernels() == cost.EVERYDAY_KERNELS
    code, _, err = run("next", "RRGG=1,0")
    assert code == 0
    assert err.count("compiling keypeg's kernels once") == 1 and "later runs start at once" in err
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr(analysis, "_announced", set())
    if not cost.cold_kernels():  # a warm cache says nothing
        assert "compiling" not in run("next", "RRGG=1,0")[2]


def test_the_faces_name_the_kernels_by_the_facade_s_public_names() -> None:
    """cost's light names (no numba loaded for them) are exactly keypeg.kernels.Kernel's values."""
    from keypeg import kernels

    light = (cost.SCORING, cost.SELECTION, cost.SYMMETRY, cost.OPTIMAL_SEARCH, cost.TREES)
    assert sorted(light) == sorted(k.value for k in kernels.Kernel)
    assert tuple(k.value for k in kernels.EVERYDAY_KERNELS) == cost.EVERYDAY_KERNELS
    with pytest.raises(ValueError):
        cost.compile_notice(("_score",))  # a private module's name is no kernel's name


# -- no traceback, one line, nothing left behind --------------------------------------------------------


def test_export_to_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "tree.json"
    code, _, err = run("analyze", "-p", "3", "-c", "3", "--export", str(target))
    assert code == 2 and "cannot write" in one_error_line(err)  # a folder that is not there: bad input
    assert not target.parent.exists()


def test_export_over_a_folder_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    code, _, err = run("analyze", "-p", "3", "-c", "3", "--export", str(tmp_path / "d"))
    assert code in (1, 2)
    one_error_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]
    assert list((tmp_path / "d").iterdir()) == []


@pytest.mark.parametrize("fmt", ["json", "text", "lookup"])
def test_exports_are_private(tmp_path: Path, fmt: str) -> None:
    target = tmp_path / f"tree.{fmt}"
    code, _, _ = run("analyze", "-p", "3", "-c", "3", "--export", str(target), "--format", fmt)
    assert code == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_a_full_disk_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(storage.os, "fsync", full)
    target = tmp_path / "tree.json"
    code, _, err = run("analyze", "-p", "3", "-c", "3", "--export", str(target))
    assert code == 1 and "No space left on device" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "a.txt"
    storage.atomic_write(target, "old")
    with pytest.raises(storage.WriteError), storage.atomic_writer(target) as handle:
        handle.write(b"new")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_only_regular_files_are_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(storage.WriteError, match="not a regular file"):
        storage.atomic_write(fifo, "x")
    assert stat.S_ISFIFO(fifo.stat().st_mode) and [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_a_cache_that_is_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("KEYPEG_CACHE", str(blocker))
    code, out, err = run("optimal", "-p", "2", "-c", "3")
    assert code == 1 and "not a folder" in one_error_line(err) and out == ""
    assert blocker.read_text() == "not a folder"


def test_an_unwritable_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(storage.tempfile, "TemporaryFile", refuse)
    code, _, err = run("optimal", "-p", "2", "-c", "3")
    assert code == 1 and "Permission denied" in one_error_line(err)


def tree_file(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "tree.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


GOOD_RULES = Rules(2, 3).as_dict()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a text file"),
        (b'{"keypeg_tree": 1, "rules": "\xff\xfe"}', "not UTF-8"),
        (json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": {"guess": "AB", "size": 1e999}}), "size"),
        ('{"keypeg_tree": 1, "rules": {"pegs": 1e999, "colors": 6}, "tree": {}}', "pegs"),
        (json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": {"guess": "AB", "size": -3}}), "size"),
        (json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": {"guess": "AB", "size": 10**40}}), "digits"),
        (json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": {"guess": "AB", "size": True}}), "size"),
        (json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": []}), "not a guess"),
        (json.dumps({"keypeg_tree": 2, "rules": GOOD_RULES}), "format"),
        (
            json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": {"guess": "AB", "size": 9, "next": []}}),
            "answers after",
        ),
        (
            json.dumps(
                {
                    "keypeg_tree": 1,
                    "rules": GOOD_RULES,
                    "tree": {"guess": "AB", "size": 9},
                    "stats": {"distribution": {"1": 1e999}},
                }
            ),
            "round",
        ),
        ("# history (GUESS=B,W ...) -> next guess\n(start) -> AB\n", "lookup format"),
        ("# 2 pegs, 3 colours\nAB (9)\n", "text format"),
        ("", "not JSON"),
    ],
)
@pytest.mark.parametrize("command", ["verify", "replay"])
def test_damaged_tree_files(tmp_path: Path, content: str | bytes, words: str, command: str) -> None:
    path = tree_file(tmp_path, content)
    args = [command, str(path)] + (["AB"] if command == "replay" else [])
    code, out, err = run(*args)
    line = one_error_line(err)
    assert code == 2 and words in line and out == "", line


def test_a_deep_chain_is_refused(tmp_path: Path) -> None:
    node: dict[str, object] = {"guess": "AB", "size": 1}
    for _ in range(300):
        node = {"guess": "AB", "size": 1, "next": {"0,0": node}}
    path = tree_file(tmp_path, json.dumps({"keypeg_tree": 1, "rules": GOOD_RULES, "tree": node}))
    code, _, err = run("verify", str(path))
    assert code == 2 and "deeper than 200" in one_error_line(err)


def test_verify_and_replay_read_what_analyze_writes(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    assert run("analyze", "-p", "3", "-c", "3", "--export", str(path))[0] == 0
    code, out, _ = run("verify", str(path))
    assert code == 0 and "27 secrets" in out and "verified" in out
    code, out, _ = run("replay", str(path), "CCC")
    assert code == 0 and "CCC  3,0" in out


@pytest.mark.parametrize(
    "args",
    [
        ["next", "--variant", ""],
        ["next", "--first", ""],
        ["analyze", "--first", "", "-p", "3", "-c", "3"],
        ["check", "--variant", " "],
        ["tables", "--answer", ""],
        ["analyze", "--export", "", "-p", "3", "-c", "3"],
    ],
)
def test_empty_values_are_refused(args: list[str]) -> None:
    code, out, err = run(*args)
    assert code == 2 and out == ""
    one_error_line(err)


def test_a_huge_argument_is_cut(tmp_path: Path) -> None:
    huge = "x" * 10_000_000
    for args in (["next", huge], ["next", "--first", huge], ["analyze", "-s", huge], ["verify", huge]):
        code, _, err = run(*args)
        assert code in (1, 2) and len(err) < 2000
        assert "characters" in one_error_line(err)


def test_a_file_name_too_long_is_bad_input_and_cut_in_the_message(tmp_path: Path) -> None:
    long = str(tmp_path / ("y" * 3000)) + ".json"
    code, _, err = run("verify", long)
    assert code == 2 and "characters)" in one_error_line(err) and len(err) < 600
    code, _, err = run("history", "--db", f"sqlite:///{tmp_path}/{'z' * 2500}/k.db")
    line = one_error_line(err)
    assert code == 2 and "characters)" in line and len(err) < 1000


def test_replay_game_numbers_that_are_not_ascii() -> None:
    for what in ("²", "١٢", "9" * 5000):
        code, _, err = run("replay", what)
        assert code == 2
        one_error_line(err)


def test_chart_suffix_checked_before_the_work(tmp_path: Path) -> None:
    code, _, err = run("analyze", "-p", "3", "-c", "3", "--chart", str(tmp_path / "c.txt"))
    assert code == 2 and ".png or .svg" in one_error_line(err)


def test_next_on_a_large_game_honours_the_conventions() -> None:
    first = run("next", "-p", "8", "-c", "12", "--first", "ABCDEFGH", "--json")
    assert first[0] == 0 and json.loads(first[1])["guess"] == "ABCDEFGH"
    assert "note: None" not in first[2] and first[2].count("genetic") == 1
    seeded = [run("next", "AABBCCDD=1,1", "-p", "8", "-c", "12", "--seed", "7", "--json")[1] for _ in range(2)]
    assert seeded[0] == seeded[1] and json.loads(seeded[0])["conventions"]["seed"] == 7
    tie = json.loads(run("next", "AABBCCDD=1,1", "-p", "8", "-c", "12", "--seed", "7", "--tie", "last", "--json")[1])
    assert tie["conventions"]["tie"] == "last"
    code, _, err = run("next", "-p", "8", "-c", "12", "--pool", "all")
    assert code == 2 and "a pool of all codes does not apply" in one_error_line(err)
    code, _, err = run("next", "-p", "8", "-c", "12", "-s", "genetic")
    assert code == 0 and "note" not in err


def test_counts_are_pluralised_and_zero_is_never_negative(tmp_path: Path) -> None:
    code, out, _ = run("next", "AABB=0,0", "CCDD=0,0", "EEFE=3,0", "--explain")
    assert code == 0 and "1 codes" not in out and "-0.0" not in out
    code, out, _ = run("candidates", "AABB=0,0", "CCDD=0,0", "EEFE=3,0")
    assert "1 codes" not in out
    code, out, _ = run("tables", "-p", "2", "-c", "2")
    assert code == 0 and "-0.0" not in out


def test_figures_never_show_minus_zero() -> None:
    from keypeg.cli.analysis import figure

    assert [figure(v, 3) for v in (-0.0, -0.0004, 0.0)] == ["0.000"] * 3
    assert figure(-0.5, 1) == "-0.5"


# -- arbitrary text -----------------------------------------------------------------------------------

TEXT = (
    st.lists(
        st.sampled_from([*"RGBYWKabc019[]/=,.-:\\ ", "\x1b", "[link=http://x]", "[/]", "[bold]", ":B:", "\u200b", "٣"]),
        min_size=1,
        max_size=12,
    )
    .map("".join)
    .filter(lambda t: t.strip() and not t.startswith("-"))
)


@settings(max_examples=60)
@given(text=TEXT, where=st.sampled_from(["scored", "first", "variant", "strategy", "treefile", "check", "secret"]))
def test_arbitrary_text_never_breaks_a_command(text: str, where: str) -> None:
    args = {
        "scored": ["next", text],
        "first": ["next", "--first", text, "-p", "3", "-c", "3"],
        "variant": ["analyze", "--variant", text],
        "strategy": ["analyze", "-s", text, "-p", "3", "-c", "3"],
        "treefile": ["verify", text],
        "check": ["check", text],
        "secret": ["replay", "/no/such/tree.json", text],
    }[where]
    code, out, err = run(*args)
    assert code in (0, 1, 2)
    if code:
        line = one_error_line(err)
        if where in ("variant", "strategy", "treefile", "first"):
            shown = str(Path(text)) if where == "treefile" else text  # a path loses a trailing slash
            quoted = repr(shown)[1:-1]  # the message quotes it with !r: escapes, never markup eaten
            assert quoted[:40] in line or quoted.strip()[:40] in line, (quoted, line)  # long input is cut
        assert "\x1b" not in err and "\u200b" not in err
    assert "\x1b" not in out


def test_a_backslash_before_a_bracket_is_shown() -> None:
    code, _, err = run("next", "--first", "\\[", "-p", "3", "-c", "3")
    assert code == 2 and "'\\\\['" in one_error_line(err)  # repr of a backslash and a bracket, whole


def test_emoji_codes_are_shown_as_written() -> None:
    code, _, err = run("next", "--first", ":B:", "-p", "3", "-c", "3")
    assert code == 2 and "':B:'" in one_error_line(err)


def test_the_plot_install_hint_is_printed_as_written(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if matplotlib were not installed
    code, _, err = run("analyze", "-p", "3", "-c", "3", "--chart", str(tmp_path / "c.png"))
    assert code == 2 and "pip install 'keypeg[plot]'" in one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_too_large_to_load_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import numpy as np

    from keypeg.errors import KeypegError

    monkeypatch.setenv("KEYPEG_CACHE", str(tmp_path))
    monkeypatch.setenv("KEYPEG_MEMORY_LIMIT", "1M")
    path = storage.checkpoint_path(Rules(2, 3), "all")
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, keys=np.zeros((1 << 20, 2), np.int64), entries=np.zeros((1 << 20, 3), np.int64))
    with pytest.raises(KeypegError, match="more than the memory"):
        storage.load_checkpoint(Rules(2, 3), "all")


def test_work_sent_to_a_cluster_is_guarded_for_memory_not_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_TIME_LIMIT", "1")
    slow = cost.Estimate("a long tree", 1, 3600.0)
    with pytest.raises(cost.TooCostlyError, match="would take"):
        cost.guard(slow, False, "--force runs it anyway")
    cost.guard(slow, False, "--force runs it anyway", timed=False)  # the cluster's time is the user's to spend
    big = cost.Estimate("a big tree", 1 << 60, 1.0)
    with pytest.raises(cost.TooCostlyError, match="memory"):
        cost.guard(big, False, "--force runs it anyway", timed=False)


def test_analyze_refuses_a_long_tree_here_but_not_on_a_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYPEG_TIME_LIMIT", "0.000001")
    here = CliRunner().invoke(cli, ["analyze", "--pegs", "5", "--colors", "8", "-s", "most-parts"])
    assert here.exit_code == 2 and "--force runs it anyway" in here.output
    bad_cluster = CliRunner().invoke(
        cli, ["analyze", "--pegs", "5", "--colors", "8", "-s", "most-parts", "--scheduler", "tcp://127.0.0.1:1"]
    )
    assert "would take" not in bad_cluster.output and bad_cluster.exit_code != 0
