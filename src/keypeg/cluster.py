"""Independent pieces of work, done here or on a Dask cluster.

:func:`workers` opens the place the work runs: this process (no Dask imported at all), a
``LocalCluster`` of ``count`` worker processes on this machine, or an existing cluster at a
scheduler's address. :meth:`Workers.run` hands out tasks and yields each result as it arrives;
:meth:`Workers.queue` does the same for work that grows as results come in (tasks put while the
results are read). Leaving early (an error, Ctrl-C) cancels what is still on the cluster.
"""

from __future__ import annotations

import logging
import os
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from keypeg.errors import KeypegError
from keypeg.machine import cores

__all__ = [
    "Cluster",
    "Workers",
    "TaskQueue",
    "workers",
    "InProcess",
    "ClusterError",
    "peak_memory",
    "use_threads",
    "load_numerics",
]

CONNECT_SECONDS = 10.0
"""How long a scheduler named by its address has to answer."""

Item = TypeVar("Item")
Result = TypeVar("Result")


class ClusterError(KeypegError):
    """The cluster could not be reached or started."""


@dataclass(frozen=True)
class Cluster:
    """Where a command's work runs, as asked on the command line (``--workers``, ``--scheduler``)."""

    count: int | None = None
    scheduler: str | None = None
    on_ready: Callable[[Workers], None] | None = field(default=None, compare=False, repr=False)
    """Called with the place once its workers are up (the command line says so, with the dashboard)."""

    @property
    def distributed(self) -> bool:
        """Whether the work goes to Dask (either option given)."""
        return self.count is not None or self.scheduler is not None

    def workers(self) -> AbstractContextManager[Workers]:
        """Open the place to run tasks (see :func:`workers`)."""
        return workers(self.count, self.scheduler, on_ready=self.on_ready)


class TaskQueue(Generic[Item, Result]):
    """Tasks of one function: :meth:`put` hands one out and returns its key; iterating yields
    ``(key, result)`` as tasks finish, including those put while the results are read, until
    none is left."""

    def put(self, item: Item, priority: int = 0) -> int:  # pragma: no cover - abstract
        """Hand out a task (higher ``priority`` first, where the place can order them)."""
        raise NotImplementedError

    def __iter__(self) -> Iterator[tuple[int, Result]]:  # pragma: no cover - abstract
        raise NotImplementedError


