"""The core imports only the standard library: heavy dependencies load only with the kernels or the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("numba", "numpy", "textual", "fastapi", "sqlalchemy", "click", "rich", "llvmlite", "matplotlib")


def loaded_after(statement: str) -> set[str]:
    """The heavy modules in ``sys.modules`` after running ``statement`` in a fresh interpreter."""
    probe = f"import json, sys\n{statement}\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    "statement",
    [
        "import keypeg",
        "from keypeg import Rules, find_variant, score; score(Rules(4, 6).parse('AABB'), Rules(4, 6).parse('ABAB'))",
        "import keypeg.rules, keypeg.code, keypeg.feedback, keypeg.variants, keypeg.errors",
    ],
)
def test_core_is_standard_library_only(statement: str) -> None:
    assert loaded_after(statement) == set()


def test_the_probe_sees_the_kernels_dependencies() -> None:
    """The probe above can fail: importing the kernels does load numba and numpy."""
    assert {"numba", "numpy"} <= loaded_after("import keypeg.kernels")
