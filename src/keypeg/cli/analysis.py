"""Commands for strategies and analysis: analyze, tables, next, verify, replay."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

import click
from rich.console import Console
from rich.text import Text

from keypeg.analysis.compare import COMPARED
from keypeg.cli.cluster import cluster_options
from keypeg.cli.common import (
    FILE,
    SEED,
    err,
    json_option,
    out,
    parse_history,
    print_json,
    read_code,
    rules_options,
    threads_option,
)
from keypeg.cli.common import cli as app
from keypeg.cli.options import db_option, force_option, pool_option, scoring_option, strategy_option, tie_option
from keypeg.cli.render import new_table
from keypeg.errors import KeypegError, TooLargeError
from keypeg.rules import Rules
from keypeg.strategies import make_strategy
from keypeg.text import plural, visible

if TYPE_CHECKING:
    from rich.table import Column, Table

    from keypeg.analysis.tree import StrategyTree
    from keypeg.cluster import Cluster
    from keypeg.strategies import Choice, Strategy

F = TypeVar("F", bound=Callable[..., Any])


def refuse_empty(*names: str) -> None:
    """Refuse options given as empty text (``--variant ''``): a usage error, exit code 2."""
    params = click.get_current_context().params
    for name in names:
        value = params.get(name)
        if isinstance(value, str) and not value.strip():
            raise click.UsageError(f"--{name} needs a value, not empty text")
        if isinstance(value, Path) and (not str(value).strip() or value == Path(".")):
            raise click.UsageError(f"--{name} needs a file name, not empty text")


_announced: set[str] = set()


def announce_compiling(kernels: tuple[str, ...] | None = None) -> None:
    """On a first run (numba's cache of keypeg's kernels empty), say once on stderr that the kernels are
    being compiled. ``kernels`` are their public names (:data:`keypeg.analysis.cost.SCORING`, ...; the
    everyday ones if ``None``). It loads the kernels (numba), so call it just before they run."""
    from keypeg.analysis.cost import EVERYDAY_KERNELS, compile_notice

    wanted = tuple(m for m in (kernels or EVERYDAY_KERNELS) if m not in _announced)
    if not wanted:
        return
    notice = compile_notice(wanted)
    _announced.update(wanted)
    if notice is not None:
        say(notice, console=err)


def figure(value: float, digits: int) -> str:
    """A figure with ``digits`` decimals, never ``-0.000``.

    >>> figure(-0.0, 3), figure(-0.0001, 3), figure(-1.25, 1), figure(2.0, 2)
    ('0.000', '0.000', '-1.2', '2.00')
    """
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def say(text: str | Text, *, console: Console = out) -> None:
    """Print a line literally (no markup): wrapped at word boundaries in a terminal, whole on a pipe."""
    shown = text if isinstance(text, Text) else Text(text)
    console.print(shown, soft_wrap=not console.is_terminal)


def convention_options(command: F) -> F:
    """Options for the conventions that change a strategy's totals."""

    @click.option(
        "--first",
        metavar="CODE|best",
        help="First guess (default: the strategy's own choice); 'best': the opening with the least total "
        "(see 'keypeg openings').",
    )
    @pool_option()
    @tie_option
    @click.option("--seed", type=SEED, help="Seed for random choices.")
    @scoring_option
    @functools.wraps(command)
    def wrapper(
        *args: Any, first: str | None, pool: str | None, tie: str, seed: int | None, convention: str, **kwargs: Any
    ) -> Any:
        def build(name: str, rules: Rules) -> Strategy:
            if first is not None and first.strip().lower() == "best":
                return best_first(name, rules, pool, tie, seed, convention)
            code = read_code(rules, first) if first is not None else None
            return make_strategy(name, first=code, pool=pool, tie=tie, seed=seed, scoring=convention)

        return command(*args, strategy_factory=build, **kwargs)

    return wrapper  # type: ignore[return-value]


