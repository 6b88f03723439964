"""The decision limit. A policy that always bids above what anyone pays plays for ever
under the rules; the game option `max_decisions` truncates it: no legal action is left, no seat wins,
the record replays it, and the PettingZoo and Gymnasium views report truncation (reward 0)."""
import json
import warnings

import numpy as np
import pytest

from conftest import last_legal
from nefertiti_env import IllegalActionError, NefertitiGame
from nefertiti_env import env as make_env
from nefertiti_env.core.game import DEFAULT_MAX_DECISIONS
from nefertiti_env.training.single_agent import SingleAgentEnv


def play_last(g: NefertitiGame) -> NefertitiGame:
    while not g.is_over():
        g.apply(last_legal(g.legal_actions()))
    return g


@pytest.mark.parametrize("players", [2, 4])
def test_a_never_ending_policy_is_truncated_at_the_default_limit(players):
    """The reporter's policy: without the limit the game goes on past any count of decisions."""
    g = play_last(NefertitiGame(num_players=players, seed=0))
    assert g.is_truncated() and g.is_over() and not g.is_terminated()
    assert len(g.history) == DEFAULT_MAX_DECISIONS and not g.state.akhenaton_drawn
    assert g.legal_actions() == [] and not g.legal_action_mask().any() and g.current_player == -1
    assert g.returns().tolist() == [0.0] * players
    with pytest.raises(IllegalActionError, match="truncated at max_decisions"):
        g.apply(g.history[-1])


def test_the_limit_is_an_option_kept_by_record_and_state():
    g = play_last(NefertitiGame(num_players=2, seed=3, max_decisions=120))
    assert g.is_truncated() and len(g.history) == 120
    record = json.loads(json.dumps(g.record()))
    assert record["options"]["max_decisions"] == 120
    replayed = NefertitiGame.replay(record)
    assert replayed.is_truncated() and replayed.to_json() == g.to_json()
    assert NefertitiGame.from_json(g.to_json()).is_truncated()
    shorter = json.loads(g.to_json())
    shorter["state"]["options"]["max_decisions"] = 100
    with pytest.raises(ValueError, match="120 decisions, more than max_decisions 100"):
        NefertitiGame.from_json(json.dumps(shorter))


def test_a_game_ending_before_the_limit_is_not_truncated():
    g = NefertitiGame(num_players=3, seed=1, max_decisions=DEFAULT_MAX_DECISIONS)
    rng = np.random.default_rng(1)
    while not g.is_over():
        g.apply(int(rng.choice(g.legal_actions())))
    assert g.is_terminated() and not g.is_truncated() and sorted(g.returns().tolist())[-1] == 1.0


@pytest.mark.parametrize("value", [0, -5, 2.5, True, "100", 10**5 + 1, 10**8])
def test_max_decisions_is_checked(value):
    with pytest.raises(ValueError, match="max_decisions must be an integer 1..100000,"):
        NefertitiGame(num_players=2, max_decisions=value)


def test_pettingzoo_env_reports_truncation_for_every_agent():
    env = make_env(num_players=4, max_decisions=80)
    env.reset(seed=2)
    seen = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        seen[agent] = (reward, terminated, truncated)
        env.step(None if terminated or truncated else last_legal(np.flatnonzero(obs["action_mask"]).tolist()))
    game = env.unwrapped.game
    assert game.is_truncated() and len(game.history) == 80
    assert seen == {f"player_{i}": (0.0, False, True) for i in range(4)}


def test_single_agent_view_returns_truncated():
    env = SingleAgentEnv(num_players=2, max_decisions=60)
    env.reset(seed=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while True:
            _, reward, terminated, truncated, info = env.step(last_legal(env.game.legal_actions()))
            if terminated or truncated:
                break
    assert truncated and not terminated and reward == 0.0 and info["win"] is False
    assert env.game.is_truncated()
