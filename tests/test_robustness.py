"""The robustness suite (issue 13, "Trust and bad input"): every command, every argument and
option, a corpus of bad values.

The commands are enumerated from the Click group itself (``keypeg.cli.cli``, walked down any
subgroup), and the slots to fill from each command's params, so a new command or option is
covered without touching this file (a new required argument needs a valid value in
``ARGUMENT_DEFAULTS``; ``test_base_invocation_is_accepted`` says so).

Each case runs the command's *base invocation* (small rules, a valid value for every required
argument, stdin that finishes a game: accepted, exit 0) with one bad value put into one slot
(appended as ``--option VALUE``, which wins over the base's own, or in place of one argument),
or, for the commands that read a game from stdin, with one bad line before the good ones.
Asserted for every case:

* exit code 0, 1 or 2; never an exception out of the group (``Traceback``) nor its last-resort
  ``internal error`` line (a bug, not an answer);
* values nobody could mean (empty, blank, NUL, binary junk; a missing, directory or unwritable
  path in a path slot; a binary or 100,000-deep file to read) are refused: exit 1 or 2;
* a refusal is exactly one non-empty line on stderr, starting ``error:``;
* no hidden character of the input (ESC, BEL, backspace, CR, NUL, zero-width, bidi) reaches the
  output raw; no Rich markup of the input is interpreted (where its text shows, the brackets
  show too; no hyperlink escape); a 1 MB input is not echoed whole;
* a refused invocation leaves the database as it was (every row of every table), and nothing
  appears in the user's data folder (an empty ``--db`` must not fall back to it);
* a bad line on stdin of ``play``, ``solve`` or ``match`` is answered and the game goes on.

Hypothesis adds arbitrary text in the code, score and name positions, and a few subprocess runs
cover stdin that is not UTF-8 and files read by the real interpreter. The cross product with the
whole corpus is marked slow; the fast loop takes the core of the corpus. A choice option that many
commands share (``--feedback``, ``--pool``) gets the rest of the corpus on the first command that has it
only: Click refuses a value not among the choices before any command runs.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import traceback
import unicodedata
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from conftest import app_in_thread
from keypeg import Rules
from keypeg.cli import cli
from keypeg.errors import KeypegError
from keypeg.web import create_app

# -- the commands ----------------------------------------------------------------------------------


def walk(group: click.Group, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command under ``group``, with its path of names, subgroups included."""
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from walk(command, (*path, name))


COMMANDS: dict[tuple[str, ...], click.Command] = dict(walk(cli))

RULES = ["--pegs", "2", "--colors", "3"]
"""Small rules for every command that takes them: nothing legitimately runs for long."""

ARGUMENT_DEFAULTS: dict[str, list[str]] = {
    "secret": ["AB"],
    "guess": ["BA"],
    "name": ["ann"],
    "treefile": ["<TREE>"],
    "what": ["1"],  # replay: game 1 of the seeded database
    "backup file": ["<NEW_FILE>"],  # a file the backup makes
    "restore file": ["<BACKUP>"],  # a backup to read (of the seeded database: restored over itself)
    "room link": ["<ROOM>"],  # the watching link of a room that is over, on the world's server
}
"""A valid value for each required argument, by parameter name (or command and name, where two commands
mean different things by one name)."""

SPECIAL_OPTIONS: dict[tuple[str, ...], tuple[list[str], str]] = {
    ("play",): ([*RULES, "--secret", "AB"], "AB\n"),
    ("solve",): (RULES, "2,0\n"),
    ("match",): (["--pegs", "1", "--colors", "2", "--seed", "1"], "A\nB\n1,0\n"),  # wins whatever the secrets
    ("restore",): (["--force"], ""),  # the seeded database has records: a restore replaces them
    ("daily",): (["--board"], ""),  # the day's board (playing it is one attempt a day)
}
"""Options and stdin of the commands that play a game: one won at once."""

STDIN_COMMANDS = {("play",), ("solve",), ("match",)}

READ_PATHS = {"treefile", "resume_path"}
"""Path params that are read (the others are written): a binary or nested file there is refused."""