def best_first(name: str, rules: Rules, pool: str | None, tie: str, seed: int | None, convention: str) -> Strategy:
    """Strategy ``name`` opening with its best first guess (``--first best``, :mod:`keypeg.cli.openings`); once
    guesses were scored (``next`` with a history) the first guess is played already, and nothing is worked out."""
    strategy = make_strategy(name, pool=pool, tie=tie, seed=seed, scoring=convention)
    if click.get_current_context().params.get("scored"):
        return strategy
    from keypeg.cli.openings import best_first_guess

    strategy.first = best_first_guess(name, rules, strategy)
    return strategy


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on stderr; yields the function that advances it."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total)

        def advance(n: int) -> None:
            if _CTRL_C.is_set():  # heard where it could not be raised: stop at this step
                raise KeyboardInterrupt
            progress.advance(task, n)

        yield advance


_CTRL_C = threading.Event()
"""Set when Ctrl-C is heard inside :func:`interruptible`."""


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C stops the work cleanly: one line, exit code 130. Python raises the interrupt wherever the
    main thread is, and drops it there if that is a garbage-collector callback (Dask's client has one),
    so it is also remembered: the work stops at its next step of progress, or when it ends."""
    import signal

    def heard(signum: int, frame: FrameType | None) -> None:
        _CTRL_C.set()
        raise KeyboardInterrupt

    def unraisable(what: Any) -> None:
        """No traceback for an interrupt Python dropped (it is remembered), nor for what it broke there
        (Dask's garbage-collector timing asserts once its start was interrupted)."""
        if not _CTRL_C.is_set():
            shown(what)

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, heard) if main else None
    shown, sys.unraisablehook = sys.unraisablehook, unraisable
    try:
        yield
        if _CTRL_C.is_set():
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        err.print("interrupted: nothing was saved")
        sys.exit(130)
    finally:
        sys.unraisablehook = shown
        if main:
            signal.signal(signal.SIGINT, previous)


def result_dict(tree: StrategyTree) -> dict[str, Any]:
    """A tree's figures as ``--json`` prints them."""
    from keypeg.analysis.compare import Summary

    return Summary.of(tree).as_dict()


tree_format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "text", "lookup"]),
    default="json",
    show_default=True,
    help="Tree format for --export (only json loads back into 'verify' and 'replay').",
)


@app.command()
@strategy_option
@rules_options
@threads_option
@convention_options
@click.option("--compare", is_flag=True, help=f"Run several strategies (default: {', '.join(COMPARED)}) side by side.")
@click.option("--chart", type=FILE, help="Save a bar chart (PNG or SVG).")
@click.option("--export", type=FILE, help="Save the strategy tree.")
@tree_format_option
@cluster_options
@force_option
@json_option
def analyze(
    strategies: tuple[str, ...],
    rules: Rules,
    strategy_factory: Callable[[str, Rules], Strategy],
    compare: bool,
    chart: Path | None,
    export: Path | None,
    fmt: str,
    cluster: Cluster,
    force: bool,
    as_json: bool,
) -> None:
    """Play a strategy against every secret: total guesses, average, worst case, secrets per round."""
    from keypeg.analysis.compare import check_trees
    from keypeg.cli.options import guard
    from keypeg.strategies import canonical_name

    refuse_empty("variant", "first", "chart", "export")
    names = [canonical_name(n) for n in strategies] or (list(COMPARED) if compare else ["worst-case"])
    if len(names) > 1 and export is not None:
        raise KeypegError("--export saves one tree: name one strategy")
    if chart is not None:
        from keypeg.cli.charts import check_chart

        check_chart(chart)
    if export is not None:
        from keypeg.storage import check_writable

        check_writable(export)
    check_trees(rules, names, lambda estimate: guard(estimate, force, timed=not cluster.distributed))
    from keypeg.analysis.cost import EVERYDAY_KERNELS, OPTIMAL_SEARCH, TREES
    from keypeg.analysis.export import save_tree
    from keypeg.analysis.tree import build_tree, compiled
    from keypeg.cli.cluster import distributed_tree

    chosen = [strategy_factory(name, rules) for name in names]
    kernels = {TREES} if any(compiled(s, rules) for s in chosen) else set()
    if not all(compiled(s, rules) for s in chosen):
        kernels.update(EVERYDAY_KERNELS)
    if "optimal" in names:
        kernels.add(OPTIMAL_SEARCH)
    announce_compiling(tuple(sorted(kernels)))
    built = []
    with interruptible(), cluster.workers() as place:
        for strategy in chosen:
            with progress_bar(f"{strategy.name} on {rules.pegs}x{rules.colors}", rules.size) as advance:
                if cluster.distributed:
                    built.append(distributed_tree(strategy, rules, place, advance))
                else:
                    built.append(build_tree(strategy, rules, progress=advance))
    if export is not None:
        save_tree(built[0], export, fmt)
    if chart is not None:
        save_chart(built, chart)
    if as_json:
        results = [result_dict(tree) for tree in built]
        print_json(results[0] if len(results) == 1 else {"rules": rules.describe(), "results": results})
        return
    out.print(Text.assemble((rules.describe(), "bold"), f": {plural(rules.size, 'secret')}"))
    print_fitted(analysis_table(built))
    for line in ties_lines(built):
        say(line)
    if export is not None:
        say(f"tree saved to {visible(str(export))} ({fmt})")
    if chart is not None:
        say(f"chart saved to {visible(str(chart))}")


