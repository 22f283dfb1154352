"""Presets for the commercial games and the seed program's range, found by name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from keypeg.errors import UnknownVariantError
from keypeg.rules import Rules
from keypeg.text import quoted

__all__ = ["Variant", "VARIANTS", "DEFAULT_VARIANT", "find_variant", "game_label", "preset_of", "rules_from_options"]

_CLASSIC_NAMES = ("red", "green", "blue", "yellow", "white", "black")
_CLASSIC_SYMBOLS = ("R", "G", "B", "Y", "W", "K")
_SUPER_NAMES = (*_CLASSIC_NAMES, "orange", "purple")
_SUPER_SYMBOLS = (*_CLASSIC_SYMBOLS, "O", "P")
_DIGITS = tuple("0123456789")


@dataclass(frozen=True, slots=True)
class Variant:
    """A named preset: its rules, other names it is known by, and a line about it."""

    name: str
    rules: Rules
    aliases: tuple[str, ...] = ()
    about: str = ""


def _preset(name: str, about: str, aliases: tuple[str, ...] = (), **rules: object) -> Variant:
    return Variant(name, Rules(name=name, **rules), aliases, about)  # type: ignore[arg-type]


def _seed_range() -> list[Variant]:
    """The seed program's boards: 3 to 6 pegs of 3 to 6 colours, 10 turns."""
    return [
        _preset(f"{p}x{c}", "the seed program's board: guess within 10 turns", pegs=p, colors=c, rows=10)
        for p in range(3, 7)
        for c in range(3, 7)
    ]


VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        _preset(
            "classic",
            "Mastermind (Invicta, 1971): 4 pegs of 6 colours",
            ("mastermind", "original"),
            pegs=4,
            colors=6,
            rows=12,
            symbols=_CLASSIC_SYMBOLS,
            names=_CLASSIC_NAMES,
        ),
        _preset(
            "mini",
            "Mini Mastermind: 4 pegs of 6 colours on a 6-row board",
            ("mini-mastermind",),
            pegs=4,
            colors=6,
            rows=6,
            symbols=_CLASSIC_SYMBOLS,
            names=_CLASSIC_NAMES,
        ),
        _preset(
            "super",
            "Super Mastermind (also sold as Advanced or Deluxe): 5 pegs of 8 colours",
            ("advanced", "deluxe", "super-mastermind", "advanced-mastermind"),
            pegs=5,
            colors=8,
            rows=12,
            symbols=_SUPER_SYMBOLS,
            names=_SUPER_NAMES,
        ),
        _preset(
            "bulls-and-cows",
            "Bulls and Cows, the pencil game (MOO on Titan): 4 different digits 0-9",
            ("bulls", "cows-and-bulls", "moo"),
            pegs=4,
            colors=10,
            repeats=False,
            rows=10,
            symbols=_DIGITS,
        ),
        _preset(
            "classic-blanks",
            "classic Mastermind with blanks allowed: 4 pegs of 6 colours or empty",
            ("blanks",),
            pegs=4,
            colors=6,
            blanks=True,
            rows=12,
            symbols=_CLASSIC_SYMBOLS,
            names=_CLASSIC_NAMES,
        ),
        _preset(
            "classic-colours",
            "the easier game the rules describe: only the code's colours are guessed, in any order; "
            "the answer is how many pegs are of a right colour",
            ("colours-only", "colors-only", "classic-colors", "easy"),
            pegs=4,
            colors=6,
            rows=12,
            symbols=_CLASSIC_SYMBOLS,
            names=_CLASSIC_NAMES,
            feedback="colours",
        ),
        _preset(
            "classic-black",
            "black-peg Mastermind: 4 pegs of 6 colours, only the pegs right in colour and place are told",
            ("black-peg", "black-pegs", "black-only", "black-peg-mastermind"),
            pegs=4,
            colors=6,
            rows=12,
            symbols=_CLASSIC_SYMBOLS,
            names=_CLASSIC_NAMES,
            feedback="black",
        ),
        _preset(
            "grand",
            "Grand Mastermind: 4 pegs of 25 shape-and-colour pieces",
            ("grand-mastermind",),
            pegs=4,
            colors=25,
            rows=12,
        ),
        _preset(
            "mastermind44",
            "Mastermind44: 5 pegs of 6 colours",
            ("44",),
            pegs=5,
            colors=6,
            rows=12,
            symbols=_CLASSIC_SYMBOLS,
            names=_CLASSIC_NAMES,
        ),
        *_seed_range(),
    )
}
"""The presets by name (classic, mini, super, bulls-and-cows, ...): ``find_variant`` also reads their aliases."""


