"""The registered single-agent Gymnasium view: env checkers, stable info, finite bounds, vector envs."""
import importlib.util
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import nefertiti_env  # noqa: F401  (registers the id)
from nefertiti_env import IllegalActionError
from nefertiti_env.training.single_agent import SingleAgentEnv

ENV_ID = "nefertiti/NefertitiSingleAgent-v0"
INFO_TYPES = {"seat": int, "opponents": str, "win": bool, "score": int, "illegal": bool}


@pytest.mark.parametrize("players", [2, 5])
def test_gymnasium_and_sb3_env_checkers_pass(players):
    env = gymnasium.make(ENV_ID, num_players=players)
    check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(env.unwrapped)
    assert np.isfinite(env.observation_space.high).all()


def test_info_has_the_same_keys_and_types_at_reset_and_every_step():
    env = gymnasium.make(ENV_ID, num_players=4, opponents={"greedy": 1.0})
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    infos, done = [info], False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert env.observation_space.contains(obs)
        infos.append(info)
        done = terminated or truncated
    for info in infos:
        assert {k: type(v) for k, v in info.items()} == INFO_TYPES
    assert infos[-1]["score"] > 0 and infos[-1]["opponents"] == "greedy"
    assert not any(i["win"] or i["score"] for i in infos[:-1])


def test_vector_env_steps_through_episode_ends():
    """Sync vector envs stack info values per key: a key changing type at the end used to break them."""
    vec = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", num_players=3)
    vec.reset(seed=0)
    ended = 0
    for _ in range(100):
        _, reward, terminated, _, info = vec.step(vec.action_space.sample())
        ended += terminated.sum()
    assert ended > 2 and info["opponents"].tolist() == ["random", "random"]
    assert set(reward.tolist()) <= {-1.0, 0.0, 1.0}


def test_illegal_action_loses_or_raises():
    env = gymnasium.make(ENV_ID, num_players=3)
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.unwrapped.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="call reset"):
        env.unwrapped.step(illegal)
    raising = SingleAgentEnv(num_players=3)
    raising.reset(seed=1)
    with pytest.raises(IllegalActionError, match="learner at seat"):
        raising.step(illegal)


def test_example_trains_and_plays_an_episode():
    path = Path(__file__).parents[1] / "examples" / "gymnasium_single_agent.py"
    spec = importlib.util.spec_from_file_location("gymnasium_single_agent", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert example.main(["--steps", "64", "--players", "2"]) in (-1.0, 1.0)


@pytest.mark.parametrize("action", [3.9, "3", True, np.float32(3.0)])
def test_the_gymnasium_env_takes_integer_actions_only(action):
    env = gymnasium.make(ENV_ID, num_players=3)
    env.reset(seed=1)
    before = list(env.unwrapped.game.history)
    with pytest.raises(TypeError, match="an action is an integer id"):
        env.step(action)
    assert env.unwrapped.game.history == before
