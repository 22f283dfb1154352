"""Light commands load only what they need: no numba, OR-Tools or matplotlib (nor SQLAlchemy unless they
read the database). Speed itself is measured in benchmarks/startup.py, not here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("numba", "numpy", "llvmlite", "ortools", "matplotlib", "sqlalchemy", "alembic")

PROBE = """
import json, sys
from keypeg.cli import cli
try:
    cli({args!r}, standalone_mode=False)
except SystemExit:
    pass
print(json.dumps([m for m in {heavy!r} if m in sys.modules]), file=sys.stderr)
"""


def loaded_by(args: list[str], tmp_path: Path) -> set[str]:
    """The heavy modules in ``sys.modules`` after running the command in a fresh interpreter."""
    env = {"KEYPEG_DB": f"sqlite:///{tmp_path / 'k.sqlite3'}", "KEYPEG_PLAYER": "probe", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "args",
    [["--help"], ["score", "RGBY", "RRBB"], ["variants"], ["candidates", "RRGG=1,0", "BBYY=0,1"], ["play", "--help"]],
)
def test_light_commands_load_nothing_heavy(args: list[str], tmp_path: Path) -> None:
    assert loaded_by(args, tmp_path) == set()


@pytest.mark.parametrize("args", [["history"], ["top"]])
def test_record_commands_load_only_the_database(args: list[str], tmp_path: Path) -> None:
    assert loaded_by(args, tmp_path) <= {"sqlalchemy", "alembic"}


def test_the_probe_sees_a_heavy_command(tmp_path: Path) -> None:
    """The probe can fail: a command that needs the kernels does load numba."""
    assert {"numba", "numpy"} <= loaded_by(["next", "RRGG=1,0"], tmp_path)


EXIT_PROBE = """
import atexit, sys
atexit.register(lambda: print("handler ran"))
from keypeg.cli import main
sys.argv = ["keypeg", *{args!r}]
main()
"""


@pytest.mark.parametrize(
    ("args", "status"), [(["score", "ABCD", "AABB"], 0), (["score", "ABCD"], 2), (["--version"], 0)]
)
def test_the_script_ends_after_its_exit_handlers_with_the_command_s_status(args: list[str], status: int) -> None:
    """``main`` skips the interpreter's tearing down, not the exit handlers, the output or the status."""
    done = subprocess.run(
        [sys.executable, "-c", EXIT_PROBE.format(args=args)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == status, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "handler ran"
    if status == 0:
        assert len(lines) >= 2 and lines[0].strip()


def test_long_output_is_flushed_whole_before_the_quick_exit() -> None:
    script = [sys.executable, "-m", "keypeg", "tables", "-p", "3", "-c", "4"]
    first = subprocess.run(script, capture_output=True, text=True, timeout=300, check=True)
    from click.testing import CliRunner

    from keypeg.cli import cli

    expected = CliRunner().invoke(cli, script[3:])
    assert expected.exit_code == 0
    assert first.stdout.split() == expected.output.split()


CACHE_PROBE = """
import json, sys
from keypeg.cli.common import cli
import keypeg.cli
try:
    cli({args!r}, standalone_mode=False)
except SystemExit:
    pass
from keypeg.kernels import _score, _select
hits = sum(sum(d.stats.cache_hits.values()) for t in (_select.partition_costs, _select.partition_costs_table,
           _score.partition_counts_table) for d in (t.parallel, t.serial))
print(json.dumps([hits, "numba.np.linalg" in sys.modules]), file=sys.stderr)
"""


def test_cached_kernels_load_without_building_numba_s_compiler() -> None:
    """The second run reads the kernels from numba's cache without refreshing numba's registries
    (``numba.np.linalg`` is one of the modules a refresh imports), and answers as the first did."""
    args = ["next", "-p", "4", "-c", "6", "-s", "entropy", "AABB=1,1"]
    runs = [
        subprocess.run(
            [sys.executable, "-c", CACHE_PROBE.format(args=args)],
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        for _ in range(2)
    ]
    hits, refreshed = json.loads(runs[1].stderr.strip().splitlines()[-1])
    assert hits >= 1
    assert not refreshed
    assert runs[0].stdout == runs[1].stdout
    assert len(runs[1].stdout.strip()) == 4


def test_the_quick_exit_leaves_the_database_file_whole(tmp_path: Path) -> None:
    """The script skips tearing objects down; the store still closes its connections at exit, so SQLite
    folds its write-ahead log into the file and a copy of the file alone holds the schema."""
    import shutil
    import sqlite3

    db = tmp_path / "k.sqlite3"
    env = {"KEYPEG_DB": f"sqlite:///{db}", "KEYPEG_PLAYER": "ann", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "keypeg", "history"], capture_output=True, text=True, timeout=120, check=False, env=env
    )
    assert done.returncode == 0, done.stderr
    assert not db.with_name("k.sqlite3-wal").exists()
    copy = tmp_path / "copy.sqlite3"
    shutil.copy(db, copy)
    with sqlite3.connect(copy) as connection:
        tables = {row[0] for row in connection.execute("select name from sqlite_master where type = 'table'")}
    assert "alembic_version" in tables and len(tables) > 3


FIRST_RUN_PROBE = """
import collections, json, sys
from numba.core import event
from keypeg import machine
machine.busy_cores = lambda: 0.0  # an idle machine: the second process starts
from keypeg.cli import cli
with event.install_recorder("numba:compile") as recorder:
    try:
        cli(["analyze", "-p", "3", "-c", "4", "-s", "worst-case"], standalone_mode=False)
    except SystemExit:
        pass
compiled = collections.Counter(
    e.data["dispatcher"].py_func.__qualname__
    for _, e in recorder.buffer
    if e.is_start and e.data["dispatcher"].py_func.__module__.startswith("keypeg.")
)
print(json.dumps(compiled), file=sys.stderr)
"""


@pytest.mark.slow
def test_a_first_run_compiles_the_tree_kernel_s_largest_callee_in_a_second_process(tmp_path: Path) -> None:
    """With numba's cache empty, ``_select_block`` (and its callees) compile in the second process and
    are read back from the cache; the others compile here once each, at the types ``decide`` calls
    them with (a type that drifted would compile a second time inside ``grow``)."""
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "KEYPEG_DB": f"sqlite:///{tmp_path / 'k.db'}"}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_RUN_PROBE], capture_output=True, text=True, timeout=600, check=True, env=env
    )
    compiled = json.loads(done.stderr.strip().splitlines()[-1])
    from keypeg import Rules
    from keypeg.analysis.tree import build_tree
    from keypeg.strategies import make_strategy

    total = build_tree(make_strategy("worst-case"), Rules(3, 4)).stats.total
    assert re.search(rf"total\s*│\s*{total:,}\s", done.stdout)
    for beside in ("_select_block", "_block_costs", "_table_sum"):
        assert beside not in compiled
    for here in ("_ruled_out", "fixing_symmetries", "_relabel_order", "_lower_bound", "_is_extreme", "_grown"):
        assert compiled[here] == 1
    assert compiled["decide"] == compiled["grow"] == 1
    assert any(name.startswith("_tree.grow-") for name in os.listdir(next((tmp_path / "numba").iterdir())))


