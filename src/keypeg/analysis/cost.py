"""What a piece of work will cost before it starts: memory from the arrays it allocates, time from
measured rates, and the guard that refuses what would take more than the machine can spare.

Light on purpose (the core and the standard library only): a command estimates, and refuses, before
it loads the kernels. The figures are named in :mod:`keypeg.limits`; the memory estimates follow the
arrays the code allocates (the code space of :class:`keypeg.kernels.CodeSpace`, partition tables,
index arrays, tree nodes), the time estimates the kernels' measured speed.

>>> from keypeg.rules import Rules
>>> small = analyze_cost(Rules(4, 6), "worst-case")
>>> small.memory < 10 * 2**20, small.seconds < 1
(True, True)
>>> big = tables_cost(Rules(6, 16), second_round=True)
>>> big.memory > 4 * 2**30, big.seconds > 3600
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from keypeg import limits, machine
from keypeg.errors import KeypegError, TooCostlyError, TooSlowError
from keypeg.rules import Rules
from keypeg.text import quoted

__all__ = [
    "Estimate",
    "TooCostlyError",
    "guard",
    "Budget",
    "TooSlowError",
    "suspects_cost",
    "space_cost",
    "analyze_cost",
    "worker_tree_cost",
    "tree_seconds_per_pair",
    "tables_cost",
    "next_cost",
    "rank_seconds",
    "optimal_seconds",
    "optimal_cost",
    "verify_cost",
    "tree_file_cost",
    "consistency_cost",
    "format_bytes",
    "format_seconds",
    "cold_kernels",
    "compile_notice",
    "compiling_seconds",
    "load_kernels",
    "SCORING",
    "SELECTION",
    "SYMMETRY",
    "OPTIMAL_SEARCH",
    "TREES",
    "EVERYDAY_KERNELS",
    "WEB_KERNELS",
]

LOOKAHEAD = frozenset({"worst-case", "expected-size", "entropy", "most-parts"})
"""Strategies that score the pool against every fitting code at each turn."""
TWO_STEP_REFERENCE = (1296, 10.0)
"""A two-step tree over this many codes took this many seconds (4x6, 2 cores)."""
TWO_STEP_GROWTH = 2.5
"""Two-step trees' time grows about as the codes to this power (measured at 4x5, 4x6 and 4x8)."""
GENETIC_SECONDS_PER_SECRET = 0.015
"""A genetic tree takes about this long per secret (4x6: 17.7 s for 1,296 secrets)."""
PYTHON_SECONDS_PER_NODE = 2e-5
"""The Python work per tree node walked (loading, replaying, verifying)."""


@dataclass(frozen=True)
class Estimate:
    """The peak memory and the time a piece of work is expected to take, and what makes them up."""

    work: str
    """What the work is, for messages: ``the tables of 6 pegs, 16 colours``."""
    memory: int
    """Peak bytes."""
    seconds: float
    parts: tuple[tuple[str, int], ...] = field(default=())
    """The largest allocations, ``(what, bytes)``."""
    rough: bool = False
    """Whether the time is a rough extrapolation (the optimal search)."""

    def __add__(self, other: Estimate) -> Estimate:
        return Estimate(
            self.work,
            self.memory + other.memory,
            self.seconds + other.seconds,
            self.parts + other.parts,
            self.rough or other.rough,
        )

    def biggest(self) -> str:
        """The largest allocation, as words: ``the partition counts of 16,777,216 codes: 3.1 GiB``."""
        if not self.parts:
            return ""
        what, size = max(self.parts, key=lambda p: p[1])
        return f"{what}: {format_bytes(size)}"


def format_bytes(size: float) -> str:
    """``4.3 GiB``, ``512 MiB``, ``900 bytes``.

    >>> format_bytes(4.3 * 2**30), format_bytes(512 * 2**20), format_bytes(900)
    ('4.3 GiB', '512 MiB', '900 bytes')
    """
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            value = size / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:,.0f} {unit}"
    return f"{int(size)} bytes"