def _key(name: str) -> str:
    return "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())


_BY_NAME: dict[str, Variant] = {}
for _variant in VARIANTS.values():
    for _name in (_variant.name, *_variant.aliases):
        _BY_NAME[_key(_name)] = _variant


def find_variant(name: str) -> Variant:
    """The preset called ``name`` (any case; spaces, dashes and underscores alike).

    >>> find_variant("Advanced").rules.describe()
    '5 pegs, 8 colours, repeats, 12 rows'
    """
    known = ", ".join(VARIANTS)
    if not isinstance(name, str):
        raise UnknownVariantError(f"a variant name must be text, got {quoted(name)}; known: {known}")
    if not name.strip():
        raise UnknownVariantError(f"empty variant name {quoted(name)}: name one of {known}")
    try:
        return _BY_NAME[_key(name)]
    except KeyError:
        raise UnknownVariantError(f"unknown variant {quoted(name)}; known: {known}") from None


_BY_RULES: dict[tuple[tuple[object, ...], int], Variant] = {}
for _variant in VARIANTS.values():
    _BY_RULES.setdefault((_variant.rules.game, _variant.rules.rows), _variant)


def preset_of(rules: Rules) -> Variant | None:
    """The preset whose game and row limit these rules have (their symbols and name aside), if any."""
    return _BY_RULES.get((rules.game, rules.rows))


def game_label(rules: Rules) -> str:
    """The one label of a game and its row limit, wherever games are listed or grouped: the name of the
    preset with exactly these rules, else the short form and the rows.

    >>> game_label(Rules(4, 6)), game_label(Rules(4, 6, rows=10)), game_label(Rules(4, 6, rows=8))
    ('classic', '4x6', '4x6, 8 rows')
    """
    preset = preset_of(rules)
    return preset.name if preset is not None else f"{rules.slug}, {rules.rows} rows"


DEFAULT_VARIANT = "classic"


def rules_from_options(
    variant: str | None,
    pegs: int | None,
    colors: int | None,
    repeats: bool | None,
    blanks: bool | None,
    rows: int | None,
    feedback: str | None = None,
) -> Rules:
    """Rules from options (the command line's, the web API's): a variant (classic by default) with any
    field changed (``feedback``: ``standard``, ``colours`` (or ``colors``) or ``black``)."""
    if variant is not None and not variant.strip():
        raise UnknownVariantError("a variant needs a name (see keypeg variants)")
    if variant is None and (pegs is not None or colors is not None):
        base = Rules(pegs or 4, colors or 6)
    else:
        base = find_variant(variant or DEFAULT_VARIANT).rules
    changes: dict[str, Any] = {}
    if pegs is not None and pegs != base.pegs:
        changes["pegs"] = pegs
    if colors is not None and colors != base.colors:
        changes.update(colors=colors, symbols=(), names=())
    if feedback is not None:
        read = base.replace(feedback=feedback).feedback  # "colors" reads as "colours"; a wrong one is refused
        if read != base.feedback:
            changes["feedback"] = read
    for name, value in (("repeats", repeats), ("blanks", blanks), ("rows", rows)):
        if value is not None and value != getattr(base, name):
            changes[name] = value
    if set(changes) == {"feedback"}:  # classic told colours only is the preset classic-colours
        told = base.replace(**changes)
        preset = preset_of(told)
        if preset is not None and preset.rules == told:
            return preset.rules
    if changes and base.name:
        changes.setdefault("name", f"{base.name} (changed)")
    return base.replace(**changes) if changes else base
