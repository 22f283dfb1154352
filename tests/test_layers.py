"""The layering of docs/ARCHITECTURE.md, enforced: which package may import which, read from the source.

A module *names* another when it imports it in any form the source can say it: ``import keypeg.x``,
``from keypeg.x import y``, a relative import (``from . import y``, ``from .mod import y``, resolved
against the module's package), ``importlib.import_module("keypeg.x")`` or ``__import__("keypeg.x")``
with a constant (or an f-string's constant head), a string constant that is a module's name
(``"keypeg.x.y"``, or ``"keypeg.x.y:attr"`` as uvicorn and entry points take it), and an import
written inside a string (``"from keypeg.x import y"``, code run by ``python -c``). Imports under
``if TYPE_CHECKING:`` are types only, no dependency at run time, and are left out.
"""

from __future__ import annotations

import ast
import itertools
import re
import sys
from dataclasses import dataclass
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
    "api": 6,
    "cli": 7,
    "web": 7,
    "envs": 7,
}
"""A module may name modules of its own layer or of a lower number. Layers of one number are siblings
and name nothing of each other: engine and store; cli, web and envs (``keypeg serve`` starts the web app
by its uvicorn string only, see :data:`NAMED_ONLY`). ``api`` (``keypeg/api.py``, the public functions) sits
between the services and the faces; the package root names it lazily only (:data:`LAZY_ONLY`)."""

FORBIDDEN = {
    ("play", "store"): "play is the rules of a game in progress, no I/O: what is kept is services' work",
    ("services", "cli"): "the application layer serves every face, so it knows none",
    ("services", "web"): "the application layer serves every face, so it knows none",
    ("cli", "kernels"): "faces never touch the kernels: they call the engine",
    ("web", "kernels"): "faces never touch the kernels: they call the engine",
    ("cli", "store"): "faces reach the store through the services",
    ("web", "store"): "faces reach the store through the services",
    ("envs", "kernels"): "faces never touch the kernels: they call the engine",
    ("envs", "store"): "faces reach the store through the services",
    ("api", "kernels"): "the public API is a door onto the engine: it names no kernel",
    ("api", "store"): "the public API is a door onto the engine and play: it names no store",
}
"""Layer pairs the order above would allow but the architecture does not: (naming layer, named layer)."""

NAMED_ONLY = {("keypeg.cli.serve", "keypeg.web.app:app_from_environment")}
"""The one way a face names its sibling: ``keypeg serve`` hands uvicorn the web app's name as a string
(``cli/serve.py``'s ``APP``); the CLI imports nothing of ``keypeg.web``."""

LAZY_ONLY = {("keypeg", "keypeg.api")}
"""The one way the core names a layer above it: the package root loads ``keypeg.api`` by
``importlib.import_module("keypeg.api")`` in its PEP 562 ``__getattr__`` on first use of a solver's name, so
``import keypeg`` stays light; any other naming of it (an import) is refused."""

PENDING: set[tuple[str, str]] = set()
# Empty: the violations known when these rules were written (play/daily.py naming the store and
# services.recording, cli/play.py naming the store for WrongPasswordError and player_name) were removed
# by issue 27's work before this test landed. A violation found and not fixed at once goes here, as
# ("module", "module it names"), with a comment saying why it is there and what removes it.
"""Known violations being removed now (issue 27), each ``(module, module it names)``: the suite passes
with them, and a test fails once one is gone and still listed, so this set only shrinks."""

CORE = {"keypeg", "keypeg.errors", "keypeg.rules", "keypeg.code", "keypeg.feedback", "keypeg.variants"}
CORE |= {"keypeg.game", "keypeg.limits", "keypeg.text", "keypeg.history", "keypeg.arguments"}
THIRD_PARTY = {
    "core": set(),
    "machine": set(),
    "kernels": {"numpy", "numba", "llvmlite"},
    "engine": {"numpy", "numba", "ortools", "platformdirs", "distributed"},
    "store": {"sqlalchemy", "alembic", "argon2", "platformdirs", "confusable_homoglyphs", "psycopg"},
    "play": {"numpy"},
    "services": {"numpy"},
    "cli": {"click", "rich", "matplotlib", "numpy", "uvicorn", "httpx"},
    "web": {"fastapi", "starlette", "pydantic", "swagger_ui_bundle", "jinja2"},
    "api": {"numpy"},  # lazily, inside a call: importing keypeg.api loads no numpy (test_public_api)
    "envs": {"numpy", "gymnasium", "pettingzoo"},
}
"""The third-party packages each layer may import (besides the standard library)."""

PRIVATE_KERNELS = frozenset(p.stem for p in (SOURCE / "kernels").glob("_*.py") if p.stem != "__init__")
"""The kernels' private modules (``_tree``, ``_optimal``, ...): named, as imports or in strings, only
inside ``src/keypeg/kernels/``; everything else says what it wants through the facade's public names."""

MODULE_STRING = re.compile(r"keypeg(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_][\w.]*)?")
IMPORT_IN_STRING = re.compile(r"(?:^|[\s;])(?:from|import)\s+(keypeg(?:\.[A-Za-z_]\w*)*)")


