"""keypeg.envs' Gymnasium environment, its policies and evaluate: the Gymnasium checker on several rule sets,
whole episodes, the action mask against a brute force, truncation, seeding, typed one-line errors, and the
published figures of Knuth (1976) and Koyama & Lai (1993) played through the Gymnasium interface."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given
from hypothesis import strategies as st

from keypeg import Code, Feedback, Rules, score
from keypeg.envs import ENV_ID, Evaluation, MastermindEnv, RandomPolicy, StrategyPolicy, evaluate
from keypeg.envs.board import CodeBook, decode_board, encode_board, rules_from
from keypeg.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidArgumentError,
    InvalidCodeError,
    InvalidRulesError,
    KeypegError,
    TooCostlyError,
    TooLargeError,
    UnknownVariantError,
)
from keypeg.limits import ENV_CODE_LIMIT

RULE_SETS: dict[str, dict[str, Any]] = {
    "3x3": {"variant": "3x3"},
    "no-repeats": {"pegs": 3, "colors": 4, "repeats": False},
    "blanks": {"pegs": 2, "colors": 3, "blanks": True},
    "black": {"pegs": 3, "colors": 3, "feedback": "black"},
    "colours": {"pegs": 3, "colors": 4, "feedback": "colours"},
    "few rows": {"variant": "classic", "rows": 2},
}


def brute_force_mask(rules: Rules, history: list[tuple[Code, Feedback]]) -> list[int]:
    """1 for each code (in code order: every tuple of colours, the rules' own way of keeping them) that the
    plain scorer says fits every scored guess."""
    seen: dict[tuple[int, ...], int] = {}
    for colors in itertools.product(range(rules.num_colors), repeat=rules.pegs):
        try:
            code = rules.code(colors)
        except InvalidCodeError:  # a repeat without repeats
            continue
        seen.setdefault(code.colors, int(all(score(code, guess) == feedback for guess, feedback in history)))
    return [seen[key] for key in sorted(seen)]


def play(env: gymnasium.Env[Any, Any], codes: list[str]) -> list[tuple[Any, ...]]:
    return [env.step(env.unwrapped.action(code)) for code in codes]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", list(RULE_SETS))
@pytest.mark.parametrize("render_mode", [None, "ansi"])
def test_check_env_passes_with_no_warning(name: str, render_mode: str | None) -> None:
    env = gymnasium.make(ENV_ID, render_mode=render_mode, **RULE_SETS[name])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the checker warns of what it dislikes: fail on it
        check_env(env.unwrapped, skip_render_check=render_mode is None)


def test_make_by_name_with_the_module_prefix_and_registered_once() -> None:
    env = gymnasium.make("keypeg.envs:keypeg/Mastermind-v0", pegs=3, colors=3)
    assert env.action_space == gymnasium.spaces.Discrete(27)
    assert isinstance(env.unwrapped, MastermindEnv)
    assert gymnasium.spec(ENV_ID).entry_point == "keypeg.envs.mastermind:MastermindEnv"


def test_a_whole_episode() -> None:
    env = MastermindEnv(variant="classic", render_mode="ansi")
    observation, info = env.reset(seed=3, options={"secret": "RGBY"})
    assert observation.shape == (12, 6) and observation.dtype == np.int8
    assert (observation == -1).all() and info["fitting"] == 1296 and info["action_mask"].sum() == 1296
    steps = play(env, ["RRGG", "RGBB", "RGBY"])
    assert [reward for _, reward, *_ in steps] == [-1.0, -1.0, -1.0]
    assert [(terminated, truncated) for _, _, terminated, truncated, _ in steps] == [
        (False, False),
        (False, False),
        (True, False),
    ]
    board = steps[-1][0]
    assert board[:3].tolist() == [[0, 0, 1, 1, 1, 1], [0, 1, 2, 2, 3, 0], [0, 1, 2, 3, 4, 0]]
    assert (board[3:] == -1).all()
    assert steps[-1][4]["fitting"] == 1 and steps[-1][4]["action_mask"][env.action("RGBY")] == 1
    text = env.render()
    assert text is not None
    assert text.splitlines() == [
        "classic: 4 pegs, 6 colours, repeats, 12 rows",
        " 1  RRGG  ●○··  1 black, 1 white",
        " 2  RGBB  ●●●·  3 black, 0 white",
        " 3  RGBY  ●●●●  4 black, 0 white",
        "broken in 3 guesses",
    ]
    with pytest.raises(GameOverError, match="reset"):
        env.step(0)


def test_human_mode_prints_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    env = MastermindEnv(pegs=3, colors=3, feedback="colours", render_mode="human")
    env.reset(options={"secret": "ABC"})
    play(env, ["AAB"])
    assert "AAB  ◆◆·  2 colours right" in capsys.readouterr().out


@given(st.sampled_from(["3x3", "no-repeats", "blanks", "black", "colours"]), st.data())
def test_the_mask_is_the_codes_that_fit_by_brute_force(name: str, data: st.DataObject) -> None:
    env = MastermindEnv(**RULE_SETS[name])
    rules = env.rules
    secret = data.draw(st.integers(0, env.codes.size - 1))
    _, info = env.reset(options={"secret": env.code(secret)})
    for action in data.draw(st.lists(st.integers(0, env.codes.size - 1), max_size=3)):
        _, _, terminated, _, info = env.step(action)
        expected = brute_force_mask(rules, env.history)
        assert info["action_mask"].dtype == np.int8
        assert info["action_mask"].tolist() == expected
        assert info["fitting"] == sum(expected)
        if terminated:
            break


@pytest.mark.parametrize("name", ["3x3", "no-repeats", "blanks", "black", "colours"])
def test_actions_number_the_codes_in_keypegs_order(name: str) -> None:
    book = CodeBook(rules_from(**RULE_SETS[name]))
    codes = [book.code(i) for i in range(book.size)]
    assert [c.colors for c in codes] == sorted(c.colors for c in codes)  # lexicographic, no code twice
    assert len(set(codes)) == book.size
    assert [book.index(c) for c in codes] == list(range(book.size))
    assert [book.index(str(c)) for c in codes] == list(range(book.size))


@given(st.sampled_from(list(RULE_SETS)), st.data())
def test_the_board_reads_back(name: str, data: st.DataObject) -> None:
    rules = rules_from(**RULE_SETS[name])
    book = CodeBook(rules)
    secret = book.code(data.draw(st.integers(0, book.size - 1)))
    guesses = data.draw(st.lists(st.integers(0, book.size - 1), max_size=rules.rows))
    history = [(book.code(g), score(secret, book.code(g))) for g in guesses]
    board = encode_board(rules, history)
    assert board.shape == (rules.rows, rules.pegs + 2)
    assert decode_board(rules, board) == history


def test_truncated_when_the_rows_run_out() -> None:
    env = MastermindEnv(variant="classic", rows=2)
    env.reset(options={"secret": "RGBY"})
    first, second = play(env, ["RRRR", "GGGG"])
    assert first[2:4] == (False, False)
    assert second[2:4] == (False, True)
    assert env.render() is None  # no render mode, nothing drawn
    with pytest.raises(GameOverError):
        env.step(env.action("RGBY"))
    env.render_mode = "ansi"
    assert env.render().endswith("not broken: the secret was RGBY\n")  # type: ignore[union-attr]


def test_seeded_resets_draw_the_same_secrets() -> None:
    def secrets(seed: int) -> list[str]:
        env = MastermindEnv(variant="classic")
        env.reset(seed=seed)
        drawn = [str(env.secret)]
        for _ in range(5):
            env.reset()
            drawn.append(str(env.secret))
        return drawn

    assert secrets(11) == secrets(11)
    assert secrets(11) != secrets(12)
    random = [evaluate(RandomPolicy(), variant="3x3", episodes=20, seed=5) for _ in range(2)]
    assert random[0] == random[1]
    # the policy's draws are its own: under the environment's seed it does not draw the secret's number
    env = MastermindEnv(variant="super")
    _, info = env.reset(seed=1)
    assert env.code(RandomPolicy().bind(env, seed=1)(np.zeros(0), info)) != env.secret
    assert evaluate(RandomPolicy(), env, episodes=3, seed=1).worst > 1


def test_a_given_secret_and_bad_options() -> None:
    env = MastermindEnv(variant="classic")
    env.reset(options={"secret": env.code(7)})
    assert env.secret == env.code(7)
    with pytest.raises(InvalidCodeError, match="unknown colour"):
        env.reset(options={"secret": "RGBX"})
    with pytest.raises(InvalidArgumentError, match="'secret'"):  # not a move: an argument
        env.reset(options={"secrets": "RGBY"})
    with pytest.raises(InvalidArgumentError, match="options are a dict"):
        env.reset(options=1)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match=r"^seed must be a whole number from 0, not -1$"):
        env.reset(seed=-1)  # keypeg's one line, not Gymnasium's error


def one_line(error: pytest.ExceptionInfo[BaseException]) -> str:
    message = str(error.value)
    assert message and "\n" not in message
    return message


@pytest.mark.parametrize(
    ("kwargs", "kind", "words"),
    [
        ({"pegs": "4"}, InvalidRulesError, "pegs must be a whole number"),
        ({"pegs": 4.5}, InvalidRulesError, "pegs must be a whole number"),
        ({"repeats": "no"}, InvalidRulesError, "repeats must be True or False"),
        ({"blanks": 1}, InvalidRulesError, "blanks must be True or False"),
        ({"rows": 0}, InvalidRulesError, "rows must be from 1 to 100"),
        ({"colors": 1}, InvalidRulesError, "colours must be from 2"),
        ({"feedback": "grey"}, InvalidRulesError, "feedback must be one of"),
        ({"variant": "nope"}, UnknownVariantError, "unknown variant"),
        ({"variant": 3}, InvalidRulesError, "variant must be text"),
        ({"pegs": 5, "colors": 3, "repeats": False}, InvalidRulesError, "5 pegs need at least 5 colours"),
        ({"pegs": 7, "colors": 6}, TooLargeError, f"279,936 codes, more than an environment takes ({ENV_CODE_LIMIT:,}"),
        ({"render_mode": "rgb_array"}, InvalidArgumentError, "render_mode must be one of ansi, human"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*render_mode='rgb_array'")  # Gymnasium's own warning, before the error
def test_bad_arguments_get_a_typed_one_line_error(kwargs: dict[str, Any], kind: type[Exception], words: str) -> None:
    with pytest.raises(kind) as error:
        gymnasium.make(ENV_ID, **kwargs)
    assert words in one_line(error)


def test_bad_actions_and_steps_get_typed_one_line_errors() -> None:
    env = MastermindEnv(pegs=3, colors=3)
    with pytest.raises(IllegalMoveError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    for action in (27, -1, "AAB", 1.0, True):
        with pytest.raises(InvalidCodeError) as error:
            env.step(action)  # type: ignore[arg-type]
        assert "action" in one_line(error)
    assert env.history == []  # nothing was played
    env.step(np.int64(26))
    assert [str(guess) for guess, _ in env.history] == ["CCC"]


def test_policies_refuse_what_they_cannot_play() -> None:
    with pytest.raises(IllegalMoveError, match="bind"):
        StrategyPolicy("knuth")(np.full((10, 5), -1), {})
    with pytest.raises(KeypegError, match="strategy"):
        StrategyPolicy("nobody")
    # what is not rules is not an InvalidRulesError: these are arguments out of range
    with pytest.raises(InvalidArgumentError, match="strategy is named"):
        StrategyPolicy(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="not both"):
        evaluate(RandomPolicy(), MastermindEnv(variant="3x3"), variant="3x3")
    with pytest.raises(InvalidArgumentError, match="episodes"):
        evaluate(RandomPolicy(), variant="3x3", episodes=-1)
    with pytest.raises(InvalidArgumentError, match="callable"):
        evaluate(5, variant="3x3")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="force must be True or False"):
        StrategyPolicy("knuth", force="no")  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, "a", 1.5, True])
def test_every_seed_is_checked_by_keypegs_one_rule(seed: object) -> None:
    """A seed is a whole number from 0 everywhere in keypeg (keypeg.best_guess says so): the policies and
    evaluate say it in the same line, before any game, not numpy's or Gymnasium's error from inside."""
    said = f"seed must be a whole number from 0, not {seed!r}"
    for call in (
        lambda: RandomPolicy(seed=seed),  # type: ignore[arg-type]
        lambda: StrategyPolicy("knuth", seed=seed),  # type: ignore[arg-type]
        lambda: RandomPolicy().bind(MastermindEnv(variant="3x3"), seed=seed),  # type: ignore[arg-type]
        lambda: evaluate(RandomPolicy(), variant="3x3", seed=seed),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidArgumentError) as error:
            call()
        assert one_line(error) == said


def test_a_policy_that_cannot_play_a_board_says_so_before_any_game() -> None:
    """No strategy breaks every 3x3 secret within 3 guesses, so there is no optimum to follow there; on super
    the optimal guess is days of work. Either is refused when the policy is bound, in one line naming the
    policy and the game, before the first game (``progress`` never called); Knuth plays and counts failures."""
    played: list[int] = []
    with pytest.raises(KeypegError) as short:
        evaluate(StrategyPolicy("optimal"), variant="3x3", rows=3, progress=played.append)
    assert one_line(short).startswith("optimal cannot play 3x3, 3 rows: no strategy solves every secret within 3")
    with pytest.raises(TooCostlyError) as costly:
        evaluate(StrategyPolicy("optimal"), variant="super", episodes=2, progress=played.append)
    assert one_line(costly).startswith("optimal cannot play super: the optimal guess on 5 pegs, 8 colours")
    assert played == []
    assert evaluate(StrategyPolicy("knuth"), variant="3x3", rows=3).failures > 0


def test_evaluate_draws_its_secrets_one_at_a_time() -> None:
    """``episodes`` far past what memory holds starts at once (no list of secrets made first)."""

    class Enough(Exception):
        pass

    def stop_after_three(_: int, seen: list[int] = []) -> None:  # noqa: B006  (a counter of the calls)
        seen.append(1)
        if len(seen) == 3:
            raise Enough

    with pytest.raises(Enough):
        evaluate(RandomPolicy(seed=0), variant="3x3", episodes=10**11, progress=stop_after_three)


def test_a_strategy_policy_off_its_tree_asks_for_the_best_guess() -> None:
    env = MastermindEnv(variant="classic")
    policy = StrategyPolicy("knuth").bind(env)
    observation, info = env.reset(options={"secret": "BKWY"})
    observation, *_, info = env.step(env.action("ABCD"))  # Knuth opens with AABB: this history is not his
    # a PettingZoo-style observation (the board and the legal moves in one dict: every code here) is read too
    every = np.ones_like(info["action_mask"])
    assert policy({"observation": observation, "action_mask": every}, {}) == policy(observation, info)
    guesses, terminated = 1, False
    while not terminated:
        observation, _, terminated, truncated, info = env.step(policy(observation, info))
        guesses += 1
        assert not truncated
    assert guesses <= 7


def test_any_callable_is_a_policy_and_the_result_is_a_frozen_line() -> None:
    def first_fitting(observation: Any, info: Mapping[str, Any]) -> int:
        return int(np.flatnonzero(info["action_mask"])[0])

    result = evaluate(first_fitting, variant="3x3")
    assert isinstance(result, Evaluation) and result.games == 27 and result.failures == 0
    assert str(result).startswith("first_fitting on 3x3: 27 games, ")
    with pytest.raises(AttributeError):
        result.total = 0  # type: ignore[misc]


def test_failures_are_counted_with_the_rows_they_played() -> None:
    result = evaluate(lambda observation, info: 0, variant="3x3", rows=2)  # always AAA
    assert (result.games, result.failures, result.worst) == (27, 26, 2)
    assert result.total == 1 + 26 * 2


def test_random_knuth_and_the_optimum_on_classic_through_gymnasium() -> None:
    """Knuth (1976): 5,801 guesses over the 1,296 secrets, never more than 5. Koyama & Lai (1993): the
    optimum is 5,625 guesses (average 4.340). A random fitting code each turn does worse than both."""
    env = gymnasium.make(ENV_ID, variant="classic")
    random, knuth, best = (
        evaluate(policy, env, seed=0) for policy in (RandomPolicy(), StrategyPolicy("knuth"), StrategyPolicy("optimal"))
    )
    assert (knuth.games, knuth.total, f"{knuth.average:.3f}", knuth.worst, knuth.failures) == (
        1296,
        5801,
        "4.476",
        5,
        0,
    )
    assert (best.games, best.total, f"{best.average:.3f}", best.failures) == (1296, 5625, "4.340", 0)
    assert random.games == 1296 and random.failures == 0 and random.total > best.total
    assert str(knuth) == "knuth on classic: 1,296 games, 5,801 guesses, average 4.476, worst 5, 0 failures"


def test_vector_environments_stack_boards_and_masks() -> None:
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync", variant="3x3")
    observations, infos = envs.reset(seed=0)
    assert observations.shape == (3, 10, 5) and infos["action_mask"].shape == (3, 27)
    observations, rewards, *_, infos = envs.step(np.array([0, 13, 26]))
    assert rewards.tolist() == [-1.0, -1.0, -1.0]
    assert (observations[:, 0, :3] == [[0, 0, 0], [1, 1, 1], [2, 2, 2]]).all()
    assert (infos["action_mask"].sum(axis=1) == infos["fitting"]).all()
    envs.close()


def test_rules_mix_as_the_command_line_mixes_them() -> None:
    assert MastermindEnv(variant="classic", rows=8).rules == Rules(4, 6, rows=8, symbols=tuple("RGBYWK"))
    assert MastermindEnv(variant="classic", colors=5).rules.symbols == tuple("ABCDE")  # classic's six symbols dropped
    assert MastermindEnv(variant=Rules(3, 3), rows=4, feedback="colors").rules == Rules(
        3, 3, rows=4, feedback="colours"
    )
    assert MastermindEnv(pegs=3, colors=3).rules == Rules(3, 3)
    assert MastermindEnv().rules.name == "classic"
