"""keypeg.envs.codemaker: the codemaker-against-codebreaker PettingZoo environment (AEC).

PettingZoo's own checks (``api_test``, ``seed_test``), the masks against a brute force over every code with
the plain-Python scorer, illegal moves refused, the ends of a game, and keypeg's players as agents: Knuth
against keypeg's adversary never needs more than the strategy's worst case (5 on classic: Knuth 1976).
"""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test

import keypeg
from keypeg import Rules
from keypeg.code import Code, Feedback
from keypeg.envs import MastermindEnv, RandomPolicy, StrategyPolicy, codemaker
from keypeg.envs.codemaker import BREAKER, MAKER, AdversaryPolicy, CodemakerEnv, duel, read_board
from keypeg.errors import (
    GameOverError,
    IllegalMoveError,
    InconsistentHistoryError,
    InvalidArgumentError,
    InvalidCodeError,
    InvalidFeedbackError,
    InvalidRulesError,
    TooLargeError,
    UnknownVariantError,
)
from keypeg.feedback import score
from keypeg.play.codemakers import AdversarialCodemaker

BENIGN = (
    # api_test knows only PettingZoo's own games as giving dict observations and a Dict space
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    # the board marks rows not played with -1, as the Gymnasium env's does; it is no picture
    "The observation contains negative numbers",
    # the two agents' masks differ in length (codes, scores); names say the roles, not player_0
    "Agents have different observation space sizes",
    "We recommend agents to be named",
    # api_test plays at random (unseeded): on 2 pegs, 2 rows, AA=0,0 twice is a board of zeros (1 run in ~5)
    "Observation numpy array is all zeros",
)
"""api_test's warnings this environment gives on purpose; any other fails the test."""

SMALL = [
    {"pegs": 3, "colors": 3},
    {"pegs": 3, "colors": 4, "repeats": False},
    {"pegs": 2, "colors": 3, "blanks": True},
    {"pegs": 3, "colors": 3, "feedback": "black"},
    {"pegs": 3, "colors": 4, "feedback": "colours"},
    {"pegs": 2, "colors": 2, "rows": 2},
]


def reference_codes(rules: Rules) -> list[Code]:
    """Every code of ``rules`` from itertools (under colours feedback a code is its sorted colours)."""
    colors = itertools.product(range(rules.num_colors), repeat=rules.pegs)
    kept = {tuple(sorted(c)) if not rules.ordered else c for c in colors if rules.repeats or len(set(c)) == rules.pegs}
    return [rules.code(c) for c in sorted(kept)]


def reference_fitting(rules: Rules, history: list[tuple[Code, Feedback]]) -> list[Code]:
    return [c for c in reference_codes(rules) if all(score(c, g) == f for g, f in history)]


