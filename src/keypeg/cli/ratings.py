"""``keypeg ratings``: the Glicko-2 rating leaderboard of games between people, one player's rating and
its changes, and a check that every stored rating replays to the same value (``--recompute``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
from rich.text import Text

from keypeg.cli.common import cli, fail, json_option, out, print_json, show_view
from keypeg.cli.options import db_option
from keypeg.cli.render import new_table, plain
from keypeg.text import plural

if TYPE_CHECKING:
    from rich.console import RenderableType

    from keypeg.play.ratings import Rating
    from keypeg.services.ratings import PlayerRating, RatingChange
    from keypeg.services.stores import Store

__all__ = ["leaderboard_view", "ratings", "show_leaderboard"]


def _rating_json(rating: Rating) -> dict[str, float]:
    return {"rating": round(rating.rating, 2), "rd": round(rating.rd, 2), "volatility": round(rating.volatility, 6)}


def _player_json(player: PlayerRating, rank: int | None = None) -> dict[str, Any]:
    shown: dict[str, Any] = {"rank": rank} if rank is not None else {}
    shown.update(
        player=player.player,
        **_rating_json(player.rating),
        provisional=player.provisional,
        results=player.results,
        last=player.last.isoformat() if player.last is not None else None,
    )
    return shown


def _change_json(change: RatingChange) -> dict[str, Any]:
    return {
        "kind": change.kind,
        "event": change.event_id,
        "at": change.at.isoformat(),
        "before": _rating_json(change.before),
        "after": _rating_json(change.after),
        "change": round(change.change, 2),
    }


def _shown(player: PlayerRating) -> str:
    return f"{player.rating.rating:.0f}{'?' if player.provisional else ''}"


def leaderboard_view(store: Store, limit: int = 10) -> tuple[dict[str, Any], RenderableType, Text | None]:
    """The rating leaderboard as JSON, as a Rich table (or a line when nobody is rated) and its note."""
    from keypeg.services import ratings as service

    board = service.leaderboard(store, limit=limit)
    rule = service.RATING_RULE
    shown = {"rule": rule, "ratings": [_player_json(p, rank) for rank, p in service.ranked(board)]}
    if not board:
        return shown, Text("nobody is rated yet: ratings come from live matches and rooms between people"), None
    table = new_table(title=Text(f"top {limit}: ratings"), show_edge=False)
    for column in ("#", "player", "rating", "RD", "results", "latest"):
        table.add_column(column, justify="left" if column in ("player", "latest") else "right")
    for rank, p in service.ranked(board):  # a provisional rating: listed after the ranks, with none
        latest = p.last.strftime("%Y-%m-%d") if p.last is not None else "-"
        table.add_row(
            "" if rank is None else str(rank), plain(p.player), _shown(p), f"{p.rating.rd:.0f}", str(p.results), latest
        )
    return shown, table, Text(f"{rule} (? marks a provisional rating: no rank)")


def show_leaderboard(store: Store, as_json: bool, limit: int = 10) -> None:
    """Print the rating leaderboard (a Rich table, or JSON)."""
    show_view(*leaderboard_view(store, limit), as_json)


@cli.command(
    help="The rating leaderboard, one player's rating, or a check of every rating.\n\n"
    "Glicko-2 ratings of live matches and rooms between people; a new player's first rated classic games "
    "against the computer seed them; guests are never rated."
)
@click.option("--player", metavar="NAME", help="Show this player's rating and its changes.")
@click.option("--recompute", is_flag=True, help="Replay every stored result and show any drift (exit 1 if some).")
@click.option("--limit", "-n", type=click.IntRange(1, 1000), default=10, show_default=True)
@db_option
@json_option
def ratings(player: str | None, recompute: bool, limit: int, db: str | None, as_json: bool) -> None:
    from keypeg.services.stores import open_store

    store = open_store(db)
    if recompute:
        _recompute(store, as_json)
    elif player is not None:
        _player(store, player, limit, as_json)
    else:
        show_leaderboard(store, as_json, limit)


def _recompute(store: Store, as_json: bool) -> None:
    from keypeg.services import ratings as service

    drifts = service.recompute(store)
    if as_json:
        print_json(
            {
                "drift": [
                    {
                        "player": d.player,
                        "stored": _rating_json(d.stored) if d.stored else None,
                        "replayed": _rating_json(d.replayed) if d.replayed else None,
                    }
                    for d in drifts
                ]
            }
        )
    elif not drifts:
        out.print(Text(f"no drift: {plural(service.result_count(store), 'result')} replayed to the stored ratings"))
    else:
        table = new_table(title=Text("drift: stored ratings that replaying the results does not give"))
        for column in ("player", "stored", "replayed", "difference"):
            table.add_column(column, justify="left" if column == "player" else "right")
        for d in drifts:
            stored = f"{d.stored.rating:.2f} ±{d.stored.rd:.2f}" if d.stored else "-"
            replayed = f"{d.replayed.rating:.2f} ±{d.replayed.rd:.2f}" if d.replayed else "-"
            diff = f"{d.stored.rating - d.replayed.rating:+.4f}" if d.stored and d.replayed else "-"
            table.add_row(plain(d.player), stored, replayed, diff)
        out.print(table)
    if drifts:
        raise SystemExit(1)


def _player(store: Store, name: str, limit: int, as_json: bool) -> None:
    from keypeg.services import ratings as service

    rating = service.rating_of(store, name)
    made = service.changes(store, name, limit=limit)
    if rating is None and not service.known(store, name):
        fail(f"no player named {name!r}", 2)
    if as_json:
        print_json(
            {
                "player": name,
                "rating": _player_json(rating) if rating is not None else None,
                "changes": [_change_json(c) for c in made],
            }
        )
        return
    if rating is None:
        out.print(Text.assemble(plain(name), " is not rated yet"))
        return
    state = "provisional" if rating.provisional else "established"
    out.print(
        Text.assemble(
            plain(rating.player),
            f": {rating.rating.rating:.0f} (RD {rating.rating.rd:.0f}, volatility {rating.rating.volatility:.4f}, ",
            f"{state}) after {plural(rating.results, 'rated result')}",
        )
    )
    table = new_table(title=Text("rating changes, newest first"), show_edge=False)
    for column in ("when", "result", "before", "after", "change"):
        table.add_column(column, justify="left" if column in ("when", "result") else "right", overflow="fold")
    for c in made:
        table.add_row(
            c.at.strftime("%Y-%m-%d %H:%M"),
            Text.assemble(c.kind, " ", plain(c.event_id)),
            f"{c.before.rating:.0f} ±{c.before.rd:.0f}",
            f"{c.after.rating:.0f} ±{c.after.rd:.0f}",
            f"{c.change:+.1f}",
        )
    out.print(table)
