"""Play: ``play`` (you break the code), ``solve`` (the computer breaks yours), ``match``, ``hint``.

The rules of the game live in :mod:`keypeg.play` and its flow in :mod:`keypeg.services` (each move
made and recorded by one use case); these commands read input, call the use cases and render what
they say. Piped, each speaks a line protocol (see README):
``play`` reads a guess per line and prints ``B W``; ``solve`` prints a guess per line and
reads ``B W``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click
from rich.markup import escape
from rich.text import Text

from keypeg.cli.common import (
    FILE,
    SEED,
    cli,
    json_option,
    note,
    out,
    parse_history,
    print_json,
    read_code,
    rules_options,
    threads_option,
)
from keypeg.cli.records import db_option, default_player, open_store, player_option, record_option
from keypeg.cli.render import board, peg_text
from keypeg.cli.terminal import Terminal
from keypeg.code import Code
from keypeg.errors import InconsistentScoreError, KeypegError, UnavailableError
from keypeg.rules import Rules
from keypeg.text import plural, visible

if TYPE_CHECKING:
    from keypeg.play.matches import MatchSession
    from keypeg.play.sessions import BreakSession, Session, SolveSession
    from keypeg.services.games import OpenGame
    from keypeg.services.stores import Store

MATCH_FILE_LIMIT = 1 << 20
"""The largest match file read (a real one is a few kilobytes)."""
QUIT, UNDO, HELP, HINT = {"q", "quit", "exit"}, {"u", "undo"}, {"?", "help"}, {"h", "hint"}

level_option = click.option(
    "--level", "-l", type=click.IntRange(1, 4), default=3, show_default=True,
    help="1 not so smart, 2 pretty smart, 3 smarter than you, 4 perfect.",
)  # fmt: skip
seed_option = click.option("--seed", type=SEED, help="Seed for the computer's random choices (same seed, same game).")
password_stdin_option = click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the player's password from the first line of stdin (else $KEYPEG_PASSWORD, or a prompt).",
)
resume_option = click.option(
    "--resume",
    "resume_id",
    type=click.IntRange(1, 2**62),
    metavar="GAME",
    help="Continue an unfinished game (see history).",
)


# -- recording ---------------------------------------------------------------------------------


def _store(db: str | None, record: bool, what: str) -> Store | None:
    """The store, where players' passwords are checked whether or not the ``what`` is recorded. A
    database asked for wrongly (a bad URL) is refused; one that fails (locked, unwritable) gets a note,
    and ``None``: the ``what`` is played unrecorded, and no name can be checked."""
    try:
        return open_store(db)
    except KeypegError as error:
        if not isinstance(error, UnavailableError):
            raise
        done = f"this {what} is not recorded and" if record else "the database cannot be read, so"
        note(f"{done} no player's name is checked: {visible(error, 400)}")
        return None


def _password(terminal: Terminal, player: str, from_stdin: bool = False) -> Callable[[], str]:
    """How to ask for ``player``'s password: the first line of stdin (``--password-stdin``: read
    whether or not the player has a password, so it is never taken for a move), ``$KEYPEG_PASSWORD``,
    else a hidden prompt in a terminal. Never an argument on the command line."""
    given = terminal.read_password() if from_stdin else None

    def ask() -> str:
        if given is not None:
            return given
        if "KEYPEG_PASSWORD" in os.environ:
            return os.environ["KEYPEG_PASSWORD"]
        if terminal.interactive:
            return str(click.prompt(f"password for {player}", hide_input=True, default="", show_default=False))
        from keypeg.services.stores import WrongPasswordError

        raise WrongPasswordError(
            f"{visible(player, 64)} has a password: give it with --password-stdin or $KEYPEG_PASSWORD"
        )

    return ask


def _start(store: Store | None, player: str, session: Session) -> OpenGame:
    """Record the game of ``player`` (whose password is checked) as it is played; a store that cannot
    take it gets a note, and the game is played unrecorded."""
    from keypeg.services import games

    try:
        return games.start(store, player, session)
    except KeypegError as error:
        note(f"this game is not recorded: {visible(error, 400)}")
        return games.start(None, player, session)


@contextmanager
def _resumable() -> Iterator[None]:
    """A game whose record stopped: the error says how to go on with the copy the database holds."""
    from keypeg.services.recording import RecordingError

    try:
        yield
    except RecordingError as error:
        if error.game_id is not None:
            error.args = (
                f"game {error.game_id} stops here, unfinished: {error.cause}. "
                f"'--resume {error.game_id}' goes on with the copy the database holds",
            )
        raise


def _claim(terminal: Terminal, store: Store | None, player: str, password_stdin: bool) -> str:
    """The player's registered name, once their password (if they have one) is checked."""
    from keypeg.services.accounts import claim_player

    ask = _password(terminal, player, password_stdin)  # --password-stdin's line is read in any case
    if store is None:
        return player
    return claim_player(store, player, ask)


