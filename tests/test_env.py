"""The PettingZoo AEC environment: API conformance, seeding, rendering, illegal actions, rewards."""
from __future__ import annotations

import functools
import types
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import nefertiti_env
from nefertiti_env import IllegalActionError, NefertitiGame
from nefertiti_env.core import phases
from nefertiti_env.encoding import OBS_SIZE, observe_v1
from nefertiti_env.encoding.observation import card_name
from nefertiti_env.env import REWARDS, final_rewards, raw_env

ENV_ID = "nefertiti/Nefertiti-v0"


def make(**kwargs):
    return pettingzoo.make("aec", ENV_ID, **kwargs)


def play_out(env, seed: int = 0):
    """Play one game with seeded random legal actions; returns the last reward and decider of each agent."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    rewards, seen = {}, []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        rewards[agent] = reward
        if terminated or truncated:
            action = None
        else:
            seen.append((agent, env.unwrapped.game.state.turn_player, env.unwrapped.game.current_player))
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return rewards, seen


@pytest.mark.parametrize("players, factory", [(3, "make"), (4, "make"), (3, "env"), (4, "env"), (2, "make"),
                                              (5, "make")])
def test_pettingzoo_api_test(players, factory):
    env = make(num_players=players) if factory == "make" else nefertiti_env.env(num_players=players)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # Dict observations draw advisory warnings only
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_seed_test(players):
    seed_test(lambda: make(num_players=players), num_cycles=100)
    seed_test(functools.partial(nefertiti_env.env, num_players=players), num_cycles=100)


@pytest.mark.parametrize("players", [3, 4])
def test_pettingzoo_render_test(players, capsys):
    render_test(lambda render_mode: make(num_players=players, render_mode=render_mode))
    render_test(functools.partial(nefertiti_env.env, num_players=players))
    assert "Abou Simbel" in capsys.readouterr().out          # "human" prints the board


def test_core_options_pass_through():
    env = make(num_players=4, memphis=True, setup="advanced", characters=["oracle", "thief", "merchant"])
    env.reset(seed=3)
    game = env.unwrapped.game
    assert game.options["memphis"] and game.options["setup"] == "advanced"
    assert sorted(c.power for i, c in enumerate(game.rules.characters) if game.state.char_avail[i]) == \
        ["merchant", "oracle", "thief"]


def test_make_three_players_and_classic_style_constructors():
    env = make(num_players=3)
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert isinstance(env.unwrapped, raw_env) and isinstance(env.unwrapped.game, NefertitiGame)
    assert env.unwrapped.game.num_players == 3
    assert isinstance(nefertiti_env.raw_env(), raw_env)
    assert env.unwrapped.metadata["name"] == "nefertiti_v0"
    assert env.observation_space("player_0")["observation"].shape == (OBS_SIZE,)


def test_reset_seed_gives_that_game_and_unseeded_resets_follow_the_env_generator():
    env = raw_env()
    env.reset(seed=7)
    assert env.game.to_json() == NefertitiGame(seed=7).to_json()
    env.reset()
    first = env.game.seed
    twin = raw_env()
    twin.reset(seed=7)
    twin.reset()
    assert twin.game.seed == first != 7


def test_agent_selection_is_the_deciding_seat_even_off_turn():
    """docs/rules.md §4: during a resolution each servant's owner decides, so the agent is not the turn player."""
    env = raw_env()
    _, seen = play_out(env, seed=2)
    assert all(agent == f"player_{current}" for agent, _, current in seen)
    assert any(turn != current for _, turn, current in seen)


def test_observe_gives_the_mask_only_to_the_deciding_agent():
    env = raw_env()
    env.reset(seed=4)
    game = env.game
    for agent in env.agents:
        obs = env.observe(agent)
        seat = int(agent.split("_")[1])
        assert np.array_equal(obs["observation"], observe_v1(game, seat))           # the default version
        if agent == env.agent_selection:
            assert np.array_equal(obs["action_mask"], game.legal_action_mask())
        else:
            assert not obs["action_mask"].any()


def test_the_observed_mask_is_the_agents_own():
    """The env hands out a new writable mask per observe (built without the game's cached one):
    editing it changes neither the game's read-only mask nor the next observation's."""
    env = raw_env()
    env.reset(seed=4)
    game, agent = env.game, env.agent_selection
    first, second = env.observe(agent)["action_mask"], env.observe(agent)["action_mask"]
    assert first is not second and first.flags.writeable
    first[:] = 0
    assert np.array_equal(second, game.legal_action_mask()) and second.sum() == len(game.legal_actions())
    assert not game.legal_action_mask().flags.writeable
    assert np.array_equal(env.observe(agent)["action_mask"], second)


