"""Commands for strategies and analysis: analyze, tables, next, verify, replay."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from keypeg.cli.common import SEED, err, json_option, out, parse_history, print_json, rules_options
from keypeg.cli.common import cli as app
from keypeg.cli.render import new_table
from keypeg.errors import KeypegError
from keypeg.rules import Rules
from keypeg.strategies import NAMES, make_strategy

if TYPE_CHECKING:
    from rich.table import Table

    from keypeg.analysis.tree import StrategyTree
    from keypeg.strategies import Choice, Strategy

F = TypeVar("F", bound=Callable[..., Any])

COMPARED = ("simple", "worst-case", "expected-size", "entropy", "most-parts")


def convention_options(command: F) -> F:
    """Options for the conventions that change a strategy's totals."""

    @click.option("--first", metavar="CODE", help="First guess (default: the strategy's own choice).")
    @click.option(
        "--pool", type=click.Choice(["all", "consistent"]), help="Guess from all codes or only those that fit."
    )
    @click.option(
        "--tie",
        type=click.Choice(["first", "last", "random"]),
        default="first",
        show_default=True,
        help="Among equal guesses (fitting ones preferred): first or last in order, or random.",
    )
    @click.option("--seed", type=SEED, help="Seed for random choices.")
    @functools.wraps(command)
    def wrapper(*args: Any, first: str | None, pool: str | None, tie: str, seed: int | None, **kwargs: Any) -> Any:
        def build(name: str, rules: Rules) -> Strategy:
            return make_strategy(name, first=rules.parse(first) if first else None, pool=pool, tie=tie, seed=seed)

        return command(*args, strategy_factory=build, **kwargs)

    return wrapper  # type: ignore[return-value]


strategy_option = click.option(
    "--strategy",
    "-s",
    "strategies",
    multiple=True,
    metavar="NAME",
    help=f"Strategy: {', '.join(NAMES)} (aliases knuth, irving, neuwirth, kooi, shapiro).",
)


@contextmanager
def progress_bar(label: str, total: int) -> Iterator[Callable[[int], None]]:
    """A Rich progress bar on stderr; yields the function that advances it."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C stops the work cleanly: one line, exit code 130."""
    try:
        yield
    except KeyboardInterrupt:
        err.print("interrupted: nothing was saved")
        sys.exit(130)


def result_dict(tree: StrategyTree) -> dict[str, Any]:
    data = tree.stats.as_dict()
    data["seconds"] = round(tree.seconds, 4)
    data["conventions"] = tree.conventions
    return data


@app.command()
@strategy_option
@rules_options
@convention_options
@click.option("--compare", is_flag=True, help=f"Run several strategies (default: {', '.join(COMPARED)}) side by side.")
@click.option("--chart", type=click.Path(dir_okay=False, path_type=Path), help="Save a bar chart (PNG or SVG).")
@click.option("--export", type=click.Path(dir_okay=False, path_type=Path), help="Save the strategy tree.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "text", "lookup"]),
    default="json",
    show_default=True,
    help="Tree format for --export.",
)
@json_option
def analyze(
    strategies: tuple[str, ...],
    rules: Rules,
    strategy_factory: Callable[[str, Rules], Strategy],
    compare: bool,
    chart: Path | None,
    export: Path | None,
    fmt: str,
    as_json: bool,
) -> None:
    """Play a strategy against every secret: total guesses, average, worst case, secrets per round."""
    from keypeg.analysis.export import save_tree
    from keypeg.analysis.tree import build_tree

    names = list(strategies) or (list(COMPARED) if compare else ["worst-case"])
    if len(names) > 1 and export is not None:
        raise KeypegError("--export saves one tree: name one strategy")
    built = []
    with interruptible():
        for name in names:
            strategy = strategy_factory(name, rules)
            with progress_bar(f"{strategy.name} on {rules.pegs}x{rules.colors}", rules.size) as advance:
                built.append(build_tree(strategy, rules, progress=advance))
    if export is not None:
        save_tree(built[0], export, fmt)
    if chart is not None:
        save_chart(built, chart)
    if as_json:
        results = [result_dict(tree) for tree in built]
        print_json(results[0] if len(results) == 1 else {"rules": rules.describe(), "results": results})
        return
    out.print(f"[bold]{rules.describe()}[/]: {rules.size:,} secrets")
    out.print(analysis_table(built))
    tie = built[0].conventions["tie"]
    out.print(f"ties: a code that could be the secret first, then the {tie} in order")
    if export is not None:
        out.print(f"tree saved to {export} ({fmt})")
    if chart is not None:
        out.print(f"chart saved to {chart}")