def format_seconds(seconds: float) -> str:
    """``40 s``, ``12 minutes``, ``3.5 hours``, ``20 days``, ``more than a thousand years``.

    >>> format_seconds(40), format_seconds(180), format_seconds(12600), format_seconds(1e12)
    ('40 s', '3 minutes', '3.5 hours', 'more than a thousand years')
    """
    if not math.isfinite(seconds) or seconds > 1000 * 365.25 * 86400:
        return "more than a thousand years"
    for unit, scale in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600), ("minutes", 60)):
        if seconds >= 2 * scale:
            value = seconds / scale
            shown = f"{value:.1f}" if value < 10 else f"{value:,.0f}"
            return f"{shown.removesuffix('.0')} {unit}"
    return f"{max(seconds, 0):.0f} s"


def _pairs_seconds(pairs: float) -> float:
    """Seconds the kernels take to score and count ``pairs`` code pairs on every core."""
    return pairs / (limits.PAIRS_PER_SECOND_PER_CORE * machine.cores())


def _rounds(rules: Rules) -> float:
    """About how many guesses a good strategy needs on average (log of the codes in the answers'
    base, plus one), for time estimates."""
    answers = max(len(rules.feedbacks()) - 1, 2)
    return math.log(max(rules.size, 2), answers) + 1


def _work(rules: Rules, what: str) -> str:
    return f"{what} on {rules.describe()} ({rules.size:,} codes)"


def space_cost(rules: Rules) -> Estimate:
    """The code space of :class:`keypeg.kernels.CodeSpace`: the codes (``N x pegs`` bytes), their two bit
    encodings (``N x W`` words each), their keys and the index of every code (8 bytes each), the feedback
    table (``N x N`` bytes, small games only), and while it is built, the scratch arrays (about 32 bytes
    a code)."""
    n, pegs = rules.size, rules.pegs
    words = sum(limits.code_words(pegs, rules.num_colors, rules.repeats))
    table = n * n if n <= limits.TABLE_LIMIT else 0
    held = n * pegs + 8 * n * words + 16 * n + table
    scratch = 32 * n
    return Estimate(
        _work(rules, "enumerating the codes"),
        held + scratch,
        n * pegs * 4e-9,
        (("the codes and their bit encodings", held + scratch),),
    )


def rank_seconds(rules: Rules, strategy: str, fitting: int) -> tuple[float, bool]:
    """Seconds one decision of ``strategy`` takes with ``fitting`` codes left, and whether the figure is
    a rough extrapolation."""
    n = rules.size
    if fitting <= 2 or strategy in ("simple", "random", "careless"):
        return 0.0, False
    if strategy == "two-step":
        return _pairs_seconds(float(n) * fitting * min(n, fitting * 4)), False
    if strategy == "optimal":
        return optimal_seconds(fitting, rules), True
    if strategy == "genetic":
        return GENETIC_SECONDS_PER_SECRET * 60, False
    return _pairs_seconds(float(n) * fitting), False


def analyze_cost(rules: Rules, strategy: str) -> Estimate:
    """A whole strategy tree (``keypeg analyze``): the code space, one Python node per secret, the parts
    held down each branch (8 bytes a code a round), and each decision's scratch arrays (pool indices,
    costs, symmetry keys: about 40 bytes a code); time from the pairs the kernels score."""
    n = rules.size
    rounds = _rounds(rules)
    nodes = n * limits.NODE_BYTES
    held = int(8 * n * rounds) + 40 * n
    rough = False
    python_nodes = n * PYTHON_SECONDS_PER_NODE
    if strategy in LOOKAHEAD:  # the tree kernel, codes of one word or of several
        seconds, python_nodes = float(n) * n * tree_seconds_per_pair(rules) / machine.cores(), 0.0
    elif strategy == "two-step":
        reference, taken = TWO_STEP_REFERENCE
        seconds = taken * (n / reference) ** TWO_STEP_GROWTH
        rough = True
    elif strategy == "optimal":
        seconds, rough = optimal_seconds(n, rules), True
    elif strategy == "genetic":
        seconds = GENETIC_SECONDS_PER_SECRET * n
    else:
        seconds = _pairs_seconds(float(n) * rounds * rounds) + n * PYTHON_SECONDS_PER_NODE
    tree = Estimate(
        _work(rules, f"the {strategy} tree"),
        nodes + held,
        seconds + python_nodes,
        (("the tree's nodes", nodes), ("the parts of each round", held)),
        rough,
    )
    return _named(space_cost(rules) + tree, tree.work)