@pytest.mark.parametrize("rules", [*SMALL, {"variant": "classic"}], ids=str)
def test_api_test_passes(rules: dict[str, Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(codemaker.env(**rules), num_cycles=200)
    unexpected = {str(w.message) for w in caught if not str(w.message).startswith(BENIGN)}
    assert not unexpected


def test_seed_test_passes() -> None:
    seed_test(lambda: codemaker.env(pegs=3, colors=3), num_cycles=100)


def test_spaces_and_first_observation() -> None:
    game = codemaker.env(variant="classic")
    game.reset(seed=1)
    raw = game.unwrapped
    assert isinstance(raw, CodemakerEnv)
    assert game.agent_selection == BREAKER and game.possible_agents == [BREAKER, MAKER]
    assert game.action_space(BREAKER).n == 1296 and game.action_space(MAKER).n == 14
    assert raw.scores[0] == Feedback(0, 0) and raw.scores[-1] == Feedback(4, 0)  # Rules.feedbacks' order
    observation = game.observe(BREAKER)
    assert observation["observation"].shape == (12, 6) and (observation["observation"] == -1).all()
    assert observation["action_mask"].dtype == np.int8 and observation["action_mask"].all()
    assert not game.observe(MAKER)["action_mask"].any()  # not the maker's turn
    assert str(raw.code(raw.action("RGBY"))) == "RGBY" and raw.feedback(raw.answer("2,1")) == Feedback(2, 1)


def test_the_maker_sees_the_pending_guess_and_its_legal_scores() -> None:
    game = codemaker.env(pegs=3, colors=3)
    game.reset()
    game.step(game.unwrapped.action("AAB"))
    observation, reward, terminated, truncated, _ = game.last()
    assert game.agent_selection == MAKER and reward == 1 and not terminated and not truncated
    assert observation["observation"][0].tolist() == [0, 0, 1, -1, -1]
    assert read_board(game.unwrapped.rules, observation["observation"]) == ([], game.unwrapped.rules.parse("AAB"))
    legal = [game.unwrapped.scores[i] for i in np.flatnonzero(observation["action_mask"])]
    assert legal == list(game.unwrapped.legal_feedbacks())
    assert Feedback(3, 0) in legal and Feedback(0, 3) not in legal  # AAB cannot be all colours misplaced


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(SMALL), data=st.data())
def test_masks_against_a_brute_force(rules: dict[str, object], data: st.DataObject) -> None:
    hard = data.draw(st.booleans(), label="hard")
    game = CodemakerEnv(**rules, hard=hard)  # type: ignore[arg-type]
    game.reset()
    history: list[tuple[Code, Feedback]] = []
    while game.agents:
        agent = game.agent_selection
        observation, _, terminated, truncated, info = game.last()
        if terminated or truncated:
            game.step(None)
            continue
        mask = observation["action_mask"]
        fits = reference_fitting(game.rules, history)
        assert [game.book.code(int(i)) for i in np.flatnonzero(info["fitting"])] == fits
        assert read_board(game.rules, observation["observation"]) == (history, game.pending)
        if agent == BREAKER:
            assert [game.book.code(int(i)) for i in np.flatnonzero(mask)] == (
                fits if hard else reference_codes(game.rules)
            )
        else:
            assert game.pending is not None
            answers = {score(code, game.pending) for code in fits}
            assert {game.scores[i] for i in np.flatnonzero(mask)} == answers
        action = data.draw(st.sampled_from(np.flatnonzero(mask).tolist()), label=agent)
        if agent == MAKER:
            assert game.pending is not None
            history.append((game.pending, game.scores[action]))
        game.step(action)
    assert len(history) <= game.rules.rows


def test_illegal_moves() -> None:
    raw = CodemakerEnv(pegs=3, colors=3)
    raw.reset()
    raw.step(raw.action("ABC"))
    before = raw.observe(MAKER)
    with pytest.raises(IllegalMoveError, match=r"^no code fits 0,0 for ABC .*: the legal scores are 0,2, "):
        raw.step(raw.answer("0,0"))  # every code has one of the three colours
    assert raw.agent_selection == MAKER and raw.pending == raw.rules.parse("ABC") and not raw.history
    assert all((before[k] == raw.observe(MAKER)[k]).all() for k in before)
    for wrong in (14, -1, 2.0, "0", None, True):  # not a score at all: bad input, as a bad code is
        with pytest.raises(InvalidFeedbackError, match=r"^the codemaker's action is a whole number from 0 to 8"):
            raw.step(wrong)  # type: ignore[arg-type]
    raw.step(raw.answer("1,2"))
    assert raw.agent_selection == BREAKER and len(raw.history) == 1


def test_hard_mode_refuses_a_code_that_does_not_fit() -> None:
    raw = CodemakerEnv(pegs=3, colors=3, hard=True)
    raw.reset()
    raw.step(raw.action("AAA"))
    raw.step(raw.answer("0,0"))  # no A
    assert raw.observe(BREAKER)["action_mask"].sum() == 8  # B and C only: 2 ** 3
    with pytest.raises(IllegalMoveError, match=r"^ABC does not fit the scores so far"):
        raw.step(raw.action("ABC"))
    raw.step(raw.action("BBC"))


def test_wrapped_env_refuses_actions_out_of_range_and_may_end_the_game_on_an_illegal_move() -> None:
    game = codemaker.env(pegs=3, colors=3)
    game.reset()
    gym = MastermindEnv(pegs=3, colors=3)
    gym.reset(seed=0)
    for wrong in (27, -1, 2.5, None, "AAB", np.array([1])):  # keypeg's one line, not a bare AssertionError
        with pytest.raises(InvalidCodeError, match=r"^the codebreaker's action is a whole number from 0 to 26"):
            game.step(wrong)
        with pytest.raises(InvalidCodeError):  # the same rule in the Gymnasium env: bad input, a ValueError
            gym.step(wrong)  # type: ignore[arg-type]
    ending = codemaker.env(pegs=3, colors=3, illegal_reward=-10)
    ending.reset()
    ending.step(ending.unwrapped.action("ABC"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo says "Illegal move made"
        ending.step(ending.unwrapped.answer("0,0"))
    assert ending.terminations[MAKER] and ending._cumulative_rewards[MAKER] == -10


def play(game: AECEnv[str, Any, int], moves: list[tuple[str, str]]) -> dict[str, float]:
    """Play ``moves`` (guess, score) on ``game``, then the dead steps; the rewards each agent saw."""
    seen: dict[str, float] = {BREAKER: 0.0, MAKER: 0.0}
    raw = game.unwrapped
    assert isinstance(raw, CodemakerEnv)
    plan = [a for guess, answer in moves for a in (raw.action(guess), raw.answer(answer))]
    for agent in game.agent_iter():
        _, reward, terminated, truncated, _ = game.last()
        seen[agent] += float(reward)
        game.step(None if terminated or truncated else plan.pop(0))
    assert not plan
    return seen


def test_broken_ends_terminated_with_zero_sum_rewards() -> None:
    game = codemaker.env(pegs=3, colors=3, render_mode="ansi")
    game.reset()
    rewards = play(game, [("AAB", "0,2"), ("ACC", "0,2"), ("BBB", "1,0"), ("CBA", "3,0")])
    assert rewards == {BREAKER: -4, MAKER: 4}
    assert not game.agents
    text = game.render()
    assert text is not None and " 4  CBA  ●●●  3 black, 0 white" in text and text.endswith("\nbroken in 4 guesses")


def test_rows_run_out_truncated() -> None:
    game = codemaker.env(pegs=2, colors=3, rows=2)
    game.reset()
    game.step(game.unwrapped.action("AA"))
    game.step(game.unwrapped.answer("0,0"))
    game.step(game.unwrapped.action("BB"))
    game.step(game.unwrapped.answer("1,0"))
    assert game.truncations == {BREAKER: True, MAKER: True} and not any(game.terminations.values())
    assert game.agent_selection == BREAKER
    assert not game.observe(BREAKER)["action_mask"].any() and not game.observe(MAKER)["action_mask"].any()
    game.step(None)
    game.step(None)
    assert not game.agents


def test_render_human_prints(capsys: pytest.CaptureFixture[str]) -> None:
    game = codemaker.env(pegs=3, colors=3, render_mode="human")
    game.reset()
    game.step(game.unwrapped.action("ABC"))
    printed = capsys.readouterr().out
    assert " 1  ABC  ???" in printed and "the codemaker to score" in printed


def test_reset_starts_again_and_seeds_np_random() -> None:
    game = codemaker.env(pegs=3, colors=3)
    game.reset(seed=3)
    drawn = game.unwrapped.np_random.integers(1 << 30, size=4).tolist()
    game.step(game.unwrapped.action("ABC"))
    game.reset(seed=3)
    assert game.agent_selection == BREAKER and game.unwrapped.pending is None and not game.unwrapped.history
    assert game.unwrapped.np_random.integers(1 << 30, size=4).tolist() == drawn


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"variant": "nonesuch"}, UnknownVariantError, "nonesuch"),
        ({"pegs": "four"}, InvalidRulesError, "pegs must be a whole number"),
        ({"pegs": 10, "colors": 10}, TooLargeError, "more than an environment takes"),
        ({"render_mode": "rgb_array"}, InvalidArgumentError, "render_mode must be one of ansi, human"),
        ({"hard": "yes"}, InvalidArgumentError, "hard must be True or False"),
    ],
)
def test_bad_arguments_give_one_line_errors(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message) as raised:
        codemaker.env(**kwargs)
    assert "\n" not in str(raised.value)