def analysis_table(built: list[StrategyTree]) -> Table:
    """Secrets solved per round, totals, averages and worst cases, one column per tree."""
    table = new_table(show_edge=False)
    table.add_column("round", justify="right")
    rounds = range(1, max(tree.stats.max for tree in built) + 1)
    for tree in built:
        c = tree.conventions
        table.add_column(f"{c['strategy']}\nfrom {tree.root.guess}", justify="right")
    for r in rounds:
        table.add_row(str(r), *[str(tree.stats.distribution.get(r, 0)) for tree in built])
    table.add_section()
    table.add_row("total", *[f"{tree.stats.total:,}" for tree in built])
    table.add_row("average", *[f"{tree.stats.average:.4f}" for tree in built])
    table.add_row("worst", *[str(tree.stats.max) for tree in built])
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
@click.option("--answer", default=None, help="The first answer for Table 11 (default 1,0, or the first possible).")
@click.option("--second-round/--no-second-round", default=True, help="Compute Table 12 (slower on big games).")
@json_option
def tables(rules: Rules, answer: str | None, second_round: bool, as_json: bool) -> None:
    """Kooi's tables for any rule set: first-guess partitions, largest part, expected size, entropy, parts."""
    from keypeg.analysis.tables import first_guess_classes, first_guess_table

    if answer is not None:
        given = rules.parse_feedback(answer)
    else:
        given = next((f for f in rules.feedbacks() if (f.black, f.white) == (1, 0)), rules.feedbacks()[0])
    with interruptible(), progress_bar("first-guess classes", len(first_guess_classes(rules))) as advance:
        rows = first_guess_table(rules, answer=given, second_round=second_round, progress=advance)
    if as_json:
        print_json({"rules": rules.describe(), "answer": str(given), "first_guesses": [r.as_dict() for r in rows]})
        return
    heads = [str(r.guess) for r in rows]
    partition = _table("Table 2: codes per answer to each first guess", "answer", heads)
    for feedback in rules.feedbacks():
        partition.add_row(str(feedback), *[_blank_zero(r.partition[feedback]) for r in rows])
    partition.add_section()
    partition.add_row("total", *[str(sum(r.partition.values())) for r in rows])
    out.print(partition)
    figures = _table("Tables 3-6 and 11", "", heads)
    figures.add_row("3 largest part", *[str(r.largest) for r in rows])
    figures.add_row("4 expected size", *[f"{r.expected_size:.1f}" for r in rows])
    figures.add_row("5 entropy (bits)", *[f"{r.entropy:.3f}" for r in rows])
    figures.add_row("6 number of parts", *[str(r.parts) for r in rows])
    figures.add_row(f"11 kinds of partition after {given}", *[str(r.partitions_after) for r in rows])
    out.print(figures)
    if second_round:
        second = _table("Table 12: most parts a second guess makes of each part", "answer", heads)
        for feedback in rules.feedbacks():
            second.add_row(str(feedback), *[_blank_zero((r.second_round or {}).get(feedback, 0)) for r in rows])
        second.add_section()
        second.add_row("total", *[str(sum((r.second_round or {}).values())) for r in rows])
        out.print(second)


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
@convention_options
@click.option("--explain", is_flag=True, help="Show the score-set table behind the choice.")
@click.option("--top", type=click.IntRange(1, 12), default=4, show_default=True, help="Guesses shown by --explain.")
@json_option
def next_guess(
    scored: tuple[str, ...],
    strategies: tuple[str, ...],
    rules: Rules,
    strategy_factory: Callable[[str, Rules], Strategy],
    explain: bool,
    top: int,
    as_json: bool,
) -> None:
    """The strategy's next guess after the scored guesses."""
    from keypeg.knowledge import Knowledge
    from keypeg.limits import LOOKAHEAD_LIMIT
    from keypeg.play.levels import strategy_for

    if len(strategies) > 1:
        raise KeypegError("name one strategy for 'next'")
    knowledge = Knowledge(rules, tuple(parse_history(rules, scored)))
    if not knowledge.is_consistent:
        raise KeypegError(knowledge.check().message())
    if knowledge.solved:
        raise KeypegError(f"the code is already broken: {knowledge.history[-1][0]}")
    name = strategies[0] if strategies else "worst-case"
    if rules.size > LOOKAHEAD_LIMIT:
        strategy, note = strategy_for(name, rules)
        err.print(f"note: {note}")
        guess_code = strategy.next_guess(knowledge)
        if as_json:
            print_json({"guess": str(guess_code), "conventions": strategy.conventions(), "note": note})
        else:
            out.print(str(guess_code))
            if explain:
                err.print("--explain needs a game small enough to score every code")
        return
    strategy = strategy_factory(name, rules)
    strategy.reset(rules)
    thinking = (
        err.status(f"{strategy.name}: thinking over {knowledge.count:,} codes") if err.is_terminal else nullcontext()
    )
    with thinking, interruptible():
        choice = strategy.rank(knowledge, top=top if explain else 1)
    if as_json:
        data: dict[str, Any] = {
            "guess": str(choice.guess),
            "candidates": choice.fitting,
            "conventions": strategy.conventions(),
        }
        if explain:
            data["explain"] = [g.as_dict() for g in choice.ranked]
        print_json(data)
        return
    out.print(f"{choice.guess}")
    if not explain:
        return
    out.print(f"{choice.fitting:,} codes fit; {strategy.name} plays {choice.guess}")
    out.print(explanation_table(rules, choice))


