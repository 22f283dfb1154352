"""keypeg as a user gets it: ``python -m build`` makes an sdist and a wheel (built from the sdist) that
``twine check --strict`` accepts; the wheel, installed with its dependencies in a fresh virtual environment and
run from a folder outside the source tree, scores, analyses (its numba kernels compiled on first use, with the
note the command line prints), plays, refuses the faces of extras it lacks with one line naming the extra, and
runs an example once ``keypeg[envs]`` is installed.

One build and one install serve the whole module: about 30 s on 2 cores (the build 7 s; pip installing the
dependencies again, 8 s without compiling their modules; numba compiling the kernels into the new environment's
keypeg, 10 s of CPU). The build is of the tracked files, as a fresh clone; outside a git checkout (an unpacked
sdist) it is of the tree as it is, and the checks against the tracked files skip.
"""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
RUNTIME_EXTRAS = {"web", "cluster", "postgres", "plot", "envs"}
"""The extras ``all`` gathers; ``docs`` and ``dev`` are tools, not part of it."""
NOT_IN_SDIST = (".ci/", ".gitignore")
"""Tracked files the sdist leaves out: the CI scripts and git's own settings."""
COMPILE_NOTE = "compiling keypeg's kernels once"
"""The start of the note the command line prints before numba compiles the kernels for the first time."""
EXAMPLE = "random_agent.py"
"""The example run from the installed wheel (the cheapest: no optimum to search, no server)."""


@dataclass
class Built:
    """The distributions ``python -m build`` made."""

    sdist: Path
    wheel: Path