# -- a heavy command's start-up (issue 31): what it loads and how ----------------------------------------

HEAVY_PROBE = """
import gc, json, sys
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "start" and info["generation"] == 2 else None)
from keypeg.cli import cli
try:
    cli({args!r}, standalone_mode=False)
except SystemExit:
    pass
from keypeg.kernels import _jit
print(json.dumps({{
    "modules": sorted(m for m in sys.modules if m.startswith("keypeg.cli.")),
    "masked": "numpy.ma" in sys.modules,
    "full passes": len(full),
    "frozen": gc.get_freeze_count(),
    "runtime": _jit.runtime_from,
}}), file=sys.stderr)
"""


def heavy_probe(args: list[str]) -> tuple[dict[str, object], str]:
    """Run a heavy command in a fresh interpreter: what it loaded, and its output."""
    done = subprocess.run(
        [sys.executable, "-c", HEAVY_PROBE.format(args=args)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.strip().splitlines()[-1]), done.stdout


@pytest.fixture(scope="module")
def next_loaded() -> dict[str, object]:
    heavy_probe(["next", "RRGG=1,0"])  # numba's cache and the runtime's file written, if they were not
    loaded, output = heavy_probe(["next", "RRGG=1,0"])
    assert output.strip() == "RBYY"
    return loaded


def test_a_command_imports_only_its_own_module_of_the_cli(next_loaded: dict[str, object]) -> None:
    assert "keypeg.cli.analysis" in next_loaded["modules"]  # type: ignore[operator]
    assert not {"keypeg.cli.play", "keypeg.cli.room", "keypeg.cli.serve"} & set(next_loaded["modules"])  # type: ignore[call-overload]


def test_a_heavy_command_reads_numba_s_runtime_from_the_cache(next_loaded: dict[str, object]) -> None:
    """The fixture's second run reads the runtime's machine code that the first kept (or an earlier run)."""
    assert next_loaded["runtime"] == "cache"


def test_a_heavy_command_loads_numba_without_a_full_pass_of_the_collector(next_loaded: dict[str, object]) -> None:
    assert next_loaded["full passes"] == 0
    assert next_loaded["frozen"] > 50_000  # type: ignore[operator]  (numpy's, numba's and the kernels' objects)


def test_a_heavy_command_does_not_import_numpy_ma(next_loaded: dict[str, object]) -> None:
    """numba's typing of an array argument and np.unique both import numpy.ma (12 ms) for no use here."""
    assert not next_loaded["masked"]


def test_the_commands_table_names_the_module_of_every_command() -> None:
    """cli.COMMANDS (which module to import for a command) agrees with what each module registers, and
    cli.MODULES holds every module that registers one: a new command is found without importing them all."""
    from keypeg import cli as package
    from keypeg.cli import COMMANDS, MODULES, cli

    registered = {name: command.callback.__module__ for name, command in cli.commands.items() if command.callback}
    assert {name: f"keypeg.cli.{module}" for name, module in COMMANDS.items()} == registered
    assert set(COMMANDS.values()) <= set(MODULES)
    folder = Path(package.__file__).parent
    registering = {p.stem for p in folder.glob("*.py") if re.search(r"@(app|cli)\.(command|group)\(", p.read_text())}
    assert registering <= set(MODULES)


def test_numba_s_type_of_an_array_is_kept() -> None:
    """The array typing that skips numpy.ma answers as numba's own, and leaves masked arrays to it."""
    import numpy as np
    from numba.core import errors

    from keypeg.kernels import _jit

    base = np.arange(24, dtype=np.int64).reshape(4, 6)
    frozen = base.copy()
    frozen.flags.writeable = False
    arrays = [base, base.T, base[:, ::2], frozen, np.zeros(3, dtype=np.uint64), np.ones((2, 2), dtype=np.bool_)]
    for array in arrays:
        assert _jit._typeof_ndarray(array, None) == _jit._numba_typeof_ndarray(array, None)
    with pytest.raises(errors.NumbaTypeError):
        _jit._typeof_ndarray(np.ma.masked_array([1, 2]), None)