def tree_seconds_per_pair(rules: Rules) -> float:
    """Seconds the tree kernel takes per pair of codes on one core: more for codes of several words."""
    one = limits.one_word(rules.pegs, rules.num_colors, rules.repeats)
    return limits.TREE_SECONDS_PER_CODE_PAIR if one else limits.TREE_SECONDS_PER_CODE_PAIR_WIDE


def worker_tree_cost(rules: Rules, strategy: str, split: int, threads: int) -> Estimate:
    """What one cluster worker holds growing ``strategy``'s tree on ``rules`` in tasks of at most ``split``
    codes on ``threads`` threads: its code space, each thread's arrays over every code
    (:data:`~keypeg.limits.TREE_THREAD_BYTES_PER_CODE`), and a task's subtrees
    (:data:`~keypeg.limits.TREE_TASK_BYTES_PER_CODE` a code); never the whole tree. The time: a task's."""
    n = rules.size
    arrays = limits.TREE_THREAD_BYTES_PER_CODE * n * max(threads, 1)
    task = limits.TREE_TASK_BYTES_PER_CODE * min(split, n)
    seconds = float(split) * split * tree_seconds_per_pair(rules) if strategy in LOOKAHEAD else 0.0
    work = Estimate(
        "",
        arrays + task,
        seconds,
        (
            (f"each thread's arrays over the {n:,} codes", arrays),
            (f"a task's subtrees of up to {min(split, n):,} codes", task),
        ),
    )
    return _named(space_cost(rules) + work, _work(rules, f"a worker's share of the {strategy} tree"))


def _named(estimate: Estimate, work: str) -> Estimate:
    return Estimate(work, estimate.memory, estimate.seconds, estimate.parts, estimate.rough)


def tables_cost(rules: Rules, *, second_round: bool) -> Estimate:
    """Kooi's tables (``keypeg tables``): for each first-guess class, the partition counts of the part
    left by the answer by every code (``N x F`` int32, about six times over while np.unique counts the kinds), and
    with ``second_round`` the most parts of every part (``N`` costs each). Time: every code against the
    part left (at most every code), and again every code against every part for Table 12."""
    n = rules.size
    classes = _first_guess_classes(rules)
    counts = n * len(_ordinals(rules)) * 4
    unique = 6 * counts  # np.unique(axis=0) copies and sorts them: measured 5.3 times the counts
    rounds = 2 if second_round else 1
    seconds = _pairs_seconds(float(classes) * n * n * rounds)
    table = Estimate(
        _work(rules, "Kooi's tables"),
        unique + 16 * n,
        seconds,
        ((f"the partition counts of {n:,} codes by every code (with the copies np.unique makes)", unique),),
    )
    return _named(space_cost(rules) + table, table.work)


def _ordinals(rules: Rules) -> range:
    return range((rules.pegs + 1) ** 2)


def _first_guess_classes(rules: Rules) -> int:
    """How many first-guess classes there are: the ways to split the pegs into colour counts."""

    def ways(total: int, most: int, parts: int) -> int:
        if total == 0:
            return 1
        if parts == 0:
            return 0
        return sum(ways(total - first, first, parts - 1) for first in range(min(total, most), 0, -1))

    return ways(rules.pegs, rules.pegs if rules.repeats else 1, rules.num_colors)


