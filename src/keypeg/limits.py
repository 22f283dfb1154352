"""Policy limits, named once: how large a game each path takes on, and where memory is guarded.

Standard library only, so any layer may read them. A limit that is a property of an
algorithm (a tolerance, a bound's formula) stays with its algorithm; what is here is a
choice the project made about size, time or memory: numbers, and pure functions of numbers.
Nothing here reads the machine or the environment: what the machine has now (memory, cores, load)
and the budgets the environment sets are :mod:`keypeg.machine`'s.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_SPACE",
    "TABLE_LIMIT",
    "EXACT_TABLE_LIMIT",
    "PARALLEL_MIN_PAIRS",
    "ENUMERATE_LIMIT",
    "DEFAULT_COUNT_LIMIT",
    "PLAIN_SCORING_PAIRS",
    "LOOKAHEAD_LIMIT",
    "OPTIMAL_ON_DEMAND",
    "WEB_THINK_LIMIT",
    "ENV_CODE_LIMIT",
    "WEB_BODY_LIMIT",
    "LIVE_MOVE_SECONDS",
    "LIVE_MOVE_DEFAULT",
    "ROOM_GUESSES_LIMIT",
    "COACH_EXACT_LIMIT",
    "WEB_STREAMS_PER_SESSION",
    "WEB_STREAMS_PER_ADDRESS",
    "WEB_STREAM_RETRY",
    "WEB_WRITES_PER_SESSION",
    "WEB_WRITES_PER_ADDRESS",
    "WEB_ANALYSES_PER_SESSION",
    "WEB_ANALYSES_PER_ADDRESS",
    "WEB_ANALYSES_AT_ONCE",
    "WEB_ANALYSES_WAITING",
    "WEB_ANALYSIS_WAIT",
    "WEB_BUSY_RETRY",
    "MEMORY_SHARE",
    "TIME_LIMIT",
    "MEMORY_LIMIT_ENV",
    "TIME_LIMIT_ENV",
    "PAIRS_PER_SECOND_PER_CORE",
    "TREE_SECONDS_PER_CODE_PAIR",
    "TREE_SECONDS_PER_CODE_PAIR_WIDE",
    "TREE_TASK_BYTES_PER_CODE",
    "TREE_THREAD_BYTES_PER_CODE",
    "PLAIN_SCORES_PER_SECOND",
    "NODE_BYTES",
    "CODE_BYTES",
    "JSON_LOAD_FACTOR",
    "OPTIMAL_REFERENCE",
    "OPTIMAL_GROWTH",
    "optimal_table_slots",
    "count_field",
    "one_word",
    "code_words",
    "parse_bytes",
]

MAX_SPACE = 20_000_000
"""The largest code space keypeg enumerates; larger rule sets use the sampling and solver paths."""
TABLE_LIMIT = 2048
"""Code spaces up to this size keep an ``N x N`` feedback table in their :class:`~keypeg.kernels.CodeSpace`
(4 MiB at the limit), which the heuristics and the analyses read. Above it the bit encodings serve
them better: a heuristic scores every guess against a few fitting codes at a time, and once the table
outgrows the caches, gathering those few columns from every row costs more than scoring the pairs.
Measured on whole heuristic trees (``benchmarks/trees.py`` games, one core): with the table they took
about twice as long at 4x8 (4,096 codes) and a quarter longer at 4x7 (2,401), and half as long at
4x5 (625), a quarter less at 4x6 (1,296)."""
EXACT_TABLE_LIMIT = 8192
"""Code spaces up to this size get a feedback table for the exact optimal search (64 MiB at the limit),
held by the search while it runs. It differs from :data:`TABLE_LIMIT` because the search reads the
table row after row, in memory order, over every guess: three to four times faster than the bit
encodings at 5,040 to 7,776 codes, where the heuristics are twice as slow with a table."""
PARALLEL_MIN_PAIRS = 1 << 18
"""Smaller kernel jobs (guesses times codes) run on one thread: starting the others costs more than it saves."""
ENUMERATE_LIMIT = 2_000_000
"""Consistency checks enumerate rule sets up to this many codes; larger ones go to the constraint solver."""
DEFAULT_COUNT_LIMIT = 200
"""The constraint solver counts fitting codes up to this many, then reports a lower bound."""
PLAIN_SCORING_PAIRS = 20_000
"""Consistency checks on games this small (codes times scored guesses) use the plain scorer: quicker
than loading the kernels."""
LOOKAHEAD_LIMIT = 100_000
"""Above this many codes, strategies that score every code fall back to the genetic codebreaker."""
WEB_THINK_LIMIT = LOOKAHEAD_LIMIT
"""The web app lets the computer think (break a code, give hints) only on games it can enumerate: there
a move took at most 0.41 s on 2 cores (5 pegs of 10 colours, level 3), while on larger games the genetic
codebreaker took up to 19 s a move (10 pegs of 7 colours), too long for a request on a shared server."""
ENV_CODE_LIMIT = LOOKAHEAD_LIMIT
"""The most codes a game of the learning environments (:mod:`keypeg.envs`) may have: an action is a code, so
an agent's output layer has one unit a code and every step hands it a mask of one byte a code (a replay
buffer of a million steps holds 100 GB of masks at the limit), while the codes that fit are listed anew at
each step. Past it keypeg's own strategies no longer score every code (:data:`LOOKAHEAD_LIMIT`), so no
policy of theirs would be there to compare an agent with."""
WEB_BODY_LIMIT = 64 * 1024
"""The largest request body the web app reads (bytes): every form and JSON request it takes is far smaller."""
LIVE_MOVE_SECONDS = (30, 86_400)
"""The time control of a live match, in seconds per move: from 30 seconds (quick play) to a day
(correspondence play). Whoever must act and runs out of it forfeits the game, connected or not."""
LIVE_MOVE_DEFAULT = 120
"""The time control of a live match when its creator chooses none (seconds per move)."""
OPTIMAL_ON_DEMAND = 700
"""Level 4 solves the optimum on the spot for code spaces up to this size (well under a second)."""
COACH_EXACT_LIMIT = 1500
"""Up to this many fitting codes the coach plays out the best heuristic; above, it uses the expected size."""

WEB_MATCH_GAMES = 20
"""The most games of a match started on the web (against the computer or a friend): a match is meant to
end in a sitting, and each game is kept in the store."""
MIN_RANKED_GAMES = 5
"""Rated games a player needs on a game (pegs, colours, repeats, blanks, rows) to be on its top 10."""

TOP_SIZE = 10
"""Players on a leaderboard."""

TOP_RULE = (
    "Only rated games count: the computer's secret, drawn from an unpredictable source, and no help "
    "offered (a practice game, or one with --secret, --seed, --coach or --adversarial, never counts). "
    "Players are ranked by their average guesses over their rated games of these rules (pegs, colours, "
    "repeats, blanks and rows), a game counting from its first guess and, lost, resigned or left "
    f"unfinished, as the row limit plus one; a player needs {MIN_RANKED_GAMES} rated games to be ranked. "
    "Ties go to the player with more rated games, then to the one whose latest rated game came first. "
    "The web's guests are not ranked (register to be), and their games stay practice when they log in."
)
"""The leaderboard's rule, as `keypeg top --help`, README and the web API state it."""

