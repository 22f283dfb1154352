"""Whole-process start-up: how long a command takes from the shell, light commands and a heavy one.

Each command runs as a fresh process several times (warm caches: one unmeasured run first);
the table gives the median and the fastest, and what ``python -c pass`` costs on the same
machine in the same run, the floor no command can go under.

    python benchmarks/startup.py [--runs 9] [--no-save]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from report import report

COMMANDS = [
    ("python -c pass (the floor)", [sys.executable, "-c", "pass"]),
    ("keypeg --help", ["--help"]),
    ("keypeg score RGBY RRBB", ["score", "RGBY", "RRBB"]),
    ("keypeg variants", ["variants"]),
    ("keypeg candidates RRGG=1,0", ["candidates", "RRGG=1,0"]),
    ("keypeg history", ["history"]),
    ("keypeg next RRGG=1,0 (heavy)", ["next", "RRGG=1,0"]),
    ("keypeg analyze (heavy)", ["analyze"]),
]


def keypeg() -> list[str]:
    found = shutil.which("keypeg", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "keypeg"]


def timed(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, capture_output=True, check=True, env=env)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-save", action="store_true")
    options = parser.parse_args()
    import os

    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "KEYPEG_DB": f"sqlite:///{folder}/k.sqlite3", "KEYPEG_PLAYER": "bench"}
        rows = []
        for label, args in COMMANDS:
            command = args if args[0] == sys.executable else [*keypeg(), *args]
            timed(command, env)  # warm: numba's cache, the database file, the OS's file cache
            times = [timed(command, env) for _ in range(options.runs)]
            rows.append([label, f"{statistics.median(times):.3f}", f"{min(times):.3f}"])
    report(
        "startup",
        "Start-up: whole-process seconds",
        f"python benchmarks/startup.py --runs {options.runs}",
        ["Median and fastest of the runs, after one warm-up run; one process at a time."],
        ["command", "median s", "fastest s"],
        rows,
        save=not options.no_save,
    )


if __name__ == "__main__":
    main()
