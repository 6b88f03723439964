"""The Ray RLlib MultiAgentEnv: RLlib's env checker, masks and rewards, and a tiny multi-agent PPO run."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

# Ray pins an older gymnasium than the rest is tested with, so `.ci/run` runs this file in a venv
# of its own (the `rllib` extra), after checking that ray.rllib imports there.
pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed: pip install -c constraints.txt -e '.[rllib]' torch")
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from nefertiti_env.adapters.rllib import NefertitiMultiAgentEnv  # noqa: E402


def test_rllib_env_checker_passes():
    check_multiagent_environments(NefertitiMultiAgentEnv({"num_players": 3}))


@pytest.mark.parametrize("players", [2, 4])
def test_a_masked_game_gives_the_decider_and_ends_with_every_agent(players):
    env = NefertitiMultiAgentEnv({"num_players": players})
    obs, _ = env.reset(seed=players)
    rng, totals = np.random.default_rng(players), dict.fromkeys(env.possible_agents, 0.0)
    while True:
        (agent, observation), = obs.items()                     # only the agent that decides
        assert env.observation_spaces[agent].contains(observation)
        assert observation["action_mask"].dtype == np.float32 and observation["action_mask"].sum() >= 1
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        obs, rewards, terminateds, truncateds, _ = env.step({agent: action})
        for a, r in rewards.items():
            totals[a] += r
        if terminateds["__all__"]:
            break
    assert set(obs) == set(env.possible_agents) and not truncateds["__all__"]
    assert sorted(totals.values())[-1] == 1.0 and set(totals.values()) <= {-1.0, 1.0}
    np.testing.assert_array_equal(list(totals.values()), env.aec.unwrapped.game.returns())


def test_an_illegal_action_ends_the_game_with_minus_one():
    env = NefertitiMultiAgentEnv({"num_players": 3})
    obs, _ = env.reset(seed=0)
    (agent, observation), = obs.items()
    _, rewards, terminateds, _, _ = env.step({agent: int(np.flatnonzero(observation["action_mask"] == 0)[0])})
    assert terminateds["__all__"] and rewards[agent] == -1.0


def test_example_trains_multi_agent_ppo_with_two_env_runners():
    path = Path(__file__).parents[1] / "examples" / "rllib_ppo.py"
    spec = importlib.util.spec_from_file_location("rllib_ppo", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    results = example.main(["--players", "3", "--iterations", "2", "--batch", "200", "--env-runners", "2"])
    steps = [r["env_runners"]["num_env_steps_sampled_lifetime"] for r in results]
    assert steps[0] >= 200 and steps[1] >= steps[0] + 200
    assert "shared" in results[-1]["learners"]
