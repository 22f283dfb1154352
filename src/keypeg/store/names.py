"""Player names: one name, one player.

A name is normalised (Unicode NFKC) before it is stored, and compared by its key: the NFKC
form of the case-folded name with every letter that looks like a plain Latin letter or digit
(a Cyrillic or Greek look-alike, from Unicode's confusables list) written as that letter. So ``Ann``,
``ANN``, a full-width ``Ann`` and an ``Ann`` with a Cyrillic A are one player. Names that could hide
what they are are refused: surrounding or repeated spaces, control and format characters
(zero-width, bidirectional overrides), and anything but 1 to 32 printable characters.

>>> player_name("\uff21\uff4e\uff4e")  # full width
'Ann'
>>> name_key("ANN") == name_key("ann") == name_key("\uff21\uff4e\uff4e") == name_key("\u0410nn")
True
>>> player_name(" ann")  # doctest: +IGNORE_EXCEPTION_DETAIL
Traceback (most recent call last):
...
keypeg.store.names.InvalidNameError: a player's name cannot start or end with a space: ' ann'
"""

from __future__ import annotations

import functools
import unicodedata

from keypeg.errors import KeypegError
from keypeg.text import is_hidden, visible

__all__ = ["player_name", "name_key", "plain_look_alikes", "InvalidNameError", "NAME_LENGTH", "GUEST_PREFIX"]

GUEST_PREFIX = "guest-"
"""Players made for the web's guests are named ``guest-`` and 12 hex digits; no person can register such
a name, and guests are never ranked (anyone can be a new guest at will)."""
NAME_LENGTH = 32
"""The longest name, in characters (after normalisation)."""


class InvalidNameError(KeypegError, ValueError):
    """A player's name keypeg does not accept."""


def player_name(raw: str) -> str:
    """``raw`` normalised (NFKC) as a player's name, or :class:`InvalidNameError` saying why not."""
    name = unicodedata.normalize("NFKC", raw)
    shown = f"'{visible(raw, limit=40)}'"
    if not name:
        raise InvalidNameError("a player's name cannot be empty")
    if any(is_hidden(c) for c in name):
        raise InvalidNameError(f"a player's name cannot hold control or invisible characters: {shown}")
    if any(unicodedata.category(c).startswith("M") and (k == 0 or name[k - 1] == " ") for k, c in enumerate(name)):
        raise InvalidNameError(f"a player's name cannot start a word with a combining mark: {shown}")
    if name != name.strip():
        raise InvalidNameError(f"a player's name cannot start or end with a space: {shown}")
    if any(c.isspace() and c != " " for c in name) or "  " in name:
        raise InvalidNameError(f"a player's name takes single spaces only between words: {shown}")
    if len(name) > NAME_LENGTH:
        counted = (
            f"{len(name)}" if len(name) == len(raw) else f"{len(name)} once written out (NFKC), {len(raw)} as typed"
        )
        raise InvalidNameError(f"a player's name is 1 to {NAME_LENGTH} characters, not {counted}: {shown}")
    return name


def name_key(name: str) -> str:
    """What two names are compared by: the NFKC form of the case-folded, normalised name, with
    look-alikes of ASCII letters and digits written as those."""
    return unicodedata.normalize("NFKC", plain_look_alikes(player_name(name)).casefold())


def plain_look_alikes(text: str) -> str:
    """``text`` with every letter that looks like a plain Latin letter or digit (a Cyrillic or Greek
    look-alike, from Unicode's confusables list) written as that letter or digit.

    >>> plain_look_alikes("\u0440\u0430ssw\u043erd")  # Cyrillic r, a and o
    'password'
    """
    return "".join(_look_alike(c) for c in text)


@functools.cache
def _look_alike(char: str) -> str:
    """The ASCII letter or digit ``char`` looks like (itself when none, or when it is ASCII)."""
    if char.isascii():
        return char
    from confusable_homoglyphs import confusables

    for found in confusables.is_confusable(char, greedy=True) or ():
        for glyph in found["homoglyphs"]:
            if glyph["c"].isascii() and glyph["c"].isalnum():
                return str(glyph["c"])
    return char
