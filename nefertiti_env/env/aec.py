"""PettingZoo AEC environment over NefertitiGame, following the classic environments.

Agents are "player_0".."player_{n-1}" (seat i). `agent_selection` is the seat
that decides now, which during a market resolution can be a seat other than the
one whose turn it is (each servant's owner chooses), and it can stay the same
agent for several steps. Rewards come only at the end, all at once; the type is
chosen with `reward=`:

- "win_loss": +1 for each winner, -1 for every other seat (`game.returns()`);
- "rank": linear in the final place, +1 first to -1 last; places are ordered by
  score then Deben (the game's tie-break) and seats still tied share the mean of
  their places;
- "score_diff": (own score - mean score of the others) / 100.

Observations are {"observation": float32[size], "action_mask": int8[NUM_ACTIONS]}, the vector being
the `observation=` version: the compact "v1" (657 floats, the default, "nefertiti/Nefertiti-v1"), "v0"
(the same information in 3,225 floats, "nefertiti/Nefertiti-v0") or "v2" (v1 and the table: 680;
"nefertiti/Nefertiti-v2"; docs/observation.md says why v1 is the default); the mask is all zeros
for agents that are not deciding.
A game cut short by the decision limit (core option `max_decisions`, `game.is_truncated()`) sets
`truncations` true for every agent, with reward 0 for all (nobody won), per the PettingZoo convention.
The observation vector is
computed lazily in `observe`, never in `step`. The game is `env.unwrapped.game`.

Note: `nefertiti_env.env` is the factory function below (like the classic
environments' `env()`); import this module as `from nefertiti_env.env import aec`.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core import NUM_ACTIONS, NefertitiGame, load_ruleset
from ..core.actions import action_id
from ..encoding import global_state, observation_version, state_high
from ..encoding.observation import encode
from .options import RENDER_MODES, check_options, check_render_mode
from .render import render_game

REWARDS = ("win_loss", "rank", "score_diff")


def env(**kwargs):
    """The wrapped environment: an illegal action ends the game with -1 for its agent."""
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(IntegerActions(wrapped))


class IntegerActions(wrappers.BaseWrapper):
    """Refuse an action that is no integer with the core's TypeError before PettingZoo's wrappers read
    it (they would take True as a mask index, or say only "not in action space" for 3.9 or "3")."""

    def step(self, action) -> None:
        super().step(None if action is None else action_id(action))


def final_rewards(game: NefertitiGame, reward: str) -> np.ndarray:
    """Per-seat terminal reward of a finished game for one of REWARDS."""
    if reward == "win_loss":
        return game.returns()
    scores = game.scores().astype(np.float64)
    n = game.num_players
    if reward == "score_diff":
        return (scores - (scores.sum() - scores) / (n - 1)) / 100
    money = game.state.money[:n]
    above = (scores[None, :] > scores[:, None]) | ((scores[None, :] == scores[:, None]) & (money[None, :] > money[:, None]))
    tied = (scores[None, :] == scores[:, None]) & (money[None, :] == money[:, None])
    place = above.sum(axis=1) + (tied.sum(axis=1) - 1) / 2
    return 1 - 2 * place / (n - 1)


class raw_env(AECEnv, EzPickle):
    """Nefertiti for 2 to 5 players.

    Keyword arguments: num_players (4), ruleset ("default" or a file path), setup
    ("beginner" or "advanced"), reward (one of REWARDS), observation (the compact
    "v1", "v0": the same in 3,225 floats, or "v2": v1 and the table), render_mode (None,
    "ansi", "human": the text board; "rgb_array": the board picture as an HxWx3
    uint8 array, needing the `viz` extra) and NefertitiGame's options (memphis,
    characters, max_decisions). Everything is checked here, not at reset(): any other
    keyword is a TypeError naming the known ones.
    """

    metadata = {"render_modes": RENDER_MODES, "name": "nefertiti_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, num_players: int = 4, ruleset="default", setup: str = "beginner", reward: str = "win_loss",
                 observation: str = "v1", render_mode: str | None = None, **options):
        EzPickle.__init__(self, num_players=num_players, ruleset=ruleset, setup=setup, reward=reward,
                          observation=observation, render_mode=render_mode, **options)
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {reward!r}")
        check_render_mode(render_mode)
        check_options(type(self), options)
        self.reward = reward
        self.encoder = observation_version(observation)
        self._plans_of, self._plans = None, []      # the encoder's tables per seat, for one rules array
        self.render_mode = render_mode
        self._game_args = dict(num_players=num_players, ruleset=load_ruleset(ruleset), setup=setup, **options)
        self.game = NefertitiGame(seed=0, **self._game_args)      # checks the options now; reset() replaces it
        high = self.encoder.high(self.game.rules)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": spaces.Box(low=0.0, high=high, shape=high.shape, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        state_top = state_high(self.game.rules)
        self.state_space = spaces.Box(low=0.0, high=state_top, shape=state_top.shape, dtype=np.float32)
        self.np_random = np.random.default_rng()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game: with `seed` it is NefertitiGame(seed=seed); without, a seed drawn from the env's generator."""
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
            game_seed = int(seed)
        else:
            game_seed = int(self.np_random.integers(2**63))
        self.game = NefertitiGame(seed=game_seed, **self._game_args)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        game, seat = self.game, self._seat[agent]
        if game.R is not self._plans_of:       # kept here: the encoder's own cache lookup on every call costs more
            self._plans_of, self._plans = game.R, [self.encoder.plan(game, s) for s in range(game.num_players)]
        mask = game.legal_action_mask(writable=True) if seat == game.current_player else np.zeros(NUM_ACTIONS, np.int8)
        return {"observation": encode(game, seat, self._plans[seat]), "action_mask": mask}

    def state(self) -> np.ndarray:
        """The global state for centralised critics: everything, hidden deck order included
        (`nefertiti_env.encoding.state`); never give it to a player's policy."""
        return global_state(self.game)

    def step(self, action) -> None:
        """Apply the selected agent's action; an illegal one raises IllegalActionError naming it and the legal ones."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        game.apply(action_id(action))
        self._cumulative_rewards[agent] = 0.0
        if not game.is_over():
            self.agent_selection = self.possible_agents[game.current_player]
        elif game.is_truncated():
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            values = final_rewards(game, self.reward)
            self.rewards = {a: float(values[i]) for i, a in enumerate(self.agents)}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        return render_game(self.game, self.render_mode)

    def close(self) -> None:
        """Nothing to release: the renderers hold no resources."""
