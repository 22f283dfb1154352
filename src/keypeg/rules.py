"""Rule sets: pegs, colours, repeats, blanks, rows, and how codes are written.

A code is written one symbol per peg. Three notations are read, tried in this
order, and a code is read whole in the first one that fits:

1. the rule set's own symbols (colour initials for ``classic``, digits 0-9 for
   ``bulls-and-cows``; letters by default);
2. letters ``A``, ``B``, ... (``A`` is the first colour: the notation of Kooi's paper);
3. digits ``1``, ``2``, ... (``1`` is the first colour: Knuth's notation, up to 9 colours).

Spaces and commas are ignored and case does not matter; digits of any script (Arabic-Indic
``1234``) and full-width letters and digits read as the ASCII ones when the code does not fit
as written. A blank, where blanks are
allowed, is written ``.`` or ``-`` and counts as one more colour, the last.
Codes always print in the rule set's own symbols.
"""

from __future__ import annotations

import math
import operator
import string
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from keypeg.code import Code, Feedback
from keypeg.errors import InvalidCodeError, InvalidFeedbackError, InvalidRulesError
from keypeg.text import is_hidden, plural, quoted

__all__ = ["Rules", "MAX_PEGS", "MAX_COLORS", "BLANK_SYMBOLS", "FEEDBACKS"]

MAX_PEGS = 15
MAX_COLORS = 26
BLANK_SYMBOLS = (".", "-")
LETTERS = tuple(string.ascii_uppercase)
DIGITS_FROM_ONE = tuple("123456789")
FEEDBACKS = ("standard", "colours", "black")
"""What the codemaker reports (see :attr:`Rules.feedback`): black and white pegs (``standard``), only the
pegs of a right colour in any place (``colours``: a code is its colours, order never matters), or only the
pegs right in colour and place (``black``)."""
_FEEDBACK_ALIASES = {"colors": "colours"}


