"""PettingZoo's Parallel API through turn_based_aec_to_parallel, and the global state()."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test
from pettingzoo.test.state_test import state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import nefertiti_env
from nefertiti_env.core.limits import MAX_KINDS
from nefertiti_env.encoding import OBS_SIZE, observe
from nefertiti_env.encoding.state import DECK_COLUMNS


@pytest.mark.parametrize("players", [2, 4])
def test_parallel_api_test_passes(players):
    parallel_api_test(turn_based_aec_to_parallel(nefertiti_env.raw_env(num_players=players)), num_cycles=400)


def test_pettingzoo_state_test_passes():
    state_test(nefertiti_env.env(num_players=3), nefertiti_env.raw_env(num_players=3))


@pytest.mark.parametrize("players,options", [(3, {}), (5, {"characters": "intrigue_at_court"})])
def test_state_holds_seat_0_view_and_the_deck_order_through_a_game(players, options):
    env = nefertiti_env.raw_env(num_players=players, **options)
    env.reset(seed=5)
    game, rng = env.game, np.random.default_rng(5)
    while not game.is_over():
        state = env.state()
        assert env.state_space.contains(state)
        np.testing.assert_array_equal(state[:OBS_SIZE], observe(game, 0))
        deck = state[OBS_SIZE:].reshape(-1, DECK_COLUMNS)
        undrawn = game.deck[game.state.deck_pos:]
        kinds = deck[:len(undrawn)].argmax(axis=1)
        np.testing.assert_array_equal(kinds, np.where(undrawn == game.kind_akhenaton, MAX_KINDS, undrawn))
        assert deck.sum() == len(undrawn)
        env.step(int(rng.choice(game.legal_actions())))


def test_state_differs_for_games_that_differ_only_in_deck_order():
    """What the observations never show (test_hidden_information), the state does."""
    a, b = nefertiti_env.raw_env(num_players=4), nefertiti_env.raw_env(num_players=4)
    a.reset(seed=2)
    b.reset(seed=2)
    b.game.deck[b.game.state.deck_pos:] = b.game.deck[b.game.state.deck_pos:][::-1].copy()
    assert all((observe(a.game, s) == observe(b.game, s)).all() for s in range(4))
    assert not np.array_equal(a.state(), b.state())


def test_example_plays_a_parallel_game():
    path = Path(__file__).parents[1] / "examples" / "pettingzoo_parallel.py"
    spec = importlib.util.spec_from_file_location("pettingzoo_parallel", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    returns = example.main(["--players", "3", "--seed", "1"])
    assert sorted(returns.values()) == [-1.0, 0.0, 1.0]


@pytest.mark.parametrize("action", [3.9, "3", True, np.float64(3.0), np.bool_(True), [3]])
def test_every_env_takes_integer_actions_only(action):
    """AEC (wrapped and raw), Parallel and the 0-d arrays a policy may give: as the core, a float, a
    string or a bool is a TypeError, never rounded or read; nothing is applied."""
    for make in (nefertiti_env.env, nefertiti_env.raw_env):
        env = make(num_players=3)
        env.reset(seed=1)
        with pytest.raises(TypeError, match="an action is an integer id"):
            env.step(action)
        assert env.unwrapped.game.history == []
    parallel = turn_based_aec_to_parallel(nefertiti_env.raw_env(num_players=3))
    parallel.reset(seed=1)
    with pytest.raises(TypeError, match="an action is an integer id"):
        parallel.step({agent: action for agent in parallel.agents})


def test_numpy_integers_and_0d_integer_arrays_are_actions():
    env = nefertiti_env.env(num_players=3)
    env.reset(seed=1)
    for kind in (np.int64, np.int32, np.array):
        legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(kind(legal))
    assert len(env.unwrapped.game.history) == 3