class Workers:
    """Where tasks run; :meth:`run` yields ``(position, result)`` as each task finishes."""

    description = "this process"
    dashboard: str | None = None
    """Where Dask's dashboard shows the cluster at work (none for this process)."""
    threads: int | None = None
    """The compiled kernels' threads in each task (``None``: as many as the worker's machine has)."""

    def queue(
        self, task: Callable[[Item], Result]
    ) -> AbstractContextManager[TaskQueue[Item, Result]]:  # pragma: no cover - abstract
        """A :class:`TaskQueue` for ``task``; leaving it cancels the tasks not finished."""
        raise NotImplementedError

    def run(self, task: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[tuple[int, Result]]:
        """``task`` on every item; ``(position, result)`` pairs as each finishes."""
        with self.queue(task) as tasks:
            for item in items:
                tasks.put(item)
            yield from tasks

    @property
    def count(self) -> int:
        """How many tasks run at once."""
        return 1

    def peak_memory(self) -> dict[str, int]:
        """The most memory (resident bytes) each worker process has held, by worker."""
        return {"this process": peak_memory()}

    def memory_limits(self) -> dict[str, int]:
        """The memory each worker may hold before it is stopped, by worker (none known for this process,
        whose work the cost guard checks against the machine)."""
        return {}


def peak_memory() -> int:
    """The most resident memory this process has held, in bytes (0 where the system does not say)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Linux or macOS
        return 0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if os.uname().sysname == "Darwin" else 1024)


class _Here(TaskQueue[Item, Result]):
    def __init__(self, task: Callable[[Item], Result]) -> None:
        self.task = task
        self.waiting: deque[tuple[int, Item]] = deque()
        self.keys = 0

    def put(self, item: Item, priority: int = 0) -> int:
        self.waiting.append((self.keys, item))
        self.keys += 1
        return self.keys - 1

    def __iter__(self) -> Iterator[tuple[int, Result]]:
        while self.waiting:
            key, item = self.waiting.popleft()
            yield key, self.task(item)


class InProcess(Workers):
    """Every task in this process, one after another, in the order they were put."""

    @contextmanager
    def queue(self, task: Callable[[Item], Result]) -> Iterator[TaskQueue[Item, Result]]:
        yield _Here(task)


def use_threads(threads: int | None) -> None:
    """Run the kernels on ``threads`` threads (``None``: the cores this process may use, unless
    ``$NUMBA_NUM_THREADS`` says otherwise); numba is loaded only if it already is, else told through
    ``$NUMBA_NUM_THREADS`` for when it loads."""
    import sys

    if "numba" in sys.modules:
        from keypeg.kernels import set_threads

        set_threads(threads or cores())
    elif threads is not None:
        os.environ["NUMBA_NUM_THREADS"] = str(threads)
    elif not os.environ.get("NUMBA_NUM_THREADS"):
        os.environ["NUMBA_NUM_THREADS"] = str(cores())


def load_numerics(threads: int | None = None) -> None:
    """Import numpy, numba and keypeg's kernels with the garbage collector paused, then leave what they
    made out of its passes; numba's threads are set from ``threads`` first (``None``: every core this
    process may use), as numba reads them when it loads (:func:`use_threads`).

    They make hundreds of thousands of objects that live as long as the process: a full pass of the
    collector during their import (it came once in each heavy command, after the CLI's own imports)
    looked at them all, 10-20 ms of a heavy command's start-up, and every later full pass would again.
    Nothing is done if numba is loaded already."""
    import gc
    import sys

    if "numba" in sys.modules:
        return
    use_threads(threads)
    enabled = gc.isenabled()
    gc.disable()
    try:
        import keypeg.kernels  # noqa: F401  (numpy and numba with it)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _on_threads(task: Callable[[Item], Result], threads: int | None, item: Item) -> Result:
    """``task(item)``, its compiled kernels on at most ``threads`` threads (all there are if ``None``)."""
    if threads is not None:
        from keypeg.kernels import set_threads

        set_threads(threads)
    return task(item)


class _Futures(TaskQueue[Item, Result]):
    def __init__(self, client: Any, task: Callable[[Item], Result], threads: int | None) -> None:
        from distributed import as_completed

        self.client = client
        self.task = task
        self.threads = threads
        self.keys: dict[str, int] = {}
        self.futures: list[Any] = []
        self.finished = as_completed()

    def put(self, item: Item, priority: int = 0) -> int:
        future = self.client.submit(_on_threads, self.task, self.threads, item, pure=False, priority=priority)
        self.keys[future.key] = len(self.futures)
        self.futures.append(future)
        self.finished.add(future)
        return len(self.futures) - 1

    def __iter__(self) -> Iterator[tuple[int, Result]]:
        for future in self.finished:
            yield self.keys[future.key], future.result()

    def cancel(self) -> None:
        self.client.cancel([f for f in self.futures if not f.done()])


class _Dask(Workers):
    """Tasks as futures of a ``distributed.Client``."""

    def __init__(self, client: Any, description: str, threads: int | None = None) -> None:
        self.client = client
        self.description = description
        self.dashboard = client.dashboard_link
        self.threads = threads
        """The compiled kernels' threads in each task (``None``: as many as the worker's machine has)."""

    @property
    def count(self) -> int:
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    @contextmanager
    def queue(self, task: Callable[[Item], Result]) -> Iterator[TaskQueue[Item, Result]]:
        tasks: _Futures[Item, Result] = _Futures(self.client, task, self.threads)
        try:
            yield tasks
        finally:
            tasks.cancel()

    def peak_memory(self) -> dict[str, int]:
        peaks: dict[str, int] = self.client.run(peak_memory)
        return peaks

    def memory_limits(self) -> dict[str, int]:
        workers = self.client.scheduler_info().get("workers", {})
        return {name: int(info["memory_limit"]) for name, info in workers.items() if info.get("memory_limit")}


@contextmanager
def _deaf_to_ctrl_c() -> Iterator[None]:
    """Processes started in here ignore Ctrl-C (SIGINT; an ignored signal stays ignored in a child)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252}[A-Za-z0-9])?|[0-9A-Fa-f:.]+")
