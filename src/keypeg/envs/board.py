"""What keypeg's learning environments share: their rules keyword arguments, the codes as actions and the
board as an array.

Both environments (:class:`~keypeg.envs.MastermindEnv`, the codebreaker alone, and the codemaker against
the codebreaker in :mod:`keypeg.envs.codemaker`) take the rules as keyword arguments (:func:`rules_from`),
number the codes in keypeg's code order (:class:`CodeBook`) and show the board as a fixed-shape integer
array (:func:`encode_board`): one row a guess, its colour indices then its black and white pegs, ``-1`` in
the rows not played yet.

>>> from keypeg import Rules
>>> book = CodeBook(Rules(3, 3))
>>> book.size, str(book.code(5)), book.index("ACB")
(27, 'ABC', 7)
>>> history = [(book.code(5), book.rules.parse_feedback("1,2"))]
>>> encode_board(book.rules, history)[:2].tolist()
[[0, 1, 2, 1, 2], [-1, -1, -1, -1, -1]]
>>> [(str(g), str(f)) for g, f in decode_board(book.rules, encode_board(book.rules, history))]
[('ABC', '1,2')]
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidCodeError, InvalidRulesError, KeypegError, TooLargeError
from keypeg.limits import ENV_CODE_LIMIT
from keypeg.rules import Rules
from keypeg.text import plural, quoted
from keypeg.variants import game_label, preset_of, rules_from_options

if TYPE_CHECKING:
    from gymnasium import spaces

__all__ = [
    "BOARD_DTYPE",
    "NOT_PLAYED",
    "CodeBook",
    "rules_from",
    "board_space",
    "encode_board",
    "decode_board",
    "render_board",
]

BOARD_DTYPE = np.int8
"""The board array's type: colour indices (at most 26 colours and a blank) and key pegs (at most 15) fit."""
NOT_PLAYED = -1
"""The value of every cell of a row not played yet."""
_CACHED_INDICES = 1 << 22
"""Indices of fitting codes a :class:`CodeBook` keeps for histories seen before (32 MiB at most): a policy
that follows a strategy's tree meets each node once per secret, and its codes are listed once."""

Moves = Iterable[tuple[Code, Feedback]]
"""Scored guesses, oldest first: a :class:`~keypeg.History`, a game's ``history`` or a list of pairs."""


def _flag(name: str, value: object) -> bool | None:
    if value is None or isinstance(value, bool | np.bool_):
        return None if value is None else bool(value)
    raise InvalidRulesError(f"{name} must be True or False, got {quoted(value)}")