# -- keypeg's players as agents ----------------------------------------------------------------------


def test_knuth_against_the_adversary_on_classic_needs_at_most_five() -> None:
    """Knuth's strategy breaks any classic code in at most 5 guesses (Knuth 1976), so the adversary, whatever
    it keeps alive, cannot make it need more; keypeg's adversary makes it need all 5."""
    played = duel(StrategyPolicy("knuth"), AdversaryPolicy(), variant="classic")
    assert played.broken and played.guesses == 5
    assert str(played).startswith("knuth against adversary on classic: broken in 5 guesses (RRGG=0,0 ")


@pytest.mark.parametrize(
    "rules",
    [{"variant": "3x3"}, {"pegs": 3, "colors": 4, "repeats": False}, {"pegs": 3, "colors": 3, "feedback": "black"}],
    ids=str,
)
@pytest.mark.parametrize("strategy", ["knuth", "optimal"])
def test_strategies_against_the_adversary_within_their_worst_case(rules: dict[str, Any], strategy: str) -> None:
    game = codemaker.env(**rules)
    breaker = StrategyPolicy(strategy).bind(game)
    tree = breaker.tree()
    assert tree is not None
    played = duel(breaker, AdversaryPolicy(), game)
    assert played.broken and played.guesses <= tree.stats.max