def _open_game(
    db: str | None,
    record: bool,
    player: str | None,
    password_stdin: bool,
    resume_id: int | None,
    kind: str,
    new: Callable[[], Session],
) -> tuple[Terminal, OpenGame]:
    """The game to play: game ``resume_id`` of the player, continued, or a ``new`` one, recorded as it goes."""
    from keypeg.services import games
    from keypeg.services.recording import InMatchError
    from keypeg.services.stores import player_name

    terminal = Terminal.detect()
    if resume_id is not None:
        _only_with_resume({"resume_id", "player", "password_stdin", "db", "record"})
    name = player_name(player if player is not None else default_player())
    if resume_id is not None and not record:
        raise KeypegError("--resume needs the database (it cannot be used with --no-record)")
    store = _store(db, record, "game")
    if resume_id is not None and store is None:
        raise KeypegError("--resume needs the database, which cannot be used")
    name = _claim(terminal, store, name, password_stdin)
    if resume_id is not None:
        assert store is not None
        try:
            return terminal, games.resume(store, resume_id, name, kind)
        except InMatchError as error:
            raise InMatchError(f"{error} ('keypeg match --resume FILE' goes on with its match)") from None
    return terminal, _start(store if record else None, name, new())


def _only_with_resume(allowed: set[str]) -> None:
    """Refuse options that a continued game cannot honour: it keeps its own rules, secret and level."""
    context = click.get_current_context()
    given = [
        f"--{name.replace('_', '-')}"
        for name in context.params
        if name not in allowed and context.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
    ]
    if given:
        raise KeypegError(f"--resume continues a game as it was started: leave out {', '.join(given)}")


def _resign(terminal: Terminal, opened: OpenGame) -> None:
    """The person left before the end (``q``, Ctrl-C, end of input): the game is resigned (recorded as
    lost, when it is recorded), and the secret (the computer's) is shown."""
    from keypeg.services import games

    session = opened.game
    if session.is_over:
        return
    games.resign(opened)
    outcome = session.outcome()
    secret = outcome.secret if outcome is not None else None
    if secret is not None:
        if terminal.interactive:
            terminal.show(Text.assemble("Resigned. The secret was ", peg_text(session.rules, secret)))
        else:
            terminal.warn("resigned")
            terminal.answer(str(secret))
    else:
        recorded = ": it is recorded as resigned" if opened.keeper.recording else ""
        terminal.show(f"You stopped the game{recorded}.")


def _resign_and_exit(terminal: Terminal, opened: OpenGame) -> NoReturn:
    _resign(terminal, opened)
    game_exit(terminal, False)


def game_exit(terminal: Terminal, broken: bool) -> NoReturn:
    """End a game's command: in a terminal the game is done (0); piped, the status is the answer (0 when
    the code was broken, 1 when not), with no ``error:`` line."""
    sys.exit(0 if broken or terminal.interactive else 1)


# -- you break the code ------------------------------------------------------------------------


def run_break(terminal: Terminal, opened: OpenGame, *, coach: bool = False) -> bool:
    """The person guesses; the session scores. False when input ends or the person quits (or presses
    Ctrl-C) first."""
    try:
        return _break_turns(terminal, opened, coach)
    except KeyboardInterrupt:
        return False