def next_cost(rules: Rules, strategy: str, fitting: int | None = None) -> Estimate:
    """One decision (``keypeg next``): the code space, the fitting codes and the decision's scratch
    arrays (about 40 bytes a code); time for the decision with ``fitting`` codes left (all of them when
    not known yet)."""
    n = rules.size
    left = n if fitting is None else fitting
    seconds, rough = rank_seconds(rules, strategy, left)
    decision = Estimate(
        _work(rules, f"the {strategy} guess"),
        48 * n,
        seconds,
        (("the decision's scratch arrays", 48 * n),),
        rough,
    )
    if strategy == "optimal":
        decision = decision + _search_memory(rules, left)
    return _named(space_cost(rules) + decision, decision.work)


def optimal_seconds(codes: int, rules: Rules | None = None) -> float:
    """A rough time for an exact optimal search over ``codes`` codes of ``rules``, from the measured searches
    (of standard feedback). A feedback with fewer answers (black pegs only, colours only) needs deeper trees
    to tell the codes apart. Such a search is timed between the standard search over as many codes and the
    standard search over as many codes as the standard answers tell apart in as many guesses,
    ``codes ** (log F_standard / log F)``, a quarter and three quarters of the way in logarithms (fitted to
    the measured searches: 4x4 black 1.1 s, 5x3 black 0.6 s, 4x5 black over 30 minutes, 4x6 and 5x6
    colours under 2 s; within a factor of twenty)."""
    reference, taken = limits.OPTIMAL_REFERENCE
    if codes <= 2:
        return 0.0
    plain = float(taken * (codes / reference) ** limits.OPTIMAL_GROWTH)
    if rules is None or rules.feedback == "standard":
        return plain
    answers = max(len(rules.feedbacks()), 2)
    standard = len(rules.replace(feedback="standard").feedbacks())
    told_apart = min(float(codes) ** (math.log(standard) / math.log(answers)), 1e30)
    deep = float(taken * (told_apart / reference) ** limits.OPTIMAL_GROWTH)
    return float(plain**0.25 * deep**0.75)


def _search_memory(rules: Rules, codes: int) -> Estimate:
    """The exact search's arrays: its feedback table (``N x N`` bytes up to
    :data:`~keypeg.limits.EXACT_TABLE_LIMIT` codes), the lower bounds (``rows x codes`` int64), the
    strategy's rows (``2 codes x 4`` int64), the tree (one node a code) and the transposition table
    (:func:`~keypeg.limits.optimal_table_slots`)."""
    n = rules.size
    table = n * n if limits.TABLE_LIMIT < n <= limits.EXACT_TABLE_LIMIT else 0
    bounds = 8 * (rules.rows + 1) * (codes + 1)
    rows = 64 * codes
    nodes = codes * limits.NODE_BYTES
    memo = 32 * limits.optimal_table_slots(n)
    return Estimate(
        "",
        table + bounds + rows + nodes + memo,
        0.0,
        (
            ("the search's feedback table", table),
            ("the search's transposition table", memo),
            ("the search's lower bounds", bounds),
            ("the optimal tree", rows + nodes),
        ),
    )


def optimal_cost(rules: Rules) -> Estimate:
    """The exact optimal search (``keypeg optimal``): the code space, the search's arrays and the tree;
    the time is a rough extrapolation from the measured searches (see :data:`keypeg.limits.OPTIMAL_GROWTH`)."""
    n = rules.size
    search = _search_memory(rules, n) + Estimate("", 0, optimal_seconds(n, rules), (), True)
    return _named(space_cost(rules) + search, _work(rules, "the exact optimal search"))


def tree_file_cost(path: Path) -> Estimate:
    """Loading a JSON tree file: about :data:`~keypeg.limits.JSON_LOAD_FACTOR` times its size at the peak."""
    try:
        size = path.stat().st_size
    except OSError:
        size = 0  # reading it will say what is wrong
    memory = size * limits.JSON_LOAD_FACTOR
    nodes = size // 40
    return Estimate(
        f"loading {quoted(str(path))} ({format_bytes(size)})",
        memory,
        nodes * PYTHON_SECONDS_PER_NODE,
        ((f"the tree read from {format_bytes(size)} of JSON", memory),),
    )