TIE_RULES = {"first": "the first in code order", "last": "the last in code order"}
"""How ``--tie`` picks among equally good guesses (``random``: one drawn at random)."""


def ties_sentence(conventions: dict[str, Any]) -> str:
    """How a tree's strategy broke ties, in words.

    >>> ties_sentence({"tie": "last", "prefer_consistent": True, "seed": None})
    'a code that could be the secret first, then the last in code order'
    >>> ties_sentence({"tie": "random", "prefer_consistent": False, "seed": 7})
    'one drawn at random (seed 7)'
    """
    seed = conventions.get("seed")
    drawn = "one drawn at random " + ("(unseeded)" if seed is None else f"(seed {seed})")
    rule = TIE_RULES.get(str(conventions.get("tie")), drawn)
    return f"a code that could be the secret first, then {rule}" if conventions.get("prefer_consistent") else rule


def ties_lines(built: list[StrategyTree]) -> list[str]:
    """One line saying how ties were broken, or one per rule when the strategies broke them differently."""
    rules: dict[str, list[str]] = {}
    for tree in built:
        rules.setdefault(ties_sentence(tree.conventions), []).append(str(tree.conventions["strategy"]))
    if len(rules) == 1:
        return [f"ties: {next(iter(rules))}"]
    return [f"ties ({', '.join(names)}): {sentence}" for sentence, names in rules.items()]


def print_fitted(table: Table) -> None:
    """Print ``table`` whole if it fits the screen, else as several tables of its first column and as many
    of the others as fit (the title on the first), so no figure is ever cut."""
    for part in fitted(table, out.width):
        out.print(part)


def fitted(table: Table, width: int) -> list[Table]:
    """``table`` split by columns into tables no wider than ``width`` (each keeps the first column; a column
    wider than ``width`` on its own still gets a table)."""
    from rich.cells import cell_len

    def need(column: Column) -> int:
        texts = [str(column.header), *map(str, column.cells)]
        return max(cell_len(line) for text in texts for line in text.splitlines() or [""])

    first, *others = table.columns
    groups: list[list[int]] = [[]]
    used = need(first) + 2
    for k, column in enumerate(others, start=1):
        if groups[-1] and used + need(column) + 3 > width:
            groups.append([])
            used = need(first) + 2
        groups[-1].append(k)
        used += need(column) + 3
    if len(groups) == 1:
        return [table]
    cells = [list(column.cells) for column in table.columns]
    parts = []
    for n, group in enumerate(groups):
        part = new_table(title=table.title if n == 0 else None, title_justify=table.title_justify, show_edge=False)
        for k in [0, *group]:
            column = table.columns[k]
            part.add_column(column.header, justify=column.justify, no_wrap=column.no_wrap)
        for r, row in enumerate(table.rows):
            part.add_row(*[cells[k][r] for k in [0, *group]], end_section=row.end_section)
        parts.append(part)
    return parts