def _break_turns(terminal: Terminal, opened: OpenGame, coach: bool) -> bool:
    from keypeg.play.daily import DayOverError
    from keypeg.services import games
    from keypeg.services.recording import RecordingError

    session = games.breaking(opened)
    rules = session.rules
    if terminal.interactive:
        maker = (
            "an adversary that keeps its options open" if session.codemaker.kind == "adversarial" else "a secret code"
        )
        terminal.show(f"[bold]{rules.describe()}[/]: break {maker}. {_play_help(session)}")
        if session.rated:
            terminal.show(
                "[bold]A rated game:[/] it counts on the top 10 from your first guess (resigned or unfinished, "
                "as a loss) and offers no undo or hints; 'keypeg play --practice' offers them."
            )
        if session.history:
            terminal.show(board(rules, session.history, "your board"))
    while not session.is_over:
        line = terminal.read(f"guess {len(session.history) + 1}/{rules.rows}")
        if line is None or line.lower() in QUIT:
            return False
        word = line.lower()
        if word in HELP:
            terminal.show(_play_help(session))
            continue
        try:
            if word in HINT:
                terminal.show(f"hint: {games.hint(opened)}")  # the hint is help: kept at once
                continue
            if word in UNDO:
                games.undo(opened)
            else:
                feedback = games.guess(opened, read_code(rules, line))
        except (RecordingError, DayOverError):  # the game stops here
            raise
        except KeypegError as error:
            terminal.warn(str(error))
            continue
        if terminal.interactive:
            terminal.show(board(rules, session.history, "your board"))
        elif word not in UNDO:
            terminal.answer(f"{feedback.black} {feedback.white}")  # 'B W' under every feedback (W is 0 but standard)
        if coach and word not in UNDO:
            _coach(terminal, opened)
    outcome = session.outcome()
    assert outcome is not None and outcome.secret is not None
    if outcome.solved:
        if terminal.interactive:
            terminal.show(f"[bold green]Broken in {outcome.guesses} guess{'es' if outcome.guesses > 1 else ''}![/]")
    elif terminal.interactive:
        terminal.show(f"[bold red]Out of rows.[/] The secret was {outcome.secret}:")
        terminal.show(peg_text(rules, outcome.secret))
    else:
        terminal.answer(str(outcome.secret))
    return True


def solve_help(rules: Rules) -> str:
    """How to score the computer's guesses under ``rules`` (their feedback), and the commands."""
    return (
        f"score my guess: {rules.feedback_hint}; commands: u = undo your last score, fix N SCORE = correct the score"
        f" of guess N (e.g. '{_fix_example(rules)}'), ? = help, q = stop"
    )


def _fix_example(rules: Rules) -> str:
    """A ``fix`` command as typed under ``rules``' feedback: ``fix 2 1 0``, or ``fix 2 1`` with one number."""
    return f"fix 2 {'1 0' if rules.feedback == 'standard' else '1'}"


def _play_help(session: BreakSession) -> str:
    """What may be typed now, from what the session allows."""
    from keypeg.play.sessions import Action

    actions = session.actions()
    commands = [("u = undo", Action.UNDO), ("h = hint", Action.HINT)]
    offered = [text for text, action in commands if action in actions or (action is Action.UNDO and session.helps)]
    listed = ", ".join([*offered, "? = help", "q = resign"])
    return escape(f"type a guess (e.g. {visible(session.rules.example())}); commands: {listed}")


def _coach(terminal: Terminal, opened: OpenGame) -> None:
    from keypeg.services import games
    from keypeg.services.recording import RecordingError

    try:
        line = games.review(opened).line()
    except RecordingError:
        raise
    except KeypegError as error:
        terminal.warn(f"coach: {error}")
        return
    if terminal.interactive:
        terminal.show(f"[cyan]coach:[/] {line}")
    else:
        terminal.err.print(f"coach: {line}", soft_wrap=True)