def verify_cost(rules: Rules, path: Path) -> Estimate:
    """Verifying a tree (``keypeg verify``): the file loaded, the code space, and the secrets' indices held
    down each branch (8 bytes a code a round); time: every secret scored at every round."""
    n = rules.size
    held = int(8 * n * (_rounds(rules) + 2))
    replay = Estimate(
        "", held, _pairs_seconds(n * _rounds(rules)) + n * 1e-8, (("the secrets down each branch", held),)
    )
    return _named(
        tree_file_cost(path) + space_cost(rules) + replay,
        f"verifying {quoted(str(path))} against {rules.size:,} secrets",
    )


def consistency_cost(rules: Rules, guesses: int, listed: int) -> Estimate:
    """Checking scored guesses (``keypeg check``, ``keypeg candidates``): enumerated up to
    :data:`~keypeg.limits.ENUMERATE_LIMIT` codes (the code space, the fitting codes), else the
    constraint solver, which finds the ``listed`` codes one by one; and the ``listed`` codes as objects."""
    listed_bytes = listed * limits.CODE_BYTES
    codes = Estimate("", listed_bytes, 0.0, ((f"{listed:,} fitting codes listed", listed_bytes),))
    work = _work(rules, "checking the scores")
    if rules.size * max(guesses, 1) <= limits.PLAIN_SCORING_PAIRS:
        return _named(codes, work)
    if rules.size <= limits.ENUMERATE_LIMIT:
        scan = Estimate("", 16 * rules.size, _pairs_seconds(rules.size * max(guesses, 1)), ())
        return _named(space_cost(rules) + scan + codes, work)
    terms = rules.pegs * rules.num_colors * max(guesses, 1)  # a solution's cost grows with the model
    solver = Estimate("", 0, listed * terms * CP_SAT_SECONDS_PER_TERM, (), True)
    return _named(solver + codes, work)


CP_SAT_SECONDS_PER_TERM = 1.4e-5
"""The constraint solver's seconds per fitting code listed, per peg, colour and scored guess: 15x26 with 6
guesses took 33 ms a code, 8x12 and 10x10 with 4 guesses 5 and 10 ms (review of issue 32, 2 cores; the cost
depends on the scores too, so :func:`keypeg.consistency.check` also takes a time limit)."""


def guard(estimate: Estimate, force: bool, way_round: str, *, timed: bool = True) -> None:
    """Refuse (:class:`TooCostlyError`) work estimated to need more memory than
    :func:`keypeg.machine.memory_budget` or (when ``timed``) more time than
    :func:`keypeg.machine.time_budget`, saying the estimate and ``way_round`` (the face's way to run it
    anyway); nothing is refused when ``force``. Work sent to a cluster is not ``timed``: asking for the
    cluster is asking for the time, and the work shows its progress and stops at Ctrl-C."""
    if force:
        return
    try:
        budget = machine.memory_budget()
        allowed = machine.time_budget() if timed else float("inf")
    except ValueError as error:
        raise KeypegError(str(error)) from None
    _refuse_above(
        estimate,
        budget,
        f"keypeg allows itself ({_budget_source()})",
        allowed,
        "keypeg allows itself",
        f"; {way_round}",
    )