def analysis_table(built: list[StrategyTree], *, timed: bool = True) -> Table:
    """Secrets solved per round, totals, averages and worst cases, one column per tree; the seconds
    each took when ``timed`` (not for a tree loaded from a file)."""
    table = new_table(show_edge=False)
    table.add_column("round", justify="right")
    rounds = range(1, max(tree.stats.max for tree in built) + 1)
    for tree in built:
        c = tree.conventions
        table.add_column(f"{c['strategy']}\nfrom {tree.first_guess}", justify="right")
    for r in rounds:
        table.add_row(str(r), *[f"{tree.stats.distribution.get(r, 0):,}" for tree in built])
    table.add_section()
    table.add_row("total", *[f"{tree.stats.total:,}" for tree in built])
    table.add_row("average", *[figure(tree.stats.average, 4) for tree in built])
    table.add_row("worst", *[str(tree.stats.max) for tree in built])
    if timed:
        table.add_row("seconds", *[f"{tree.seconds:.2f}" for tree in built])
    table.add_row("guess pool", *[tree.conventions["pool"] for tree in built])
    return table


def save_chart(trees: list[StrategyTree], path: Path) -> None:
    """A grouped bar chart of the secrets solved in each round, one colour per strategy."""
    from keypeg.cli.charts import figure

    rounds = range(1, max(tree.stats.max for tree in trees) + 1)
    width = 0.8 / len(trees)
    with figure(path) as ax:
        for k, tree in enumerate(trees):
            xs = [r + (k - (len(trees) - 1) / 2) * width for r in rounds]
            label = f"{tree.conventions['strategy']} ({tree.stats.average:.3f})"
            ax.bar(xs, [tree.stats.distribution.get(r, 0) for r in rounds], width, label=label)
        ax.set_xlabel("round")
        ax.set_ylabel("secrets solved")
        ax.set_title(trees[0].rules.describe())
        ax.set_xticks(list(rounds))


@app.command()
@rules_options
@threads_option
@click.option("--answer", default=None, help="The first answer for Table 11 (default 1,0, or the first possible).")
@click.option("--second-round/--no-second-round", default=True, help="Compute Table 12 (slower on big games).")
@force_option
@json_option
def tables(rules: Rules, answer: str | None, second_round: bool, force: bool, as_json: bool) -> None:
    """Kooi's tables for any rule set: first-guess partitions, largest part, expected size, entropy, parts."""
    from keypeg.analysis.cost import SCORING, SELECTION, tables_cost
    from keypeg.cli.options import guard

    refuse_empty("variant", "answer")
    if answer is not None:
        given = rules.parse_feedback(answer)
    else:
        given = next((f for f in rules.feedbacks() if (f.black, f.white) == (1, 0)), rules.feedbacks()[0])
    guard(tables_cost(rules, second_round=second_round), force)
    announce_compiling((SCORING, SELECTION))  # the tables use no symmetry kernel: it stays uncompiled
    from keypeg.analysis.tables import first_guess_classes, first_guess_table

    with interruptible(), progress_bar("first-guess classes", len(first_guess_classes(rules))) as advance:
        rows = first_guess_table(rules, answer=given, second_round=second_round, progress=advance)
    if as_json:
        print_json(
            {"rules": rules.describe(), "answer": rules.key(given), "first_guesses": [r.as_dict() for r in rows]}
        )
        return
    heads = [str(r.guess) for r in rows]
    partition = _table("Table 2: codes per answer to each first guess", "answer", heads)
    for feedback in rules.feedbacks():
        partition.add_row(rules.show(feedback), *[_blank_zero(r.partition[feedback]) for r in rows])
    partition.add_section()
    partition.add_row("total", *[str(sum(r.partition.values())) for r in rows])
    print_fitted(partition)
    figures = _table("Tables 3-6 and 11", "", heads)
    figures.add_row("3 largest part", *[str(r.largest) for r in rows])
    figures.add_row("4 expected size", *[figure(r.expected_size, 1) for r in rows])
    figures.add_row("5 entropy (bits)", *[figure(r.entropy, 3) for r in rows])
    figures.add_row("6 number of parts", *[str(r.parts) for r in rows])
    figures.add_row(f"11 kinds of partition after {rules.show(given)}", *[str(r.partitions_after) for r in rows])
    print_fitted(figures)
    if second_round:
        second = _table("Table 12: most parts a second guess makes of each part", "answer", heads)
        for feedback in rules.feedbacks():
            second.add_row(rules.show(feedback), *[_blank_zero((r.second_round or {}).get(feedback, 0)) for r in rows])
        second.add_section()
        second.add_row("total", *[str(sum((r.second_round or {}).values())) for r in rows])
        print_fitted(second)


