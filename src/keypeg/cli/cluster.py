"""The ``--workers N`` / ``--scheduler ADDRESS`` options every command that can run on Dask shares."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from keypeg.cluster import Cluster

if TYPE_CHECKING:
    from keypeg.analysis.distributed import Traffic
    from keypeg.cluster import Workers
    from keypeg.rules import Rules
    from keypeg.strategies import Strategy
    from keypeg.strategy_tree import StrategyTree

F = TypeVar("F", bound=Callable[..., Any])


class Address(click.ParamType[str]):
    """A scheduler's address: ``tcp://host:port`` (``host:port`` is read as TCP), never empty or blank."""

    name = "address"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        text = str(value).strip()
        if not text or any(c.isspace() or not c.isprintable() for c in text):
            self.fail("a scheduler's address is like tcp://HOST:PORT, with no spaces", param, ctx)
        return text


def cluster_options(command: F) -> F:
    """Add ``--workers N`` and ``--scheduler ADDRESS``; the command receives ``cluster`` (a
    :class:`keypeg.cluster.Cluster`: ``cluster.workers()`` opens the place to run tasks). Neither
    option imports Dask; without both, the work stays in this process."""

    @click.option(
        "--workers",
        "worker_count",
        type=click.IntRange(1, 1024),
        metavar="N",
        help="Run on a Dask cluster of N worker processes on this machine (needs keypeg[cluster]).",
    )
    @click.option(
        "--scheduler",
        type=Address(),
        metavar="ADDRESS",
        help="Run on the Dask cluster at ADDRESS (tcp://HOST:PORT, started with 'dask scheduler').",
    )
    @functools.wraps(command)
    def wrapper(*args: Any, worker_count: int | None, scheduler: str | None, **kwargs: Any) -> Any:
        if worker_count is not None and scheduler is not None:
            raise click.UsageError("give --workers or --scheduler, not both")
        return command(*args, cluster=Cluster(worker_count, scheduler, on_ready=say_ready), **kwargs)

    return wrapper  # type: ignore[return-value]


def say_ready(place: Workers) -> None:
    """Say on stderr that the cluster is up (from here on Ctrl-C is heard), and where to watch it."""
    from keypeg.cli.common import err
    from keypeg.text import visible

    watch = f"; dashboard {place.dashboard}" if place.dashboard else ""
    # written whole at once: a Ctrl-C just after cannot leave it in Rich's buffer to be printed again
    err.file.write(visible(f"working on {place.description}{watch}") + "\n")
    err.file.flush()


def distributed_tree(strategy: Strategy, rules: Rules, place: Workers, progress: Callable[[int], None]) -> StrategyTree:
    """``strategy``'s whole tree made by ``place``'s workers, what it cost said on stderr."""
    from keypeg.analysis import distributed

    tree, traffic = distributed.distributed_tree(strategy, rules, place, progress=progress)
    say_traffic(f"{strategy.name} on {place.description}", place, traffic)
    return tree


def say_traffic(work: str, place: Workers, traffic: Traffic) -> None:
    """Say on stderr what the tasks of ``work`` cost and moved, and the workers' peak memory."""
    from keypeg.analysis.cost import format_bytes
    from keypeg.cli.analysis import say
    from keypeg.cli.common import err
    from keypeg.text import plural

    names = {"decide": "decision", "grow": "subtree task", "search": "search task"}
    kinds = ", ".join(
        f"{plural(count, names[kind])} (longest {traffic.longest[kind]:.2f} s)" for kind, count in traffic.tasks.items()
    )
    peaks = ", ".join(format_bytes(peak) for peak in place.peak_memory().values())
    say(
        f"{work}: {kinds}, {sum(traffic.seconds.values()):,.1f} processor seconds in all; {format_bytes(traffic.sent)} "
        f"sent, {format_bytes(traffic.received)} received; peak memory per worker {peaks}",
        console=err,
    )


__all__ = ["cluster_options", "distributed_tree", "say_ready", "say_traffic"]