"""A host name or an IPv4 or IPv6 address (as Dask gives it, without brackets)."""


def _check_address(scheduler: str) -> None:
    """Refuse (:class:`ClusterError`) an address Dask cannot read, or a TCP address nothing answers at,
    before a client is made (a client that fails to connect is left half made)."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.comm.registry import get_backend

    try:
        scheme, location = parse_address(scheduler)
        get_backend(scheme)
        host, port = parse_host_port(location) if scheme in ("tcp", "tls", "ws", "wss") else (None, None)
    except ValueError as error:
        raise ClusterError(f"not a Dask scheduler's address: {scheduler} ({error})") from None
    if host is None:
        return
    if not _HOST.fullmatch(host):  # a path or other text: no name lookup, which can hang for a minute
        raise ClusterError(f"not a Dask scheduler's address: {scheduler} (the host must be a name or an IP address)")
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except (OSError, OverflowError) as error:
        reason = (error.strerror if isinstance(error, OSError) else None) or str(error) or type(error).__name__
        raise ClusterError(f"no Dask scheduler answers at {scheduler}: {reason}") from None


@contextmanager
def workers(
    count: int | None = None, scheduler: str | None = None, *, on_ready: Callable[[Workers], None] | None = None
) -> Iterator[Workers]:
    """The place to run tasks: ``scheduler`` (an address), a local cluster of ``count`` processes,
    or this process when neither is given; ``on_ready`` is called with a cluster once it is up."""
    if count is not None and scheduler is not None:
        raise KeypegError("a number of local workers or a scheduler's address, not both")
    if count is None and scheduler is None:
        yield InProcess()
        return
    if count is not None and count < 1:
        raise KeypegError(f"the number of workers must be 1 or more, not {count}")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("Dask is not installed: pip install 'keypeg[cluster]'") from None
    if scheduler is not None:
        _check_address(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_SECONDS)
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(f"no Dask scheduler answers at {scheduler}: {error}") from None
        except MemoryError:  # a frame length read from something else that answers
            raise ClusterError(f"what answers at {scheduler} is not a Dask scheduler") from None
        try:
            yield _ready(_Dask(client, f"the cluster at {scheduler}"), on_ready)
        finally:
            client.close()
        return
    assert count is not None
    with _deaf_to_ctrl_c():  # Ctrl-C is this process's to handle: it cancels the tasks and closes the cluster
        local = LocalCluster(
            n_workers=count,
            threads_per_worker=1,
            processes=True,
            dashboard_address="127.0.0.1:0",  # any free port: never a warning that 8787 is taken
            silence_logs=logging.CRITICAL,  # the command says what went wrong; Ctrl-C or a lost worker is not logged
        )
    with local, Client(local) as client:
        threads = max(1, cores() // count)  # the workers share this machine's cores
        yield _ready(_Dask(client, f"{count} local worker process{'es' if count != 1 else ''}", threads), on_ready)


def _ready(place: Workers, on_ready: Callable[[Workers], None] | None) -> Workers:
    """``place``, once ``on_ready`` has been told it is up."""
    if on_ready is not None:
        on_ready(place)
    return place
