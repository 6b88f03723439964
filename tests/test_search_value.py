"""The search's learnt leaf value (agents/mcts.py, `leaf_value`): every seat's reward at a leaf is its own
observation through the policy's critic, compiled (agents/network.py), equal to torch's value up to float32
rounding; the outcome itself at a game's end; and a search with it is reproducible from its seed."""
from __future__ import annotations

import numpy as np
import pytest

from nefertiti_env import NUM_ACTIONS, NefertitiGame
from nefertiti_env.agents import make_bot, policy_file
from nefertiti_env.agents.mcts import leaf_values
from nefertiti_env.agents.ppo import PPOAgent
from nefertiti_env.encoding.table import V2_SIZE


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A random v2 policy with a ReLU critic of two layers (the champion's critic is Tanh over v1)."""
    import torch

    path = tmp_path_factory.mktemp("model") / "model.pt"
    policy = policy_file.build_policy({"obs_size": V2_SIZE, "num_actions": NUM_ACTIONS, "net_arch": [32, 16]})
    torch.manual_seed(0)
    with torch.no_grad():                    # values spread over -1..1 and past it, so the clip is exercised
        for p in policy.parameters():
            p.normal_(0, 0.3)
    policy_file.save(path, policy)
    return str(path)


def _torch_rewards(agent, game) -> np.ndarray:
    import torch

    with torch.no_grad():
        values = [agent.policy.predict_values(torch.as_tensor(agent.observe(game, p))[None]).item()
                  for p in range(game.num_players)]
    return np.clip((1 + np.array(values)) / 2, 0, 1)


@pytest.mark.parametrize("spec, options", [("champion", {"num_players": 4}),
                                           ("ppo", {"num_players": 3, "memphis": True, "characters": "expansion"})])
def test_leaf_values_are_the_critics_of_every_seat(spec, options, model):
    agent = make_bot(f"{spec}:search=4:leaf_value=1" + (f":path={model}" if spec == "ppo" else ""), seed=0)
    game = NefertitiGame(seed=3, **options)
    rng = np.random.default_rng(0)
    checked = 0
    while not game.is_over():
        if rng.random() < 0.2:
            rewards = np.empty(game.num_players)
            leaf_values(game.R, game.S, agent.searcher._leaf_arrays(game), rewards)
            assert np.allclose(rewards, _torch_rewards(agent, game), atol=1e-5)
            checked += 1
        game.apply(int(rng.choice(game.legal_actions())))
    assert checked > 10
    rewards = np.empty(game.num_players)
    leaf_values(game.R, game.S, agent.searcher._leaf_arrays(game), rewards)
    assert np.array_equal(rewards, (1 + game.returns()) / 2)          # the outcome once the game is over


def test_a_search_with_the_learnt_value_is_reproducible_and_differs_from_the_heuristics(model):
    def play(leaf_value):
        game = NefertitiGame(seed=11, num_players=3)
        bots = [PPOAgent(model, seed=s, search=30, leaf_value=leaf_value) for s in range(3)]
        while not game.is_over():
            game.apply(bots[game.current_player].act(game, game.current_player))
        return game.history

    learnt = play(1.0)
    assert play(1.0) == learnt
    assert play(0.0) != learnt


def test_leaf_value_needs_a_critic_and_a_search(model):
    with pytest.raises(ValueError, match="search > 0"):
        make_bot(f"ppo:path={model}:leaf_value=1")
    with pytest.raises(ValueError, match="leaf_value must be"):
        make_bot("mcts:leaf_value=0.5")
    with pytest.raises(ValueError, match="leaf_value must be"):
        make_bot("champion:search=10:leaf_value=2")