def base_invocation(
    path: tuple[str, ...], bad_argument: click.Parameter | None = None, bad: str = ""
) -> tuple[list[str], str]:
    """Arguments and stdin that the command accepts (exit 0), quickly; with ``bad`` in place of
    the argument ``bad_argument`` when given."""
    command = COMMANDS[path]
    args: list[str] = []
    for param in command.params:
        if param is bad_argument:
            args.append(bad)
        elif isinstance(param, click.Argument) and param.required:
            named = ARGUMENT_DEFAULTS.get(f"{path[-1]} {param.name}", ARGUMENT_DEFAULTS.get(param.name or ""))
            args += named or ["<NO DEFAULT FOR THIS ARGUMENT>"]
    if path in SPECIAL_OPTIONS:
        options, stdin = SPECIAL_OPTIONS[path]
        return [*args, *options], stdin
    names = {p.name for p in command.params}
    if "pegs" in names and "colors" in names:
        args += RULES
    return args, ""


# -- the corpus -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Bad:
    """A bad value: ``refuse`` when no slot may accept it; ``core`` when it is in the fast loop."""

    id: str
    value: str
    refuse: bool = False
    core: bool = False
    path_refuse: bool = False
    """Refused in a path slot (missing folder, a directory, an unwritable place)."""
    read_refuse: bool = False
    """Refused in a path slot that is read (binary, nested too deep)."""
    only: frozenset[str] = field(default_factory=frozenset)
    """Only for params of these names (database URLs)."""


MEGABYTE = "A" * 1_000_000

CORPUS = [
    Bad("empty", "", refuse=True, core=True),
    Bad("blank", " \t ", refuse=True, core=True),
    Bad("negative", "-1", core=True),
    Bad("zero", "0"),
    Bad("digits5000", "9" * 5000, core=True),
    Bad("past-2**63", str(2**63 + 1), core=True),
    Bad("arabic-digit", "\u0663", core=True),
    Bad("arabic-digits", "\u0660\u0662"),  # 02: a small number, so that no case legitimately runs long
    Bad("fullwidth-digit", "\uff14"),
    Bad("binary", "\x00\x01\xfe\xff\ufffd\x7f\x1b", refuse=True, core=True),
    Bad("nul", "ab\x00cd", refuse=True),
    Bad("long", "A" * 100_000, core=True),
    Bad("megabyte", MEGABYTE),
    Bad("markup-close", "[/]", core=True),
    Bad("markup-bold", "[bold]zqx7"),
    Bad("markup-link", "[link=http://evil]zqy8[/link]", core=True),
    Bad("esc-clear", "\x1b[2J", core=True),
    Bad("osc-title", "\x1b]0;title\x07"),
    Bad("backspace", "ab\x08\x08cd"),
    Bad("carriage-return", "x\ry"),
    Bad("zero-width", "a\u200bb"),
    Bad("bidi", "\u202eabc"),
    Bad("path-missing", "<MISSING>", path_refuse=True, read_refuse=True, core=True),
    Bad("path-directory", "<DIR>", path_refuse=True, read_refuse=True, core=True),
    Bad("path-unwritable", "<UNWRITABLE>", path_refuse=True, read_refuse=True),
    Bad("path-binary", "<BINARY>", read_refuse=True, core=True),
    Bad("path-nested", "<NESTED>", read_refuse=True, core=True),
    Bad("db-read-only", "<DB_READ_ONLY>", only=frozenset({"db"})),
    Bad("db-binary", "<DB_BINARY>", only=frozenset({"db"})),
    Bad("db-directory", "<DB_DIRECTORY>", only=frozenset({"db"})),
    Bad("db-missing-folder", "<DB_MISSING>", only=frozenset({"db"})),
]

WATCHED_MARKUP = {"zqx7": ("[bold]zqx7",), "zqy8": ("zqy8[/link]", "zqy8\\[/link]")}
"""Text of the markup corpus: wherever it shows, its markup shows with it (as written or escaped;
a path may lose the second slash of ``http://``)."""


@dataclass(frozen=True)
class Case:
    path: tuple[str, ...]
    slot: str  # "--option", "ARGUMENT" or "stdin"
    bad: Bad
    kind: str  # "option", "argument", "stdin"
    param: click.Parameter | None

    @property
    def id(self) -> str:
        return f"{' '.join(self.path)}:{self.slot}={self.bad.id}"


