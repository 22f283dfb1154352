"""The top 10 is honest: each loophole that once let a game be faked onto it has a test here."""

from __future__ import annotations

import json
import random
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from keypeg import Feedback, Rules, find_variant
from keypeg.cli import cli
from keypeg.game import random_code
from keypeg.limits import MIN_RANKED_GAMES
from keypeg.play import codemakers
from keypeg.store import Store

CLASSIC = find_variant("classic").rules


class KnownSystemRandom(random.Random):
    """Stands in for the operating system's randomness in a test, so the test knows the secret (the
    game still counts as unpredictable, as it does for a player)."""


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'k.sqlite3'}"


def play(url: str, args: list[str], lines: list[str]) -> Result:
    result = CliRunner().invoke(cli, ["play", *args], input="".join(f"{line}\n" for line in lines),
                                env={"KEYPEG_DB": url})  # fmt: skip
    assert "Traceback" not in result.output + result.stderr
    return result


def rated_secret(monkeypatch: pytest.MonkeyPatch, seed: int) -> str:
    """Make the next rated game's secret known to the test; the secret."""
    monkeypatch.setattr(codemakers.random, "SystemRandom", lambda: KnownSystemRandom(seed))
    return str(random_code(CLASSIC, random.Random(seed)))


def top(url: str, *args: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(cli, ["top", *args, "--json"], env={"KEYPEG_DB": url})
    assert result.exit_code == 0, result.stderr
    return list(json.loads(result.stdout)["top"])


def win_rated(url: str, monkeypatch: pytest.MonkeyPatch, player: str, seed: int, guesses: int = 1) -> None:
    secret = rated_secret(monkeypatch, seed)
    wrong = [code for code in ("RRRR", "GGGG", "BBBB", "YYYY", "WWWW", "KKKK") if code != secret]
    assert play(url, ["--player", player], [*wrong[: guesses - 1], secret]).exit_code == 0


def test_a_rated_win_counts_and_the_minimum_is_needed(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for seed in range(MIN_RANKED_GAMES - 1):
        win_rated(url, monkeypatch, "ann", seed, guesses=2)
    assert top(url) == []  # one game short
    win_rated(url, monkeypatch, "ann", 99, guesses=2)
    (row,) = top(url)
    assert (row["player"], row["games"], row["average"], row["best"]) == ("ann", MIN_RANKED_GAMES, 2.0, 2)


@pytest.mark.parametrize(
    "options",
    [["--secret", "RGBY"], ["--seed", "3"], ["--practice"], ["--coach"], ["--adversarial"]],
    ids=["secret", "seed", "practice", "coach", "adversarial"],
)
def test_practice_games_never_count(url: str, monkeypatch: pytest.MonkeyPatch, options: list[str]) -> None:
    secret = rated_secret(monkeypatch, 5)
    for _ in range(MIN_RANKED_GAMES):
        known = "RGBY" if "--secret" in options else secret
        if "--seed" in options:
            known = str(random_code(CLASSIC, random.Random(3)))
        lines = ["h", known] if "--practice" in options else [known]
        play(url, ["--player", "cheat", *options], lines)
    games = Store(url).games.history("cheat", limit=None)
    assert len(games) == MIN_RANKED_GAMES and not any(g.rated for g in games)
    assert Store(url).records.top(CLASSIC, minimum=1) == [] and top(url) == []


def test_help_is_refused_in_a_rated_game_so_it_cannot_make_a_loss_practice(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = rated_secret(monkeypatch, 11)
    wrong = "RRRR" if secret != "RRRR" else "GGGG"
    result = play(url, ["--player", "ann"], [wrong, "u", "h", secret])
    assert result.exit_code == 0 and "no undo in a rated game" in result.stderr and "no hint" in result.stderr
    (game,) = Store(url).games.history("ann")
    assert (
        game.rated
        and game.guesses == 2
        and [m.guess for m in Store(url).games.record(game.id).moves] == [wrong, secret]
    )


@pytest.mark.parametrize("leave", [["q"], []], ids=["q", "end-of-input"])
def test_leaving_a_losing_game_counts_as_a_loss(url: str, monkeypatch: pytest.MonkeyPatch, leave: list[str]) -> None:
    secret = rated_secret(monkeypatch, 21)
    wrong = "RRRR" if secret != "RRRR" else "GGGG"
    result = play(url, ["--player", "ann"], [wrong, *leave])
    assert result.exit_code == 1 and result.stdout.splitlines()[-1] == secret
    (ranked,) = Store(url).records.top(CLASSIC, minimum=1)
    assert ranked.average == CLASSIC.rows + 1


def test_a_game_left_unfinished_counts_as_a_loss_until_it_is_won(url: str) -> None:
    from keypeg.play.codemakers import RandomCodemaker
    from keypeg.play.sessions import BreakSession
    from keypeg.services.recording import GameKeeper

    game = BreakSession.new(CLASSIC, RandomCodemaker.draw(CLASSIC))
    keeper = GameKeeper.start(Store(url), "ann", game)
    assert Store(url).records.top(CLASSIC, minimum=1) == []  # a rated game counts from its first guess
    secret = game.codemaker.reveal()
    game.guess(next(c for c in ("RRRR", "GGGG") if CLASSIC.parse(c) != secret))
    keeper.sync(game)  # the process is then killed, say
    assert [r.average for r in Store(url).records.top(CLASSIC, minimum=1)] == [CLASSIC.rows + 1]
    game.guess(secret)
    keeper.sync(game)
    assert [r.average for r in Store(url).records.top(CLASSIC, minimum=1)] == [2.0]


def test_a_game_lost_out_of_rows_counts_as_the_rows_plus_one(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    short = ["--variant", "classic", "--rows", "2"]
    secret = rated_secret(monkeypatch, 31)
    wrong = [c for c in ("RRRR", "GGGG", "BBBB") if c != secret][:2]
    result = play(url, ["--player", "ann", *short], wrong)
    assert result.exit_code == 1
    assert [(r["player"], r["average"]) for r in top(url, *short)] == [] and [
        r.average for r in Store(url).records.top(CLASSIC.replace(rows=2), minimum=1)
    ] == [3.0]  # 2 rows + 1, not the 2 guesses made
    assert Store(url).records.top(CLASSIC, minimum=1) == []  # 12-row classic is another board


def _rated(store: Store, player: str, guesses: int, rules: Rules = CLASSIC) -> int:
    game = store.games.start(player, rules, role="breaker", secret="RGBY", rated=True)
    moves = [("RRRR", Feedback(1, 0))] * (guesses - 1) + [("RGBY", Feedback(4, 0))]
    store.games.update(game, keep=0, moves=moves, outcome="solved")
    return game


def test_ties_go_to_more_games_then_to_who_got_there_first(url: str) -> None:
    store = Store(url)
    for player, games in (("early", 2), ("late", 2), ("many", 4)):
        for _ in range(games):
            _rated(store, player, 3)
    from sqlalchemy import text

    later = store.games.history("early")[0].started_at + timedelta(days=1)
    with store.engine.begin() as connection:  # "late" played its games a day after "early"
        connection.execute(
            text("UPDATE games SET started_at = :when WHERE player_id = (SELECT id FROM players WHERE name='late')"),
            {"when": later},
        )
    assert [r.player for r in store.records.top(CLASSIC, minimum=2)] == ["many", "early", "late"]
    _rated(store, "late", 2)
    assert store.records.top(CLASSIC, minimum=2)[0].player == "late"  # a better average beats everything


def test_top_help_states_the_rule() -> None:
    shown = CliRunner().invoke(cli, ["top", "--help"], env={"COLUMNS": "200"}).stdout
    squashed = " ".join(shown.split())
    for words in ("Only rated games count", f"needs {MIN_RANKED_GAMES} rated games", "row limit plus one", "Ties go"):
        assert words in squashed