@dataclass(frozen=True, slots=True)
class Rules:
    """A rule set of Mastermind.

    Args:
        pegs: pegs in a code.
        colors: colours to choose from, blanks not counted.
        repeats: whether a colour may appear more than once in a code.
        blanks: whether a peg may be left empty (a blank is one more colour).
        rows: guesses the codebreaker is allowed.
        symbols: one character per colour, the rule set's own notation
            (letters ``A..`` when not given).
        names: a name per colour, for display.
        name: the variant's name, when the rule set comes from a preset.
        feedback: what a score reports, one of :data:`FEEDBACKS` (``colors`` reads as ``colours``).
            Under ``black`` and ``colours`` a score is ``Feedback(k, 0)``: ``k`` black pegs, or ``k``
            pegs of a right colour; under ``colours`` a code is its colours, kept in colour order.

    >>> rules = Rules(4, 6)
    >>> rules.size, len(rules.feedbacks())
    (1296, 14)
    >>> Rules(5, 3, repeats=False)
    Traceback (most recent call last):
    ...
    keypeg.errors.InvalidRulesError: 5 pegs need at least 5 colours without repeats; got 3
    """

    pegs: int
    colors: int
    repeats: bool = True
    blanks: bool = False
    rows: int = 12
    symbols: tuple[str, ...] = field(default=(), compare=True)
    names: tuple[str, ...] = field(default=(), compare=False)
    name: str = field(default="", compare=False)
    feedback: str = "standard"

    def __post_init__(self) -> None:
        feedback = self.feedback.strip().lower() if isinstance(self.feedback, str) else self.feedback
        feedback = _FEEDBACK_ALIASES.get(feedback, feedback)
        if feedback not in FEEDBACKS:
            raise InvalidRulesError(f"feedback must be one of {', '.join(FEEDBACKS)}; got {quoted(self.feedback)}")
        object.__setattr__(self, "feedback", feedback)
        for attr in ("pegs", "colors", "rows"):
            value = getattr(self, attr)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidRulesError(f"{attr} must be a whole number, got {quoted(value)}")
        if not 1 <= self.pegs <= MAX_PEGS:
            raise InvalidRulesError(f"pegs must be from 1 to {MAX_PEGS}, got {quoted(self.pegs)}")
        if not 2 <= self.colors <= MAX_COLORS:
            raise InvalidRulesError(f"colours must be from 2 to {MAX_COLORS}, got {quoted(self.colors)}")
        if not 1 <= self.rows <= 100:
            raise InvalidRulesError(f"rows must be from 1 to 100, got {quoted(self.rows)}")
        if not self.repeats and self.pegs > self.num_colors:
            raise InvalidRulesError(
                f"{self.pegs} pegs need at least {self.pegs} colours without repeats; got {self.num_colors}"
            )
        if not self.symbols:
            object.__setattr__(self, "symbols", LETTERS[: self.colors])
        self._check_symbols()
        if self.names and len(self.names) != self.colors:
            raise InvalidRulesError(f"{len(self.names)} colour names given for {self.colors} colours")

    def _check_symbols(self) -> None:
        symbols = tuple(self.symbols)
        object.__setattr__(self, "symbols", symbols)
        if len(symbols) != self.colors:
            raise InvalidRulesError(
                f"{len(symbols)} symbols given for {self.colors} colours: {quoted(''.join(symbols))}"
            )
        for symbol in symbols:
            one_char = len(symbol) == 1 and len(symbol.upper()) == 1
            if not one_char or symbol in BLANK_SYMBOLS or not symbol.strip() or symbol in ",=[]" or is_hidden(symbol):
                raise InvalidRulesError(f"a colour symbol must be one visible character, not {quoted(symbol)}")
        if len({s.upper() for s in symbols}) != len(symbols):
            raise InvalidRulesError(f"colour symbols must differ (ignoring case): {quoted(''.join(symbols))}")

    def __repr__(self) -> str:
        parts = [repr(self.pegs), repr(self.colors)]
        for name, default in (("repeats", True), ("blanks", False), ("rows", 12)):
            value = getattr(self, name)
            if value != default:
                parts.append(f"{name}={value!r}")
        if self.symbols != LETTERS[: self.colors]:
            parts.append(f"symbols={self.symbols!r}")
        if self.names:
            parts.append(f"names={self.names!r}")
        if self.name:
            parts.append(f"name={self.name!r}")
        if self.feedback != "standard":
            parts.append(f"feedback={self.feedback!r}")
        return f"Rules({', '.join(parts)})"

    def __str__(self) -> str:
        return self.describe()

    # -- derived facts -------------------------------------------------------------

    @property
    def num_colors(self) -> int:
        """Colours a peg can take, a blank counted as one."""
        return self.colors + int(self.blanks)

    @property
    def blank(self) -> int | None:
        """The colour number of a blank (the last one), or ``None`` without blanks."""
        return self.colors if self.blanks else None

    @property
    def ordered(self) -> bool:
        """Whether the order of a code's pegs matters (all feedbacks but ``colours``, where a code is its
        colours and is kept sorted by colour number)."""
        return self.feedback != "colours"

    @property
    def size(self) -> int:
        """How many codes there are (under ``colours``, how many sets of colours: multisets with repeats)."""
        k, p = self.num_colors, self.pegs
        if not self.ordered:
            return math.comb(k + p - 1, p) if self.repeats else math.comb(k, p)
        if self.repeats:
            return int(k**p)
        return math.perm(k, p)

    @property
    def win(self) -> Feedback:
        """The score of a guess that breaks the code."""
        return Feedback(self.pegs, 0)

    @property
    def game(self) -> tuple[int, int, bool, bool, str]:
        """What makes two rule sets play the same codes and scores: pegs, colours, repeats, blanks, feedback
        (not the rows, the symbols or the name)."""
        return (self.pegs, self.colors, self.repeats, self.blanks, self.feedback)

    @property
    def slug(self) -> str:
        """The game in a few characters, for file names and grouping: ``4x6``, ``4x10-norepeats``, ``4x6-blanks``,
        ``4x6-black``, ``4x6-colours``."""
        text = f"{self.pegs}x{self.colors}{'' if self.repeats else '-norepeats'}{'-blanks' if self.blanks else ''}"
        return text if self.feedback == "standard" else f"{text}-{self.feedback}"

    def adopt(self, code: Code | str) -> Code:
        """``code`` as a code of these rules: text is parsed; a :class:`Code` of another rule set of the
        same game is relabelled; anything else, a code of another game, or a :class:`Code` built directly
        that its rules do not allow (a colour out of range, a peg too many) raises :class:`InvalidCodeError`."""
        if isinstance(code, str):
            return self.parse(code)
        if not isinstance(code, Code):
            raise InvalidCodeError(f"a code is a Code or text, not {quoted(code)}")
        if not isinstance(code.rules, Rules):
            raise InvalidCodeError(f"a code's rules must be a Rules, not {quoted(code.rules)}")
        if code.rules.game != self.game:
            code.rules.code(code.colors)  # one its own rules refuse is refused for that
            raise InvalidCodeError(f"{str(code)!r} is not a code of {self.describe()}")
        checked = self.code(code.colors)  # a Code made directly is checked here, at every door
        return code if code.rules is self and checked.colors == code.colors else checked

    def as_dict(self) -> dict[str, object]:
        """The rules as JSON-ready data (:meth:`from_dict` reads it back)."""
        return {
            "pegs": self.pegs,
            "colors": self.colors,
            "repeats": self.repeats,
            "blanks": self.blanks,
            "rows": self.rows,
            "symbols": "".join(self.symbols),
            "names": list(self.names),
            "name": self.name,
        } | ({} if self.feedback == "standard" else {"feedback": self.feedback})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rules:
        """Rules from :meth:`as_dict` data; anything malformed raises :class:`InvalidRulesError`."""
        try:
            return cls(
                pegs=data["pegs"],
                colors=data["colors"],
                repeats=bool(data.get("repeats", True)),
                blanks=bool(data.get("blanks", False)),
                rows=data.get("rows", 12),
                symbols=tuple(str(data.get("symbols", ""))),
                names=tuple(str(n) for n in data.get("names", ())),
                name=str(data.get("name", "")),
                feedback=str(data.get("feedback", "standard")),
            )
        except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as error:
            if isinstance(error, InvalidRulesError):
                raise
            raise InvalidRulesError(f"damaged rules: {error.__class__.__name__}: {quoted(str(error))}") from None

    def describe(self) -> str:
        """One line for people: ``4 pegs, 6 colours, repeats, 12 rows`` (``..., repeats, black pegs only, 12 rows``,
        ``..., repeats, colours only, 12 rows`` under the other feedbacks)."""
        text = f"{plural(self.pegs, 'peg')}, {self.colors} colours, {'repeats' if self.repeats else 'no repeats'}"
        if self.blanks:
            text += ", blanks"
        if self.feedback != "standard":
            text += ", black pegs only" if self.feedback == "black" else ", colours only"
        return f"{text}, {plural(self.rows, 'row')}"

    def replace(self, **changes: object) -> Rules:
        """A copy with some fields changed (and validated again)."""
        return replace(self, **changes)  # type: ignore[arg-type]

    # -- writing codes -------------------------------------------------------------

    def symbol(self, color: int) -> str:
        """The symbol that prints colour number ``color``."""
        if color == self.blank:
            return BLANK_SYMBOLS[0]
        return self.symbols[color]

    def format(self, colors: Iterable[int]) -> str:
        """Print colour numbers in the rule set's own symbols."""
        return "".join(self.symbol(c) for c in colors)

    def notations(self) -> list[tuple[str, tuple[str, ...]]]:
        """The notations codes can be written in, in the order they are tried."""
        found: list[tuple[str, tuple[str, ...]]] = [("own", self.symbols)]
        if self.symbols != LETTERS[: self.colors]:
            found.append(("letters", LETTERS[: self.colors]))
        if self.colors <= 9:
            found.append(("digits", DIGITS_FROM_ONE[: self.colors]))
        return found

    def parse(self, text: str) -> Code:
        """Read a code written in any accepted notation; raise :class:`InvalidCodeError` if it is not one.

        >>> str(Rules(4, 6).parse("1 1 2 2"))
        'AABB'
        """
        return self.read(text)[0]

    def read(self, text: str) -> tuple[Code, str]:
        """Read a code as :meth:`parse` does, and say in which notation: ``own``, ``letters`` or ``digits``
        (see :meth:`notations`).

        >>> from keypeg.variants import find_variant
        >>> code, notation = find_variant("classic").rules.read("BBCA")
        >>> str(code), notation
        ('GGBR', 'letters')
        """
        if not isinstance(text, str):
            raise InvalidCodeError(f"a code must be text, got {quoted(text)}")
        compact = "".join(ch for ch in text if ch != "," and not ch.isspace()).upper()
        if not compact:
            raise InvalidCodeError(f"empty code {quoted(text)}: write {self.pegs} colours such as {self.example()!r}")
        found = self._read(compact)
        if found is None:
            ascii_form = _ascii_form(compact)
            found = None if ascii_form == compact else self._read(ascii_form)
        if found is None:
            raise InvalidCodeError(self._unknown_symbol_message(text, compact))
        colors, notation = found
        return self.code(colors, text=text), notation

    def _read(self, compact: str) -> tuple[tuple[int, ...], str] | None:
        """The colours of ``compact`` (upper case, nothing ignored left) in the first notation it fits, and
        that notation's name."""
        for name, alphabet in self.notations():
            lookup = {s.upper(): i for i, s in enumerate(alphabet)}
            if self.blanks:
                lookup.update({b: self.colors for b in BLANK_SYMBOLS})
            if all(ch in lookup for ch in compact):
                return tuple(lookup[ch] for ch in compact), name
        return None

    def _unknown_symbol_message(self, text: str, compact: str) -> str:
        known = {s.upper() for _, alphabet in self.notations() for s in alphabet}
        if self.blanks:
            known.update(BLANK_SYMBOLS)
        unknown = [ch for ch in compact if ch not in known]
        ways = " or ".join(self._notation_hint(alphabet) for _, alphabet in self.notations())
        if self.blanks:
            ways += ", '.' for a blank"
        if unknown:
            return f"unknown colour {quoted(unknown[0])} in {quoted(text)}: colours are {ways}"
        return f"code {quoted(text)} mixes notations: write it all in one of {ways}"

    @staticmethod
    def _notation_hint(alphabet: Sequence[str]) -> str:
        return f"{alphabet[0]}-{alphabet[-1]}" if len(alphabet) > 6 else "".join(alphabet)

    def code(self, colors: Sequence[int], *, text: str | None = None) -> Code:
        """Make a :class:`Code` from colour numbers, checking it against the rules."""
        given = colors

        def refused(why: str) -> InvalidCodeError:  # the message is written only when a code is refused
            return InvalidCodeError(f"code {quoted(text if text is not None else given)} {why}")

        try:
            colors = tuple(operator.index(c) for c in colors)
        except TypeError:
            raise refused("is not made of colour numbers") from None
        if len(colors) != self.pegs:
            raise refused(f"has {plural(len(colors), 'peg')}; these rules need {self.pegs}")
        if any(not 0 <= c < self.num_colors for c in colors):
            raise refused(f"has a colour outside 0..{self.num_colors - 1}")
        if not self.repeats and len(set(colors)) != len(colors):
            raise refused("repeats a colour, which these rules do not allow")
        return Code(colors if self.ordered else tuple(sorted(colors)), self)

    def example(self) -> str:
        """A legal code, for messages and help."""
        if self.repeats:
            colors = [min(i // 2, self.num_colors - 1) for i in range(self.pegs)]
        else:
            colors = list(range(self.pegs))
        return self.format(colors)

    # -- feedback --------------------------------------------------------------------

    def is_possible(self, feedback: Feedback) -> bool:
        """Whether some secret and guess of these rules produce ``feedback``.

        With repeats and three or more colours every score with ``black + white <= pegs``
        happens but ``pegs - 1`` black and 1 white; with two colours the white count
        is always even. Without repeats, the colours the two codes share number at
        least ``2 * pegs - colours``. Under ``black`` and ``colours`` the white count is 0; ``black``
        reports every count but ``pegs - 1`` when the codes are permutations of all the colours;
        ``colours`` reports every count from that least number shared.
        """
        b, w = feedback.black, feedback.white
        p, k = self.pegs, self.num_colors
        if b + w > p:
            return False
        if self.feedback == "black":
            return w == 0 and (self.repeats or b != p - 1 or k > p)
        if self.feedback == "colours":
            return w == 0 and (self.repeats or b >= 2 * p - k)
        if b == p - 1 and w == 1:
            return False
        if self.repeats:
            return k >= 3 or w % 2 == 0
        return b + w >= 2 * p - k

    def feedbacks(self) -> tuple[Feedback, ...]:
        """Every score that can happen under these rules, ordered by black then white."""
        candidates = (Feedback(b, w) for b in range(self.pegs + 1) for w in range(self.pegs + 1 - b))
        return tuple(f for f in candidates if self.is_possible(f))

    def check_feedback(self, feedback: Feedback) -> Feedback:
        """Return ``feedback`` if it can happen under these rules; raise :class:`InvalidFeedbackError` if not."""
        b, w = feedback.black, feedback.white
        if w and self.feedback != "standard":
            raise InvalidFeedbackError(
                f"{self.feedback} feedback gives no white pegs; got {b} black {w} white: write {self.feedback_hint}"
            )
        words = f"{b} black {w} white" if self.feedback == "standard" else self.say(feedback)
        if b + w > self.pegs:
            raise InvalidFeedbackError(
                f"score {words} has {plural(b + w, 'key peg')}; a code has only {plural(self.pegs, 'peg')}"
            )
        if not self.is_possible(feedback):
            raise InvalidFeedbackError(f"score {words} cannot happen with {self.describe()}")
        return feedback

    def parse_feedback(self, text: str) -> Feedback:
        """Read a score and check that it can happen: ``2,1`` or ``2b1w`` under standard feedback; one number
        (``2``, or ``2b`` under ``black``, ``2c`` under ``colours``; ``2,0`` too) under the others."""
        if self.feedback != "standard":
            single = Feedback.parse_single(text, "b" if self.feedback == "black" else "c")
            if single is not None:
                return self.check_feedback(single)
            try:
                feedback = Feedback.parse(text)
            except InvalidFeedbackError:
                message = f"cannot read the score {quoted(text)}: write {self.feedback_hint}"
                raise InvalidFeedbackError(message) from None
            return self.check_feedback(feedback)
        return self.check_feedback(Feedback.parse(text))

    @property
    def feedback_hint(self) -> str:
        """How to type a score under these rules, for prompts and errors."""
        if self.feedback == "black":
            return "the black pegs as one number, e.g. '2' or '2b'"
        if self.feedback == "colours":
            return "how many pegs are of a right colour as one number, e.g. '2' or '2c'"
        return "black and white as '2,1' or '2b1w'"

    def say(self, feedback: Feedback) -> str:
        """A score in words for people: ``2 black, 1 white``; ``2 black`` (black pegs only); ``3 colours
        right`` (colours only)."""
        if self.feedback == "black":
            return f"{feedback.black} black"
        if self.feedback == "colours":
            return f"{feedback.black} {'colour' if feedback.black == 1 else 'colours'} right"
        return f"{feedback.black} black, {feedback.white} white"

    def drawn(self, feedback: Feedback) -> str:
        """A score as key pegs, one character a peg: black ``●``, white ``○``, then empty holes ``·``; under
        colours feedback a peg of a right colour, placed nowhere in particular, ``◆``.

        >>> Rules(4, 6).drawn(Feedback(1, 2)), Rules(4, 6, feedback="colours").drawn(Feedback(3, 0))
        ('●○○·', '◆◆◆·')
        """
        right = "◆" if self.feedback == "colours" else "●"
        return right * feedback.black + "○" * feedback.white + "·" * (self.pegs - feedback.black - feedback.white)

    def show(self, feedback: Feedback) -> str:
        """A score in a table or a line of output: ``2,1`` under standard feedback, :meth:`say`'s words under the
        others (``2 black``, ``2 colours right``)."""
        return str(feedback) if self.feedback == "standard" else self.say(feedback)

    def key(self, feedback: Feedback) -> str:
        """A score in files and JSON keys, read back by :meth:`parse_feedback`: ``2,1`` under standard feedback,
        one number (``2``) under the others."""
        return str(feedback) if self.feedback == "standard" else str(feedback.black)

    def parse_scored(self, text: str) -> tuple[Code, Feedback]:
        """Read a scored guess written ``GUESS=B,W`` (``AABB=1,2``, ``1122=0,1``, ``RRGB=2b1w``; ``AABB=2`` under
        black or colours feedback)."""
        guess, feedback, _ = self.read_scored(text)
        return guess, feedback

    def read_scored(self, text: str) -> tuple[Code, Feedback, str]:
        """Read a scored guess as :meth:`parse_scored` does, and say in which notation the guess was
        written (see :meth:`read`)."""
        guess, sep, feedback = text.partition("=")
        if not sep:
            standard = self.feedback == "standard"
            shape, example = ("GUESS=BLACK,WHITE", "'AABB=1,2'") if standard else ("GUESS=N", "'AABB=2'")
            raise InvalidFeedbackError(f"cannot read {quoted(text)}: write a scored guess as {shape}, e.g. {example}")
        code, notation = self.read(guess)
        return code, self.parse_feedback(feedback), notation


def _ascii_form(compact: str) -> str:
    """``compact`` with decimal digits of any script made ASCII digits and full-width forms ASCII."""
    chars = []
    for ch in compact:
        digit = unicodedata.decimal(ch, None)
        if digit is not None:
            ch = str(digit)
        elif "\uff01" <= ch <= "\uff5e":
            ch = chr(ord(ch) - 0xFEE0).upper()
        chars.append(ch)
    return "".join(chars)
