"""Light commands load only what they need: no numba, OR-Tools or matplotlib (nor SQLAlchemy unless they
read the database). Speed itself is measured in benchmarks/startup.py, not here."""

from __future__ import annotations

import json
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
