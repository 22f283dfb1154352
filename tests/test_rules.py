"""Rule sets, presets and the reading and writing of codes."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from keypeg import VARIANTS, Code, Rules, Variant, find_variant
from keypeg.errors import InvalidCodeError, InvalidRulesError, KeypegError, UnknownVariantError
from keypeg.variants import game_label
from reference import colors_st, rules_st

# -- building rule sets -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pegs", "colors", "repeats", "blanks"),
    [(1, 2, True, False), (4, 6, True, False), (4, 4, False, False), (5, 4, False, True), (15, 26, True, True)],
)
def test_valid_rules_keep_their_fields(pegs: int, colors: int, repeats: bool, blanks: bool) -> None:
    rules = Rules(pegs, colors, repeats=repeats, blanks=blanks, rows=7)
    assert (rules.pegs, rules.colors, rules.repeats, rules.blanks, rules.rows) == (pegs, colors, repeats, blanks, 7)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((0, 6), {}),
        ((-1, 6), {}),
        ((4, 1), {}),
        ((4, 0), {}),
        ((5, 3), {"repeats": False}),
        ((5, 4), {"repeats": False}),
        ((4, 6), {"rows": 0}),
        ((4.0, 6), {}),
        ((True, 6), {}),
        (("4", 6), {}),
        ((4, 3), {"symbols": ("R", "G")}),
        ((4, 3), {"symbols": ("R", "r", "G")}),
        ((4, 3), {"symbols": ("R", ".", "G")}),
        ((4, 2), {"names": ("red",)}),
    ],
)
def test_invalid_rules_raise(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules(*args, **kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, KeypegError)


def test_five_pegs_of_three_colours_without_repeats_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="5"):
        Rules(5, 3, repeats=False)


def test_blank_makes_room_for_one_more_peg_without_repeats() -> None:
    # 4 colours and a blank are 5 peg values: enough for 5 different pegs.
    assert Rules(5, 4, repeats=False, blanks=True).num_colors == 5


@pytest.mark.parametrize(
    ("pegs", "colors", "repeats"), [(4, 6, True), (3, 4, False), (2, 2, True), (1, 3, False), (5, 4, True)]
)
def test_blanks_add_one_colour(pegs: int, colors: int, repeats: bool) -> None:
    plain = Rules(pegs, colors, repeats=repeats)
    blank = Rules(pegs, colors, repeats=repeats, blanks=True)
    assert blank.num_colors == plain.num_colors + 1 == colors + 1
    assert plain.size == len(list(_codes(pegs, colors, repeats)))
    assert blank.size == len(list(_codes(pegs, colors + 1, repeats)))
    assert blank.blank == colors
    assert plain.blank is None


def _codes(pegs: int, k: int, repeats: bool) -> list[tuple[int, ...]]:
    codes = itertools.product(range(k), repeat=pegs)
    return [c for c in codes if repeats or len(set(c)) == pegs]


def test_replace_validates_again() -> None:
    assert Rules(4, 6).replace(rows=8).rows == 8
    with pytest.raises(InvalidRulesError):
        Rules(5, 6).replace(colors=3, repeats=False)


def test_win_is_all_black() -> None:
    win = Rules(5, 8).win
    assert (win.black, win.white) == (5, 0)


# -- presets --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variant_builds_and_is_found_by_every_name(name: str) -> None:
    variant = VARIANTS[name]
    assert isinstance(variant.rules, Rules)
    assert variant.name == name
    for spelling in (name, *variant.aliases):
        assert find_variant(spelling) is variant
        assert find_variant(spelling.upper()) is variant
        assert find_variant(spelling.title().replace("-", "_")) is variant
        assert find_variant(f"  {spelling.replace('-', ' ')} ") is variant


@pytest.mark.parametrize(
    ("spelling", "name"),
    [
        ("Advanced", "super"),
        ("deluxe", "super"),
        ("DELUXE", "super"),
        ("bulls_and_cows", "bulls-and-cows"),
        ("Bulls And Cows", "bulls-and-cows"),
        ("Classic", "classic"),
        ("MINI", "mini"),
    ],
)
def test_find_variant_ignores_case_and_separators(spelling: str, name: str) -> None:
    assert find_variant(spelling).name == name


@pytest.mark.parametrize("name", ["", "nope", "classic2", "4x7", "super mastermind deluxe"])
def test_unknown_variant(name: str) -> None:
    with pytest.raises(UnknownVariantError) as info:
        find_variant(name)
    assert isinstance(info.value, ValueError)
    assert repr(name) in str(info.value)


def test_classic_preset() -> None:
    rules = find_variant("classic").rules
    assert (rules.pegs, rules.colors, rules.repeats, rules.blanks, rules.rows) == (4, 6, True, False, 12)
    assert "".join(rules.symbols) == "RGBYWK"


def test_mini_preset() -> None:
    rules = find_variant("mini").rules
    assert (rules.pegs, rules.colors, rules.repeats, rules.rows) == (4, 6, True, 6)


def test_super_preset() -> None:
    variant = find_variant("super")
    rules = variant.rules
    assert (rules.pegs, rules.colors, rules.repeats, rules.rows) == (5, 8, True, 12)
    assert {"advanced", "deluxe"} <= set(variant.aliases)


def test_bulls_and_cows_preset() -> None:
    rules = find_variant("bulls-and-cows").rules
    assert (rules.pegs, rules.colors, rules.repeats, rules.blanks) == (4, 10, False, False)
    assert "".join(rules.symbols) == "0123456789"


@pytest.mark.parametrize(
    ("rules", "label"),
    [
        (Rules(4, 6), "classic"),
        (find_variant("classic").rules, "classic"),
        (Rules(4, 6, rows=10), "4x6"),
        (Rules(4, 6, rows=6), "mini"),
        (Rules(4, 6, rows=8), "4x6, 8 rows"),
        (find_variant("classic").rules.replace(rows=8, name="classic (changed)"), "4x6, 8 rows"),
        (Rules(4, 10, repeats=False, rows=10), "bulls-and-cows"),
        (Rules(4, 10, repeats=False), "4x10-norepeats, 12 rows"),
        (Rules(4, 6, blanks=True), "classic-blanks"),
        (Rules(7, 9, rows=12, name="mine"), "7x9, 12 rows"),
    ],
)
def test_a_game_is_labelled_by_the_preset_with_exactly_its_rules(rules: Rules, label: str) -> None:
    assert game_label(rules) == label


@pytest.mark.parametrize("variant", list(VARIANTS.values()), ids=list(VARIANTS))
def test_every_preset_is_labelled_by_its_own_name(variant: Variant) -> None:
    assert game_label(variant.rules) == variant.name
    assert game_label(Rules(**{**variant.rules.as_dict(), "symbols": "", "names": [], "name": ""})) == variant.name


@given(rules_st(max_pegs=6), rules_st(max_pegs=6), st.integers(6, 12), st.integers(6, 12))
def test_two_rule_sets_share_a_label_exactly_when_they_are_the_same_game(
    one: Rules, other: Rules, rows: int, other_rows: int
) -> None:
    one, other = one.replace(rows=rows), other.replace(rows=other_rows)
    same = (one.game, one.rows) == (other.game, other.rows)
    assert (game_label(one) == game_label(other)) == same


@pytest.mark.parametrize(("pegs", "colors"), list(itertools.product(range(3, 7), range(3, 7))))
def test_seed_range_presets(pegs: int, colors: int) -> None:
    rules = find_variant(f"{pegs}x{colors}").rules
    assert (rules.pegs, rules.colors, rules.repeats) == (pegs, colors, True)


# -- reading codes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "colors"),
    [
        ("AABC", (0, 0, 1, 2)),
        ("aabc", (0, 0, 1, 2)),
        ("A a B c", (0, 0, 1, 2)),
        ("FEDA", (5, 4, 3, 0)),
        ("1123", (0, 0, 1, 2)),
        ("6541", (5, 4, 3, 0)),
        (" 1 1 2 3 ", (0, 0, 1, 2)),
        ("1,1,2,3", (0, 0, 1, 2)),
    ],
)
def test_letters_and_knuth_digits(text: str, colors: tuple[int, ...]) -> None:
    assert Rules(4, 6).parse(text).colors == colors


@pytest.mark.parametrize(
    ("text", "colors"),
    [
        ("RGBY", (0, 1, 2, 3)),
        ("rrbb", (0, 0, 2, 2)),
        ("K W Y R", (5, 4, 3, 0)),
        ("ACDF", (0, 2, 3, 5)),  # not all classic symbols: read as letters
        ("BBBB", (2, 2, 2, 2)),  # all classic symbols: the preset's own notation wins
        ("1236", (0, 1, 2, 5)),
    ],
)
def test_classic_symbols(text: str, colors: tuple[int, ...]) -> None:
    assert find_variant("classic").rules.parse(text).colors == colors


@pytest.mark.parametrize(
    ("text", "colors"),
    [("0123", (0, 1, 2, 3)), ("9876", (9, 8, 7, 6)), ("3 0 9 1", (3, 0, 9, 1)), ("ABCJ", (0, 1, 2, 9))],
)
def test_bulls_and_cows_digits_start_at_zero(text: str, colors: tuple[int, ...]) -> None:
    assert find_variant("bulls-and-cows").rules.parse(text).colors == colors


@pytest.mark.parametrize(
    ("text", "colors"),
    [
        ("AA.B", (0, 0, 6, 1)),
        ("AA-B", (0, 0, 6, 1)),
        ("aa.b", (0, 0, 6, 1)),
        ("A A . -", (0, 0, 6, 6)),
        ("11.2", (0, 0, 6, 1)),
        ("----", (6, 6, 6, 6)),
    ],
)
def test_blank_symbols_accepted_when_allowed(text: str, colors: tuple[int, ...]) -> None:
    code = Rules(4, 6, blanks=True).parse(text)
    assert code.colors == colors
    assert str(code) == "".join("." if c == 6 else "ABCDEF"[c] for c in colors)


@pytest.mark.parametrize(
    ("rules", "text"),
    [
        (Rules(4, 6), "AAB"),  # too short
        (Rules(4, 6), "AABBC"),  # too long
        (Rules(4, 6), "AABG"),  # G is not one of A-F
        (Rules(4, 6), "1127"),  # 7 is not one of 1-6
        (Rules(4, 6), "A1BB"),  # two notations mixed
        (Rules(4, 6), "AA.B"),  # blank without blanks
        (Rules(4, 6), "AA-B"),
        (Rules(4, 6, repeats=False), "ABCA"),  # repeats
        (Rules(4, 6, blanks=True, repeats=False), "AB.."),  # two blanks are a repeat too
        (find_variant("classic").rules, "RGBX"),
        (find_variant("bulls-and-cows").rules, "0012"),
        (find_variant("bulls-and-cows").rules, "012"),
    ],
)
def test_bad_codes_quote_the_text(rules: Rules, text: str) -> None:
    with pytest.raises(InvalidCodeError) as info:
        rules.parse(text)
    assert isinstance(info.value, ValueError)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("text", ["", "   ", ", ,"])
def test_empty_code_is_invalid(text: str) -> None:
    with pytest.raises(InvalidCodeError):
        Rules(4, 6).parse(text)


def test_code_from_colour_numbers_is_checked() -> None:
    rules = Rules(3, 4, repeats=False)
    assert rules.code([2, 0, 3]).colors == (2, 0, 3)
    for bad in ([0, 1], [0, 1, 4], [0, 1, -1], [1, 1, 2]):
        with pytest.raises(InvalidCodeError):
            rules.code(bad)


# -- canonical text and repr ------------------------------------------------------------------


@st.composite
def rules_and_code(draw: st.DrawFn) -> tuple[Rules, tuple[int, ...]]:
    rules = draw(st.one_of(st.sampled_from([v.rules for v in VARIANTS.values()]), rules_st(symbols=True)))
    return rules, draw(colors_st(rules))


@given(rules_and_code())
def test_canonical_text_round_trips(case: tuple[Rules, tuple[int, ...]]) -> None:
    rules, colors = case
    code = rules.code(colors)
    text = str(code)
    assert len(text) == rules.pegs
    assert rules.parse(text) == code
    assert rules.parse(text.lower()) == code
    assert rules.parse(" ".join(text)) == code
    assert str(rules.parse(text)) == text


@given(rules_and_code())
def test_repr_round_trips(case: tuple[Rules, tuple[int, ...]]) -> None:
    rules, colors = case
    code = rules.code(colors)
    namespace: dict[str, object] = {}
    exec("from keypeg.code import Code; from keypeg.rules import Rules", namespace)
    again = eval(repr(code), namespace)
    assert isinstance(again, Code)
    assert again == code
    assert again.rules == rules
    assert eval(repr(rules), namespace) == rules


@given(rules_st(max_colors=9).flatmap(lambda r: st.tuples(st.just(r), colors_st(r))))
def test_letters_and_digits_name_the_same_colours(case: tuple[Rules, tuple[int, ...]]) -> None:
    rules, colors = case
    letters = "".join("." if c == rules.blank else "ABCDEFGHI"[c] for c in colors)
    digits = "".join("." if c == rules.blank else str(c + 1) for c in colors)
    assert rules.parse(letters).colors == colors
    assert rules.parse(digits).colors == colors


# -- text from outside --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rules", "text", "expected"),
    [
        (find_variant("classic").rules, "\u0661\u0662\u0663\u0664", "RGBY"),  # Arabic-Indic 1234
        (find_variant("classic").rules, "\uff11\uff12\uff13\uff14", "RGBY"),  # full-width 1234
        (find_variant("classic").rules, "\uff32\uff47\uff22\uff59", "RGBY"),  # full-width RgBY
        (find_variant("classic").rules, "R\u3000G\u00a0B\nY", "RGBY"),  # any white space
        (find_variant("bulls-and-cows").rules, "\u0660\u0661\u0662\u0663", "0123"),
        (find_variant("bulls-and-cows").rules, "\u09e6\u09e7\u09e8\u09e9", "0123"),  # Bengali
    ],
)
def test_digits_of_any_script_and_full_width_forms_are_read(rules: Rules, text: str, expected: str) -> None:
    assert str(rules.parse(text)) == expected


@pytest.mark.parametrize("text", ["\x1b[2J", "a\u200bbcd", "9" * 5000, "A" * 1_000_000, "\x00AAA", "[bold]AAAA"])
def test_bad_codes_are_quoted_escaped_and_cut(text: str) -> None:
    with pytest.raises(InvalidCodeError) as info:
        Rules(4, 6).parse(text)
    message = str(info.value)
    assert len(message) < 600
    assert not any(c in message for c in "\x1b\x00\u200b")


@pytest.mark.parametrize("value", [None, 4, b"AABB", ("A", "A")])
def test_a_code_that_is_not_text_is_refused(value: object) -> None:
    with pytest.raises(InvalidCodeError):
        Rules(4, 6).parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("colors", [("0", "1"), (0.0, 1.0), (None, 1)])
def test_colour_numbers_must_be_whole_numbers(colors: tuple[object, ...]) -> None:
    with pytest.raises(InvalidCodeError):
        Rules(2, 3).code(colors)  # type: ignore[arg-type]


@given(text=st.text(max_size=30))
def test_any_text_is_a_code_or_a_clear_refusal(text: str) -> None:
    for rules in (
        Rules(4, 6),
        find_variant("classic").rules,
        find_variant("bulls-and-cows").rules,
        Rules(3, 4, blanks=True),
    ):
        try:
            code = rules.parse(text)
        except KeypegError as error:
            assert isinstance(error, InvalidCodeError)
        else:
            assert rules.parse(str(code)) == code


@pytest.mark.parametrize("name", ["", "   ", "\t"])
def test_an_empty_variant_name_is_refused_as_empty(name: str) -> None:
    with pytest.raises(UnknownVariantError, match="empty variant name"):
        find_variant(name)


def test_a_variant_name_is_quoted_cut_and_escaped() -> None:
    with pytest.raises(UnknownVariantError) as info:
        find_variant("\x1b[2J" + "x" * 10_000)
    assert "\x1b" not in str(info.value) and len(str(info.value)) < 1000


@pytest.mark.parametrize(
    "data",
    [[], "pegs", None, {"pegs": "4", "colors": 6}, {"pegs": 4}, {"pegs": 4, "colors": 6, "names": 5},
     {"pegs": 10**5000, "colors": 6}, {"pegs": 4, "colors": 6, "symbols": "\x1b" * 6}],
)  # fmt: skip
def test_damaged_rules_data_is_refused(data: object) -> None:
    with pytest.raises(InvalidRulesError) as info:
        Rules.from_dict(data)  # type: ignore[arg-type]
    assert len(str(info.value)) < 1000
