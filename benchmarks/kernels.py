"""How many code pairs per second the partition kernels score, against a numpy baseline.

Run as ``python benchmarks/kernels.py``. For each rule set a block of guesses is scored
against every code and the codes are counted per feedback (a partition table, the inner
loop of every solver). The numba kernels run on one core and on all cores; the baseline
is a vectorised numpy version of the same counts (bit encodings, ``np.bitwise_count``,
``np.bincount``) written here and timed in the same run. Every result is checked against
the baseline before it is timed. The table is printed and written as markdown to
``benchmarks/results/kernels.md``.
"""

from __future__ import annotations

import datetime
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
from rich.console import Console
from rich.table import Table

from keypeg import Rules
from keypeg.kernels import CodeSpace, Encoded
from keypeg.limits import TABLE_LIMIT

RESULTS = Path(__file__).resolve().parent / "results" / "kernels.md"
TARGET_RULES = "5x8"
TARGET_PER_CORE = 500e6
REPEATS = 5
NUMBA_SECONDS = 0.25
"""Aim for timed runs about this long: a block large enough to swamp call overhead."""
NUMPY_SECONDS = 0.4
NUMPY_CHUNK = 1 << 22
"""Pairs the numpy baseline materialises at once (its temporaries are 8 bytes a pair)."""


@dataclass
class Row:
    rules: str
    path: str
    kernel: str
    codes: int
    numpy_rate: float
    one_rate: float
    all_rate: float
    one_block: int
    all_block: int


