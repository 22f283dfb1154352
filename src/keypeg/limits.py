"""Policy limits, named once: how large a game each path takes on, and where memory is guarded.

Standard library only, so any layer may read them. A limit that is a property of an
algorithm (a tolerance, a bound's formula) stays with its algorithm; what is here is a
choice the project made about size, time or memory.
"""

from __future__ import annotations

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
    "COACH_EXACT_LIMIT",
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
OPTIMAL_ON_DEMAND = 700
"""Level 4 solves the optimum on the spot for code spaces up to this size (well under a second)."""
COACH_EXACT_LIMIT = 1500
"""Up to this many fitting codes the coach plays out the best heuristic; above, it uses the expected size."""

MIN_RANKED_GAMES = 5
"""Rated games a player needs on a game (pegs, colours, repeats, blanks, rows) to be on its top 10."""

TOP_SIZE = 10
"""Players on a leaderboard."""