@cli.command()
@rules_options
@threads_option
@click.option("--secret", metavar="CODE", help="The code to break (set by someone else, or for tests).")
@click.option("--adversarial", is_flag=True, help="The computer commits to no secret and dodges your guesses.")
@click.option("--coach", is_flag=True, help="Review each guess: codes left, expected guesses, a rating (practice).")
@click.option("--practice", is_flag=True, help="A practice game: undo, hints and the coach; never ranked.")
@seed_option
@resume_option
@player_option
@password_stdin_option
@db_option
@record_option
def play(
    rules: Rules,
    secret: str | None,
    adversarial: bool,
    coach: bool,
    practice: bool,
    seed: int | None,
    resume_id: int | None,
    player: str | None,
    password_stdin: bool,
    db: str | None,
    record: bool,
) -> None:
    """Break the computer's code. A game with the computer's random secret is rated (no help; it counts
    on the top 10, a lost or resigned game as a loss); --practice, --coach, --secret, --seed and
    --adversarial make a practice game. Piped: a guess per line in, 'B W' per line out; exit 0 when
    broken, 1 when not (rows run out, 'q' or end of input: the secret is printed)."""
    from keypeg.play.codemakers import AdversarialCodemaker, Codemaker, FixedCodemaker, RandomCodemaker
    from keypeg.play.sessions import BreakSession

    if secret is not None and adversarial:
        raise KeypegError("--secret and --adversarial do not go together")

    def new() -> BreakSession:
        codemaker: Codemaker
        if adversarial:
            codemaker = AdversarialCodemaker(rules)
        elif secret is not None:
            codemaker = FixedCodemaker(read_code(rules, secret))
        else:
            codemaker = RandomCodemaker.draw(rules, seed)
        return BreakSession.new(rules, codemaker, practice=practice or coach)

    terminal, opened = _open_game(db, record, player, password_stdin, resume_id, BreakSession.kind, new)
    with _resumable():
        if not run_break(terminal, opened, coach=coach):
            _resign_and_exit(terminal, opened)
    outcome = opened.game.outcome()
    game_exit(terminal, outcome is not None and outcome.solved)


# -- the computer breaks your code -------------------------------------------------------------


def run_solve(terminal: Terminal, opened: OpenGame) -> bool:
    """The computer guesses; the person scores, with impossible or contradictory scores refused.
    False when input ends or the person quits (or presses Ctrl-C) first."""
    try:
        return _solve_turns(terminal, opened)
    except KeyboardInterrupt:
        return False


def _solve_turns(terminal: Terminal, opened: OpenGame) -> bool:
    from keypeg.play.levels import LEVELS
    from keypeg.services import games
    from keypeg.services.recording import RecordingError

    session = games.solving(opened)
    rules = session.rules
    if session.note:
        terminal.warn(f"note: {session.note}")
    if terminal.interactive:
        terminal.show(
            f"[bold]{rules.describe()}[/]: think of a code; I play at level {session.level} "
            f"({LEVELS[session.level].name}). {escape(solve_help(rules))}"
        )
    announced = False
    while not session.is_over:
        if not announced:
            choice = session.choice()
            guess = choice.guess
            if session.top > 1:
                from keypeg.cli.analysis import explanation_table

                fit = "1 code fits" if choice.fitting == 1 else f"{choice.fitting:,} codes fit"
                terminal.show(f"{fit}; my guess first, then the runners-up")
                terminal.show(explanation_table(rules, choice))
                forgot = _forgot(session)
                if forgot:
                    terminal.show(forgot)
            if terminal.interactive:
                terminal.show(peg_text(rules, guess))
            else:
                terminal.answer(str(guess))
            announced = True
        line = terminal.read(f"score of {session.guess()} ({_score_words(rules)})")
        if line is None or line.lower() in QUIT:
            return False
        word = line.lower()
        if word in HELP:
            terminal.show(escape(solve_help(rules)))
            continue
        try:
            if word in UNDO:
                games.undo(opened)
            elif word.startswith("fix"):
                number, feedback = _fix_command(rules, line)
                scored = len(session.history)
                games.fix(opened, number, feedback)
                terminal.show(_fixed(session, number, scored))
            else:
                games.score(opened, line)
        except RecordingError:
            raise
        except InconsistentScoreError as error:
            terminal.warn(f"{error}; this score is refused. Re-enter it, or correct another with 'fix N SCORE'")
            continue
        except KeypegError as error:
            terminal.warn(str(error))
            continue
        announced = False
        if terminal.interactive and word not in UNDO and not word.startswith("fix"):
            terminal.show(board(rules, session.history, "my board"))
    outcome = session.outcome()
    assert outcome is not None
    if outcome.solved:
        if terminal.interactive:
            terminal.show(f"[bold green]Got it in {outcome.guesses}![/]")
    else:
        terminal.show("I am out of rows: you win this one.")
    return True