# -- guards before big work ----------------------------------------------------------------------

MEMORY_SHARE = 0.5
"""Work estimated to take more than this share of the memory available (``MemAvailable``, or the
cgroup's limit if lower) is refused unless forced (``--force``)."""
TIME_LIMIT = 180.0
"""Work estimated to take longer than this many seconds is refused unless forced (``--force``)."""
MEMORY_LIMIT_ENV = "KEYPEG_MEMORY_LIMIT"
"""An environment variable that sets the memory budget itself (``512M``, ``4G``, bytes), for machines
whose available memory keypeg cannot read or should not use."""
TIME_LIMIT_ENV = "KEYPEG_TIME_LIMIT"
"""An environment variable that sets :data:`TIME_LIMIT` (seconds)."""
PAIRS_PER_SECOND_PER_CORE = 500_000_000
"""Code pairs the kernels score and count per second on one core, for time estimates: rounded down
from ``benchmarks/results/kernels.md`` (712 M to 1,165 M pairs/s per core)."""
TREE_SECONDS_PER_CODE_PAIR = 5e-9
"""A one-step heuristic's whole tree from the tree kernel takes about this many seconds per pair of
codes (``n * n``) on one core, for time estimates: rounded up from ``benchmarks/results/trees.md``
(about 2.5 to 3 ns at 5x8, 1 ns for most parts at 6x9; mmstrat's scoring of worst case about 7 ns)."""
TREE_SECONDS_PER_CODE_PAIR_WIDE = 3e-8
"""The same for codes of more than one word of position or count bits (7x10, 7x11: the tree kernel's
multi-word path): measured 3.3 to 5.4 times the one-word path on 5x8 forced through it (worst case
1.8 s against 6.0 s, most parts 0.73 s against 4.0 s, one core), rounded up from 5e-9 times 6."""
TREE_TASK_BYTES_PER_CODE = 400
"""Peak memory of a subtree grown by a cluster's task, per code it grows (the kernel's buffer of codes,
its stack and nodes, about 150 bytes; the tree and its copy as it travels): a task of ``split`` codes."""
TREE_THREAD_BYTES_PER_CODE = 9
"""Memory each thread growing subtrees holds per code of the game, whatever its part (a mask of the
fitting codes and a cost per guess): 90 MB a thread at 7x10."""
PLAIN_SCORES_PER_SECOND = 40_000
"""Scores per second of the plain-Python scorer (measured: about 40,000 on one core)."""
NODE_BYTES = 450
"""Memory of one node of a strategy tree held in Python (the node, its code, its children's dict):
measured at about 420 bytes."""
CODE_BYTES = 140
"""Memory of one :class:`~keypeg.code.Code` in a Python list (measured: 128 bytes and the pointer)."""
JSON_LOAD_FACTOR = 10
"""Peak memory of loading a JSON tree file, per byte of the file (measured: 9.3)."""
OPTIMAL_REFERENCE = (1296, 0.1)
"""An exact optimal search over this many codes took this many seconds (4x6, one core:
``benchmarks/results/optimal.md``)."""
OPTIMAL_GROWTH = 4.5
"""The optimal search's time grows about as the codes to the power of this (measured between 4x6,
4x7 and bulls-and-cows: 4.4 to 6.5); estimates from it are rough, within a factor of ten."""