def layer_of(module: str) -> str:
    """The layer of a module, or of a name in it (``keypeg.code.Code`` is core's)."""
    if module == "keypeg" or ".".join(module.split(".")[:2]) in CORE:
        return "core"
    part = module.split(".")[1]
    if part == "machine":
        return "machine"
    if part == "__main__":  # ``python -m keypeg`` is the command line
        return "cli"
    if part in ("kernels", "store", "play", "services", "api", "cli", "web", "envs"):
        return part
    if not (SOURCE / f"{part}.py").is_file() and not (SOURCE / part).is_dir():
        return "core"  # a name the package ``keypeg`` itself exports (``from keypeg import Rules``)
    return "engine"


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@dataclass(frozen=True)
class Named:
    """One name of a module in a file: what (``keypeg.x.y``, or ``keypeg.x.y:attr`` as written), how
    (``import``, ``relative``, ``import_module``, ``string``, ``private name``) and the line."""

    target: str
    how: str
    line: int

    @property
    def module(self) -> str:
        return self.target.split(":")[0]


def _package(path: Path, module: str) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve(path: Path, module: str, node: ast.ImportFrom) -> list[str]:
    """The absolute names a relative import stands for: ``from .mod import y`` is ``pkg.mod``,
    ``from . import y`` is ``pkg.y`` (a module or a name of the package: either way inside it)."""
    base = _package(path, module).split(".")
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    head = ".".join(base + ([node.module] if node.module else []))
    return ([head] if node.module else []) + [f"{head}.{alias.name}" for alias in node.names]