def _forgot(session: SolveSession) -> str | None:
    """The scores the computer forgot, when its guess cannot be the code (level 1 forgets now and then)."""
    numbers = session.forgotten()
    if not numbers:
        return None
    scores = [f"{n} ({session.history[n - 1][0]} {session.history[n - 1][1]})" for n in numbers]
    which = f"the score of guess {scores[0]}" if len(scores) == 1 else f"the scores of guesses {', '.join(scores)}"
    return f"I forgot {which}: my guess {session.guess()} cannot be your code"


def _fixed(session: SolveSession, number: int, scored: int) -> str:
    """What a correction did: guess ``number`` rescored, and, when that score was the winning one, that
    the game ended there (with the later of the ``scored`` guesses dropped)."""
    said = f"guess {number} rescored {session.history[number - 1][1]}"
    if not session.is_over:
        return said
    said += ": it was your code, so the game ended there"
    if number == scored:
        return said
    return f"{said} ({f'guess {scored}' if scored == number + 1 else f'guesses {number + 1} to {scored}'} dropped)"


def _fix_command(rules: Rules, line: str) -> tuple[int, str]:
    """``fix N B W`` (``fix N K`` under colours or black feedback) read as (N, 'B W')."""
    parts = line.split(maxsplit=2)
    try:
        return int(parts[1]), parts[2]
    except (IndexError, ValueError):
        raise KeypegError(f"write: fix N SCORE (N = the guess's number, e.g. '{_fix_example(rules)}')") from None


def _score_words(rules: Rules) -> str:
    """What a score is made of, for the prompt: ``black white``, ``black`` or ``colours right``."""
    return {"colours": "colours right", "black": "black"}.get(rules.feedback, "black white")


@cli.command()
@rules_options
@threads_option
@level_option
@click.option(
    "--explain", "--verbose", "explain", is_flag=True,
    help="The verbose view: after each guess, why (codes left, the score-set table, any score I forgot).",
)  # fmt: skip
@seed_option
@resume_option
@player_option
@password_stdin_option
@db_option
@record_option
def solve(
    rules: Rules,
    level: int,
    explain: bool,
    seed: int | None,
    resume_id: int | None,
    player: str | None,
    password_stdin: bool,
    db: str | None,
    record: bool,
) -> None:
    """The computer breaks your code; you score each guess. Piped: a guess per line out, 'B W' per line in;
    impossible scores are refused on stderr and read again; exit 0 when broken."""
    from keypeg.play.sessions import SolveSession

    terminal, opened = _open_game(
        db, record, player, password_stdin, resume_id, SolveSession.kind,
        lambda: SolveSession(rules, level=level, seed=seed, top=4 if explain else 1),
    )  # fmt: skip
    with _resumable():
        if not run_solve(terminal, opened):
            _resign_and_exit(terminal, opened)
    outcome = opened.game.outcome()
    game_exit(terminal, outcome is not None and outcome.solved)


# -- hint and match ----------------------------------------------------------------------------


@cli.command()
@click.argument("scored", nargs=-1, metavar="GUESS=B,W...")
@rules_options
@threads_option
@level_option
@seed_option
@json_option
def hint(scored: tuple[str, ...], rules: Rules, level: int, seed: int | None, as_json: bool) -> None:
    """The next guess the chosen level would play after the scored guesses."""
    from keypeg.services.advice import hint as advised

    found = advised(rules, parse_history(rules, scored), level, seed=seed)
    if found.note:
        note(found.note)
    if as_json:
        print_json({"guess": str(found.guess), "level": level, "candidates": found.candidates})
    else:
        out.print(str(found.guess))