def optimal_table_slots(codes: int) -> int:
    """Slots (32 bytes each) of the optimal search's transposition table over ``codes`` codes: a power
    of two, about 256 a code (the searches keep fewer sets than that), at least 65,536 and at most
    4,194,304 (128 MiB); when it is full, small sets make room."""
    wanted = min(max(256 * codes, 1 << 16), 1 << 22)
    return 1 << (wanted - 1).bit_length()


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(text: str) -> int:
    """``512M``, ``4G``, ``1.5G`` or a number of bytes, as bytes (:class:`ValueError` if not one).

    >>> parse_bytes("512M"), parse_bytes("2g"), parse_bytes("1000")
    (536870912, 2147483648, 1000)
    """
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text, re.IGNORECASE | re.ASCII)
    if found is None:
        raise ValueError(f"not an amount of memory: {text[:40]!r} (write e.g. 512M or 4G)")
    return int(float(found.group(1)) * _UNITS[found.group(2).upper()])


def count_field(pegs: int, repeats: bool) -> int:
    """Width of one colour's field in a code's count bits (see :mod:`keypeg.kernels._space`)."""
    return pegs if repeats else 1


def code_words(pegs: int, colors: int, repeats: bool) -> tuple[int, int]:
    """The 64-bit words of a code's position bits and of its count bits (see :mod:`keypeg.kernels._space`).

    >>> code_words(4, 6, True), code_words(7, 10, True), code_words(8, 7, True)
    ((1, 1), (2, 2), (1, 1))
    """
    return -(-pegs * colors // 64), -(-colors * count_field(pegs, repeats) // 64)


def one_word(pegs: int, colors: int, repeats: bool) -> bool:
    """Whether a code's position bits and count bits fit one 64-bit word each: the tree kernel's fast
    path (the others take its multi-word path, about 3 to 5 times slower per pair of codes)."""
    return code_words(pegs, colors, repeats) == (1, 1)


SUSPECT_COUNT_LIMIT = 10_000
"""On games too large to enumerate, the codes that fit once a suspect score is corrected are first
counted up to this many; counts that leave two suspects' order open are counted again, further."""
SUSPECT_COUNT_NODES = 400_000_000
"""The nodes the searches that count them may visit in all (a few seconds at most); a count still open
then is a lower bound, and said to be."""
SUSPECT_MESSAGE_LIMIT = 3
"""Suspect scores named in a one-line answer (the rest are counted; ``--json`` lists them all)."""

SUSPECT_SEARCH_LIMIT = 20_000
"""Sets of scores the consistency check leaves out in turn, looking for the likely mistakes, before it
stops and says only that the scores do not fit."""

WEB_BUDGET = (5.0, 1 << 30)
"""What one request to the web app may spend, in seconds and bytes, by :mod:`keypeg.analysis.cost`'s
estimates (the memory also no more than :func:`keypeg.machine.memory_budget`): it has no ``--force``, so work
estimated above it is refused (400) or, for one strategy among several, left out with a note."""
WEB_SCORED_LINES = 100
"""Scored guesses the web's Analyse page and API read at most (a game has at most 100 rows)."""
WEB_SCORED_CHARS = 4000
"""Characters of scored guesses the web's Analyse page reads at most."""
WEB_LISTED = 50
"""Fitting codes the web's Analyse page lists (the count is given whatever it is)."""

# -- fair shares of a web server's worker (counted in memory per worker: keypeg.services.fair_share) ----

WEB_STREAMS_PER_SESSION = 10
"""Event streams one session may hold open at once on a worker (a live page opens one, a few tabs a few)."""
WEB_STREAMS_PER_ADDRESS = 100
"""Event streams one address (an IPv6 /64) may hold open at once on a worker: a household or a classroom
behind one address, each page with its stream."""
WEB_STREAM_RETRY = 10
"""Seconds a client refused a stream is asked to wait (``Retry-After``)."""
WEB_WRITES_PER_SESSION = (100, 10.0)
"""Requests that change something (every ``POST`` but an analysis, which changes nothing: moves, games,
matches and live matches started, joins, resigns, logins, registrations) one session may make on a
worker: a burst of this many, then this many a second (a fast player makes about 2 a second)."""
WEB_WRITES_PER_ADDRESS = (500, 50.0)
"""Requests that change something one address may make on a worker: a burst of this many, then this many
a second."""
WEB_ANALYSES_PER_SESSION = (120, 0.5)
"""Analyses worked out (not read from the cache) one session may ask a worker for: a burst of this many,
then this many a second (one every 2 s)."""
WEB_ANALYSES_PER_ADDRESS = (360, 1.5)
"""Analyses worked out one address may ask a worker for: a burst of this many, then this many a second."""
WEB_ANALYSES_AT_ONCE = 1
"""Analyses a worker works out at once, so that light requests (a page, a guess) stay fast meanwhile; the
next ones wait their turn (:data:`WEB_ANALYSES_WAITING`). An answer from the cache never waits."""
WEB_ANALYSES_WAITING = 4
"""Analyses that may wait for a worker's place, in the order they came, at most one a session and one an
address; one more is refused at once (429, "busy"). Each holds a thread of the worker's pool (40) while it
waits, so the rest stay free for light requests."""
WEB_ANALYSIS_WAIT = 10.0
"""Seconds an analysis waits for a place before it is refused (429, "busy"): twice what one may spend
(:data:`WEB_BUDGET`), so the first in line always gets one."""
WEB_BUSY_RETRY = 2
"""Seconds a client refused an analysis because the worker is busy is asked to wait (``Retry-After``)."""

ROOM_GUESSES_LIMIT = 8 * 20 * 12 * 12
"""The most guesses a room may come to hold (23,040: 1,920 boards of 12 rows): a room whose boards (8 seats
x its rounds, x 7 more in turns, where each player makes that many codes) x rows could exceed it is refused
when made (its state is rewritten at every move, and its ended rounds are shown)."""
