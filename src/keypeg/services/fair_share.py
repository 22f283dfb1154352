"""Fair shares of a web server's worker: one client (a session, or an address) cannot hold every event
stream, change things faster than anyone plays, or keep the worker analysing; and a worker analyses
:data:`~keypeg.limits.WEB_ANALYSES_AT_ONCE` request at once, the next ones waiting their turn in the order
they came, a few at most, so light requests stay fast meanwhile.

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
from dataclasses import dataclass, field
from types import TracebackType

from keypeg.limits import (
    WEB_ANALYSES_AT_ONCE,
    WEB_ANALYSES_PER_ADDRESS,
    WEB_ANALYSES_PER_SESSION,
    WEB_ANALYSES_WAITING,
    WEB_ANALYSIS_WAIT,
    WEB_BUSY_RETRY,
    WEB_STREAM_RETRY,
    WEB_STREAMS_PER_ADDRESS,
    WEB_STREAMS_PER_SESSION,
    WEB_WRITES_PER_ADDRESS,
    WEB_WRITES_PER_SESSION,
)
from keypeg.services.accounts import ThrottledError

__all__ = ["Buckets", "FairShare", "Gate", "Who"]

Clock = Callable[[], float]

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

    def keys(self) -> set[str]:
        """The keys counted (:meth:`counted`'s)."""
        return {key for _, key in self.counted()}


def _busy() -> ThrottledError:
    """The refusal of an analysis that found no place in time, or no room in the line."""
    return ThrottledError(f"the server is busy with other analyses: try again in {WEB_BUSY_RETRY} s", WEB_BUSY_RETRY)


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


@dataclass(eq=False)
class _Waiter:
    """An analysis waiting for a place: its asker, and set once it is given one."""

    who: Who
    given: threading.Event = field(default_factory=threading.Event)


class FairShare:
    """One worker's counts: open streams, writes and analyses per session and per address, and the
    analyses running and waiting. The limits are :mod:`keypeg.limits`'s; ``clock`` (seconds) is for
    tests, as are ``analyses_at_once``, ``waiting`` and ``patience`` (seconds an analysis waits)."""

    def __init__(
        self,
        *,
        clock: Clock = time.monotonic,
        analyses_at_once: int = WEB_ANALYSES_AT_ONCE,
        waiting: int = WEB_ANALYSES_WAITING,
        patience: float = WEB_ANALYSIS_WAIT,
    ) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._writes = (Buckets(*WEB_WRITES_PER_SESSION), Buckets(*WEB_WRITES_PER_ADDRESS))
        self._analyses = (Buckets(*WEB_ANALYSES_PER_SESSION), Buckets(*WEB_ANALYSES_PER_ADDRESS))
        self._streams: dict[str, int] = {}
        self._free = analyses_at_once
        self._line: list[_Waiter] = []  # in the order they came
        self._most_waiting, self._patience = waiting, patience

    def _refusal(self, buckets: tuple[Buckets, Buckets], who: Who, what: str, now: float) -> ThrottledError | None:
        """Why ``who`` may not have a token of ``buckets`` now (``None`` when its session and address have one)."""
        by_kind = {"session": buckets[0], "address": buckets[1]}
        wait = max(by_kind[kind].wait(key, now) for kind, key in who.counted())
        if wait == 0:
            return None
        return ThrottledError(
            f"too many {what} from here lately: wait {math.ceil(wait)} s, then try again", math.ceil(wait)
        )

    def _take(self, buckets: tuple[Buckets, Buckets], who: Who, what: str) -> None:
        """A token of ``who``'s session and of its address, or :class:`ThrottledError` (taking neither);
        called holding the lock."""
        now = self._clock()
        refused = self._refusal(buckets, who, what, now)
        if refused is not None:
            raise refused
        by_kind = {"session": buckets[0], "address": buckets[1]}
        for kind, key in who.counted():
            by_kind[kind].take(key, now)

    def write(self, who: Who) -> None:
        """Count a request that changes something (:class:`ThrottledError` past
        :data:`~keypeg.limits.WEB_WRITES_PER_SESSION` or :data:`~keypeg.limits.WEB_WRITES_PER_ADDRESS`)."""
        with self._lock:
            self._take(self._writes, who, "changes")

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

    def waiting(self) -> int:
        """Analyses waiting for a place now."""
        with self._lock:
            return len(self._line)

    def _start_analysis(self, who: Who) -> None:
        """Take one of the worker's places for an analysis, waiting for it behind the analyses that came
        first, and count it against ``who``. :class:`ThrottledError`, taking neither, when ``who`` asked
        too often, when the line is full or ``who`` is in it already, or when no place came in time."""
        with self._lock:
            refused = self._refusal(self._analyses, who, "analyses", self._clock())
            if refused is not None:
                raise refused
            waiter: _Waiter | None = None
            if self._free:
                self._free -= 1
            elif len(self._line) >= self._most_waiting or any(who.keys() & w.who.keys() for w in self._line):
                raise _busy()
            else:
                waiter = _Waiter(who)
                self._line.append(waiter)
        if waiter is not None:
            self._wait_for_place(waiter)
        with self._lock:
            try:
                self._take(self._analyses, who, "analyses")
            except ThrottledError:
                self._give_back(who)
                raise

    def _wait_for_place(self, waiter: _Waiter) -> None:
        """Wait until ``waiter`` is given a place, ``patience`` seconds at most (then it leaves the line,
        refused)."""
        if waiter.given.wait(self._patience):
            return
        with self._lock:
            if waiter.given.is_set():  # given one as the wait ended
                return
            self._line.remove(waiter)
        raise _busy()

    def _end_analysis(self, who: Who) -> None:
        with self._lock:
            self._give_back(who)

    def _give_back(self, who: Who) -> None:
        """Give ``who``'s place to the first waiting analysis of another client (of ``who``'s if none is
        waiting), or free it; called holding the lock."""
        if not self._line:
            self._free += 1
            return
        waiter = next((w for w in self._line if not who.keys() & w.who.keys()), self._line[0])
        self._line.remove(waiter)
        waiter.given.set()


class Gate:
    """An analysis's admission, asked for (call it) when work is about to start, so that an answer read from
    the cache never is: the first call counts the analysis against its asker
    (:data:`~keypeg.limits.WEB_ANALYSES_PER_SESSION`, :data:`~keypeg.limits.WEB_ANALYSES_PER_ADDRESS`) and
    takes one of the worker's places (:data:`~keypeg.limits.WEB_ANALYSES_AT_ONCE`), waiting its turn when
    none is free (:data:`~keypeg.limits.WEB_ANALYSES_WAITING`, :data:`~keypeg.limits.WEB_ANALYSIS_WAIT`); a
    refusal is raised again at every later call and, when the work swallowed it (a
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

    def __enter__(self) -> Gate:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._holding:
            self._holding = False
            self._share._end_analysis(self._who)
        if kind is None and self._refusal is not None:
            raise self._refusal