@dataclass
class Installed:
    """A fresh virtual environment with the wheel installed, and a folder outside the source tree to run in."""

    root: Path
    folder: Path
    env: dict[str, str]
    first_analyze: subprocess.CompletedProcess[str] = field(init=False)

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    def run(self, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        """``args`` run with the environment's own programs first on ``PATH``, in :attr:`folder` (``env``: more
        variables)."""
        return subprocess.run(
            args,
            cwd=self.folder,
            env={**self.env, **env},
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    def keypeg(self, *args: str, stdin: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.root / "bin" / "keypeg"), *args, stdin=stdin, **env)

    def pip_install(self, *requirements: str) -> None:
        """pip (this suite's own: the new environment has none) installing into the environment; without
        compiling every dependency's modules up front (12 of its 20 s here), as Python compiles those it imports."""
        install = [sys.executable, "-m", "pip", "--python", str(self.python), "install", "--quiet", "--no-compile"]
        done = subprocess.run(
            [*install, *requirements],
            cwd=self.folder,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert done.returncode == 0, done.stderr


def _done(process: subprocess.CompletedProcess[str]) -> str:
    assert process.returncode == 0, f"exit {process.returncode}\n{process.stdout}\n{process.stderr}"
    return process.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sdist and the wheel, built as a release is built: from the tracked files alone (a fresh clone; a
    source tree's own egg-info, left by ``pip install -e``, would put files in the sdist that its manifest
    lacks), the wheel from the unpacked sdist, so that a file missing from the sdist is missing from it too."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    if _git():
        for name in _tracked():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    else:  # an unpacked sdist: built as it is
        source = ROOT
    _done(
        subprocess.run(
            [sys.executable, "-m", "build", "--outdir", str(out), str(source)],
            cwd=out,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    )
    (sdist,), (wheel,) = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    return Built(sdist, wheel)


@pytest.fixture(scope="module")
def installed(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel alone (no extras) in a new virtual environment; its first ``keypeg analyze`` is run here,
    before anything else can compile the kernels."""
    root = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(root)
    folder = tmp_path_factory.mktemp("elsewhere")
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"}}
    env.pop("NUMBA_CACHE_DIR", None)  # numba keeps the kernels in the installed package, as for a user
    env.update(
        PATH=f"{root / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        PYTHONNOUSERSITE="1",
        KEYPEG_DB=f"sqlite:///{folder / 'keypeg.sqlite3'}",
        KEYPEG_CACHE=str(folder / "cache"),
        KEYPEG_PLAYER="tester",
    )
    there = Installed(root, folder, env)
    there.pip_install(str(built.wheel))
    there.first_analyze = there.keypeg("analyze", "--pegs", "3", "--colors", "3", "--strategy", "knuth")
    return there


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(archive.read(name).decode())


def _git() -> bool:
    """Whether the tests run in a git checkout (not in an unpacked sdist, which has no ``.git``)."""
    return shutil.which("git") is not None and (ROOT / ".git").exists()


def _tracked() -> list[str]:
    """The files git tracks in the source tree, as they are in the work tree (the test skips outside git)."""
    if not _git():
        pytest.skip("not a git checkout: the tracked files are unknown")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [name for name in listed.split("\0") if name and (ROOT / name).is_file()]  # deleted, not committed


def test_twine_accepts_both_distributions(built: Built) -> None:
    """Metadata and README render as PyPI would take them (``--strict``: warnings fail too)."""
    checked = _done(
        subprocess.run(
            [sys.executable, "-m", "twine", "check", "--strict", str(built.sdist), str(built.wheel)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    )
    assert checked.count("PASSED") == 2, checked


def test_the_sdist_is_the_whole_source_release(built: Built) -> None:
    """Every tracked file but the CI scripts: the package, and the tests, examples, docs and benchmarks that a
    packager needs to run the suite and build the site from the sdist alone."""
    with tarfile.open(built.sdist) as archive:
        top = built.sdist.name.removesuffix(".tar.gz")
        held = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    missing = [name for name in _tracked() if not name.startswith(NOT_IN_SDIST) and name not in held]
    assert not missing, (
        f"tracked files missing from the sdist (graft them in MANIFEST.in, or list them in NOT_IN_SDIST): {missing}"
    )
    assert {"LICENSE", "PKG-INFO", "pyproject.toml", "README.md"} <= held


def test_the_wheel_holds_the_package_and_every_file_it_reads(built: Built) -> None:
    """Every tracked file of the package (data, templates, static files, migrations, ``py.typed``), and
    nothing from outside it."""
    with zipfile.ZipFile(built.wheel) as archive:
        held = set(archive.namelist())
    package = [name.removeprefix("src/") for name in _tracked() if name.startswith("src/keypeg/")]
    assert package, "no tracked file under src/keypeg"
    missing = [name for name in package if name not in held]
    assert not missing, f"package files missing from the wheel: {missing}"
    assert {"keypeg/py.typed", "keypeg/store/migrations/script.py.mako"} <= held
    strays = {name.split("/")[0] for name in held} - {"keypeg", built.wheel.name.split("-py3")[0] + ".dist-info"}
    assert not strays, f"the wheel installs more than keypeg: {strays}"
    assert not [name for name in held if "__pycache__" in name or name.endswith((".pyc", ".nbi", ".nbc"))]


def test_the_metadata_names_the_license_and_the_extras(built: Built) -> None:
    metadata = _metadata(built.wheel)
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["Description-Content-Type"] == "text/markdown"
    extras = set(metadata.get_all("Provides-Extra") or [])
    assert extras == RUNTIME_EXTRAS | {"all", "docs", "dev"}
    wanted = [r for r in metadata.get_all("Requires-Dist") or [] if re.search(r"""extra == "all"$""", r)]
    (gathered,) = wanted
    assert set(re.fullmatch(r"keypeg\[([a-z,]+)\];.*", gathered)[1].split(",")) == RUNTIME_EXTRAS  # type: ignore[index]
    assert "Typing :: Typed" in (metadata.get_all("Classifier") or [])


def test_keypeg_runs_from_the_environment_not_the_source_tree(installed: Installed) -> None:
    code = (
        "import importlib.metadata as m, keypeg, sys; print(keypeg.__file__, m.version('keypeg'), sys.path, sep='\\n')"
    )
    where, version, path = _done(installed.run(str(installed.python), "-c", code)).splitlines()
    assert Path(where).is_relative_to(installed.root), where
    assert str(ROOT) not in path, path
    assert _done(installed.keypeg("--version")).split()[-1] == version


def test_score(installed: Installed) -> None:
    assert _done(installed.keypeg("score", "RGBY", "RGYB")).split() == ["●●○○", "2", "black,", "2", "white"]


def test_analyze_compiles_the_kernels_on_first_use_with_a_note(installed: Installed) -> None:
    """The first run says it compiles (on stderr); the second finds the kernels in numba's cache, in the
    installed package, and says nothing; both print Knuth's tree on 3x3: 27 secrets, 74 guesses, 4 at worst."""
    first, again = installed.first_analyze, installed.keypeg("analyze", "-p", "3", "-c", "3", "-s", "knuth")
    assert COMPILE_NOTE in first.stderr
    assert COMPILE_NOTE not in again.stderr
    for run in (first, again):
        table = _done(run)
        assert "27 secrets" in table
        assert re.search(r"total\s*│\s*74\b", table) and re.search(r"worst\s*│\s*4\b", table), table
    cache = installed.root.glob("lib/python*/site-packages/keypeg/kernels/__pycache__/*.nbi")
    assert next(cache, None) is not None, "numba cached nothing in the installed package"


def test_play_piped(installed: Installed) -> None:
    """A piped game: a guess a line in, 'B W' a line out, exit 0 when broken."""
    played = installed.keypeg("play", "-p", "3", "-c", "4", "--secret", "BAD", stdin="ABC\nABD\nBAD\n")
    assert _done(played).split("\n")[:3] == ["0 2", "1 2", "3 0"]


FACES = {
    "web": (("serve", "--port", "1"), {}),  # refused before any socket is opened
    "cluster": (("analyze", "-p", "3", "-c", "3", "--workers", "2"), {}),
    "plot": (("analyze", "-p", "3", "-c", "3", "--chart", "chart.png"), {}),
    "postgres": (("history",), {"KEYPEG_DB": "postgresql+psycopg://keypeg@127.0.0.1:1/keypeg"}),  # no connection made
}
"""A command of each extra's face, refused before any work in an environment without the extra."""


@pytest.mark.parametrize("extra", sorted(FACES))
def test_a_face_without_its_extra_is_one_line_naming_it(installed: Installed, extra: str) -> None:
    args, env = FACES[extra]
    refused = installed.keypeg(*args, **env)
    assert refused.returncode == 2, refused
    (line,) = refused.stderr.strip().splitlines()
    assert line.startswith("error: ") and f"pip install 'keypeg[{extra}]'" in line, line


def test_keypeg_envs_without_its_extra_names_it(installed: Installed) -> None:
    imported = installed.run(str(installed.python), "-c", "import keypeg.envs")
    assert imported.returncode == 1
    assert imported.stderr.strip().splitlines()[-1] == (
        "ImportError: keypeg.envs needs gymnasium: pip install 'keypeg[envs]'"
    ), imported.stderr


def test_an_example_runs_with_the_envs_extra(built: Built, installed: Installed) -> None:
    """``keypeg[envs]`` added to the environment; the example copied out of the source tree and run there."""
    example = ROOT / "examples" / EXAMPLE
    if not example.exists():
        pytest.skip(f"examples/{EXAMPLE} is not written yet")
    installed.pip_install(f"keypeg[envs] @ {built.wheel.as_uri()}")
    shutil.copy(example, installed.folder / EXAMPLE)
    out = _done(installed.run(str(installed.python), EXAMPLE, "--pegs", "3", "--colors", "3", "--games", "5"))
    assert out.startswith("A random agent on 3 pegs, 3 colours"), out
    rows = {m[1]: (int(m[2]), int(m[3])) for m in re.finditer(r"^(unmasked|masked)\s+(\d+)\s+(\d+)", out, re.M)}
    assert set(rows) == {"unmasked", "masked"} and all(won + lost == 5 for won, lost in rows.values()), out
    assert rows["masked"] == (5, 0), out  # the mask keeps only codes that fit: it always breaks 3x3 in 12 rows