def _refuse_above(
    estimate: Estimate, memory: int | None, memory_owner: str, seconds: float, time_owner: str, advice: str = ""
) -> None:
    """Refuse :class:`TooCostlyError` when ``estimate`` is above ``memory`` bytes or ``seconds``: the
    estimate, what it is more than (``the 1.0 GiB {memory_owner}``), and ``advice``."""
    if memory is not None and estimate.memory > memory:
        biggest = estimate.biggest()
        raise TooCostlyError(
            f"{estimate.work} would take about {format_bytes(estimate.memory)} of memory"
            + (f" ({biggest})" if biggest else "")
            + f", more than the {format_bytes(memory)} {memory_owner}{advice}"
        )
    if estimate.seconds > seconds:
        about = "very roughly" if estimate.rough else "about"
        raise TooCostlyError(
            f"{estimate.work} would take {about} {format_seconds(estimate.seconds)} on "
            f"{machine.cores()} core{'s' if machine.cores() != 1 else ''}, more than the "
            f"{format_seconds(seconds)} {time_owner}{advice}"
        )


class Budget:
    """A guard with a fixed budget and no way round it (the web app has no ``--force``): called with an
    :class:`Estimate`, it refuses (:class:`TooCostlyError`) work estimated above the memory (nor above
    :func:`keypeg.machine.memory_budget`) or above the seconds left, and counts the estimate as spent.
    The seconds left are the budget less the estimates spent or the time gone, whichever is more; time
    spent compiling kernels (:func:`compiling_seconds`: a first run's) is not time gone.

    >>> from keypeg.rules import Rules
    >>> budget = Budget(10.0, 2**30, "the web app allows a request")
    >>> budget(analyze_cost(Rules(4, 6), "worst-case"))
    >>> try:
    ...     budget(analyze_cost(Rules(6, 16), "worst-case"))
    ... except TooCostlyError as refused:
    ...     print(str(refused).split(" of memory")[0])
    the worst-case tree on 6 pegs, 16 colours, repeats, 12 rows (16,777,216 codes) would take about 9.8 GiB
    """

    def __init__(self, seconds: float, memory: int, owner: str) -> None:
        import time

        self.seconds = seconds
        self.memory = memory
        self.owner = owner
        """Whose budget it is, for messages: ``the 10 s {owner}``."""
        self.spent = 0.0
        self.started = time.monotonic()
        self.compiled = compiling_seconds()
        self.work = "the work"
        self.work_started = 0.0

    def elapsed(self) -> float:
        """Seconds since the budget was opened, less those spent compiling kernels meanwhile."""
        import time

        return time.monotonic() - self.started - (compiling_seconds() - self.compiled)

    def left(self) -> float:
        """Seconds left: the budget less the estimates spent or the time gone, whichever is more."""
        return max(self.seconds - max(self.spent, self.elapsed()), 0.0)

    def __call__(self, estimate: Estimate) -> None:
        try:
            here = machine.memory_budget()
        except ValueError:
            here = None
        memory = self.memory if here is None else min(self.memory, here)
        left = self.left()
        owner = f"the {format_seconds(self.seconds)} {self.owner}"
        if left < 0.5 < estimate.seconds:
            _refuse_above(estimate, memory, self.owner, math.inf, "")
            raise TooCostlyError(
                f"{estimate.work} would take about {format_seconds(estimate.seconds)}, and no time is left of {owner}"
            )
        time_owner = self.owner if left > self.seconds - 0.5 else f"left of {owner}"
        _refuse_above(estimate, memory, self.owner, left, time_owner)
        self.spent += estimate.seconds
        self.work, self.work_started = estimate.work, self.elapsed()

    def watch(self, done: float) -> None:
        """Stop (:class:`TooSlowError`) the work last let through once the time gone is past the budget: a
        backstop for work taking longer than estimated, called as it goes with the share of it ``done``."""
        elapsed = self.elapsed()
        if elapsed <= self.seconds:
            return
        taken = elapsed - self.work_started
        projected = taken / done if done > 0 else math.inf
        about = f"about {format_seconds(projected)} in all" if math.isfinite(projected) else "no end in sight"
        raise TooSlowError(
            f"{self.work} took {format_seconds(taken)} for {done:.0%} of it ({about}), "
            f"more than the {format_seconds(self.seconds)} {self.owner}",
            conclusive=taken >= 0.9 * self.seconds,  # it had (nearly) the whole budget: it will not fit
        )