@cli.command()
@rules_options
@threads_option
@click.option(
    "--games", "-g", type=click.IntRange(2, 1000), default=2, show_default=True, help="Games in the match (even)."
)
@click.option(
    "--vs", type=click.Choice(["computer", "human"]), default="computer", show_default=True, help="The opponent."
)
@click.option(
    "--players",
    default=None,
    help="Names, comma-separated; against the computer the first is the computer's "
    "(default: computer and --player, or player1,player2).",
)
@player_option
@password_stdin_option
@click.option("--scoring", type=click.Choice(["guesses", "key-pegs"]), default="guesses", show_default=True)
@level_option
@click.option("--save", "save_path", type=FILE, help="Match file.")
@click.option("--resume", "resume_path", type=FILE, help="Resume a saved match.")
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
    player: str | None,
    password_stdin: bool,
    db: str | None,
    record: bool,
) -> None:
    """A match of an even number of games; roles alternate; the codemaker earns a point per guess,
    plus one if the code holds. Saved after every game; quitting a game ('q', Ctrl-C, end of input)
    resigns it (the codemaker earns a point for every row, plus one) and stops the match, to resume later."""
    from keypeg.game import Match
    from keypeg.play.matches import MatchSession
    from keypeg.play.sessions import BreakSession
    from keypeg.services import matches
    from keypeg.services.recording import MatchKeeper
    from keypeg.services.stores import player_name
    from keypeg.storage import check_writable

    if save_path is not None:
        check_writable(save_path)  # before any game is played
    terminal = Terminal.detect()
    store = _store(db, record, "match")
    if resume_path is not None:
        session = MatchSession.from_state(_read_match(resume_path), rules)
        save_path = save_path or resume_path
    else:
        if player is not None and players is not None:
            raise KeypegError("give the names with --players, or your own with --player, not both")
        person = player if player is not None else default_player()
        default = ["computer", person] if vs == "computer" else [player or "player1", "player2"]
        names = [player_name(n) for n in (players.split(",") if players is not None else default)]
        computer = names[0] if vs == "computer" else None
        names = [n if n == computer else _claim(terminal, store, n, password_stdin) for n in names]
        the_match = Match((names[0], names[1]) if len(names) == 2 else tuple(names), games, scoring)  # type: ignore[arg-type]
        session = MatchSession(rules, the_match, computer=computer, level=level, seed=seed)
    if resume_path is not None:
        for name in session.match.players:
            player_name(name)  # a name from a file: refused if it could not be a player's
            if name != session.computer:
                _claim(terminal, store, name, password_stdin)
    recorder = store if record else None
    keeper = MatchKeeper(recorder, on_error=terminal.note)
    opened = _resume_match_game(terminal, recorder, session)
    if save_path is None:
        save_path = _free_path(Path("keypeg-match.json"))
        check_writable(save_path)
    try:
        while not session.is_over:
            maker, breaker = session.roles()
            number = f"game {len(session.match.played) + 1} of {session.match.games}"
            terminal.show(f"[bold]{number}[/]: {_name(maker)} is codemaker, {_name(breaker)} is codebreaker")
            if session.current is None:
                secret = _secret_from(terminal, rules, maker) if session.needs_secret() else None
                if session.needs_secret() and secret is None:
                    break
                keeper.save(session)  # the match has its id before its game is recorded
                opened = _begin(terminal, keeper.store, session, secret)
                keeper.save(session)
                _save(session, save_path)  # a match stopped mid-game goes on with this game
            assert opened is not None
            if isinstance(opened.game, BreakSession):
                finished = run_break(terminal, opened)
            else:
                finished = run_solve(terminal, opened)
            if not finished:
                _resign(terminal, opened)
                matches.count_game(session)
                _save(session, save_path)
                keeper.save(session)
                break
            matches.count_game(session)
            _save(session, save_path)
            keeper.save(session)
            terminal.show(_points_line(session))
    except KeyboardInterrupt:
        path = _save(session, save_path)
        keeper.save(session)
        terminal.warn(f"interrupted: match saved to {path}; resume with: keypeg match --resume {path}")
        sys.exit(130)
    if not session.is_over:
        path = _save(session, save_path)
        keeper.save(session)
        terminal.warn(
            f"match stopped after {plural(len(session.match.played), 'game')}; saved to {path}; "
            f"resume with: keypeg match --resume {path}"
        )
        game_exit(terminal, False)
    winner = session.winner()
    terminal.show(f"[bold]match over:[/] {_points_line(session)}; " + (f"{_name(winner)} wins" if winner else "a draw"))


