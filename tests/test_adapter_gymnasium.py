"""The registered single-agent Gymnasium view: env checkers, stable info, finite bounds, vector envs,
keywords checked at construction, the action mask where SB3, TorchRL and Tianshou look for it."""
import importlib.util
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import nefertiti_env  # noqa: F401  (registers the id)
from conftest import import_extra
from nefertiti_env import IllegalActionError
from nefertiti_env.training.single_agent import SingleAgentEnv

ENV_ID = "nefertiti/NefertitiSingleAgent-v0"
INFO_TYPES = {"seat": int, "opponents": str, "win": bool, "score": int, "illegal": bool, "action_mask": np.ndarray}


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
        assert np.array_equal(np.flatnonzero(info["action_mask"]), legal)
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        assert env.observation_space.contains(obs)
        infos.append(info)
        done = terminated or truncated
    for info in infos:
        assert {k: type(v) for k, v in info.items()} == INFO_TYPES
    assert infos[-1]["score"] > 0 and infos[-1]["opponents"] == "greedy"
    assert not infos[-1]["action_mask"].any()         # the episode is over: nothing is legal
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


@pytest.mark.filterwarnings("ignore:.*render_mode='video'")
@pytest.mark.parametrize("make", [lambda **kw: gymnasium.make(ENV_ID, **kw), nefertiti_env.env, nefertiti_env.raw_env],
                         ids=["single_agent", "aec_env", "aec_raw_env"])
def test_every_env_refuses_an_unknown_keyword_at_construction_naming_the_known_ones(make):
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'num_player' \(known: num_players, .*max_decisions"):
        make(num_player=3)
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        make(render_mode="video")
    with pytest.raises(ValueError, match="memphis must be True, False or None"):
        make(memphis=2)                       # a game option's value is checked now too, not at reset()


def test_single_agent_env_checks_reward_and_opponents_at_construction():
    with pytest.raises(ValueError, match="reward must be one of"):
        gymnasium.make(ENV_ID, reward="points")
    with pytest.raises(ValueError, match="unknown bot 'greedyy'"):
        gymnasium.make(ENV_ID, opponents={"greedyy": 1.0})


def test_render_modes_as_gymnasium_defines_them(capsys):
    env = gymnasium.make(ENV_ID, num_players=3, render_mode="ansi")
    assert env.unwrapped.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    env.reset(seed=0)
    assert env.render().startswith("Nefertiti, 3 players")
    human = gymnasium.make(ENV_ID, num_players=3, render_mode="human")
    human.reset(seed=0)
    assert capsys.readouterr().out.startswith("Nefertiti, 3 players")   # printed by reset(), no render() call


def test_dict_observation_carries_the_mask_like_the_pettingzoo_env():
    env = gymnasium.make(ENV_ID, num_players=3, dict_observation=True)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=4)
    assert set(obs) == {"observation", "action_mask"} and obs["action_mask"].dtype == np.int8
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    assert np.array_equal(obs["action_mask"].astype(bool), env.unwrapped.action_masks())
    plain = gymnasium.make(ENV_ID, num_players=3)
    assert np.array_equal(plain.reset(seed=4)[0], obs["observation"])


def test_sb3_make_vec_env_builds_it_by_id():
    """make_vec_env passes render_mode="rgb_array"; the masks arrive in each env's info."""
    from stable_baselines3.common.env_util import make_vec_env

    vec = make_vec_env(ENV_ID, n_envs=2, seed=0, env_kwargs={"num_players": 3})
    vec.reset()
    masks = np.stack(vec.env_method("action_masks"))
    assert vec.get_attr("render_mode") == ["rgb_array", "rgb_array"]
    ended = 0
    for _ in range(60):
        _, _, dones, infos = vec.step(np.array([np.flatnonzero(m)[0] for m in masks]))
        masks = np.stack(vec.env_method("action_masks"))
        for done, info, mask in zip(dones, infos, masks):
            assert not info["illegal"]
            # an ended episode's info is its last one (nothing legal); the env has already been reset
            assert not info["action_mask"].any() if done else np.array_equal(info["action_mask"].astype(bool), mask)
        ended += dones.sum()
    assert ended >= 1


def test_torchrl_gym_env_by_id_and_gym_wrapper_with_its_action_mask_transform():
    """GymEnv passes frameskip and drops it on the TypeError; ActionMask makes random actions legal."""
    torchrl_envs = import_extra("torchrl.envs", "dev")
    from torchrl.envs.transforms import ActionMask

    for base in (torchrl_envs.GymEnv(ENV_ID, num_players=3, dict_observation=True),
                 torchrl_envs.GymWrapper(gymnasium.make(ENV_ID, num_players=3, dict_observation=True))):
        env = torchrl_envs.TransformedEnv(base, ActionMask())
        env.set_seed(0)
        rollout = env.rollout(80, break_when_any_done=False)
        chosen = rollout["action"].argmax(-1)                  # one-hot actions
        assert rollout["action_mask"].gather(-1, chosen[:, None]).all()
        assert rollout["next", "done"].any()                   # went through an episode end and a reset


def test_tianshou_collects_masked_random_play():
    """Tianshou reads the mask as `obs.mask` (bool): a TransformObservation renames the dict's keys."""
    import_extra("tianshou", "dev")
    from gymnasium.wrappers import TransformObservation
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    def make():
        env = gymnasium.make(ENV_ID, num_players=3, dict_observation=True)
        space = gymnasium.spaces.Dict({"obs": env.observation_space["observation"],
                                       "mask": gymnasium.spaces.MultiBinary(int(env.action_space.n))})
        return TransformObservation(env, lambda o: {"obs": o["observation"], "mask": o["action_mask"].astype(bool)},
                                    space)

    envs = DummyVectorEnv([make, make])
    envs.seed(0)
    buffer = VectorReplayBuffer(400, 2)
    collector = Collector(MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(envs.action_space[0]), envs, buffer)
    collector.reset()
    stats = collector.collect(n_step=200)
    assert stats.n_collected_episodes >= 1 and len(buffer) == 200
    assert not buffer.info["illegal"][:len(buffer)].any()


@pytest.mark.parametrize("action", [3.9, "3", True, np.float32(3.0)])
def test_the_gymnasium_env_takes_integer_actions_only(action):
    env = gymnasium.make(ENV_ID, num_players=3)
    env.reset(seed=1)
    before = list(env.unwrapped.game.history)
    with pytest.raises(TypeError, match="an action is an integer id"):
        env.step(action)
    assert env.unwrapped.game.history == before
