"""``keypeg optimal``: solve a rule set exactly, show the search live, save the strategy for play."""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import click

from keypeg.cli.analysis import announce_compiling, plural, refuse_empty, say, tree_format_option
from keypeg.cli.cluster import cluster_options
from keypeg.cli.common import FILE, cli, err, json_option, out, print_json, rules_options, threads_option
from keypeg.cli.options import force_option, pool_option
from keypeg.cluster import Cluster
from keypeg.rules import Rules
from keypeg.text import visible

if TYPE_CHECKING:
    from keypeg.analysis.distributed import DistributedSolver, Traffic
    from keypeg.cluster import Workers
    from keypeg.storage import SavedOptimum
    from keypeg.strategies.optimal import SearchProgress
    from keypeg.strategy_tree import StrategyTree

LOG_SECONDS = 60.0
"""Without a terminal, the search's progress is written to stderr this often."""


def _interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM stops the search like Ctrl-C, so what it has proved is saved."""
    raise KeyboardInterrupt


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """Ctrl-C and SIGTERM ignored in here (the interrupted search's checkpoint is being written: the command
    exits 130 right after); in a thread other than the main one, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {number: signal.signal(number, signal.SIG_IGN) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@cli.command()
@rules_options
@threads_option
@pool_option("all")
@click.option(
    "--secrets",
    type=click.Choice(["all", "two-or-more-colours"]),
    default="all",
    show_default=True,
    help="The codes the secret is drawn from.",
)
@click.option("--save/--no-save", default=True, help="Keep the solved strategy for play and 'keypeg next'.")
@click.option(
    "--resume/--restart",
    default=True,
    show_default=True,
    help="Show the optimum an earlier run saved (or keypeg ships), or continue the search an interrupted "
    "run left (Ctrl-C saves it); --restart searches afresh.",
)
@click.option("--export", type=FILE, help="Also save the tree here.")
@tree_format_option
@cluster_options
@force_option
@json_option
def optimal(
    rules: Rules,
    pool: str,
    secrets: str,
    save: bool,
    resume: bool,
    export: Path | None,
    fmt: str,
    cluster: Cluster,
    force: bool,
    as_json: bool,
) -> None:
    """The strategy with the fewest total guesses over all secrets, found by exact search.

    The rules' rows limit the guesses (--rows 5: the best strategy that never needs more than 5).
    An optimum saved by an earlier run, or shipped with keypeg, for the same rules, pool and secrets
    is shown at once (--restart searches again). Ctrl-C stops the search and keeps what it has proved;
    the same command then resumes it.
    """
    from keypeg import storage

    refuse_empty("variant", "export")
    found = storage.find_optimal_tree(rules, pool, secrets) if resume else None
    if export is not None:
        storage.check_writable(export)
    if found is None:
        tree, nodes = _search(rules, pool, secrets, resume, cluster, force)
        saved = _save(tree, pool, secrets) if save else None
        source: dict[str, Any] = {"source": "search", "nodes": nodes}
        if saved is not None:
            source["saved"] = str(saved)
        said = [f"searched {plural(nodes, 'set')} of codes"] + ([f"saved to {visible(str(saved))}"] if saved else [])
    else:
        tree = _reused(rules, found)
        source, said = _reuse_note(found)
    if export is not None:
        from keypeg.analysis.export import save_tree

        save_tree(tree, export, fmt)
    _show(rules, tree, pool, secrets, source, said, as_json)
    if export is not None and not as_json:
        say(f"tree saved to {visible(str(export))} ({fmt})")


def _reused(rules: Rules, found: SavedOptimum) -> StrategyTree:
    """The saved or shipped optimum in the asked rules' symbols and rows."""
    return found.for_rules(rules)


def _reuse_note(found: SavedOptimum) -> tuple[dict[str, Any], list[str]]:
    """What ``--json`` and the text say of an optimum found on disk rather than searched."""
    path = visible(str(found.path))
    if found.shipped:
        return {"source": "shipped", "file": str(found.path)}, [
            f"the optimum shipped with keypeg ({path}); --restart searches again"
        ]
    when = datetime.fromtimestamp(found.path.stat().st_mtime).astimezone()
    note = f"the optimum saved in {path} on {when:%Y-%m-%d %H:%M}, found earlier; --restart searches again"
    return {"source": "saved", "file": str(found.path), "saved_on": when.isoformat(timespec="seconds")}, [note]


def _save(tree: StrategyTree, pool: str, secrets: str) -> Path:
    from keypeg.strategies.optimal import save_optimal

    return save_optimal(tree, pool, secrets)  # type: ignore[arg-type]


def _show(
    rules: Rules,
    tree: StrategyTree,
    pool: str,
    secrets: str,
    source: dict[str, Any],
    said: list[str],
    as_json: bool,
) -> None:
    """The optimum's figures, and where it came from."""
    from rich.text import Text

    from keypeg.cli.analysis import analysis_table, result_dict

    if as_json:
        print_json({**result_dict(tree), **source})
        return
    out.print(
        Text.assemble(
            (rules.describe(), "bold"),
            f": {plural(tree.stats.secrets, 'secret')} ({secrets}), guesses from {pool} codes",
        )
    )
    out.print(analysis_table([tree], timed=source["source"] == "search"))
    for line in said:
        say(line)


def _search(
    rules: Rules, pool: str, secrets: str, resume: bool, cluster: Cluster, force: bool
) -> tuple[StrategyTree, int]:
    """Search the optimum (resuming an interrupted search if asked), showing progress on stderr;
    Ctrl-C or SIGTERM saves what it has proved and exits 130. Returns the tree and the sets searched."""
    from rich.live import Live
    from rich.text import Text

    from keypeg import storage
    from keypeg.analysis.cost import OPTIMAL_SEARCH, SCORING, SYMMETRY, optimal_cost
    from keypeg.cli.options import guard

    guard(optimal_cost(rules), force, timed=not cluster.distributed)
    storage.check_cache_folder()  # the checkpoint and the solved tree go there: fail now, not after the search
    announce_compiling((SCORING, SYMMETRY, OPTIMAL_SEARCH))
    from keypeg.cli.cluster import say_traffic
    from keypeg.strategies.optimal import BIG, OptimalSolver, secret_codes

    chosen = secret_codes(rules, secrets)
    status = Text("starting the search", style="dim")

    def show(progress: SearchProgress) -> None:
        status.plain = progress_line(progress, proved[0] if proved else None)
        if live is not None:
            live.refresh()
        elif progress.seconds >= logged[0] + LOG_SECONDS:
            logged[0] = progress.seconds
            err.print(status.plain, soft_wrap=True)

    def cluster_said(place: Workers, traffic: Traffic) -> None:
        say_traffic(f"the search on {place.description}", place, traffic)

    solver: OptimalSolver | DistributedSolver
    if cluster.distributed:  # on Dask: nothing resumed or saved if interrupted
        from keypeg.analysis.distributed import DistributedSolver

        solver = DistributedSolver(rules, cluster, pool=pool, secrets=chosen, progress=show, finished=cluster_said)  # type: ignore[arg-type]
    else:
        solver = OptimalSolver(rules, pool=pool, secrets=chosen, progress=show, resume=resume)  # type: ignore[arg-type]
    if solver.resumed:
        say(
            f"resuming: {plural(solver.resumed, 'set')} searched before ({visible(str(solver.checkpoint_path()))})",
            console=err,
        )

    def search() -> StrategyTree:
        if isinstance(solver, OptimalSolver):  # the total first, then the strategy's tree from the table
            total = solver.solve()
            proved.extend([total] if total < BIG else [])
        return solver.tree()

    live: Live | None = None
    logged = [0.0]
    proved: list[int] = []
    started = time.perf_counter()
    stop_on_term = signal.signal(signal.SIGTERM, _interrupt)
    try:
        if err.is_terminal:
            with Live(status, console=err, transient=True, refresh_per_second=4) as live:
                tree = search()
        else:
            tree = search()
    except KeyboardInterrupt:
        with _signals_deferred():  # a second Ctrl-C (or a group's SIGTERM) must not cut the save short
            saved_to = solver.checkpoint()
            if saved_to is None:
                err.print("interrupted: nothing was saved")
            else:
                say(
                    f"interrupted: the search so far is saved in {visible(str(saved_to))}; "
                    "run the same command to resume",
                    console=err,
                )
        sys.exit(130)
    finally:
        signal.signal(signal.SIGTERM, stop_on_term)
    solver.forget_checkpoint()
    tree.seconds = time.perf_counter() - started
    tree.conventions["nodes"] = solver.nodes
    if secrets != "all":
        tree.conventions["secret_set"] = secrets  # what 'keypeg verify' replays it against
    return tree, solver.nodes


def progress_line(progress: SearchProgress, proved: int | None = None) -> str:
    """The search's live status, two lines of under 80 columns: where the search is and the best total
    so far, then the sets searched; once the optimum is ``proved``, that it is writing out the strategy."""
    if proved is not None:
        return f"the optimum, {proved:,} guesses in all, is proved\nwriting out its strategy ({progress.nodes:,} sets)"
    if progress.first_guesses:
        where = f"first guesses {progress.first_guesses_done:,}/{progress.first_guesses:,}"
        if progress.parts:
            where += f" (parts {progress.parts_done}/{progress.parts})"
    else:
        where = "the best fitting first guess first"
    best = "none yet" if math.isinf(progress.best) else f"{int(progress.best):,}"
    return (
        f"{where}   best total {best}   bound {int(progress.bound):,}\n"
        f"sets {progress.nodes:,} ({progress.nodes_per_second:,.0f}/s)   {progress.seconds:.1f} s"
    )


__all__ = ["optimal"]