def _read_match(path: Path) -> dict[str, object]:
    """A saved match's state, or one clear error."""
    try:
        if path.stat().st_size > MATCH_FILE_LIMIT:
            raise KeypegError(f"{visible(path)!r} is too large to be a match file")
        state = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise KeypegError(f"cannot resume from {visible(path)!r}: {error.strerror or error}") from None
    except (ValueError, RecursionError):
        raise KeypegError(f"{visible(path)!r} is not a keypeg match file (not JSON text)") from None
    if not isinstance(state, dict):
        raise KeypegError(f"{visible(path)!r} is not a keypeg match file")
    return state


def _free_path(path: Path) -> Path:
    """``path``, or ``path`` numbered (``keypeg-match-2.json``) when a file of that name exists."""
    number = 1
    found = path
    while found.exists():
        number += 1
        found = path.with_name(f"{path.stem}-{number}{path.suffix}")
    return found


def _begin(terminal: Terminal, store: Store | None, session: MatchSession, secret: Code | None) -> OpenGame:
    """Start the match's next game, recorded when the store takes it (else a note, and unrecorded)."""
    from keypeg.services import games, matches

    try:
        return matches.begin_game(store, session, secret)
    except UnavailableError as error:
        if session.current is None:
            raise
        note(f"this game is not recorded: {visible(error, 400)}")
        return games.start(None, session.seat()[1], session.current)


def _resume_match_game(terminal: Terminal, store: Store | None, session: MatchSession) -> OpenGame | None:
    """Continue the game a saved match was playing, with the same secret, when the store has it."""
    from keypeg.services.games import OpenGame
    from keypeg.services.recording import continue_game

    if session.current_id is None or session.is_over:
        return None
    if store is None:
        terminal.note("the game in progress is in the database, which is not used: it starts again")
        return None
    kind, person = session.seat()
    try:
        game, keeper = continue_game(store, session.current_id, person, kind=kind, match_id=session.match_id)
        session.resume(game, keeper.game_id)
    except KeypegError as error:
        terminal.note(f"the game in progress cannot be continued ({error}); it starts again")
        session.current, session.current_id = None, None
        return None
    return OpenGame(game, keeper)


def _secret_from(terminal: Terminal, rules: Rules, maker: str) -> Code | None:
    while True:
        if terminal.interactive:
            try:
                text = str(click.prompt(f"{visible(maker, 64)}, set your secret (hidden)", hide_input=True)).strip()
            except click.exceptions.Abort:
                return None
        else:
            line = terminal.read("secret")
            if line is None:
                return None
            text = line
        try:
            return rules.parse(text)
        except KeypegError:  # the message would quote the secret, which the codebreaker may see
            terminal.warn(f"that is not a code of these rules ({rules.describe()}, e.g. {rules.example()}); again")


def _points_line(session: MatchSession) -> str:
    return ", ".join(f"{_name(name)} {points}" for name, points in session.points().items())


def _name(name: str) -> str:
    """A player's name inside markup: printed literally."""
    return escape(visible(name, 64))


def _save(session: MatchSession, path: Path) -> Path:
    """Write the match file (a failure is storage's ``WriteError``, exit code 1)."""
    from keypeg.storage import atomic_write

    atomic_write(path, json.dumps(session.to_state(), indent=1))
    return path


__all__ = ["play", "solve", "hint", "match", "run_break", "run_solve", "game_exit"]