def test_illegal_action_in_the_raw_env_raises_naming_it_and_the_legal_ones():
    env = raw_env()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError) as err:
        env.step(illegal)
    message = str(err.value)
    assert env.game.action_to_string(illegal) in message
    assert "legal:" in message and env.game.action_to_string(env.game.legal_actions()[0]) in message
    assert isinstance(err.value, ValueError)


def test_illegal_action_in_the_wrapped_env_ends_the_game_with_the_penalty():
    env = make()
    env.reset(seed=0)
    offender = env.agent_selection
    obs, *_ = env.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[offender] == -1
    assert all(r == 0 for a, r in env._cumulative_rewards.items() if a != offender)


@pytest.mark.parametrize("reward", REWARDS)
def test_rewards_come_once_at_the_end_and_match_the_final_scores(reward):
    env = raw_env(reward=reward)
    rewards, _ = play_out(env, seed=5)
    game = env.game
    assert game.is_over()
    got = np.array([rewards[f"player_{i}"] for i in range(4)])
    scores, money = game.scores(), game.state.money[:4]
    if reward == "win_loss":
        assert np.array_equal(got, game.returns())
        assert set(np.flatnonzero(got == 1)) == set(game.winners())
    elif reward == "rank":
        order = sorted(range(4), key=lambda s: (-scores[s], -money[s]))
        assert got[order[0]] == 1 or len(game.winners()) > 1
        assert all(got[a] >= got[b] for a, b in zip(order, order[1:]))
        assert np.isclose(got.sum(), 0)
    else:
        assert np.allclose(got, [(scores[s] - np.delete(scores, s).mean()) / 100 for s in range(4)])


class FinishedGame:
    """The parts of a finished game the reward functions read."""

    def __init__(self, scores, money):
        self.num_players = len(scores)
        self._scores = np.array(scores)
        self.state = types.SimpleNamespace(money=np.array(money + [0] * (6 - len(money))))

    def scores(self):
        return self._scores

    def winners(self):
        best = np.flatnonzero(self._scores == self._scores.max())
        money = self.state.money
        return best[money[best] == money[best].max()].tolist()

    def returns(self):
        r = -np.ones(self.num_players)
        r[self.winners()] = 1
        return r


def test_rank_reward_is_linear_in_place_with_deben_tie_break_and_shared_ties():
    """docs/rules.md §5: most points, then most Deben; seats still tied share their places."""
    game = FinishedGame(scores=[10, 20, 20, 5], money=[3, 4, 4, 1])
    assert np.allclose(final_rewards(game, "rank"), [-1 / 3, 2 / 3, 2 / 3, -1])
    game = FinishedGame(scores=[20, 20, 8], money=[2, 5, 9])
    assert np.allclose(final_rewards(game, "rank"), [0, 1, -1])


def test_score_diff_and_win_loss_reward_values():
    game = FinishedGame(scores=[10, 20, 20, 6], money=[3, 4, 4, 1])
    assert np.allclose(final_rewards(game, "score_diff"), [(10 - 46 / 3) / 100, (20 - 12) / 100, (20 - 12) / 100,
                                                           (6 - 50 / 3) / 100])
    assert final_rewards(game, "win_loss").tolist() == [-1, 1, 1, -1]


def test_bad_constructor_arguments_are_named():
    with pytest.raises(ValueError, match="reward must be one of win_loss, rank, score_diff"):
        raw_env(reward="points")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb")
    with pytest.raises(ValueError, match="setup"):
        raw_env(setup="random")


def test_ansi_render_shows_the_board():
    env = raw_env(render_mode="ansi")
    env.reset(seed=1)
    game = env.game
    while game.phase != phases.PH_OTHER:
        env.step(game.legal_actions()[-1])
    text = env.render()
    for name in ("Gizeh", "Akhet-Aton", "Abou Simbel", "Louqsor", "Reserve", "upper", "P3"):
        assert name in text
    assert f"resolving {game.names.markets[game.state.res_market]}, bid {game.state.res_order[game.state.res_pos]}" in text
    assert f"deciding: P{game.current_player}" in text


def test_ansi_render_names_a_face_down_gift_and_marks_it():
    """Beggar (expansion, docs/rules.md §6): the board shows a face-down gift by name (every seat saw it) and marks it."""
    env = raw_env(render_mode="ansi", characters="expansion")
    env.reset(seed=0)
    game = env.game
    m, k = 0, int(np.flatnonzero(game.state.slots[0] >= 0)[-1])
    game.state.face_down[m, k] = True
    assert f"{k}: {card_name(game, game.state.slots[m, k])} (face down)" in env.render()
