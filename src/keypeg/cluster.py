"""Independent pieces of work, done here or on a Dask cluster.

:func:`workers` opens the place the work runs: this process (no Dask imported at all), a
``LocalCluster`` of ``count`` worker processes on this machine, or an existing cluster at a
scheduler's address. :meth:`Workers.run` hands out tasks and yields each result as it arrives;
leaving early (an error, Ctrl-C) cancels what is still on the cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from keypeg.errors import KeypegError

__all__ = ["Cluster", "Workers", "workers", "InProcess", "ClusterError"]

Item = TypeVar("Item")
Result = TypeVar("Result")


class ClusterError(KeypegError):
    """The cluster could not be reached or started."""


@dataclass(frozen=True)
class Cluster:
    """Where a command's work runs, as asked on the command line (``--workers``, ``--scheduler``)."""

    count: int | None = None
    scheduler: str | None = None

    @property
    def distributed(self) -> bool:
        """Whether the work goes to Dask (either option given)."""
        return self.count is not None or self.scheduler is not None

    def workers(self) -> AbstractContextManager[Workers]:
        """Open the place to run tasks (see :func:`workers`)."""
        return workers(self.count, self.scheduler)


class Workers:
    """Where tasks run; :meth:`run` yields ``(position, result)`` as each task finishes."""

    description = "this process"

    def run(
        self, task: Callable[[Item], Result], items: Iterable[Item]
    ) -> Iterator[tuple[int, Result]]:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def count(self) -> int:
        """How many tasks run at once."""
        return 1


class InProcess(Workers):
    """Every task in this process, one after another, in order."""

    def run(self, task: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[tuple[int, Result]]:
        for position, item in enumerate(items):
            yield position, task(item)


class _Dask(Workers):
    """Tasks as futures of a ``distributed.Client``."""

    def __init__(self, client: Any, description: str) -> None:
        self.client = client
        self.description = description

    @property
    def count(self) -> int:
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def run(self, task: Callable[[Item], Result], items: Iterable[Item]) -> Iterator[tuple[int, Result]]:
        from distributed import as_completed

        futures = [self.client.submit(task, item, pure=False) for item in items]
        position = {future.key: n for n, future in enumerate(futures)}
        try:
            for future in as_completed(futures):
                yield position[future.key], future.result()
        finally:
            self.client.cancel([f for f in futures if not f.done()])


@contextmanager
def workers(count: int | None = None, scheduler: str | None = None) -> Iterator[Workers]:
    """The place to run tasks: ``scheduler`` (an address), a local cluster of ``count`` processes,
    or this process when neither is given."""
    if count is not None and scheduler is not None:
        raise KeypegError("give --workers or --scheduler, not both")
    if count is None and scheduler is None:
        yield InProcess()
        return
    if count is not None and count < 1:
        raise KeypegError(f"--workers must be 1 or more, not {count}")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ClusterError("Dask is not installed: pip install 'keypeg[cluster]'") from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError) as error:
            raise ClusterError(f"no Dask scheduler answers at {scheduler}: {error}") from None
        try:
            yield _Dask(client, f"the cluster at {scheduler}")
        finally:
            client.close()
        return
    with (
        LocalCluster(n_workers=count, threads_per_worker=1, processes=True, dashboard_address=None) as local,
        Client(local) as client,
    ):
        yield _Dask(client, f"{count} local worker process{'es' if count != 1 else ''}")