def test_the_adversary_answers_as_keypegs_adversarial_codemaker() -> None:
    """Every answer in a game of random guesses is the AdversarialCodemaker's (which keeps the most codes)."""
    played = duel(RandomPolicy(seed=3), AdversaryPolicy(), pegs=3, colors=4, hard=True, seed=3)
    maker = AdversarialCodemaker(played.history.rules)
    assert [maker.answer(guess) for guess, _ in played.history] == [score for _, score in played.history]
    assert played.broken and played.guesses > 1


def test_a_random_codemaker_answers_legally() -> None:
    played = duel(StrategyPolicy("knuth"), RandomPolicy(seed=5), variant="classic", seed=5)
    secrets = reference_fitting(played.history.rules, list(played.history))
    assert played.broken and secrets == [played.history.last[0]]  # type: ignore[index]


def test_the_adversary_needs_a_guess_to_score() -> None:
    game = CodemakerEnv(pegs=3, colors=3)
    game.reset()
    with pytest.raises(IllegalMoveError, match="no guess waits for its score"):
        AdversaryPolicy().bind(game)(game.observe(MAKER), {})


def test_reset_from_a_position() -> None:
    game = codemaker.env(variant="classic")
    game.reset(options={"history": "RRGG=0,0 BBYY=2,0"})
    raw = game.unwrapped
    assert isinstance(raw, CodemakerEnv) and game.agent_selection == BREAKER
    assert [str(g) for g, _ in raw.history] == ["RRGG", "BBYY"]
    assert read_board(raw.rules, game.observe(BREAKER)["observation"]) == (list(raw.history), None)
    assert game.infos[BREAKER]["fitting"].sum() == len(reference_fitting(raw.rules, list(raw.history)))
    played = duel(StrategyPolicy("knuth"), AdversaryPolicy(), game, start="RRGG=0,0 BBYY=2,0")
    assert played.broken and str(played.history).startswith("RRGG=0,0 BBYY=2,0 ")
    game.reset(options={"history": [(raw.rules.parse("RRGG"), (0, 0))]})
    assert len(raw.history) == 1


@pytest.mark.parametrize(
    ("history", "error", "message"),
    [
        ("RRGG=4,0", GameOverError, "that history ends the game"),
        ("RRGG=0,0 RRGG=1,0", InconsistentHistoryError, "no code fits RRGG=0,0 RRGG=1,0"),
        (5, InvalidArgumentError, "a history is a History"),
    ],
)
def test_reset_from_a_bad_position(history: object, error: type[Exception], message: str) -> None:
    game = CodemakerEnv(variant="classic")
    with pytest.raises(error, match=message):
        game.reset(options={"history": history})


