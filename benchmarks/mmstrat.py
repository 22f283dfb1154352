"""Build fancidev's mastermind-strategy solver (`mmstrat`, MIT, C++/SSE2), the reference keypeg's
anchor benchmark runs beside, and print the path of its binary.

The source is a clone of https://github.com/fancidev/mastermind-strategy at commit :data:`COMMIT`
(or a copy of a checkout of that commit given with ``--source DIR``), with ``benchmarks/mmstrat.patch``
applied: the ``wiki`` subdirectory, absent from a clone, is not built, and a pointer compared with
``> 0`` in ``lib/StrategyTree.cpp`` (an error for today's g++) is compared with ``nullptr``. Built in
release mode with the standard headers the sources forget to include forced in. Needs git (for the
clone), cmake, make and g++; about 10 s on two cores. A binary built already is reused.

    python benchmarks/mmstrat.py [--source DIR] [--build-dir DIR]

Examples of its use: ``mmstrat -r mm -s minmax -S -q`` prints ``5778:5:663`` (total:worst:count at
worst; rules ``mm`` = 4x6, ``p4c7r``, ``p4c8r``, ``bc``, ``lg`` = 5x8; strategies ``simple minmax
minavg entropy parts optimal``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

UPSTREAM = "https://github.com/fancidev/mastermind-strategy"
COMMIT = "2276367"
"""The upstream commit the patch is written against."""
PATCH = Path(__file__).resolve().with_name("mmstrat.patch")
FLAGS = "-O3 -include limits -include cstdint -include cstring -include cstdlib -include algorithm -w"
"""Release flags, and the headers the 2011 sources take for granted that today's libstdc++ leaves out."""


class BuildError(RuntimeError):
    """mmstrat could not be built: the message says why."""


def default_build_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"keypeg-mmstrat-{COMMIT}"


def missing_tools() -> list[str]:
    """The tools the build needs that this machine lacks."""
    missing = [tool for tool in ("git", "cmake", "make") if not shutil.which(tool)]
    if not (shutil.which("g++") or shutil.which("c++")):
        missing.append("g++")
    return missing


def _run(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise BuildError(f"{' '.join(args)} failed: {(done.stderr or done.stdout).strip()[-500:]}")
    return done


def fetch(source: Path | None, target: Path) -> None:
    """The upstream source at :data:`COMMIT` into ``target`` (a new directory): cloned, or copied
    from ``source``."""
    if source is not None:
        if not (source / "CMakeLists.txt").is_file():
            raise BuildError(f"{source} holds no CMakeLists.txt: not a mastermind-strategy checkout")
        shutil.copytree(source, target, ignore=shutil.ignore_patterns(".git"))
        for path in [target, *target.rglob("*")]:  # a read-only source makes a read-only copy
            path.chmod(path.stat().st_mode | 0o200)
        return
    _run(["git", "clone", "--quiet", UPSTREAM, str(target)])
    _run(["git", "-c", "advice.detachedHead=false", "checkout", "--quiet", COMMIT], cwd=target)


def patch(tree: Path) -> None:
    """Apply :data:`PATCH` to the source in ``tree`` (nothing if it is applied already)."""
    if not (tree / ".git").exists():  # a copy: its own repository, so that git apply patches it wherever it is
        _run(["git", "init", "--quiet"], cwd=tree)
    if subprocess.run(["git", "apply", "--check", str(PATCH)], cwd=tree, capture_output=True).returncode == 0:
        _run(["git", "apply", str(PATCH)], cwd=tree)
    elif subprocess.run(["git", "apply", "--check", "--reverse", str(PATCH)], cwd=tree, capture_output=True).returncode:
        raise BuildError(f"{PATCH.name} does not apply to {tree}: not commit {COMMIT} of {UPSTREAM}?")


def build(source: Path | None = None, build_dir: Path | None = None) -> Path:
    """The path of an mmstrat binary built from the upstream source at :data:`COMMIT` with
    :data:`PATCH`, in ``build_dir`` (reused when built there already). ``source``: a checkout of
    that commit to copy instead of cloning. Raises :class:`BuildError`."""
    root = build_dir or default_build_dir()
    binary = root / "build" / "bin" / "mmstrat"
    if os.access(binary, os.X_OK):
        return binary
    missing = missing_tools()
    if missing:
        raise BuildError(f"cannot build mmstrat: no {', '.join(missing)} on this machine")
    tree = root / "src"
    if not tree.exists():
        root.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(prefix="src-", dir=root))
        shutil.rmtree(partial)
        fetch(source, partial)
        partial.rename(tree)  # a failed clone or copy leaves no half tree behind
    patch(tree)
    work = root / "build"
    work.mkdir(exist_ok=True)
    _run(["cmake", "-Wno-dev", "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_CXX_FLAGS={FLAGS}", str(tree)], cwd=work)
    _run(["make", f"-j{os.cpu_count() or 1}", "mmstrat"], cwd=work)
    if not os.access(binary, os.X_OK):
        raise BuildError(f"the build made no {binary}")
    return binary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, help=f"a checkout of {UPSTREAM} at {COMMIT} (default: clone it)")
    parser.add_argument("--build-dir", type=Path, help=f"where to build (default: {default_build_dir()})")
    options = parser.parse_args()
    try:
        print(build(options.source, options.build_dir))
    except BuildError as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