def _table(title: str, first: str, heads: list[str]) -> Table:
    table = new_table(title=title, title_justify="left", show_edge=False)
    table.add_column(first)
    for head in heads:
        table.add_column(head, justify="right")
    return table


def _blank_zero(n: int) -> str:
    return str(n) if n else ""


@app.command(name="next")
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@strategy_option
@rules_options
@threads_option
@convention_options
@click.option(
    "--explain",
    "--verbose",
    "explain",
    is_flag=True,
    help="Show the score-set table behind the choice (the verbose view).",
)
@click.option("--top", type=click.IntRange(1, 12), default=4, show_default=True, help="Guesses shown by --explain.")
@force_option
@json_option
def next_guess(
    scored: tuple[str, ...],
    strategies: tuple[str, ...],
    rules: Rules,
    strategy_factory: Callable[[str, Rules], Strategy],
    explain: bool,
    top: int,
    force: bool,
    as_json: bool,
) -> None:
    """The strategy's next guess after the scored guesses."""
    from keypeg.analysis.advice import enumeration_cost
    from keypeg.analysis.cost import EVERYDAY_KERNELS, OPTIMAL_SEARCH, SCORING
    from keypeg.cli.options import guard
    from keypeg.services.advice import next_guess
    from keypeg.strategies import canonical_name, playable, scores_every_code

    refuse_empty("variant", "first")
    if len(strategies) > 1:
        raise KeypegError("name one strategy for 'next'")
    name = canonical_name(strategies[0]) if strategies else "worst-case"
    history = tuple(parse_history(rules, scored))
    _, note = playable(name, rules)
    made: list[Strategy] = []

    def make(wanted: str) -> Strategy:
        made.append(strategy_factory(wanted, rules))
        return made[-1]

    def thinking(strategy: Strategy, fitting: int | None) -> AbstractContextManager[object]:
        if fitting is None:  # the genetic codebreaker on a game too large to score every code
            if note is not None:
                say(f"note: {note}", console=err)
            announce_compiling((SCORING,))
            return interruptible()
        if not err.is_terminal:
            return interruptible()
        return _both(err.status(f"{strategy.name}: thinking over {plural(fitting, 'code')}"), interruptible())

    if scores_every_code(rules):
        guard(enumeration_cost(rules, name), force)  # memory first: the codes are enumerated
        announce_compiling((*EVERYDAY_KERNELS, OPTIMAL_SEARCH) if name == "optimal" else None)
    elif rules.size * len(history) > 20_000 and rules.size <= 2_000_000:
        announce_compiling()
    choice = next_guess(
        rules,
        history,
        name,
        top=top if explain else 1,
        check=lambda estimate: guard(estimate, force),
        make=make,
        thinking=thinking,
    )
    strategy, enumerated = made[-1], scores_every_code(rules)
    if as_json:
        data: dict[str, Any] = {"guess": str(choice.guess)}
        if enumerated:
            data["candidates"] = choice.fitting
        data["conventions"] = strategy.conventions()
        if note is not None:
            data["note"] = note
        if explain and enumerated:
            data["explain"] = [g.as_dict() for g in choice.ranked]
        print_json(data)
        return
    say(str(choice.guess))
    if not explain:
        return
    if not enumerated:
        say("--explain (--verbose) needs a game small enough to score every code", console=err)
        return
    fitting = choice.fitting or 0
    say(f"{plural(fitting, 'code')} {'fits' if fitting == 1 else 'fit'}; {strategy.name} plays {choice.guess}")
    print_fitted(explanation_table(rules, choice))


@contextmanager
def _both(first: AbstractContextManager[object], second: AbstractContextManager[object]) -> Iterator[None]:
    """Two context managers entered in turn (a spinner, then Ctrl-C's handling), left in reverse."""
    with first, second:
        yield