def test_bad_reset_arguments_are_refused_as_the_gymnasium_env_refuses_them() -> None:
    game = CodemakerEnv(pegs=3, colors=3)
    with pytest.raises(InvalidArgumentError, match="options are a dict"):
        game.reset(options=1)  # type: ignore[arg-type]
    game.reset(options={"secret": "ABC"})  # other options ignored, as PettingZoo's api_test needs
    with pytest.raises(InvalidArgumentError, match=r"^seed must be a whole number from 0, not -1$"):
        game.reset(seed=-1)


def test_duel_checks_its_seed_and_the_roles_before_playing() -> None:
    with pytest.raises(InvalidArgumentError, match=r"^seed must be a whole number from 0, not -1$"):
        duel(StrategyPolicy("knuth"), AdversaryPolicy(), variant="3x3", seed=-1)
    with pytest.raises(InvalidArgumentError, match=r"^knuth is a codebreaker"):
        duel(StrategyPolicy("knuth"), StrategyPolicy("knuth"), variant="3x3")
    with pytest.raises(InvalidArgumentError, match=r"^the adversary is a codemaker"):
        duel(AdversaryPolicy(), AdversaryPolicy(), variant="3x3")
    with pytest.raises(InvalidArgumentError, match="callable"):
        duel(StrategyPolicy("knuth"), 5, variant="3x3")  # type: ignore[arg-type]


def test_a_strategy_guesses_only_codes_that_fit_in_hard_mode() -> None:
    """Knuth's strategy guesses from every code; against the adversary on 3 pegs and 4 colours it would
    play a code that no longer fits (which hard mode refuses). Under a mask with zeros it plays its best
    among the codes that still fit instead, and breaks the code."""
    played = duel(StrategyPolicy("knuth"), AdversaryPolicy(), pegs=3, colors=4, hard=True)
    assert played.broken
    moves = list(played.history)
    for turn, (guess, _) in enumerate(moves):
        assert guess in reference_fitting(played.history.rules, moves[:turn])
    free = duel(StrategyPolicy("knuth"), AdversaryPolicy(), pegs=3, colors=4)
    assert any(  # the same strategy without the mask does play a code that does not fit
        guess not in reference_fitting(free.history.rules, list(free.history)[:turn])
        for turn, (guess, _) in enumerate(free.history)
    )


@pytest.mark.parametrize("strategy", keypeg.strategy_names())
def test_every_strategy_plays_only_legal_moves_in_hard_mode(strategy: str) -> None:
    """Careless forgets scores, so its best among what it thinks fits may not fit (3x4 under seed 29, 4x3
    under seeds 25 and 29 raised IllegalMoveError mid-duel): the policy then plays the first code the
    environment allows. Every strategy, each guess checked against a brute force."""
    for rules, seed in (({"pegs": 3, "colors": 4}, 29), ({"pegs": 4, "colors": 3}, 25), ({"pegs": 4, "colors": 3}, 29)):
        played = duel(StrategyPolicy(strategy, seed=seed), AdversaryPolicy(), hard=True, seed=seed, **rules)
        moves = list(played.history)
        assert played.broken
        for turn, (guess, _) in enumerate(moves):
            assert guess in reference_fitting(played.history.rules, moves[:turn])


def test_a_strategy_that_cannot_play_a_board_says_so_before_the_duel() -> None:
    game = CodemakerEnv(variant="super")
    with pytest.raises(TooLargeError, match=r"^optimal cannot play super: "):
        duel(StrategyPolicy("optimal"), AdversaryPolicy(), game)
    assert not game.history and game.pending is None


def test_the_wrapped_env_is_public_and_gymnasium_users_need_no_pettingzoo() -> None:
    import keypeg.envs

    assert "codemaker_env" in keypeg.envs.__all__ and keypeg.envs.codemaker_env is codemaker.env
    assert set(keypeg.envs.__all__) <= set(dir(keypeg.envs))
    script = "import sys, keypeg.envs; print(sorted(m for m in sys.modules if m.startswith('pettingzoo')))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    without = "import sys; sys.modules['pettingzoo'] = None\nfrom keypeg.envs import *\nprint(MastermindEnv.__name__)"
    done = subprocess.run([sys.executable, "-c", without], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "MastermindEnv\n"), done.stderr  # import * without PettingZoo