def slots(path: tuple[str, ...]) -> Iterator[tuple[str, str, click.Parameter | None]]:
    """The places of a command a value goes: options taking a value, arguments, stdin."""
    for param in COMMANDS[path].params:
        if isinstance(param, click.Option):
            if param.is_flag or param.count or param.hidden:
                continue
            yield param.opts[0], "option", param
        elif isinstance(param, click.Argument):
            yield (param.name or "ARG").upper(), "argument", param
    if path in STDIN_COMMANDS:
        yield "stdin", "stdin", None


def shared_choice(param: click.Parameter | None) -> tuple[str, tuple[str, ...]] | None:
    """A choice option (Click refuses a value not among its choices before the command runs) by its name
    and choices: the same option on many commands (``--feedback``, ``--pool``) is one check of Click's."""
    if isinstance(param, click.Option) and isinstance(param.type, click.Choice):
        return str(param.name), tuple(str(c) for c in param.type.choices)
    return None


def cases(core: bool) -> list[Case]:
    """Every slot of every command with each bad value of the corpus (``core``: the fast loop's part); the
    rest of the corpus goes into a shared choice option on the first command that has it only."""
    found = []
    choices_seen: dict[tuple[str, tuple[str, ...]], tuple[str, ...]] = {}
    for path in COMMANDS:
        for slot, kind, param in slots(path):
            choice = shared_choice(param)
            if not core and choice is not None and choices_seen.setdefault(choice, path) != path:
                continue
            for bad in CORPUS:
                if bad.core != core:
                    continue
                if bad.only and (param is None or param.name not in bad.only):
                    continue
                found.append(Case(path, slot, bad, kind, param))
    return found


def case_params(core: bool) -> list[object]:
    marks = [] if core else [pytest.mark.slow]
    return [pytest.param(case, id=case.id, marks=marks) for case in cases(core)]


# -- running a case -------------------------------------------------------------------------------


@dataclass
class World:
    """A seeded database to copy for every case, a tree file, and the files the corpus points at,
    made afresh in each case's folder (a command may legitimately overwrite them)."""

    root: Path
    template_db: Path
    tree: Path
    room: str = ""

    def resolve(self, value: str, workdir: Path) -> str:
        made = {
            "<MISSING>": lambda: workdir / "no-such-folder" / "x.json",
            "<DIR>": lambda: _made(workdir / "a-directory", None),
            "<UNWRITABLE>": lambda: Path("/proc/keypeg-robust/x.json"),
            "<BINARY>": lambda: _made(workdir / "binary.json", bytes(range(256)) * 64),
            "<NESTED>": lambda: _made(workdir / "nested.json", b"[" * 100_000 + b"]" * 100_000),
            "<TREE>": lambda: self.tree,
            "<NEW_FILE>": lambda: workdir / "new-backup.keypeg",
            "<BACKUP>": lambda: copy_database(self.template_db, workdir / "backup.keypeg"),
            "<ROOM>": lambda: self.room,
        }
        urls = {
            "<DB_READ_ONLY>": lambda: f"file:{self.template_db}?mode=ro&uri=true",
            "<DB_BINARY>": lambda: str(_made(workdir / "binary.sqlite3", bytes(range(256)) * 64)),
            "<DB_DIRECTORY>": lambda: str(_made(workdir / "a-directory", None)),
            "<DB_MISSING>": lambda: str(workdir / "no-such-folder" / "k.sqlite3"),
        }
        if value in made:
            return str(made[value]())
        if value in urls:
            return f"sqlite:///{urls[value]()}"
        return value


def _made(path: Path, content: bytes | None) -> Path:
    if content is None:
        path.mkdir(exist_ok=True)
    else:
        path.write_bytes(content)
    return path