def _docstrings(tree: ast.Module) -> set[int]:
    """The string constants that are documentation: a body's first statement, or a string right after an
    assignment (an attribute's docstring). Prose names modules without depending on them."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for before, after in itertools.pairwise([None, *body]):
            documents = before is None or isinstance(before, (ast.Assign, ast.AnnAssign))
            text = after.value if isinstance(after, ast.Expr) else None
            if documents and isinstance(text, ast.Constant) and isinstance(text.value, str):
                found.add(id(text))
    return found


def _constant_head(node: ast.expr) -> str | None:
    """A call's first argument as far as it is constant: the whole string, or an f-string's head up to
    its last dot (``f"keypeg.strategies.{name}"`` names ``keypeg.strategies``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        head = str(node.values[0].value)
        return head.rpartition(".")[0] or None
    return None


def names(path: Path, module: str | None = None) -> list[Named]:
    """Every module the file names, at the top or inside a function (TYPE_CHECKING blocks left out);
    ``module`` is the file's module name (read from its path under ``src/`` if not given)."""
    module = module or module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    docstrings = _docstrings(tree)
    found: list[Named] = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            found.extend(Named(alias.name, "import", line) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(Named(node.module, "import", line))
            found.extend(Named(f"{node.module}.{alias.name}", "import", line) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.extend(Named(name, "relative", line) for name in _resolve(path, module, node))
        elif isinstance(node, ast.Call) and node.args:
            called = ast.unparse(node.func)
            if called.split(".")[-1] in ("import_module", "__import__"):
                head = _constant_head(node.args[0])
                if head is not None:
                    if head.startswith(".") and len(node.args) > 1:  # import_module(".x", package)
                        package = _constant_head(node.args[1]) or ""
                        head = package + head
                    found.append(Named(head, "import_module", line))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            text = node.value
            if MODULE_STRING.fullmatch(text):
                found.append(Named(text, "string", line))
            found.extend(Named(m, "string", line) for m in IMPORT_IN_STRING.findall(text))
            if text.split(".")[0] in PRIVATE_KERNELS:
                found.append(Named(f"keypeg.kernels.{text}", "private name", line))
    return found


def _third_party(path: Path) -> set[str]:
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
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return {top for top in found if top != "keypeg" and top not in sys.stdlib_module_names and top != "__future__"}


def violations(module: str, named: list[Named]) -> list[tuple[str, str]]:
    """What ``module`` names against the rules, as ``(named module, why)``."""
    own = layer_of(module)
    found = []
    for name in named:
        target = name.module
        if target.split(".")[0] != "keypeg":
            continue
        if (module, name.target) in NAMED_ONLY and name.how == "string":
            continue
        if (module, name.target) in LAZY_ONLY and name.how in ("import_module", "string"):
            continue
        parts = target.split(".")
        private = len(parts) > 2 and parts[1] == "kernels" and parts[2] in PRIVATE_KERNELS
        if private and own != "kernels":
            found.append((target, f"a private kernel module, named outside kernels/ ({name.how}, line {name.line})"))
            continue
        other = layer_of(target)
        if other == own:
            continue
        if LAYERS[other] >= LAYERS[own]:
            found.append((target, f"{own} names {other}, not below it ({name.how}, line {name.line})"))
        elif (own, other) in FORBIDDEN:
            found.append((target, f"{FORBIDDEN[own, other]} ({name.how}, line {name.line})"))
    return found


def _pending(module: str, target: str) -> bool:
    return any(module == m and (target == t or target.startswith(t + ".")) for m, t in PENDING)


MODULES = sorted(p for p in SOURCE.rglob("*.py") if "migrations" not in p.parts)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(SOURCE)))
def test_imports_point_inward(path: Path) -> None:
    module = module_name(path)
    own = layer_of(module)
    found = violations(module, names(path))
    wrong = [f"{module} ({own}) names {target}: {why}" for target, why in found if not _pending(module, target)]
    assert not wrong, "\n".join(wrong)
    for top in _third_party(path):
        assert top in THIRD_PARTY[own], f"{module} ({own}) imports the third-party {top!r}"


def test_pending_violations_are_still_there() -> None:
    """PENDING only shrinks: an entry whose violation is gone fails here until it is taken out."""
    seen = {(module_name(p), target) for p in MODULES for target, _ in violations(module_name(p), names(p))}
    stale = [(m, t) for m, t in PENDING if not any(m == sm and (st == t or st.startswith(t + ".")) for sm, st in seen)]
    assert not stale, f"fixed, so take them out of PENDING: {stale}"


SEEDED = {
    "a relative import upward": ("keypeg.play.x", "from ..cli import main\n"),
    "a relative import of a private kernel": ("keypeg.analysis.x", "from ..kernels import _tree\n"),
    "import_module with a constant": (
        "keypeg.strategies.x",
        "import importlib\nimportlib.import_module('keypeg.web.app')\n",
    ),
    "an f-string import_module": ("keypeg.kernels.x", "import importlib\nimportlib.import_module(f'keypeg.cli.{n}')\n"),
    "__import__": ("keypeg.store.x", "__import__('keypeg.play.sessions')\n"),
    "a module:attribute string": ("keypeg.services.x", "APP = 'keypeg.web.app:app_from_environment'\n"),
    "an import inside a string": ("keypeg.analysis.x", "CODE = 'from keypeg.cli import cli; cli()'\n"),
    "a private kernel name as a string": ("keypeg.analysis.x", "cold(('_tree.grow',))\n"),
    "a private kernel module as a string": ("keypeg.analysis.x", "NAME = 'keypeg.kernels._optimal'\n"),
    "play importing store": ("keypeg.play.x", "from keypeg.store import Store\n"),
    "services importing cli": ("keypeg.services.x", "from keypeg.cli.render import board\n"),
    "services naming web": ("keypeg.services.x", "def f():\n    from keypeg.web import app\n"),
    "cli importing web": ("keypeg.cli.x", "from keypeg.web.app import create_app\n"),
    "web importing cli": ("keypeg.web.x", "import keypeg.cli.common\n"),
    "cli touching kernels": ("keypeg.cli.x", "def f():\n    from keypeg.kernels import CodeSpace\n"),
    "a face naming the web app elsewhere": ("keypeg.cli.other", "APP = 'keypeg.web.app:app_from_environment'\n"),
    "engine naming store": ("keypeg.analysis.x", "from keypeg.store import Store\n"),
    "core naming the machine": ("keypeg.limits", "from keypeg.machine import cores\n"),
    "the root importing the api": ("keypeg", "from keypeg.api import fitting\n"),
    "core loading the api lazily": ("keypeg.history", "import importlib\nimportlib.import_module('keypeg.api')\n"),
    "services naming the api": ("keypeg.services.x", "from keypeg.api import best_guess\n"),
    "the api naming a face": ("keypeg.api", "from keypeg.cli.common import cli\n"),
    "the api touching kernels": ("keypeg.api", "from keypeg.kernels import CodeSpace\n"),
    "the api naming the store": ("keypeg.api", "from keypeg.store import Store\n"),
    "envs touching kernels": ("keypeg.envs.x", "from keypeg.kernels import CodeSpace\n"),
    "envs naming the web": ("keypeg.envs.x", "import keypeg.web.app\n"),
}


@pytest.mark.parametrize("kind", SEEDED)
def test_the_checker_sees_each_kind_of_violation(kind: str, tmp_path: Path) -> None:
    """The checks above can fail: each kind of naming is found, and each is refused."""
    module, source = SEEDED[kind]
    bad = tmp_path / "bad.py"
    bad.write_text(source, encoding="utf-8")
    named = names(bad, module)
    assert violations(module, named), f"{kind}: {named} passed"


def test_the_checker_lets_the_serve_string_and_kernels_own_names_through() -> None:
    assert not violations("keypeg.cli.serve", [Named("keypeg.web.app:app_from_environment", "string", 1)])
    assert not violations("keypeg.kernels._prewarm", [Named("keypeg.kernels._tree", "relative", 1)])
    assert violations("keypeg.cli.serve", [Named("keypeg.web.app", "import", 1)])


def test_the_checker_lets_the_root_load_the_api_lazily_only() -> None:
    assert not violations("keypeg", [Named("keypeg.api", "import_module", 1)])
    assert violations("keypeg", [Named("keypeg.api", "import", 1)])
    assert not violations("keypeg.envs.x", [Named("keypeg.api", "import", 1), Named("keypeg.play", "import", 1)])
    assert layer_of("keypeg.api") == "api" and layer_of("keypeg.envs.mastermind") == "envs"
    assert layer_of("keypeg.history") == "core"
