"""keypeg beside the fastest C++ solver known, fancidev's mastermind-strategy (`mmstrat`), same work, same run.

Takes an mmstrat binary (``--mmstrat PATH``) or builds one (``benchmarks/mmstrat.py``: a clone of the
upstream repository at a pinned commit with ``benchmarks/mmstrat.patch``, or a copy of a checkout given
with ``--mmstrat-source DIR``; skips, saying why, without git, g++ or cmake or when the build fails),
then runs keypeg and mmstrat interleaved (keypeg, mmstrat, keypeg, ...) on the same work, one thread
each (NUMBA_NUM_THREADS=1; mmstrat ``-mt 1``), several runs, and gives the medians
and their ratio. Rows:

- 4x6, each heuristic, whole process: ``keypeg analyze -s NAME --json`` vs ``mmstrat -r mm -s NAME -S -q``,
  and worst-case and entropy with ``--scoring mmstrat`` (mmstrat's own scores: the same trees);
- 4x6, each heuristic, in one process: keypeg's ``build_tree`` in this process after a warm-up call, vs
  mmstrat's whole-process time minus its start-up (mmstrat prints no time of its own; its start-up is
  the median time of ``mmstrat -r p2c2r -s simple``, a game of four codes);
- 5x8 (mmstrat's ``lg``) worst-case / expected-size / entropy / most-parts, whole process, and worst-case
  and entropy with ``--scoring mmstrat``;
- optimal 4x6 and 4x7 (``p4c7r``) whole process (4x7 left out by ``--quick``), bulls-and-cows with ``--long``;
  and each in one process: ``OptimalSolver(rules).solve()`` here (a new solver each run), vs mmstrat's
  figures from the whole-process row less its start-up;
- the first run after install: keypeg with an empty numba cache (``NUMBA_CACHE_DIR``), ``analyze`` and
  ``optimal`` on classic, against the same command warm and against mmstrat (one run each unless ``--runs``
  says more with ``--cold-runs``).

Whole-process rows also give each side's peak memory: the largest resident set of the child process,
as GNU time reports it.

    python benchmarks/anchor.py [--runs 3] [--quick] [--long] [--all-cores] [--no-save]
        [--mmstrat PATH | --mmstrat-source DIR] [--mmstrat-build-dir DIR]
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
from collections.abc import Callable
from pathlib import Path

import mmstrat as upstream
import numba
from report import report

from keypeg import Rules
from keypeg.analysis.tree import build_tree
from keypeg.strategies import make_strategy
from keypeg.strategies.optimal import OptimalSolver
from keypeg.variants import find_variant

# keypeg's name -> mmstrat's
NAMES = {
    "simple": "simple",
    "worst-case": "minmax",
    "expected-size": "minavg",
    "entropy": "entropy",
    "most-parts": "parts",
}
HEURISTICS = ("worst-case", "expected-size", "entropy", "most-parts")


def build_mmstrat(
    given: str | None, source: Path | None = None, build_dir: Path | None = None
) -> tuple[str | None, str]:
    """The mmstrat binary's path (``given``, else built by :mod:`mmstrat`), or None and why not."""
    if given:
        return given, f"mmstrat: {given}"
    try:
        path = upstream.build(source, build_dir)
    except upstream.BuildError as error:
        return None, str(error)
    return str(path), f"mmstrat {upstream.COMMIT} with benchmarks/mmstrat.patch, built by benchmarks/mmstrat.py: {path}"


def keypeg() -> list[str]:
    found = shutil.which("keypeg", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "keypeg"]


TIME = shutil.which("time", path="/usr/bin:/bin")
"""GNU time, which forks the measured command from its own small process: a child forked from this
Python process would count this process's resident set (numba and all) in its own peak, exec or not."""


def run(args: list[str], env: dict[str, str]) -> tuple[float, str, float]:
    """Whole-process seconds, stdout and peak memory (MiB, the child's largest resident set; 0 without
    GNU time)."""
    with tempfile.NamedTemporaryFile("r") as peak:
        measured = [TIME, "-f", "%M", "-o", peak.name, *args] if TIME else args
        started = time.perf_counter()
        done = subprocess.run(measured, capture_output=True, text=True, env=env)
        seconds = time.perf_counter() - started
        if done.returncode:
            raise RuntimeError(f"{' '.join(args)} failed: {done.stderr.strip()[-500:]}")
        kib = peak.read().strip().splitlines()[-1:] if TIME else []
    return seconds, done.stdout, int(kib[0]) / 1024 if kib else 0.0


def keypeg_total(out: str) -> int:
    return int(json.loads(out)["total"])