def dump(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table (the database as data, not bytes: SQLite may rewrite pages)."""
    if not db.exists():
        return {}
    with closing(sqlite3.connect(db)) as connection:
        tables = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: sorted(map(repr, connection.execute(f'SELECT * FROM "{t}"'))) for t in sorted(tables)}  # type: ignore[misc]


def copy_database(source: Path, target: Path) -> Path:
    """A copy of a SQLite database, its write-ahead log included (an open engine may hold one)."""
    target.unlink(missing_ok=True)
    with closing(sqlite3.connect(source)) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    return target


def environment(root: Path, db: Path) -> dict[str, str | None]:
    return {
        "KEYPEG_DB": f"sqlite:///{db}",
        "KEYPEG_CACHE": str(root / "cache"),
        "KEYPEG_PLAYER": "tester",
        "KEYPEG_PASSWORD": None,
        "KEYPEG_DEBUG": None,
        "HOME": str(root / "home"),
        "XDG_DATA_HOME": str(root / "home" / "data"),
        "XDG_CACHE_HOME": str(root / "home" / "cache"),
        "XDG_CONFIG_HOME": str(root / "home" / "config"),
        "COLUMNS": "100",
    }


def invoke(world: World, args: list[str], stdin: str, workdir: Path) -> tuple[Result, Path]:
    """Run ``keypeg ARGS`` in-process on a fresh copy of the seeded database, from ``workdir``."""
    workdir.mkdir(exist_ok=True)
    db = copy_database(world.template_db, workdir / "keypeg.sqlite3")
    old = Path.cwd()
    os.chdir(workdir)  # files named by the corpus land here
    previous = signal.signal(signal.SIGALRM, _too_long)
    signal.alarm(CASE_SECONDS)
    try:
        result = CliRunner().invoke(
            cli, [world.resolve(a, workdir) for a in args], input=stdin, env=environment(world.root, db)
        )
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(old)
    return result, db


CASE_SECONDS = 60
"""No case may run longer (the rules are small): a case that does is stopped and fails."""


class TooLong(BaseException):
    """Raised in a case that runs past ``CASE_SECONDS`` (a BaseException: the group does not catch it)."""


def _too_long(signum: int, frame: object) -> None:
    raise TooLong(f"the command ran for more than {CASE_SECONDS} s")


def short(value: str, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}...({len(value)} chars)"


def describe(args: list[str], result: Result) -> str:
    """The case and what happened, readable in ``pytest -rf``."""
    lines = [f"keypeg {' '.join(short(a) for a in args)}", f"exit code {result.exit_code}"]
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = traceback.format_exception(result.exception)
        lines.append("exception escaped: " + "".join(trace[-3:]).strip())
    stderr = result.stderr.strip().splitlines()
    lines.append(f"stderr ({len(stderr)} lines): " + " | ".join(short(s, 200) for s in stderr[-4:]))
    lines.append(f"stdout: {short(result.stdout[-300:], 300)}")
    return "\n  ".join(lines)


def hidden_chars(value: str) -> set[str]:
    return {c for c in value if unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t"}


def check_output(value: str, result: Result, where: str) -> None:
    """What holds whatever the exit code: no escape, no markup, no flood, no traceback."""
    output = result.stdout + result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail(f"an exception escaped the command line\n  {where}")
    assert result.exit_code in (0, 1, 2), f"exit code not in 0, 1, 2\n  {where}"
    assert "Traceback" not in output, f"a traceback was printed\n  {where}"
    assert "internal error" not in output, f"internal error (a bug: an unexpected exception)\n  {where}"
    raw = sorted(c for c in hidden_chars(value) if c in output)
    assert not raw, f"hidden characters of the input printed raw: {raw!r}\n  {where}"
    assert "\x1b]8;" not in output, f"a hyperlink escape was printed\n  {where}"
    squashed = "".join(output.split())
    for word, shown in WATCHED_MARKUP.items():
        if word in value and word in squashed:
            assert any(s in squashed for s in shown), f"Rich markup of the input was interpreted ({word!r})\n  {where}"
    if len(value) >= 100_000:
        assert len(output) < 20_000, f"a {len(value)}-character input echoed in {len(output)} characters\n  {where}"


def check_refusal(result: Result, where: str) -> None:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"a refusal must be one line on stderr, got {len(lines)}\n  {where}"
    assert lines[0].startswith("error:"), f"a refusal's line must start with 'error:'\n  {where}"


def ascii_digits(value: str) -> str:
    """``value`` with decimal digits of every script written in ASCII."""
    return "".join(str(unicodedata.decimal(c, "")) or c for c in value)


def must_refuse(case: Case) -> bool:
    bad, param = case.bad, case.param
    if bad.refuse:
        return True
    if param is not None and isinstance(param.type, click.Path):
        if bad.id == "path-directory" and not param.type.file_okay:
            return False  # a folder option (survey's --trees): a folder is what it takes
        read = param.name in READ_PATHS or bool(param.type.exists)
        return bad.path_refuse or (read and bad.read_refuse)
    return False


def run_case(world: World, case: Case, workdir: Path) -> None:
    value = case.bad.value if case.kind != "stdin" else world.resolve(case.bad.value, workdir)
    if case.kind == "argument":
        args, stdin = base_invocation(case.path, case.param, case.bad.value)
    else:
        args, stdin = base_invocation(case.path)
    if case.kind == "stdin":
        stdin = value.replace("\n", " ") + "\n" + stdin
    elif case.kind == "option":
        args = [*args, case.slot, case.bad.value]
    before = dump(world.template_db)
    result, db = invoke(world, [*case.path, *args], stdin, workdir)
    where = f"case {case.id}\n  " + describe([*case.path, *args], result)
    check_output(value, result, where)
    leaked = sorted(str(p) for p in (world.root / "home").rglob("*") if p.is_file())
    assert not leaked, f"files written outside the given database and cache: {leaked}\n  {where}"
    if case.kind == "stdin":
        assert result.exit_code == 0, f"a bad line on stdin should be answered and the game go on\n  {where}"
        return
    if result.exit_code != 0:
        if ascii_digits(value) != value:  # read as the digits they are: as the ASCII twin does
            twin, _ = invoke(world, [*case.path, *[ascii_digits(a) for a in args]], stdin, workdir / "twin")
            if twin.exit_code == result.exit_code:
                return
        check_refusal(result, where)
        assert dump(db) == before, f"a refused invocation changed the database\n  {where}"
    elif must_refuse(case):
        pytest.fail(f"accepted a value it should refuse (exit 0)\n  {where}")


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def no_real_server(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, object]]:
    """``keypeg serve`` checks its options and the address, then would serve for ever: here uvicorn only
    records that it was asked to start."""
    started: list[dict[str, object]] = []
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: started.append(kwargs))
    monkeypatch.setattr("keypeg.cli.serve.serve_workers", lambda app, workers, options: started.append(options))
    return started


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("robust")
    (root / "home").mkdir()
    template = root / "template.sqlite3"
    world = World(root, template, root / "tree.json")
    env = environment(root, template)
    runner = CliRunner()
    for args, stdin in (
        (["play", *RULES, "--secret", "AB"], "AB\n"),
        (["solve", *RULES], "2,0\n"),
        (["analyze", *RULES, "--export", str(world.tree)], ""),
    ):
        result = runner.invoke(cli, args, input=stdin, env=env)
        assert result.exit_code == 0, (args, result.output)
    assert dump(template), "the seeded database has tables"
    (root / "home").mkdir(exist_ok=True)
    with app_in_thread(create_app(f"sqlite:///{root / 'web.sqlite3'}")) as base:  # keypeg room's server
        world.room = closed_room(base)
        yield world


def closed_room(base: str) -> str:
    """The watching link of a room of two its host started and closed (``keypeg room`` watches it and ends)."""
    import httpx

    with httpx.Client(base_url=base) as host, httpx.Client(base_url=base) as guest:
        hosts, guests = ({"X-CSRF-Token": c.get("/api/session").json()["csrf"]} for c in (host, guest))
        made = host.post("/api/rooms", json={"pegs": 2, "colors": 3}, headers=hosts).json()
        guest.post(f"/api/rooms/{made['id']}/join", json={"token": made["token"]}, headers=guests)
        host.post(f"/api/rooms/{made['id']}/start", headers=hosts)
        assert host.post(f"/api/rooms/{made['id']}/close", headers=hosts).json()["over"]
    return f"{base}/rooms/{made['id']}"


# -- the tests ------------------------------------------------------------------------------------


def test_commands_are_enumerated_from_the_group() -> None:
    names = {path[0] for path in COMMANDS}
    assert {"score", "play", "solve", "match", "analyze", "player", "verify"} <= names
    assert set(cli.commands) <= names


@pytest.mark.parametrize("path", list(COMMANDS), ids=[" ".join(p) for p in COMMANDS])
def test_base_invocation_is_accepted(world: World, path: tuple[str, ...], tmp_path: Path) -> None:
    """Each case changes one thing in an invocation that works; so it must work."""
    args, stdin = base_invocation(path)
    assert "<NO DEFAULT FOR THIS ARGUMENT>" not in args, f"add the argument of {path} to ARGUMENT_DEFAULTS"
    result, _ = invoke(world, [*path, *args], stdin, tmp_path)
    where = describe([*path, *args], result)
    check_output("", result, where)
    assert result.exit_code == 0, where


@pytest.mark.parametrize("case", case_params(core=True))
def test_bad_value(world: World, case: Case, tmp_path: Path) -> None:
    run_case(world, case, tmp_path)


@pytest.mark.parametrize("case", case_params(core=False))
def test_bad_value_more(world: World, case: Case, tmp_path: Path) -> None:
    run_case(world, case, tmp_path)


# -- arbitrary text where codes, scores and names go ---------------------------------------------

line_text = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    ),
    max_size=40,
)
any_text = st.one_of(
    st.text(max_size=40), line_text, st.sampled_from(["\u0661\u0662", "\uff12,\uff11", "[/]", "\x1b[2J", ""])
)

SMALL = Rules(2, 3)


def _accepts(read: object, text: str) -> bool:
    try:
        read(text)  # type: ignore[operator]
    except KeypegError:
        return False
    return True


@settings(max_examples=30, deadline=None)
@given(text=any_text)
def test_any_code_text_is_read_or_refused(world: World, tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    workdir = tmp_path_factory.mktemp("code")
    for args in (["score", text, "BA", *RULES], ["score", "AB", text, *RULES]):
        result, _ = invoke(world, args, "", workdir)
        where = describe(args, result)
        check_output(text, result, where)
        expected = 0 if _accepts(SMALL.parse, text) else 2
        assert result.exit_code == expected, where
        if expected:
            check_refusal(result, where)


@settings(max_examples=30, deadline=None)
@given(text=any_text)
def test_any_score_text_is_read_or_refused(world: World, tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    workdir = tmp_path_factory.mktemp("score")
    args = ["candidates", f"AB={text}", *RULES]
    result, _ = invoke(world, args, "", workdir)
    where = describe(args, result)
    check_output(text, result, where)
    if not _accepts(SMALL.parse_feedback, text):
        assert result.exit_code == 2, where
        check_refusal(result, where)


@settings(max_examples=30, deadline=None)
@given(text=any_text)
def test_any_player_name_is_taken_or_refused(world: World, tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    workdir = tmp_path_factory.mktemp("name")
    before = dump(world.template_db)
    args = ["player", text]
    result, db = invoke(world, args, "", workdir)
    where = describe(args, result)
    check_output(text, result, where)
    if result.exit_code != 0:
        check_refusal(result, where)
        assert dump(db) == before, f"a refused invocation changed the database\n  {where}"
    if not text.strip() or "\x00" in text:
        assert result.exit_code != 0, f"an empty or NUL name accepted\n  {where}"


@settings(max_examples=30, deadline=None)
@given(text=line_text)
def test_any_line_on_play_stdin_is_answered(world: World, tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    assume(text.strip().lower() not in {"q", "quit", "exit", "u", "undo", "h", "hint", "?", "help"})
    workdir = tmp_path_factory.mktemp("line")
    args = ["play", *RULES, "--secret", "AB"]
    result, _ = invoke(world, args, f"{text}\nAB\n", workdir)
    where = describe(args, result) + f"\n  stdin: {short(text)}"
    check_output(text, result, where)
    assert result.exit_code == 0, where


# -- subprocesses: stdin that is not UTF-8, files read by the real interpreter ------------------

STDIN_BYTES = {
    "latin-1": "é\n".encode("latin-1"),
    "invalid-utf8": b"\xff\xfe\x80\x81\n",
    "utf16-bom": "AB\n".encode("utf-16"),
    "nul-bytes": b"A\x00B\n",
}


def run_process(world: World, args: list[str], stdin: bytes, workdir: Path) -> subprocess.CompletedProcess[bytes]:
    db = copy_database(world.template_db, workdir / "keypeg.sqlite3")
    env = {k: v for k, v in environment(world.root, db).items() if v is not None}
    env.update(PATH="/usr/bin:/bin", PYTHONPATH=str(Path(__file__).parents[1] / "src"), LANG="C.UTF-8")
    return subprocess.run(
        [sys.executable, "-m", "keypeg", *[world.resolve(a, workdir) for a in args]],
        input=stdin,
        capture_output=True,
        cwd=workdir,
        env=env,
        timeout=120,
        check=False,
    )


def check_process(process: subprocess.CompletedProcess[bytes], where: str, *, protocol: bool = False) -> None:
    stdout = process.stdout.decode("utf-8", "replace")
    stderr = process.stderr.decode("utf-8", "replace")
    where += f"\n  exit code {process.returncode}\n  stderr: {stderr[-600:]!r}\n  stdout: {stdout[-300:]!r}"
    assert process.returncode in (0, 1, 2), where
    assert "Traceback" not in stdout + stderr, where
    assert "internal error" not in stdout + stderr, where
    for byte in (b"\x00", b"\x1b", b"\xff"):
        assert byte not in process.stdout + process.stderr, f"raw {byte!r} printed\n  {where}"
    if process.returncode != 0 and not protocol:
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("error:"), f"a refusal must be one 'error:' line\n  {where}"


@pytest.mark.slow
@pytest.mark.parametrize("encoding", list(STDIN_BYTES))
@pytest.mark.parametrize("command", sorted(STDIN_COMMANDS), ids=lambda p: p[0])
def test_stdin_that_is_not_utf8(world: World, tmp_path: Path, command: tuple[str, ...], encoding: str) -> None:
    args, stdin = base_invocation(command)
    process = run_process(world, [*command, *args], STDIN_BYTES[encoding] + stdin.encode(), tmp_path)
    # a game's line protocol refuses a bad line on stderr and reads on; a game whose winning line was
    # spoiled ends when the input does (resigned, exit 1): that is the protocol, not a crash
    check_process(process, f"keypeg {' '.join(command + tuple(args))} < {encoding} bytes", protocol=True)
    try:
        STDIN_BYTES[encoding].decode("utf-8")
    except UnicodeDecodeError:
        assert "not UTF-8 text" in process.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "<NESTED>"],
        ["verify", "<BINARY>"],
        ["replay", "<NESTED>", "AB"],
        ["match", "--resume", "<NESTED>"],
        ["player", "ann", "--db", "<DB_READ_ONLY>"],
        ["analyze", *RULES, "--export", "<UNWRITABLE>"],
    ],
    ids=[
        "verify-nested",
        "verify-binary",
        "replay-nested",
        "match-resume-nested",
        "player-read-only-db",
        "export-unwritable",
    ],
)
def test_real_files_in_a_real_process(world: World, tmp_path: Path, args: list[str]) -> None:
    process = run_process(world, args, b"", tmp_path)
    check_process(process, f"keypeg {' '.join(args)}")
    assert process.returncode != 0, "bad file accepted"


def test_read_only_database_names_the_file(world: World, tmp_path: Path) -> None:
    result, _ = invoke(world, ["player", "zed", "--db", "<DB_READ_ONLY>"], "", tmp_path)
    where = describe(["player", "zed", "--db", "<DB_READ_ONLY>"], result)
    check_output("", result, where)
    assert result.exit_code == 1, where
    check_refusal(result, where)
    assert "template.sqlite3" in result.stderr, f"the message should name the database file\n  {where}"


def test_the_corpus_sees_what_it_looks_for(world: World, tmp_path: Path) -> None:
    """The checks can fail: markup printed through Rich unescaped, or a raw escape, is caught."""
    from rich.console import Console

    fake = Result(
        runner=CliRunner(),
        stdout_bytes=b"",
        stderr_bytes=b"",
        output_bytes=b"",
        return_value=None,
        exit_code=2,
        exception=None,
    )
    console = Console(record=True, width=100)
    console.print("[bold]zqx7 and \x1b[2J")
    leaked = Result(
        runner=CliRunner(),
        stdout_bytes=console.export_text().encode(),
        stderr_bytes=b"error: one\nerror: two\n",
        output_bytes=b"",
        return_value=None,
        exit_code=2,
        exception=None,
    )
    with pytest.raises(AssertionError):
        check_output("[bold]zqx7 and \x1b[2J", leaked, "fake")
    with pytest.raises(AssertionError):
        check_refusal(leaked, "fake")
    with pytest.raises(AssertionError):
        check_refusal(fake, "fake")
    assert json.dumps(sorted(c.id for c in cases(True)))  # the fast loop has cases