def numpy_partition(guesses: Encoded, codes: Encoded, pegs: int) -> np.ndarray:
    """The baseline: ``G x F`` counts of codes per feedback ordinal, vectorised with numpy."""
    stride = pegs + 1
    width = stride * stride
    n = codes[0].shape[0]
    counts = np.zeros((guesses[0].shape[0], width), dtype=np.int64)
    step = max(1, NUMPY_CHUNK // n)
    for start in range(0, guesses[0].shape[0], step):
        pg, cg = guesses[0][start : start + step], guesses[1][start : start + step]
        black = np.zeros((pg.shape[0], n), dtype=np.uint8)
        common = np.zeros((pg.shape[0], n), dtype=np.uint8)
        for w in range(pg.shape[1]):
            black += np.bitwise_count(pg[:, w, None] & codes[0][None, :, w])
        for w in range(cg.shape[1]):
            common += np.bitwise_count(cg[:, w, None] & codes[1][None, :, w])
        ordinal = black.astype(np.int64) * pegs + common  # black * (pegs + 1) + (common - black)
        ordinal += (np.arange(pg.shape[0], dtype=np.int64) * width)[:, None]
        counts[start : start + pg.shape[0]] = np.bincount(ordinal.ravel(), minlength=pg.shape[0] * width).reshape(
            -1, width
        )
    return counts


def best_time(run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def block_for(run: Callable[[int], object], n: int, seconds: float, most: int) -> int:
    """Guesses per block so that one run takes about ``seconds`` (measured on a small block first)."""
    g = max(1, min(most, (1 << 20) // n))
    run(g)
    start = time.perf_counter()
    run(g)
    rate = g / max(time.perf_counter() - start, 1e-6)
    return int(max(1, min(most, rate * seconds)))


def measure(run: Callable[[int], object], n: int, seconds: float, most: int) -> tuple[float, int]:
    """Pairs per second (best of :data:`REPEATS`) and the block size used."""
    g = block_for(run, n, seconds, most)
    return g * n / best_time(lambda: run(g)), g


def machine() -> list[tuple[str, str]]:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return [
        ("platform", platform.platform()),
        ("cpu", cpu),
        ("cpu count", str(os.cpu_count())),
        ("numba threads", str(numba.config.NUMBA_NUM_THREADS)),
        ("python", platform.python_version()),
        ("numba", numba.__version__),
        ("numpy", np.__version__),
        ("load average at start", " ".join(f"{x:.2f}" for x in os.getloadavg())),
    ]


def bench(rules: Rules, label: str) -> list[Row]:
    space = CodeSpace.of(rules)
    n, pegs = space.size, rules.pegs
    cores = numba.config.NUMBA_NUM_THREADS
    most = 1 << 20  # guesses are drawn cyclically from the codes, so a block may exceed the space

    def guesses_of(g: int) -> np.ndarray:
        return (np.arange(g, dtype=np.intp) * 7919) % n

    encoded_cache: dict[int, Encoded] = {}

    def encoded(g: int) -> Encoded:
        if g not in encoded_cache:
            idx = guesses_of(g)
            encoded_cache.clear()
            encoded_cache[g] = space.encoded(idx)
        return encoded_cache[g]

    codes = space.encoded()

    def baseline(g: int) -> np.ndarray:
        return numpy_partition(encoded(g), codes, pegs)

    kernels: list[tuple[str, str, Callable[[int], np.ndarray]]] = [
        (
            "table" if n <= TABLE_LIMIT else "bits",
            "CodeSpace.partition",
            lambda g: space.partition(guesses_of(g), space.all),
        ),
    ]
    if n <= TABLE_LIMIT:
        kernels.append(("bits", "Scorer.partition", lambda g: space.scorer.partition(encoded(g), codes)))

    check = baseline(64)
    numpy_rate, _ = measure(baseline, n, NUMPY_SECONDS, most)
    rows = []
    for path, name, kernel in kernels:
        for threads in (1, cores):  # warm up (compile or load the cache) on both thread counts
            numba.set_num_threads(threads)
            np.testing.assert_array_equal(kernel(64), check)
        numba.set_num_threads(1)
        one_rate, one_block = measure(kernel, n, NUMBA_SECONDS, most)
        numba.set_num_threads(cores)
        all_rate, all_block = measure(kernel, n, NUMBA_SECONDS, most)
        rows.append(Row(label, path, name, n, numpy_rate, one_rate, all_rate, one_block, all_block))
    return rows


def millions(rate: float) -> str:
    return f"{rate / 1e6:,.0f} M"


COLUMNS = (
    "rules",
    "codes",
    "path",
    "kernel",
    "numpy pairs/s",
    "numba 1 core",
    "speed-up",
    "numba all cores",
    "speed-up",
    "all / 1 core",
)


def cells(row: Row) -> list[str]:
    return [
        row.rules,
        f"{row.codes:,}",
        row.path,
        row.kernel,
        millions(row.numpy_rate),
        millions(row.one_rate),
        f"{row.one_rate / row.numpy_rate:,.1f}",
        millions(row.all_rate),
        f"{row.all_rate / row.numpy_rate:,.1f}",
        f"{row.all_rate / row.one_rate:,.2f}",
    ]


def target_line(rows: list[Row]) -> str:
    at = [r.one_rate for r in rows if r.rules == TARGET_RULES]
    rate = max(at)
    verdict = "met" if rate >= TARGET_PER_CORE else "NOT met"
    return (
        f"Target: {millions(TARGET_PER_CORE)} pairs/s per core at {TARGET_RULES}; "
        f"measured {millions(rate)} pairs/s on one core: {verdict}."
    )


def markdown(rows: list[Row], info: list[tuple[str, str]], total: float) -> str:
    lines = [
        "# Partition kernel throughput",
        "",
        f"Generated by `benchmarks/kernels.py` on {datetime.date.today().isoformat()} in {total:.0f} s.",
        "",
        *(f"- {key}: {value}" for key, value in info),
        "",
        "Code pairs scored and counted per second: a block of guesses against every code of the rule set.",
        "`numpy` is a vectorised baseline of the same counts (bit encodings, `np.bitwise_count`, `np.bincount`);",
        "numba runs with `numba.set_num_threads(1)` and with all threads; best of "
        f"{REPEATS} runs each, after a warm-up. Speed-ups are against the numpy baseline.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "|".join("---" if i < 4 else "---:" for i in range(len(COLUMNS))) + "|",
        *("| " + " | ".join(cells(row)) + " |" for row in rows),
        "",
        target_line(rows),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    console = Console(width=max(Console().width, 150))
    began = time.perf_counter()
    info = machine()
    for key, value in info:
        console.print(f"[bold]{key}[/]: {value}")
    rows: list[Row] = []
    for pegs, colors in ((4, 6), (5, 8), (6, 9)):
        label = f"{pegs}x{colors}"
        console.print(f"measuring {label} ...")
        rows.extend(bench(Rules(pegs, colors), label))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    table = Table(title="partition kernels: code pairs per second")
    for i, column in enumerate(COLUMNS):
        table.add_column(column, justify="left" if i < 4 else "right", no_wrap=True, min_width=len(column))
    for row in rows:
        table.add_row(*cells(row))
    console.print(table)
    console.print(target_line(rows))
    total = time.perf_counter() - began
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(markdown(rows, info, total))
    console.print(f"written {RESULTS} ({total:.0f} s)")


if __name__ == "__main__":
    main()