def mmstrat_total(out: str) -> int:
    return int(out.strip().split(":")[0])  # -q prints total:worst:count-at-worst


Timed = tuple[float, int, float]
"""Seconds, total guesses and peak MiB of one run."""


def interleaved(
    first: Callable[[], Timed], second: Callable[[], Timed], runs: int, warm: bool
) -> tuple[list[float], int, list[float], int, float, float]:
    """Times of ``first`` and ``second`` taken in turn, after one unmeasured call each when ``warm``;
    the totals, and the peak memory of each."""
    if warm:
        first()
        second()
    times_a, times_b = [], []
    total_a = total_b = 0
    peak_a = peak_b = 0.0
    for _ in range(runs):
        seconds, total_a, mib = first()
        times_a.append(seconds)
        peak_a = max(peak_a, mib)
        seconds, total_b, mib = second()
        times_b.append(seconds)
        peak_b = max(peak_b, mib)
    return times_a, total_a, times_b, total_b, peak_a, peak_b


def fmt(seconds: float) -> str:
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each side per row (median)")
    parser.add_argument("--cold-runs", type=int, default=1, help="runs of the empty-cache rows")
    parser.add_argument("--quick", action="store_true", help="4x6 rows and 5x8 worst case only; nothing saved")
    parser.add_argument("--long", action="store_true", help="also optimal bulls-and-cows (minutes)")
    parser.add_argument("--all-cores", action="store_true", help="also the whole-process rows on all cores")
    parser.add_argument("--no-save", action="store_true")
    parser.add_argument("--mmstrat", help="an mmstrat binary to use instead of building one")
    parser.add_argument(
        "--mmstrat-source", type=Path, help=f"build mmstrat from this checkout of commit {upstream.COMMIT}, not a clone"
    )
    parser.add_argument("--mmstrat-build-dir", type=Path, help="where to build mmstrat (reused once built)")
    options = parser.parse_args()
    mmstrat, how = build_mmstrat(options.mmstrat, options.mmstrat_source, options.mmstrat_build_dir)
    if mmstrat is None:
        print(f"skipped: {how}")
        return
    cores = os.cpu_count() or 1
    folder = tempfile.mkdtemp(prefix="keypeg-anchor-")
    base = {
        **os.environ,
        "KEYPEG_DB": f"sqlite:///{folder}/k.sqlite3",
        "KEYPEG_PLAYER": "bench",
        "KEYPEG_CACHE": f"{folder}/solved",
    }
    one = {**base, "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    many = {**base, "NUMBA_NUM_THREADS": str(cores)}
    kp = keypeg()

    def whole(kargs: list[str], margs: list[str], env: dict[str, str], threads: int, runs: int, warm: bool):
        def first() -> Timed:
            seconds, out, mib = run([*kp, *kargs, "--json"], env)
            return seconds, keypeg_total(out), mib

        def second() -> Timed:
            seconds, out, mib = run([mmstrat, *margs, "-S", "-q", "-mt", str(threads)], env)
            return seconds, mmstrat_total(out), mib

        return interleaved(first, second, runs, warm)

    rows: list[list[str]] = []
    columns = ["work", "keypeg s", "mmstrat s", "keypeg / mmstrat", "keypeg total", "mmstrat total"]
    columns += ["keypeg MiB", "mmstrat MiB"]
    if options.all_cores:
        columns += [f"keypeg {cores} cores s", f"mmstrat {cores} cores s", f"ratio {cores} cores"]
        columns += [f"keypeg {cores} cores / 1 core"]

    def add(label: str, kargs: list[str], margs: list[str], runs: int, warm: bool = True) -> tuple[float, ...]:
        """A whole-process row; mmstrat's medians (one thread, all cores) and its total."""
        ka, kt, ma, mt, kmib, mmib = whole(kargs, margs, one, 1, runs, warm)
        k, m = statistics.median(ka), statistics.median(ma)
        row = [label, fmt(k), fmt(m), f"{k / m:.2f}", f"{kt:,}", f"{mt:,}", f"{kmib:.0f}", f"{mmib:.0f}"]
        m_many = 0.0
        if options.all_cores:
            ka, _, ma, _, _, _ = whole(kargs, margs, many, cores, runs, False)
            k_many, m_many = statistics.median(ka), statistics.median(ma)
            row += [fmt(k_many), fmt(m_many), f"{k_many / m_many:.2f}", f"{k_many / k:.2f}"]
        rows.append(row)
        print(" | ".join(row), flush=True)
        return m, m_many, mt

    def add_solved(label: str, rules: Rules, theirs: tuple[float, ...], runs: int) -> None:
        """An optimal search in this process (a new solver each run, so no memo carried over) beside
        mmstrat's figures from the whole-process row, less its start-up."""

        def solve(threads: int) -> tuple[float, int]:
            seconds, total = [], 0
            for _ in range(runs):
                started = time.perf_counter()
                total = OptimalSolver(rules, threads=threads).solve()
                seconds.append(time.perf_counter() - started)
            return statistics.median(seconds), total

        k, kt = solve(1)
        m, m_many, mt = theirs[0] - mm_startup, theirs[1] - mm_startup, int(theirs[2])
        row = [f"{label}, in one process", fmt(k), fmt(m), f"{k / m:.2f}", f"{kt:,}", f"{mt:,}", "", ""]
        if options.all_cores:
            k_many, _ = solve(cores)
            row += [fmt(k_many), fmt(m_many), f"{k_many / m_many:.2f}", f"{k_many / k:.2f}"]
        rows.append(row)
        print(" | ".join(row), flush=True)

    def mmstrat_scoring(size: str, sizes: list[str], rule: str) -> None:
        """worst-case and entropy scored as mmstrat scores them (``--scoring mmstrat``): the same trees."""
        for name in ("worst-case", "entropy"):
            add(
                f"{size} {name} --scoring mmstrat / {NAMES[name]}, whole process",
                ["analyze", "-s", name, "--scoring", "mmstrat", *sizes],
                ["-r", rule, "-s", NAMES[name]],
                options.runs,
                warm=size == "4x6",
            )

    # 4x6, whole process
    for name, theirs in NAMES.items():
        add(f"4x6 {name} / {theirs}, whole process", ["analyze", "-s", name], ["-r", "mm", "-s", theirs], options.runs)

    mmstrat_scoring("4x6", [], "mm")

    # 4x6, guesses from the codes that fit only: keypeg --pool consistent, mmstrat -po
    for name in HEURISTICS:
        theirs = NAMES[name]
        add(
            f"4x6 {name} --pool consistent / {theirs} -po, whole process",
            ["analyze", "-s", name, "--pool", "consistent"],
            ["-r", "mm", "-s", theirs, "-po"],
            options.runs,
        )

    # 4x6, in one process: keypeg's build_tree here; mmstrat's process time minus its start-up
    numba.set_num_threads(1)
    classic = Rules(4, 6)
    first_call = []
    for name in (*HEURISTICS, "simple"):
        started = time.perf_counter()
        build_tree(make_strategy(name), classic)
        first_call.append(time.perf_counter() - started)
    startup = [run([mmstrat, "-r", "p2c2r", "-s", "simple", "-S", "-q", "-mt", "1"], one)[0] for _ in range(9)]
    mm_startup = statistics.median(startup)
    for name, theirs in NAMES.items():
        strategy = make_strategy(name)

        def inside() -> Timed:
            started = time.perf_counter()
            tree = build_tree(strategy, classic)  # noqa: B023
            return time.perf_counter() - started, tree.stats.total, 0.0

        def outside() -> Timed:
            seconds, out, mib = run([mmstrat, "-r", "mm", "-s", theirs, "-S", "-q", "-mt", "1"], one)  # noqa: B023
            return seconds - mm_startup, mmstrat_total(out), mib

        ka, kt, ma, mt, _, _ = interleaved(inside, outside, max(options.runs, 5), True)
        k, m = statistics.median(ka), max(statistics.median(ma), 1e-4)
        row = [f"4x6 {name} / {theirs}, in one process", fmt(k), fmt(m), f"{k / m:.1f}", f"{kt:,}", f"{mt:,}"]
        rows.append(row + [""] * (len(columns) - len(row)))
        print(" | ".join(row), flush=True)

    # 5x8, whole process
    for name in HEURISTICS[:1] if options.quick else HEURISTICS:
        add(
            f"5x8 {name} / {NAMES[name]}, whole process",
            ["analyze", "-s", name, "-p", "5", "-c", "8"],
            ["-r", "lg", "-s", NAMES[name]],
            options.runs,
            warm=False,
        )
    if not options.quick:
        mmstrat_scoring("5x8", ["-p", "5", "-c", "8"], "lg")

    # optimal, whole process
    no_store = ["--no-save", "--restart"]
    OptimalSolver(Rules(3, 3), threads=1).solve()  # loads the search's kernels, unmeasured
    theirs = add("optimal 4x6, whole process", ["optimal", *no_store], ["-r", "mm", "-s", "optimal"], options.runs)
    add_solved("optimal 4x6", classic, theirs, max(options.runs, 5))
    if not options.quick:
        theirs = add(
            "optimal 4x7, whole process",
            ["optimal", "-p", "4", "-c", "7", *no_store],
            ["-r", "p4c7r", "-s", "optimal"],
            options.runs,
            warm=False,
        )
        add_solved("optimal 4x7", Rules(4, 7), theirs, options.runs)
    if options.long:
        theirs = add(
            "optimal bulls-and-cows, whole process",
            ["optimal", "-v", "bulls-and-cows", *no_store],
            ["-r", "bc", "-s", "optimal"],
            1,
            warm=False,
        )
        add_solved("optimal bulls-and-cows", find_variant("bulls-and-cows").rules, theirs, 1)

    # first run after install: an empty numba cache each time
    cold_notes = []
    if not options.quick:
        for label, kargs, margs in [
            ("analyze 4x6 worst-case", ["analyze", "-s", "worst-case", "--json"], ["-r", "mm", "-s", "minmax"]),
            ("optimal 4x6", ["optimal", *no_store, "--json"], ["-r", "mm", "-s", "optimal"]),
        ]:
            cold, warm, theirs = [], [], []
            total = 0
            for _ in range(options.cold_runs):
                with tempfile.TemporaryDirectory(prefix="keypeg-numba-") as empty:
                    seconds, out, _ = run([*kp, *kargs], {**one, "NUMBA_CACHE_DIR": empty})
                    cold.append(seconds)
                    warm.append(run([*kp, *kargs], {**one, "NUMBA_CACHE_DIR": empty})[0])
                total = keypeg_total(out)
                seconds, out, _ = run([mmstrat, *margs, "-S", "-q", "-mt", "1"], one)
                theirs.append(seconds)
            k, w, m = statistics.median(cold), statistics.median(warm), statistics.median(theirs)
            row = [
                f"{label}, first run after install",
                fmt(k),
                fmt(m),
                f"{k / m:.0f}",
                f"{total:,}",
                mmstrat_total(out),
            ]
            row[-1] = f"{row[-1]:,}"
            rows.append(row + [""] * (len(columns) - len(row)))
            cold_notes.append(f"{label}: {fmt(k)} s with an empty numba cache, {fmt(w)} s on the next run")
            print(" | ".join(row), flush=True)

    shutil.rmtree(folder, ignore_errors=True)
    calls = ", ".join(f"{name} {fmt(s)} s" for name, s in zip((*HEURISTICS, "simple"), first_call, strict=True))
    notes = [
        how + f"; one thread each (NUMBA_NUM_THREADS=1, mmstrat -mt 1); medians of {options.runs} interleaved "
        "runs after one unmeasured run of each (none for the 5x8 and 4x7 rows); ratios from this run only.",
        "In one process: keypeg's build_tree after a warm-up call (median of at least 5); mmstrat prints no "
        f"time of its own, so its figure is its whole-process time minus its start-up ({mm_startup * 1000:.1f} ms, "
        "the median of 9 runs of `mmstrat -r p2c2r -s simple`). The optimal searches in one process: "
        "`OptimalSolver(rules).solve()`, a new solver each run (median of at least 5 on 4x6, else of "
        "--runs; one on bulls and cows), after one search of 3x3 that loads the kernels; mmstrat's figure "
        "is its whole-process row's less that start-up.",
        f"keypeg's first build_tree calls in this process (loading or compiling kernels): {calls}.",
        *cold_notes,
        "Conventions: expected-size / minavg, most-parts / parts and optimal build the same trees (same totals). "
        "mmstrat's minmax ranks guesses by the whole sorted list of partition sizes (largest, then the "
        "second largest, ...), the perfect-match part counted as empty; keypeg's worst-case is Knuth's rule "
        "(largest part, then a fitting guess, then the first in order): 5801 against 5778 on 4x6. mmstrat's "
        "entropy takes 2 ln 2 off a fitting guess's sum of n ln n and prefers no fitting guess on a tie. "
        "`--scoring mmstrat` scores worst-case and entropy as mmstrat does: the same trees, same totals. "
        "simple takes the first fitting code in the order mmstrat's partitioning leaves the codes in (not a "
        "convention: an artefact of its in-place partition), and -po breaks ties in that order too, so the "
        "--pool consistent / -po rows may differ by a few guesses where ties happen.",
        "Peak memory: the largest resident set of each child process (MiB), as GNU time reports it.",
        "Whole process: from the shell to the exit, so keypeg's figure includes Python's start-up, keypeg's "
        "imports and loading numba's cached kernels.",
    ]
    report(
        "anchor",
        "keypeg beside mmstrat (fancidev's C++ solver), one thread each",
        " ".join(["python benchmarks/anchor.py", *sys.argv[1:]]),
        notes,
        columns,
        rows,
        save=not (options.no_save or options.quick),
    )


if __name__ == "__main__":
    main()
