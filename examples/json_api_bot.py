"""A bot that plays Mastermind on a running ``keypeg serve`` through its JSON API.

It shows the whole round trip a bot makes, with nothing but ``httpx`` and keypeg's public API:

1. ``GET /api/session`` opens a session (a cookie) and returns its CSRF token, which every request that
   changes something sends back as ``X-CSRF-Token``;
2. ``POST /api/games`` starts a game against the server's secret (with an ``Idempotency-Key``, so a retried
   request never starts a second game);
3. ``POST /api/games/{id}/guesses`` plays each guess (with its ``row``, so a guess sent twice is refused
   rather than played twice) and answers its score, and the secret once the game is over.

The guesses are chosen here, on the bot's side, by ``keypeg.best_guess`` from the history the server
returned; the server's rules come back with the game, so any rule set the server plays works.

Run a server in one terminal and the bot in another::

    keypeg serve --port 8000
    python examples/json_api_bot.py --url http://127.0.0.1:8000 --games 3
    python examples/json_api_bot.py --games 2 --variant mini --strategy entropy

The games are practice games (never ranked) unless ``--rated``. The API is documented at ``/docs`` on the
server. Needs ``httpx`` (``pip install 'keypeg[web]'``).
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx

import keypeg

RETRIES = 3
"""How often a request refused with 429 (past the server's fair share) is tried again, after Retry-After."""
LONGEST_WAIT = 10.0
"""The longest Retry-After, in seconds, the bot waits out before giving up."""


class BotError(Exception):
    """What stops the bot, in one line."""


def call(client: httpx.Client, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
    """The JSON answer to one request; a 429 is retried after its Retry-After, any other error is a
    :class:`BotError` carrying the server's one-line ``error``."""
    for attempt in range(RETRIES + 1):
        try:
            answer = client.request(method, path, **kwargs)
        except httpx.HTTPError as error:
            raise BotError(f"cannot reach {client.base_url}: {error}") from None
        wait = float(answer.headers.get("retry-after", "1") or 1)
        if answer.status_code == 429 and attempt < RETRIES and wait <= LONGEST_WAIT:
            time.sleep(wait)  # the server asked for this pause
            continue
        if answer.is_error:
            try:
                said = answer.json().get("error", answer.text)
            except ValueError:
                said = answer.text[:200]
            raise BotError(f"{method} {path}: {answer.status_code} {said}")
        data: dict[str, Any] = answer.json()
        return data
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Played:
    """One game: how many guesses, and whether the bot won."""

    guesses: int
    won: bool


def play_one(client: httpx.Client, rules_asked: dict[str, Any], args: argparse.Namespace, number: int) -> Played:
    """Play one game to its end, printing each move."""
    body = {**rules_asked, "role": "breaker", "practice": not args.rated}
    game = call(client, "POST", "/api/games", json=body, headers={"Idempotency-Key": str(uuid.uuid4())})
    rules = keypeg.Rules.from_dict(game["rules"])
    history = keypeg.History(rules)
    try:  # the first guess before the game is shown: a strategy too costly for these rules says so at once
        choice = keypeg.best_guess(history, strategy=args.strategy, seed=args.seed, force=args.force)
    except keypeg.KeypegError:
        call(client, "POST", f"/api/games/{game['id']}/resign")  # no game left open on the server
        raise
    print(f"game {number} ({game['id']}): {f'{rules.name}, ' if rules.name else ''}{rules.describe()}")
    while game["status"] == "playing":
        if history:
            choice = keypeg.best_guess(history, strategy=args.strategy, seed=args.seed, force=args.force)
        row = len(history) + 1
        game = call(client, "POST", f"/api/games/{game['id']}/guesses", json={"code": str(choice.guess), "row": row})
        feedback = keypeg.Feedback(game["black"], game["white"])
        history = history.add(choice.guess, feedback)
        possible = "" if choice.fitting is None else f"{choice.fitting:,} possible before it"
        print(f"  {row:>2}. {choice.guess}  {rules.drawn(feedback)}  {rules.say(feedback):<20} {possible}")
    outcome = "won" if game["status"] == "won" else "lost"
    print(f"  {outcome} in {len(history)} guesses; the secret was {game['secret']}")
    return Played(len(history), game["status"] == "won")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the server (default: %(default)s)")
    parser.add_argument("--games", type=int, default=3, help="how many games to play (default: %(default)s)")
    parser.add_argument("--variant", help="a preset (the server's default, classic, if not given)")
    parser.add_argument("--pegs", type=int, help="pegs (changes the preset)")
    parser.add_argument("--colors", type=int, help="colours (changes the preset)")
    parser.add_argument("--strategy", default="knuth", help="the strategy choosing the guesses (default: %(default)s)")
    parser.add_argument("--seed", type=int, help="seed of a strategy that draws at random")
    parser.add_argument("--rated", action="store_true", help="play rated games (practice games by default)")
    parser.add_argument(
        "--force",
        action="store_true",
        help="do the work keypeg's cost guard refuses as too long (the library's force=True)",
    )
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    try:  # the strategy's name (or an alias: knuth, irving, ...) and the seed checked before any game starts
        keypeg.best_guess(keypeg.Rules(2, 2), strategy=args.strategy, seed=args.seed)
    except keypeg.KeypegError as error:
        parser.error(str(error))
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    asked = {name: getattr(args, name) for name in ("variant", "pegs", "colors") if getattr(args, name) is not None}
    played: list[Played] = []
    try:
        with httpx.Client(base_url=args.url, timeout=60) as client:
            csrf = call(client, "GET", "/api/session")["csrf"]
            client.headers["X-CSRF-Token"] = csrf
            for number in range(1, args.games + 1):
                played.append(play_one(client, asked, args, number))
    except (BotError, keypeg.KeypegError) as error:  # the library's force=True is --force here
        print(f"error: {str(error).replace('force=True', '--force')}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    won = [game.guesses for game in played if game.won]
    average = f", {sum(won) / len(won):.2f} guesses on average" if won else ""
    print(f"won {len(won)} of {len(played)} games{average}")
    return 0 if len(won) == len(played) else 1


if __name__ == "__main__":
    raise SystemExit(main())