def compiling_seconds() -> float:
    """Seconds this process has spent compiling kernels (:func:`keypeg.kernels.compiling_seconds`; none
    before the kernels are loaded, and loading them here would cost more than it tells)."""
    import sys

    compiled = sys.modules.get("keypeg.kernels")
    return 0.0 if compiled is None else float(compiled.compiling_seconds())


def suspects_cost(rules: Rules, guesses: int, sets: int) -> Estimate:
    """Looking for the likely mistakes in ``guesses`` scores no code fits (:func:`keypeg.consistency.check`
    by enumeration), leaving out up to ``sets`` sets of scores in turn: each set a pass over the codes (the
    plain scorer, about one score a code, on small games; else every code against the kept scores, by
    the kernels)."""
    n = max(rules.size, 1)
    if n * max(guesses, 1) <= limits.PLAIN_SCORING_PAIRS:
        per_set = n / limits.PLAIN_SCORES_PER_SECOND
    else:
        per_set = _pairs_seconds(float(n) * max(guesses, 1))
    return Estimate(_work(rules, "looking for the likely mistake"), 16 * n, sets * per_set, ())


def _budget_source() -> str:
    import os

    if os.environ.get(limits.MEMORY_LIMIT_ENV, "").strip():
        return f"${limits.MEMORY_LIMIT_ENV}"
    available = machine.available_memory()
    share = f"{limits.MEMORY_SHARE:.0%}"
    return f"{share} of the {format_bytes(available or 0)} available"


# -- the first run: compiling the kernels ----------------------------------------------------------

SCORING, SELECTION, SYMMETRY, OPTIMAL_SEARCH, TREES = "scoring", "selection", "symmetry", "optimal search", "trees"
"""The kernels by their public names (the values of :class:`keypeg.kernels.Kernel`), here without loading
numba: what a face names when it says what a command will compile."""
EVERYDAY_KERNELS = (SCORING, SELECTION, SYMMETRY)
"""The kernels every heavy command uses (:data:`keypeg.kernels.EVERYDAY_KERNELS`)."""


def cold_kernels(kernels: Iterable[str] = EVERYDAY_KERNELS) -> tuple[str, ...]:
    """The kernels of ``kernels`` (public names) that numba has compiled for no earlier run
    (:func:`keypeg.kernels.cold_kernels`, a look at its cache's file names). It loads the kernels' facade
    (numba), so ask just before they run."""
    from keypeg import kernels as compiled

    return tuple(k.value for k in compiled.cold_kernels(compiled.Kernel(name) for name in kernels))


def compile_notice(kernels: Iterable[str] = EVERYDAY_KERNELS) -> str | None:
    """The line to show before a first run compiles ``kernels`` (``None`` when they are compiled)."""
    from keypeg import kernels as compiled

    cold = compiled.cold_kernels(compiled.Kernel(name) for name in kernels)
    if not cold:
        return None
    seconds = compiled.compile_seconds(cold)
    return f"compiling keypeg's kernels once (about {seconds} s); later runs start at once"


WEB_KERNELS = (*EVERYDAY_KERNELS, TREES, OPTIMAL_SEARCH)
"""Every kernel the web's pages can run (the Strategies page searches the optimum of small games)."""


def load_kernels(kernels: Iterable[str] = WEB_KERNELS) -> None:
    """Load ``kernels`` (public names) from numba's cache, or compile them on a first run, with tiny calls
    (:func:`keypeg.kernels.warm_up`; the optimal search solves a game of 9 codes): ``keypeg serve`` does it
    in each worker before its first request."""
    from keypeg import kernels as compiled

    names = set(kernels)
    compiled.warm_up(compiled.Kernel(name) for name in names - {OPTIMAL_SEARCH})
    if OPTIMAL_SEARCH in names:
        from keypeg.strategies.optimal import optimal_solver

        optimal_solver(Rules(2, 3)).solve()
