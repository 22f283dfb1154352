"""The layering of docs/ARCHITECTURE.md, enforced: which package may import which, read from the source."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent.parent / "src" / "keypeg"

LAYERS = {
    "core": 0,
    "machine": 1,
    "kernels": 2,
    "engine": 3,
    "store": 3,
    "play": 4,
    "services": 5,
    "cli": 6,
    "web": 6,
}
"""A module may import modules of its own layer or of a lower number (store and engine are siblings:
neither imports the other)."""

CORE = {"keypeg", "keypeg.errors", "keypeg.rules", "keypeg.code", "keypeg.feedback", "keypeg.variants"}
CORE |= {"keypeg.game", "keypeg.limits", "keypeg.text"}
THIRD_PARTY = {
    "core": set(),
    "machine": set(),
    "kernels": {"numpy", "numba", "llvmlite"},
    "engine": {"numpy", "numba", "ortools", "platformdirs", "distributed"},
    "store": {"sqlalchemy", "alembic", "argon2", "platformdirs", "confusable_homoglyphs", "psycopg"},
    "play": {"numpy"},
    "services": {"numpy"},
    "cli": {"click", "rich", "matplotlib", "numpy", "uvicorn"},
    "web": {"fastapi", "starlette", "pydantic", "swagger_ui_bundle", "jinja2"},
}
"""The third-party packages each layer may import (besides the standard library)."""


def layer_of(module: str) -> str:
    if module in CORE:
        return "core"
    if module == "keypeg.machine":
        return "machine"
    part = module.split(".")[1]
    if part == "__main__":  # ``python -m keypeg`` is the command line
        return "cli"
    if part == "kernels":
        return "kernels"
    if part in ("store", "play", "services", "cli", "web"):
        return part
    return "engine"


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module the file imports, at the top or inside a function (TYPE_CHECKING blocks left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


MODULES = sorted(p for p in SOURCE.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_imports_point_inward(path: Path) -> None:
    module = module_name(path)
    own = layer_of(module)
    for imported in imports(path):
        top = imported.split(".")[0]
        if top == "keypeg":
            other = layer_of(imported)
            allowed = LAYERS[other] < LAYERS[own] or other == own
            assert allowed, f"{module} ({own}) imports {imported} ({other})"
        elif top not in THIRD_PARTY["core"] and _is_third_party(top):
            assert top in THIRD_PARTY[own], f"{module} ({own}) imports the third-party {top!r}"


def _is_third_party(top: str) -> bool:
    import sys

    return top not in sys.stdlib_module_names and top != "__future__"


def test_the_checker_sees_a_bad_import(tmp_path: Path) -> None:
    """The check above can fail: an upward import is found, even inside a function."""
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from keypeg.cli import cli\n    return cli\n", encoding="utf-8")
    assert "keypeg.cli" in imports(bad)
    assert LAYERS[layer_of("keypeg.cli")] > LAYERS[layer_of("keypeg.strategies")]
