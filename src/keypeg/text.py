"""Text from outside shown as text: control and format characters made visible, long echoes cut.

Anything a user, a file or the database gave keypeg is passed through :func:`visible` before it
is shown, so that it can neither move the cursor, ring the bell, recolour a screen, hide
characters nor flood the output. (Rich markup is escaped by the command line on top of this.)

>>> visible("ann\\x1b[2J")
'ann\\\\x1b[2J'
>>> visible("a\\u200bb")
'a\\\\u200bb'
>>> visible("x" * 100, limit=10)
'xxxxxxxxxx… (100 characters)'
"""

from __future__ import annotations

import unicodedata

__all__ = ["visible", "quoted", "ECHO_LIMIT", "MESSAGE_LIMIT", "is_hidden", "plural"]

ECHO_LIMIT = 200
"""How many characters of a piece of input an echo or an error message quotes."""

MESSAGE_LIMIT = 2_000
"""How long one of keypeg's own messages may be before it is cut: they quote input cut to
:data:`ECHO_LIMIT` and are bounded by design (three suspects named, the others counted), so this only
guards against a runaway, never cuts a message keypeg composed."""

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Control, format (zero-width, bidirectional overrides), surrogate, private-use and unassigned
characters, and the line and paragraph separators: none of them shows as itself."""


BLANK_RANGES = (
    (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x2800, 0x2800), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0x16FE4, 0x16FE4),
    (0x1D159, 0x1D159), (0x1D173, 0x1D17A), (0xE0100, 0xE01EF),
)  # fmt: skip
"""Unicode's default-ignorable code points outside the hidden categories (the combining grapheme
joiner, variation selectors, Hangul fillers, Mongolian selectors, Khmer inherent vowels, the Khitan
filler) and blank symbols (the blank Braille pattern, the null notehead): letters, marks or symbols by
category, yet nothing shows."""


def is_hidden(char: str) -> bool:
    """Whether a character would not show as itself on a screen."""
    point = ord(char)
    return unicodedata.category(char) in HIDDEN_CATEGORIES or any(lo <= point <= hi for lo, hi in BLANK_RANGES)


def _escaped(char: str) -> str:
    point = ord(char)
    if point < 0x100:
        return f"\\x{point:02x}"
    return f"\\u{point:04x}" if point < 0x10000 else f"\\U{point:08x}"


def visible(text: object, limit: int | None = ECHO_LIMIT) -> str:
    """``text`` with every hidden character written as an escape (``\\x1b``, ``\\u200b``), cut to
    ``limit`` characters (``None``: whole) with the full length said."""
    raw = str(text)
    cut = raw if limit is None or len(raw) <= limit else raw[:limit]
    shown = "".join(_escaped(c) if is_hidden(c) else c for c in cut)
    return shown if cut is raw else f"{shown}… ({len(raw)} characters)"


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 secret``, ``2 secrets``, ``1,296 codes``.

    >>> plural(1, "code"), plural(2, "code"), plural(1296, "code"), plural(0, "part"), plural(1, "guess", "guesses")
    ('1 code', '2 codes', '1,296 codes', '0 parts', '1 guess')
    """
    count = int(count)
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def quoted(text: object, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted as Python writes it (``'RGBY'``, ``'\\x1b[2J'``; other values as their repr)
    for an error message, with hidden characters escaped and at most ``limit`` characters quoted
    (the full length said). A number too long to print is described.

    >>> quoted("ab\\x07")
    "'ab\\\\x07'"
    >>> quoted("x" * 300, limit=3)
    "'xxx'… (300 characters)"
    """
    if isinstance(text, int) and text.bit_length() > 4 * limit:
        return f"a number of about {int(text.bit_length() * 0.30103)} digits"
    raw = text if isinstance(text, str) else repr(text)
    cut = raw if len(raw) <= limit else raw[:limit]
    written = repr(cut) if isinstance(text, str) else cut
    shown = "".join(_escaped(c) if is_hidden(c) else c for c in written)
    return shown if cut is raw else f"{shown}… ({len(raw)} characters)"
