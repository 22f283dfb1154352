"""Fair shares of a web server's worker: one client (a session, or an address) cannot hold every event
stream, make moves faster than anyone plays, or keep the worker analysing; and a worker analyses
:data:`~keypeg.limits.WEB_ANALYSES_AT_ONCE` request at once, so light requests stay fast meanwhile.

Counted in memory, per worker (each worker of ``keypeg serve`` has its own counts: the limits hold per
worker), and thread-safe. Rates are token buckets: a burst, then a steady pace; a request refused takes
no token. A refusal is :class:`~keypeg.services.accounts.ThrottledError` (429 with ``Retry-After`` on the
web), as for too many registrations.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType
from typing import TypeVar

from keypeg.limits import (
    WEB_ANALYSES_AT_ONCE,
    WEB_ANALYSES_PER_ADDRESS,
    WEB_ANALYSES_PER_SESSION,
    WEB_BUSY_RETRY,
    WEB_MOVES_PER_ADDRESS,
    WEB_MOVES_PER_SESSION,
    WEB_STREAM_RETRY,
    WEB_STREAMS_PER_ADDRESS,
    WEB_STREAMS_PER_SESSION,
)
from keypeg.services.accounts import ThrottledError

__all__ = ["Buckets", "FairShare", "Gate", "Who"]

Clock = Callable[[], float]
T = TypeVar("T")

SWEEP_AT = 10_000
"""Keys a table of buckets holds before it forgets the ones that are full again (nobody's lately)."""


@dataclass(frozen=True)
class Who:
    """Whom a request is counted against: its session (a digest of its cookie, ``None`` without one) and
    its address's group (:func:`keypeg.services.accounts.address_group`)."""

    session: str | None
    address: str

    def counted(self) -> list[tuple[str, str]]:
        """What is counted: ``("address", key)``, and ``("session", key)`` when there is a session."""
        found = [("address", f"address:{self.address}")]
        return found if self.session is None else [*found, ("session", f"session:{self.session}")]


class Buckets:
    """Token buckets by key: each holds up to ``burst`` tokens and gains ``per_second`` a second."""

    def __init__(self, burst: int, per_second: float) -> None:
        self.burst, self.per_second = burst, per_second
        self._tokens: dict[str, tuple[float, float]] = {}  # key: (tokens, when counted)
        self._sweep_at = SWEEP_AT

    def tokens(self, key: str, now: float) -> float:
        """The tokens ``key`` has at ``now``."""
        held, then = self._tokens.get(key, (self.burst, now))
        return min(self.burst, held + (now - then) * self.per_second)

    def wait(self, key: str, now: float) -> float:
        """Seconds before ``key`` has a token (0 when it has one)."""
        return max(0.0, (1 - self.tokens(key, now)) / self.per_second)

    def take(self, key: str, now: float) -> None:
        """Take a token of ``key``'s (after :meth:`wait` said there is one)."""
        self._tokens[key] = (self.tokens(key, now) - 1, now)
        if len(self._tokens) >= self._sweep_at:
            self._tokens = {k: v for k, v in self._tokens.items() if self.tokens(k, now) < self.burst}
            self._sweep_at = max(SWEEP_AT, 2 * len(self._tokens))


class FairShare:
    """One worker's counts: open streams, moves and analyses per session and per address, and the
    analyses running. The limits are :mod:`keypeg.limits`'s; ``clock`` (seconds) is for tests."""

    def __init__(self, *, clock: Clock = time.monotonic, analyses_at_once: int = WEB_ANALYSES_AT_ONCE) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._moves = (Buckets(*WEB_MOVES_PER_SESSION), Buckets(*WEB_MOVES_PER_ADDRESS))
        self._analyses = (Buckets(*WEB_ANALYSES_PER_SESSION), Buckets(*WEB_ANALYSES_PER_ADDRESS))
        self._streams: dict[str, int] = {}
        self._analysing = threading.BoundedSemaphore(analyses_at_once)

    def _take(self, buckets: tuple[Buckets, Buckets], who: Who, what: str) -> None:
        """A token of ``who``'s session and of its address, or :class:`ThrottledError` (taking neither)."""
        by_kind = {"session": buckets[0], "address": buckets[1]}
        pairs = [(by_kind[kind], key) for kind, key in who.counted()]
        with self._lock:
            now = self._clock()
            wait = max(bucket.wait(key, now) for bucket, key in pairs)
            if wait > 0:
                raise ThrottledError(
                    f"too many {what} from here lately: wait {math.ceil(wait)} s, then try again", math.ceil(wait)
                )
            for bucket, key in pairs:
                bucket.take(key, now)

    def move(self, who: Who) -> None:
        """Count a move (:class:`ThrottledError` past :data:`~keypeg.limits.WEB_MOVES_PER_SESSION` or
        :data:`~keypeg.limits.WEB_MOVES_PER_ADDRESS`)."""
        self._take(self._moves, who, "moves")

    @contextmanager
    def stream(self, who: Who) -> Iterator[None]:
        """Hold one of ``who``'s event streams open for the block (:class:`ThrottledError` when its session
        holds :data:`~keypeg.limits.WEB_STREAMS_PER_SESSION` or its address
        :data:`~keypeg.limits.WEB_STREAMS_PER_ADDRESS` already)."""
        limits = {"session": WEB_STREAMS_PER_SESSION, "address": WEB_STREAMS_PER_ADDRESS}
        keys = [key for _, key in who.counted()]
        with self._lock:
            if any(self._streams.get(key, 0) >= limits[kind] for kind, key in who.counted()):
                raise ThrottledError("too many event streams open from here: close some pages", WEB_STREAM_RETRY)
            for key in keys:
                self._streams[key] = self._streams.get(key, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                for key in keys:
                    left = self._streams.pop(key) - 1
                    if left:
                        self._streams[key] = left

    def analysis(self, who: Who) -> Gate:
        """The gate of an analysis ``who`` asks for: see :class:`Gate`."""
        return Gate(self, who)

    def _start_analysis(self, who: Who) -> None:
        """Take one of the worker's places for an analysis, and count it against ``who``
        (:class:`ThrottledError`, taking neither, when no place is free or ``who`` asked too often)."""
        if not self._analysing.acquire(blocking=False):
            raise ThrottledError(
                f"the server is busy with other analyses: try again in {WEB_BUSY_RETRY} s", WEB_BUSY_RETRY
            )
        try:
            self._take(self._analyses, who, "analyses")
        except ThrottledError:
            self._analysing.release()
            raise

    def _end_analysis(self) -> None:
        self._analysing.release()


class Gate:
    """An analysis's admission, asked for (call it) when work is about to start, so that an answer read from
    the cache never is: the first call counts the analysis against its asker
    (:data:`~keypeg.limits.WEB_ANALYSES_PER_SESSION`, :data:`~keypeg.limits.WEB_ANALYSES_PER_ADDRESS`) and
    takes one of the worker's places (:data:`~keypeg.limits.WEB_ANALYSES_AT_ONCE`, refused at once when
    none is free); a refusal is raised again at every later call and, when the work swallowed it (a
    strategy left out), at the end of the ``with`` block. The place is given back at the end of the block."""

    def __init__(self, share: FairShare, who: Who) -> None:
        self._share, self._who = share, who
        self._holding = False
        self._refusal: ThrottledError | None = None

    def __call__(self) -> None:
        if self._refusal is not None:
            raise self._refusal
        if self._holding:
            return
        try:
            self._share._start_analysis(self._who)
        except ThrottledError as refused:
            self._refusal = refused
            raise
        self._holding = True

    def guard(self, check: Callable[[T], None]) -> Callable[[T], None]:
        """``check``, after this gate lets the work in."""

        def guarded(estimate: T) -> None:
            self()
            check(estimate)

        return guarded

    def __enter__(self) -> Gate:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._holding:
            self._holding = False
            self._share._end_analysis()
        if kind is None and self._refusal is not None:
            raise self._refusal