def explanation_table(rules: Rules, choice: Choice) -> Table:
    """The score-set table: codes left after each answer, the chosen guess first, then the runners-up."""
    ranked = choice.ranked
    table = _table("codes left after each answer", "answer", [str(g.guess) for g in ranked])
    for feedback in rules.feedbacks():
        if any(feedback in g.parts for g in ranked):
            table.add_row(str(feedback), *[_blank_zero(g.parts.get(feedback, 0)) for g in ranked])
    table.add_section()
    table.add_row("largest part", *[str(g.largest) for g in ranked])
    table.add_row("expected size", *[f"{g.expected_size:.2f}" for g in ranked])
    table.add_row("entropy (bits)", *[f"{g.entropy:.3f}" for g in ranked])
    table.add_row("parts", *[str(g.number_of_parts) for g in ranked])
    table.add_row("could be the secret", *["yes" if g.fits else "no" for g in ranked])
    return table


@app.command()
@click.argument("treefile", type=click.Path(dir_okay=False, path_type=Path))
@json_option
def verify(treefile: Path, as_json: bool) -> None:
    """Replay a saved strategy tree (JSON) against every secret and check it."""
    from keypeg.analysis.export import load_tree, verify_tree

    tree = load_tree(treefile)
    result = verify_tree(tree)
    if as_json:
        print_json({"ok": result.ok, **result.stats.as_dict(), "problems": result.problems})
    else:
        s = result.stats
        out.print(
            f"{tree.rules.describe()}: {s.secrets:,} secrets, {s.total:,} guesses, average {s.average:.4f}, "
            f"worst case {s.max}"
        )
        for problem in result.problems:
            err.print(f"problem: {problem}")
        out.print("verified" if result.ok else f"[bold red]NOT verified[/]: {len(result.problems)} problem(s)")
    if not result.ok:
        sys.exit(1)


@app.command()
@click.argument("what", nargs=-1, required=True, metavar="GAME_ID | TREEFILE SECRET")
@click.option("--coach/--no-coach", default=True, help="With a stored game: the coach's comment on each guess.")
@click.option("--db", envvar="KEYPEG_DB", metavar="URL", help="Database URL, for a stored game.")
@json_option
def replay(what: tuple[str, ...], coach: bool, db: str | None, as_json: bool) -> None:
    """Show a stored game again (GAME_ID, with the coach's comments), or the guesses a saved strategy
    tree plays against SECRET (TREEFILE SECRET)."""
    if len(what) == 1 and what[0].isdigit():
        from keypeg.cli.records import replay_game

        replay_game(int(what[0]), db, coach, as_json)
        return
    if len(what) != 2:
        raise KeypegError("replay takes a game number (see 'keypeg history'), or a tree file and a secret")
    from keypeg.analysis.export import load_tree

    tree = load_tree(Path(what[0]))
    played = tree.replay(tree.rules.parse(what[1]))
    if as_json:
        print_json({"guesses": [{"guess": str(g), "black": f.black, "white": f.white} for g, f in played]})
        return
    for k, (guess, feedback) in enumerate(played, 1):
        out.print(f"{k:>2}. {guess}  {feedback}")


__all__ = ["analyze", "tables", "next_guess", "verify", "replay"]
