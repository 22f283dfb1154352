"""Start-up: how long a command takes before its work begins, and whole-process times.

The first table is the issue's measure (31, item 6): a heavy command's start-up beyond importing numpy
and numba. Each heavy command runs in a fresh process (a probe that runs the CLI as the ``keypeg``
script does) twice in a row, keypeg's in-memory caches emptied in between: the second run is the
command's work alone (reading its arguments, computing, printing), every module imported and every
kernel loaded. So

    start-up = (process start to the end of the first run) - (the second run) - (import numpy, numba)

where the last is a fresh ``python -c "import numpy, numba"`` timed the same way in the same run; the
interpreter's own start is in both and cancels. Wall seconds (the start-up's goal, 50 ms), and CPU
seconds beside them (user + system, this process's threads; less distorted by a loaded machine).

The second table is each command as a whole process from the shell, light commands and heavy ones,
and ``python -c pass``, the floor no command can go under. Every figure is the median of the runs,
after one unmeasured run (numba's cache, the database file, the OS's file cache warm).

    python benchmarks/startup.py [--runs 9] [--no-save]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from report import report

LIGHT = [
    ("keypeg --help", ["--help"]),
    ("keypeg score RGBY RRBB", ["score", "RGBY", "RRBB"]),
    ("keypeg variants", ["variants"]),
    ("keypeg candidates RRGG=1,0", ["candidates", "RRGG=1,0"]),
    ("keypeg history", ["history"]),
]
HEAVY = [
    ("keypeg next RRGG=1,0", ["next", "RRGG=1,0"]),
    ("keypeg next -s entropy RRGG=1,0", ["next", "-s", "entropy", "RRGG=1,0"]),
    ("keypeg analyze", ["analyze"]),
    ("keypeg tables", ["tables"]),
    ("keypeg optimal -p 2 -c 4", ["optimal", "-p", "2", "-c", "4"]),
]

PROBE = """
import os, sys, time
sys.argv = ["keypeg", *{args!r}]
from keypeg.cli import cli


def run():
    try:
        cli.main({args!r}, prog_name="keypeg", standalone_mode=False)
    except SystemExit:
        pass


run()
first, first_cpu = time.perf_counter(), time.process_time()
import functools, gc, json

for cached in gc.get_objects():
    if isinstance(cached, functools._lru_cache_wrapper) and getattr(cached, "__module__", "").startswith("keypeg"):
        cached.cache_clear()
again, again_cpu = time.perf_counter(), time.process_time()
run()
done, done_cpu = time.perf_counter(), time.process_time()
with open({report!r}, "w") as report:
    report.write(json.dumps([first, first_cpu, done - again, done_cpu - again_cpu]))
os._exit(0)
"""
"""The heavy command's probe: the command run twice, keypeg's lru caches emptied between; it writes the end
of the first run (``time.perf_counter``: CLOCK_MONOTONIC, one clock for every process) and the second run's
seconds, wall and CPU."""

IMPORTS = """
import json, os, time
import numpy, numba
with open({report!r}, "w") as report:
    report.write(json.dumps([time.perf_counter(), time.process_time(), 0.0, 0.0]))
os._exit(0)
"""
"""The baseline: a fresh interpreter that imports numpy and numba, ended as keypeg's script ends (no teardown)."""


class Probed(NamedTuple):
    """One probe's figures, in seconds."""

    first: float
    """From just before the process was started to the end of its first run (or of its imports)."""
    first_cpu: float
    work: float
    work_cpu: float


def keypeg() -> list[str]:
    found = shutil.which("keypeg", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "keypeg"]


def timed(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, capture_output=True, check=True, env=env)
    return time.perf_counter() - started


def probe(script: str, args: list[str], env: dict[str, str], folder: str) -> Probed:
    """Run a probe script (for the command ``args``) in a fresh interpreter, its output thrown away, and
    read what it wrote."""
    written = os.path.join(folder, "probe.txt")
    code = script.format(args=args, report=written)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True, env=env)
    with open(written, encoding="utf-8") as text:
        first, first_cpu, work, work_cpu = json.load(text)
    return Probed(first - started, first_cpu, work, work_cpu)


def medians(runs: list[Probed]) -> Probed:
    return Probed(*(statistics.median(column) for column in zip(*runs, strict=True)))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}"


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--heavy-only", action="store_true", help="Only the first table (start-up of heavy commands).")
    parser.add_argument("--label", default="", help="Added to the tables' titles (say which code was measured).")
    options = parser.parse_args()
    runs = options.runs
    load_before = load()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "KEYPEG_DB": f"sqlite:///{folder}/k.sqlite3", "KEYPEG_PLAYER": "bench"}
        env.pop("NUMBA_NUM_THREADS", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # the warm-up run writes bytecode caches, as a user's first run does

        def repeated(script: str, args: list[str]) -> Probed:
            probe(script, args, env, folder)  # warm: numba's cache, the database file, the OS's file cache
            return medians([probe(script, args, env, folder) for _ in range(runs)])

        base = repeated(IMPORTS, [])
        rows = [["import numpy, numba (the baseline)", ms(base.first), "", "", ms(base.first_cpu), "", ""]]
        for label, args in HEAVY:
            got = repeated(PROBE, args)
            startup, startup_cpu = got.first - got.work - base.first, got.first_cpu - got.work_cpu - base.first_cpu
            rows.append(
                [label, ms(got.first), ms(got.work), ms(startup), ms(got.first_cpu), ms(got.work_cpu), ms(startup_cpu)]
            )
        whole = []
        for label, args in (
            []
            if options.heavy_only
            else [("python -c pass (the floor)", [sys.executable, "-c", "pass"]), *LIGHT, *HEAVY]
        ):
            command = args if args[0] == sys.executable else [*keypeg(), *args]
            timed(command, env)
            times = [timed(command, env) for _ in range(runs)]
            whole.append([label, f"{statistics.median(times):.3f}", f"{min(times):.3f}"])
    machine_load = f"Machine {load_before} before the runs, {load()} after."
    report(
        "startup",
        f"Start-up of a heavy command beyond importing numpy and numba (ms){options.label}",
        f"python benchmarks/startup.py --runs {runs}",
        [
            f"Medians of {runs} fresh processes per command after one warm-up, one process at a time. "
            "*first run*: from starting the process to the end of the command's first run; *work*: the same "
            "command run again in that process (keypeg's lru caches emptied); *start-up* = first run - work - "
            "the baseline's first run (a fresh `python -c 'import numpy, numba'`). Goal (issue 31): start-up "
            "<= 50 ms. CPU columns: user + system seconds of the process (all its threads).",
            machine_load,
        ],
        ["command", "first run", "work", "start-up", "first run CPU", "work CPU", "start-up CPU"],
        rows,
        save=not options.no_save,
        section=True,
    )
    if options.heavy_only:
        return
    report(
        "startup",
        f"Start-up: whole-process seconds{options.label}",
        f"python benchmarks/startup.py --runs {runs}",
        [f"Median and fastest of {runs} runs from the shell, after one warm-up run; one process at a time."],
        ["command", "median s", "fastest s"],
        whole,
        save=not options.no_save,
        section=True,
    )


if __name__ == "__main__":
    main()