def _count(name: str, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool | np.bool_):
        raise InvalidRulesError(f"{name} must be a whole number, got {quoted(value)}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidRulesError(f"{name} must be a whole number, got {quoted(value)}") from None


def _text(name: str, value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise InvalidRulesError(f"{name} must be text, got {quoted(value)}")


def rules_from(
    variant: str | Rules | None = None,
    pegs: int | None = None,
    colors: int | None = None,
    repeats: bool | None = None,
    rows: int | None = None,
    blanks: bool | None = None,
    feedback: str | None = None,
) -> Rules:
    """The rules of an environment from its keyword arguments, mixed as the command line's options mix: a
    preset (``variant``, classic by default, or a :class:`~keypeg.Rules`) with any field changed.

    Bad values raise :class:`~keypeg.errors.InvalidRulesError` or
    :class:`~keypeg.errors.UnknownVariantError`; a game of more than :data:`keypeg.limits.ENV_CODE_LIMIT`
    codes raises :class:`~keypeg.errors.TooLargeError`. Each has a one-line message.

    >>> rules_from("classic", rows=8).describe()
    '4 pegs, 6 colours, repeats, 8 rows'
    >>> rules_from(pegs=3, colors=5, repeats=False).describe()
    '3 pegs, 5 colours, no repeats, 12 rows'
    """
    if isinstance(variant, Rules):
        base, name = variant, None
    else:
        base, name = None, _text("variant", variant)
    fields = (_count("pegs", pegs), _count("colors", colors), _flag("repeats", repeats), _flag("blanks", blanks))
    told_rows, told_feedback = _count("rows", rows), _text("feedback", feedback)
    if base is None:
        rules = rules_from_options(name, *fields, told_rows, told_feedback)
    else:
        changes: dict[str, object] = dict(zip(("pegs", "colors", "repeats", "blanks"), fields, strict=True))
        changes |= {"rows": told_rows, "feedback": told_feedback}
        changes = {key: value for key, value in changes.items() if value is not None}
        if "colors" in changes and changes["colors"] != base.colors:
            changes |= {"symbols": (), "names": ()}
        rules = base.replace(**changes) if changes else base
    if rules.size > ENV_CODE_LIMIT:
        raise TooLargeError(
            f"{game_label(rules)} has {rules.size:,} codes, more than an environment takes "
            f"({ENV_CODE_LIMIT:,}: an action a code, and a mask of a byte a code every step)"
        )
    return rules


class CodeBook:
    """The codes of a rule set numbered in keypeg's code order (lexicographic in colour numbers; under
    colours feedback the sorted codes only): an environment's actions.

    The codes, and the codes that fit a history (:meth:`fitting`, :meth:`mask`, kept for histories seen
    before), are the engine's: the knowledge a play session has (``BreakSession.knowledge()``), whose
    fitting codes the kernels filter (about 50 us a step on classic, where :func:`keypeg.fitting`, which
    scores small games in plain Python so as not to load the kernels, takes 20 ms).

    >>> from keypeg import Rules
    >>> book = CodeBook(Rules(2, 3, feedback="colours"))
    >>> [str(book.code(i)) for i in range(book.size)]
    ['AA', 'AB', 'AC', 'BB', 'BC', 'CC']
    >>> book.index("BA"), book.mask([(book.code(1), book.rules.parse_feedback("1"))]).tolist()
    (1, [1, 0, 1, 1, 1, 0])
    """

    def __init__(self, rules: Rules) -> None:
        from keypeg.knowledge import Knowledge

        if not isinstance(rules, Rules):
            raise InvalidRulesError(f"a code book needs Rules, not {quoted(rules)}")
        if rules.size > ENV_CODE_LIMIT:
            rules_from(rules)  # raises the one-line TooLargeError
        self.rules = rules
        self.size = rules.size
        """How many codes (actions) there are."""
        self._codes: tuple[Code, ...] = tuple(Knowledge(rules).codes())
        self._index = {code.colors: i for i, code in enumerate(self._codes)}
        self._fitting: OrderedDict[tuple[tuple[tuple[int, ...], int, int], ...], npt.NDArray[np.int64]]
        self._fitting = OrderedDict()
        self._kept = 0
        if len(self._codes) != self.size:  # the engine and Rules.size disagree: never, but say so if it happens
            raise KeypegError(f"{self.size} codes expected under {rules.describe()}, {len(self._codes)} enumerated")

    def __len__(self) -> int:
        return self.size

    def code(self, index: int) -> Code:
        """The code numbered ``index`` (:class:`~keypeg.errors.InvalidCodeError` outside ``0 .. size - 1``)."""
        if isinstance(index, bool | np.bool_):
            raise InvalidCodeError(f"an action is a code's number, not {quoted(index)}")
        try:
            number = operator.index(index)
        except TypeError:
            raise InvalidCodeError(f"an action is a code's number, not {quoted(index)}") from None
        if not 0 <= number < self.size:
            raise InvalidCodeError(f"action {number} is not a code: the actions are 0 to {self.size - 1}")
        return self._codes[number]

    def index(self, code: Code | str) -> int:
        """The number of ``code`` (a :class:`~keypeg.Code` of this game, or text in any notation)."""
        return self._index[self.rules.adopt(code).colors]

    def fitting(self, history: Moves) -> npt.NDArray[np.int64]:
        """The numbers of the codes that fit every scored guess of ``history``, in order."""
        moves = tuple(history)
        key = tuple((guess.colors, feedback.black, feedback.white) for guess, feedback in moves)
        found = self._fitting.get(key)
        if found is not None:
            self._fitting.move_to_end(key)
            return found
        if not moves:
            found = np.arange(self.size, dtype=np.int64)
        else:
            from keypeg.knowledge import Knowledge

            found = np.asarray(Knowledge(self.rules, moves).candidates, dtype=np.int64)
        found.flags.writeable = False
        self._fitting[key] = found
        self._kept += found.size
        while self._kept > _CACHED_INDICES and len(self._fitting) > 1:
            _, dropped = self._fitting.popitem(last=False)
            self._kept -= dropped.size
        return found

    def mask(self, history: Moves) -> npt.NDArray[np.int8]:
        """One byte a code: 1 for the codes that fit every scored guess of ``history``, 0 for the others."""
        mask = np.zeros(self.size, dtype=np.int8)
        mask[self.fitting(history)] = 1
        return mask


def board_space(rules: Rules) -> spaces.Box:
    """The observation space of a board: ``rows x (pegs + 2)`` integers from ``-1`` (not played) up."""
    from gymnasium import spaces

    high = max(rules.num_colors - 1, rules.pegs)
    return spaces.Box(low=NOT_PLAYED, high=high, shape=(rules.rows, rules.pegs + 2), dtype=BOARD_DTYPE)


def encode_board(rules: Rules, history: Moves) -> npt.NDArray[np.int8]:
    """The board after ``history``: a row a guess, its colour indices (a blank is ``rules.colors``) then its
    black and white pegs (white is 0 under black and colours feedback; under colours feedback black counts
    the pegs of a right colour), and ``-1`` in every cell of the rows not played."""
    board = np.full((rules.rows, rules.pegs + 2), NOT_PLAYED, dtype=BOARD_DTYPE)
    for row, (guess, feedback) in enumerate(history):
        if row >= rules.rows:
            raise InvalidCodeError(
                f"{plural(row + 1, 'guess', 'guesses')} played on a board of {plural(rules.rows, 'row')}"
            )
        board[row, : rules.pegs] = guess.colors
        board[row, rules.pegs :] = (feedback.black, feedback.white)
    return board


def decode_board(rules: Rules, board: npt.ArrayLike) -> list[tuple[Code, Feedback]]:
    """The scored guesses a board array shows (the rows before the first row not played), checked against
    the rules (:class:`~keypeg.errors.InvalidCodeError`, :class:`~keypeg.errors.InvalidFeedbackError`)."""
    array = np.asarray(board)
    if array.shape != (rules.rows, rules.pegs + 2):
        raise InvalidCodeError(f"a board of {rules.describe()} is {rules.rows} x {rules.pegs + 2}, not {array.shape}")
    moves: list[tuple[Code, Feedback]] = []
    for row in array:
        if row[0] == NOT_PLAYED:
            break
        colors: Sequence[int] = [int(c) for c in row[: rules.pegs]]
        feedback = rules.check_feedback(Feedback(int(row[rules.pegs]), int(row[rules.pegs + 1])))
        moves.append((rules.code(colors), feedback))
    return moves


def render_board(rules: Rules, history: Moves, *, secret: Code | None = None) -> str:
    """The board as text, a line a guess (its number, the code, the key pegs as keypeg's terminal draws them,
    the score in words), then the rows left, or how the game ended when ``secret`` is given."""
    moves = list(history)
    preset = preset_of(rules)
    lines = [f"{preset.name}: {rules.describe()}" if preset is not None else rules.describe()]
    width = len(str(rules.rows))
    for number, (guess, feedback) in enumerate(moves, 1):
        lines.append(f"{number:>{width}}  {guess}  {rules.drawn(feedback)}  {rules.say(feedback)}")
    broken = bool(moves) and moves[-1][1] == rules.win
    if broken:
        lines.append(f"broken in {plural(len(moves), 'guess', 'guesses')}")
    elif len(moves) >= rules.rows:
        lines.append("not broken" + (f": the secret was {secret}" if secret is not None else ""))
    else:
        lines.append(f"{plural(rules.rows - len(moves), 'row')} left")
    return "\n".join(lines) + "\n"
