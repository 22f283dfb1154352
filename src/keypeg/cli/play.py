"""Play: ``play`` (you break the code), ``solve`` (the computer breaks yours), ``match``, ``hint``.

Piped, each speaks a line protocol (see README): ``play`` reads a guess per line and
prints ``B W``; ``solve`` prints a guess per line and reads ``B W``.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import click

from keypeg.cli.analysis import explanation_table, inconsistency_message
from keypeg.cli.common import cli, err, json_option, out, parse_history, print_json, rules_options
from keypeg.cli.records import MatchKeeper, Recorder, db_option, player_option, record_option
from keypeg.cli.session import Session, board, key_text, peg_text
from keypeg.code import Code, Feedback
from keypeg.errors import KeypegError
from keypeg.game import Game, Match, random_code
from keypeg.knowledge import Knowledge
from keypeg.rules import Rules

PLAY_HELP = "type a guess (e.g. {example}); commands: u = undo, h = hint, ? = help, q = quit"
SOLVE_HELP = (
    "score my guess as black and white, e.g. '2 1' or '2b1w'; commands: u = undo your last score, "
    "fix N B W = correct the score of guess N, ? = help, q = quit"
)
QUIT, UNDO, HELP, HINT = {"q", "quit", "exit"}, {"u", "undo"}, {"?", "help"}, {"h", "hint"}


@dataclass
class Result:
    """How a game went, for the caller (and a match)."""

    guesses: int
    broken: bool
    key_pegs: int
    secret: Code | None
    quit: bool = False


level_option = click.option(
    "--level", "-l", type=click.IntRange(1, 4), default=3, show_default=True,
    help="1 not so smart, 2 pretty smart, 3 smarter than you, 4 perfect.",
)  # fmt: skip
seed_option = click.option("--seed", type=int, help="Seed for the computer's random choices (same seed, same game).")


# -- you break the code ------------------------------------------------------------------------


def run_play(
    session: Session,
    rules: Rules,
    *,
    secret: Code | None = None,
    adversarial: bool = False,
    coach: bool = False,
    rng: random.Random | None = None,
    recorder: Recorder | None = None,
) -> Result:
    """The person guesses; keypeg scores. Returns when the code is broken, rows run out, or input ends."""
    from keypeg.play.adversary import Adversary

    adversary = Adversary(rules) if adversarial else None
    game = Game(rules, secret if secret is not None else None, rng=rng) if adversary is None else None
    history: list[tuple[Code, Feedback]] = []
    if session.interactive:
        maker = "an adversary that keeps its options open" if adversary else "a secret code"
        session.show(f"[bold]{rules.describe()}[/]: break {maker}. {PLAY_HELP.format(example=rules.example())}")
    while len(history) < rules.rows:
        line = session.read(f"guess {len(history) + 1}/{rules.rows}")
        if line is None:
            return Result(len(history), False, _pegs(history), None, quit=True)
        word = line.lower()
        if word in QUIT:
            return Result(len(history), False, _pegs(history), None, quit=True)
        if word in HELP:
            session.show(PLAY_HELP.format(example=rules.example()))
            continue
        if word in UNDO:
            if adversary is not None:
                session.warn("the adversary does not take guesses back")
            elif history:
                history.pop()
                assert game is not None
                game.pop()
                if recorder is not None:
                    recorder.undo(len(history) + 1)
                if session.interactive:
                    session.show(board(rules, history, "your board"))
            else:
                session.warn("nothing to undo")
            continue
        if word in HINT:
            session.show(f"hint: {_hint(rules, history)}")
            continue
        try:
            guess = rules.parse(line)
        except KeypegError as error:
            session.warn(str(error))
            continue
        before = history.copy()
        feedback = adversary.answer(guess) if adversary is not None else game.guess(guess)  # type: ignore[union-attr]
        history.append((guess, feedback))
        if recorder is not None:
            recorder.guess(len(history), guess, feedback)
        if session.interactive:
            session.show(board(rules, history, "your board"))
        else:
            session.answer(f"{feedback.black} {feedback.white}")
        if coach:
            _coach(session, rules, before, guess, feedback)
        if feedback == rules.win:
            if recorder is not None:
                recorder.finish(True, len(history), guess)
            if session.interactive:
                session.show(f"[bold green]Broken in {len(history)} guess{'es' if len(history) > 1 else ''}![/]")
            return Result(len(history), True, _pegs(history), guess)
    secret_code = adversary.secret() if adversary is not None else game.secret  # type: ignore[union-attr]
    if recorder is not None:
        recorder.finish(False, len(history), secret_code)
    if session.interactive:
        session.show(f"[bold red]Out of rows.[/] The secret was {secret_code}:")
        session.show(peg_text(rules, secret_code))
    else:
        session.answer(str(secret_code))
    return Result(len(history), False, _pegs(history), secret_code)


def _pegs(history: list[tuple[Code, Feedback]]) -> int:
    return sum(f.black + f.white for _, f in history)


def _hint(rules: Rules, history: list[tuple[Code, Feedback]]) -> str:
    from keypeg.play.levels import level_strategy

    knowledge = Knowledge(rules, tuple(history))
    if not knowledge.is_consistent:
        return "no code fits these scores"
    return str(level_strategy(3, rules).next_guess(knowledge))


def _coach(
    session: Session, rules: Rules, before: list[tuple[Code, Feedback]], guess: Code, feedback: Feedback
) -> None:
    from keypeg.limits import LOOKAHEAD_LIMIT
    from keypeg.play.coach import review

    if rules.size > LOOKAHEAD_LIMIT:
        session.warn(f"coach: {rules.size:,} codes are too many to review guesses")
        return
    knowledge = Knowledge(rules, tuple(before))
    if not knowledge.is_consistent:
        return
    line = review(knowledge, guess, feedback).line()
    if session.interactive:
        session.show(f"[cyan]coach:[/] {line}")
    else:
        session.err.print(f"coach: {line}", soft_wrap=True)


@cli.command()
@rules_options
@click.option("--secret", metavar="CODE", help="The code to break (set by someone else, or for tests).")
@click.option("--adversarial", is_flag=True, help="The computer commits to no secret and dodges your guesses.")
@click.option("--coach", is_flag=True, help="Review each guess: codes left, expected guesses, a rating.")
@seed_option
@player_option
@db_option
@record_option
def play(
    rules: Rules,
    secret: str | None,
    adversarial: bool,
    coach: bool,
    seed: int | None,
    player: str | None,
    db: str | None,
    record: bool,
) -> None:
    """Break the computer's code. Piped: a guess per line in, 'B W' per line out; exit 0 when broken,
    1 when the rows run out (the secret is printed)."""
    if secret is not None and adversarial:
        raise KeypegError("--secret and --adversarial do not go together")
    if adversarial and not Knowledge(rules).enumerable:
        raise KeypegError(f"the adversary needs a game it can enumerate; {rules.size:,} codes are too many")
    code = rules.parse(secret) if secret is not None else None
    if code is None and not adversarial:
        code = random_code(rules, random.Random(seed))
    session = Session.detect()
    recorder = Recorder.start(db, record, player, rules, role="breaker", secret=code, interactive=session.interactive)
    result = run_play(session, rules, secret=code, adversarial=adversarial, coach=coach, recorder=recorder)
    if result.quit and not session.interactive:
        session.warn("input ended before the code was broken")
        sys.exit(2)
    sys.exit(0 if result.broken else (0 if result.quit else 1))


# -- the computer breaks your code -------------------------------------------------------------


def run_solve(
    session: Session,
    rules: Rules,
    *,
    level: int,
    explain: bool,
    seed: int | None,
    recorder: Recorder | None = None,
) -> Result:
    """The computer guesses; the person scores, with impossible or contradictory scores refused."""
    from keypeg.analysis.explain import explain as explain_choice
    from keypeg.limits import LOOKAHEAD_LIMIT
    from keypeg.play.levels import LEVELS, strategy_for

    strategy, note = strategy_for(LEVELS[level].strategy, rules, seed=seed)
    if note:
        session.warn(f"note: {note}")
    explain = explain and rules.size <= LOOKAHEAD_LIMIT
    knowledge = Knowledge(rules)
    if session.interactive:
        session.show(
            f"[bold]{rules.describe()}[/]: think of a code; I play at level {level} "
            f"({LEVELS[level].name}). {SOLVE_HELP}"
        )
    guess: Code | None = None
    while True:
        if knowledge.solved:
            if recorder is not None:
                recorder.finish(True, len(knowledge.history), knowledge.history[-1][0])
            if session.interactive:
                session.show(f"[bold green]Got it in {len(knowledge.history)}![/]")
            return Result(len(knowledge.history), True, _pegs(list(knowledge.history)), knowledge.history[-1][0])
        if len(knowledge.history) >= rules.rows:
            if recorder is not None:
                recorder.finish(False, len(knowledge.history), None)
            session.show("I am out of rows: you win this one.")
            return Result(len(knowledge.history), False, _pegs(list(knowledge.history)), None)
        if guess is None:
            if explain:
                shown = explain_choice(strategy, knowledge)
                guess = shown.guesses[0].guess
                session.show(f"{shown.candidates:,} codes fit; my guess first, then the runners-up")
                session.show(explanation_table(rules, shown))
            else:
                guess = strategy.next_guess(knowledge)
            if session.interactive:
                session.show(peg_text(rules, guess))
            else:
                session.answer(str(guess))
        line = session.read(f"score of {guess} (black white)")
        if line is None or line.lower() in QUIT:
            return Result(len(knowledge.history), False, _pegs(list(knowledge.history)), None, quit=True)
        word = line.lower()
        if word in HELP:
            session.show(SOLVE_HELP)
            continue
        if word in UNDO:
            if knowledge.history:
                if recorder is not None:
                    recorder.undo(len(knowledge.history))
                knowledge = Knowledge(rules, knowledge.history[:-1])
                guess = None
            else:
                session.warn("no score to undo")
            continue
        if word.startswith("fix"):
            fixed = _fix(session, rules, knowledge, line)
            if fixed is not None:
                if recorder is not None:
                    recorder.rewrite(list(knowledge.history), list(fixed.history))
                knowledge, guess = fixed, None
            continue
        try:
            feedback = rules.parse_feedback(line)
        except KeypegError as error:
            session.warn(str(error))
            continue
        after = knowledge.add(guess, feedback)
        if not after.is_consistent:
            session.warn(_contradiction(after))
            continue
        knowledge, guess = after, None
        if recorder is not None:
            recorder.guess(len(knowledge.history), *knowledge.history[-1])
        if session.interactive:
            session.show(board(rules, list(knowledge.history), "my board"))


def _fix(session: Session, rules: Rules, knowledge: Knowledge, line: str) -> Knowledge | None:
    """Apply a ``fix N B W`` command: rescore guess N, if the history then fits."""
    parts = line.split(maxsplit=2)
    try:
        number = int(parts[1])
        feedback = rules.parse_feedback(parts[2])
        if not 1 <= number <= len(knowledge.history):
            raise ValueError
    except (IndexError, ValueError, KeypegError) as error:
        message = str(error) if isinstance(error, KeypegError) else "write: fix N B W (N = the guess's number)"
        session.warn(message)
        return None
    history = list(knowledge.history)
    history[number - 1] = (history[number - 1][0], feedback)
    fixed = Knowledge(rules, tuple(history))
    if not fixed.is_consistent:
        session.warn(_contradiction(fixed))
        return None
    session.show(f"guess {number} rescored {feedback}")
    return fixed


def _contradiction(knowledge: Knowledge) -> str:
    """Why a history is refused, naming the score most likely wrong."""
    return (
        inconsistency_message(knowledge.check())
        + "; this score is refused. Re-enter it, or correct another with 'fix N B W'"
    )


@cli.command()
@rules_options
@level_option
@click.option("--explain", is_flag=True, help="After each guess, show why: codes left and the score-set table.")
@seed_option
@player_option
@db_option
@record_option
def solve(
    rules: Rules, level: int, explain: bool, seed: int | None, player: str | None, db: str | None, record: bool
) -> None:
    """The computer breaks your code; you score each guess. Piped: a guess per line out, 'B W' per line in;
    impossible scores are refused on stderr and read again; exit 0 when broken."""
    session = Session.detect()
    recorder = Recorder.start(db, record, player, rules, role="maker", level=level, interactive=session.interactive)
    result = run_solve(session, rules, level=level, explain=explain, seed=seed, recorder=recorder)
    if result.quit and not session.interactive:
        session.warn("input ended before the code was broken")
        sys.exit(2)
    sys.exit(0 if result.broken or result.quit else 1)


# -- hint and match ----------------------------------------------------------------------------


@cli.command()
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@rules_options
@level_option
@seed_option
@json_option
def hint(scored: tuple[str, ...], rules: Rules, level: int, seed: int | None, as_json: bool) -> None:
    """The next guess the chosen level would play after the scored guesses."""
    from keypeg.play.levels import LEVELS, strategy_for

    knowledge = Knowledge(rules, tuple(parse_history(rules, scored)))
    if not knowledge.is_consistent:
        raise KeypegError(inconsistency_message(knowledge.check()))
    strategy, note = strategy_for(LEVELS[level].strategy, rules, seed=seed)
    if note:
        err.print(f"note: {note}")
    guess = strategy.next_guess(knowledge)
    if as_json:
        print_json({"guess": str(guess), "level": level, "candidates": knowledge.count})
    else:
        out.print(str(guess))


@cli.command()
@rules_options
@click.option("--games", "-g", type=int, default=2, show_default=True, help="Games in the match (even).")
@click.option(
    "--vs", type=click.Choice(["computer", "human"]), default="computer", show_default=True, help="The opponent."
)
@click.option("--players", default=None, help="Names, comma-separated (default: you,computer or player1,player2).")
@click.option("--scoring", type=click.Choice(["guesses", "key-pegs"]), default="guesses", show_default=True)
@level_option
@click.option("--save", "save_path", type=click.Path(dir_okay=False, path_type=Path), help="Match file.")
@click.option("--resume", "resume_path", type=click.Path(dir_okay=False, path_type=Path), help="Resume a saved match.")
@seed_option
@db_option
@record_option
def match(
    rules: Rules,
    games: int,
    vs: str,
    players: str | None,
    scoring: str,
    level: int,
    save_path: Path | None,
    resume_path: Path | None,
    seed: int | None,
    db: str | None,
    record: bool,
) -> None:
    """A match of an even number of games; roles alternate; the codemaker scores a point per guess,
    plus one if the code holds. Saved after every game and on Ctrl-C."""
    if resume_path is not None:
        try:
            the_match = Match.from_dict(json.loads(resume_path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError) as error:
            raise KeypegError(f"cannot resume from {str(resume_path)!r}: {error}") from None
        save_path = save_path or resume_path
    else:
        names = (
            [n.strip() for n in players.split(",")]
            if players
            else (["computer", "you"] if vs == "computer" else ["player1", "player2"])
        )
        the_match = Match((names[0], names[1]) if len(names) == 2 else tuple(names), games, scoring)  # type: ignore[arg-type]
    session = Session.detect()
    rng = random.Random(seed)
    computer = "computer" if vs == "computer" else None
    keeper = MatchKeeper.open(db, record)

    def recorder(person: str, role: str, secret: Code | None = None) -> Recorder:
        match_id = keeper.save(the_match)
        return Recorder.start(
            db, record, person, rules, role=role, level=level if computer else None, secret=secret,
            interactive=session.interactive, match_id=match_id,
        )  # fmt: skip

    try:
        while not the_match.is_over:
            maker, breaker = the_match.roles()
            number = f"game {len(the_match.played) + 1} of {the_match.games}"
            session.show(f"[bold]{number}[/]: {maker} is codemaker, {breaker} is codebreaker")
            if maker == computer:
                code = random_code(rules, rng)
                result = run_play(session, rules, secret=code, recorder=recorder(breaker, "breaker", code))
            elif breaker == computer:
                seed_here = rng.randrange(2**31)
                result = run_solve(
                    session, rules, level=level, explain=False, seed=seed_here, recorder=recorder(maker, "maker")
                )
            else:
                secret = _secret_from(session, rules, maker)
                if secret is None:
                    result = Result(0, False, 0, None, quit=True)
                else:
                    result = run_play(session, rules, secret=secret, recorder=recorder(breaker, "breaker", secret))
            if result.quit:
                break
            the_match.record_game(result.guesses, broken=result.broken, key_pegs=result.key_pegs)
            _save(the_match, save_path)
            keeper.save(the_match)
            session.show(_score_line(the_match))
    except KeyboardInterrupt:
        path = _save(the_match, save_path or Path("keypeg-match.json"))
        session.warn(f"interrupted: match saved to {path}; resume with: keypeg match --resume {path}")
        sys.exit(130)
    if not the_match.is_over:
        path = _save(the_match, save_path or Path("keypeg-match.json"))
        session.warn(f"match stopped after {len(the_match.played)} game(s); saved to {path}")
        sys.exit(2 if not session.interactive else 0)
    winner = the_match.winner()
    session.show(f"[bold]match over:[/] {_score_line(the_match)}; " + (f"{winner} wins" if winner else "a draw"))


def _secret_from(session: Session, rules: Rules, maker: str) -> Code | None:
    while True:
        if session.interactive:
            try:
                text = str(click.prompt(f"{maker}, set your secret (hidden)", hide_input=True)).strip()
            except click.exceptions.Abort:
                return None
        else:
            line = session.read("secret")
            if line is None:
                return None
            text = line
        try:
            return rules.parse(text)
        except KeypegError as error:
            session.warn(str(error))


def _score_line(the_match: Match) -> str:
    return ", ".join(f"{name} {points}" for name, points in the_match.scores().items())


def _save(the_match: Match, path: Path | None) -> Path | None:
    if path is None:
        return None
    try:
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(json.dumps(the_match.to_dict(), indent=1), encoding="utf-8")
        tmp.replace(path)
    except OSError as error:
        raise KeypegError(f"cannot save the match to {str(path)!r}: {error.strerror}") from None
    return path


__all__ = ["play", "solve", "hint", "match", "run_play", "run_solve", "Result", "key_text"]