def explanation_table(rules: Rules, choice: Choice) -> Table:
    """The score-set table: codes left after each answer, the chosen guess first, then the runners-up."""
    ranked = choice.ranked
    table = _table("codes left after each answer", "answer", [str(g.guess) for g in ranked])
    for feedback in rules.feedbacks():
        if any(feedback in g.parts for g in ranked):
            table.add_row(rules.show(feedback), *[_blank_zero(g.parts.get(feedback, 0)) for g in ranked])
    table.add_section()
    table.add_row("largest part", *[str(g.largest) for g in ranked])
    table.add_row("expected size", *[figure(g.expected_size, 2) for g in ranked])
    table.add_row("entropy (bits)", *[figure(g.entropy, 3) for g in ranked])
    table.add_row("parts", *[str(g.number_of_parts) for g in ranked])
    table.add_row("could be the secret", *["yes" if g.fits else "no" for g in ranked])
    return table


@app.command()
@click.argument("treefile", type=FILE)
@force_option
@json_option
def verify(treefile: Path, force: bool, as_json: bool) -> None:
    """Replay a saved strategy tree (JSON, from 'analyze --export FILE') against every secret and check it."""
    from keypeg.analysis.cost import tree_file_cost, verify_cost
    from keypeg.cli.options import guard

    guard(tree_file_cost(treefile), force)
    from keypeg.strategy_tree import load_tree

    tree = load_tree(treefile)
    rules = tree.rules
    if rules.size > rules_limit():
        raise TooLargeError(f"{rules.describe()} has {plural(rules.size, 'code')}: too many to verify a tree against")
    guard(verify_cost(rules, treefile), force)
    announce_compiling()
    from keypeg.strategy_tree import verify_tree

    with interruptible(), progress_bar("verifying", rules.size) as advance:
        result = verify_tree(tree, progress=advance)
    if as_json:
        print_json({"ok": result.ok, **result.stats.as_dict(), "problems": result.problems})
    elif result.ok:
        s = result.stats
        say(
            f"{rules.describe()}: {plural(s.secrets, 'secret')}, {plural(s.total, 'guess', 'guesses')}, "
            f"average {figure(s.average, 4)}, worst case {s.max}"
        )
        out.print("verified")
    if not result.ok:  # one line: the first problem, and how many more ('--json' lists them all)
        first, *others = result.problems
        more = f" (and {plural(len(others), 'more problem')}: --json lists them)" if others else ""
        raise KeypegError(f"{visible(str(treefile))} is NOT verified: {visible(first)}{more}")


def rules_limit() -> int:
    from keypeg.limits import MAX_SPACE

    return MAX_SPACE


@app.command()
@click.argument("what", nargs=-1, required=True, metavar="GAME_ID | TREEFILE SECRET")
@click.option("--coach/--no-coach", default=True, help="With a stored game: the coach's comment on each guess.")
@db_option
@force_option
@json_option
def replay(what: tuple[str, ...], coach: bool, db: str | None, force: bool, as_json: bool) -> None:
    """Show a stored game again (GAME_ID, with the coach's comments), or the guesses a saved strategy
    tree (JSON, from 'analyze --export FILE') plays against SECRET (TREEFILE SECRET)."""
    if len(what) == 1 and what[0].isascii() and what[0].isdigit():
        if len(what[0]) > 18:
            raise KeypegError(f"there is no game {visible(what[0], 40)}")
        from keypeg.cli.records import replay_game

        replay_game(int(what[0]), db, coach, as_json)
        return
    if len(what) != 2:
        raise KeypegError("replay takes a game number (see 'keypeg history'), or a tree file and a secret")
    from keypeg.analysis.cost import tree_file_cost
    from keypeg.cli.options import guard

    path = Path(what[0])
    if not what[0].strip():
        raise click.UsageError("the tree file needs a name, not empty text")
    guard(tree_file_cost(path), force)
    from keypeg.strategy_tree import load_tree

    tree = load_tree(path)
    played = tree.replay(read_code(tree.rules, what[1]))
    if as_json:
        print_json({"guesses": [{"guess": str(g), "black": f.black, "white": f.white} for g, f in played]})
        return
    for k, (guess, feedback) in enumerate(played, 1):
        say(f"{k:>2}. {guess}  {tree.rules.show(feedback)}")


__all__ = [
    "tree_format_option",
    "analyze",
    "tables",
    "next_guess",
    "verify",
    "replay",
    "figure",
    "plural",
    "say",
    "announce_compiling",
]
