"""Nefertiti as a Ray RLlib MultiAgentEnv, in the shape RLlib's action-masking module reads.

    from nefertiti_env.adapters.rllib import NefertitiMultiAgentEnv
    config = PPOConfig().environment(NefertitiMultiAgentEnv, env_config={"num_players": 3})

RLlib's `ActionMaskingTorchRLModule` wants observations {"observations": vector,
"action_mask": float32 mask}; the PettingZoo env gives {"observation": vector,
"action_mask": int8 mask}, and RLlib's PettingZooEnv wrapper passes that on as is.
Each step returns the observation of the agent that decides next (during a market
resolution that can be any seat, and the same agent several times in a row); at
the end every agent gets its last observation, its reward and terminated=True.
It runs the wrapped env (`nefertiti_env.env`): an illegal action ends the game with
-1 for its agent, which RLlib's env checker needs (it steps a random action).
`env_config` takes the PettingZoo env's keywords (num_players, reward, observation: the compact v1
unless it names another, game options).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..core import NUM_ACTIONS
from ..env.aec import env as wrapped_env


class NefertitiMultiAgentEnv(MultiAgentEnv):
    def __init__(self, config: dict | None = None):
        super().__init__()
        self.aec = wrapped_env(**dict(config or {}))
        raw = self.aec.unwrapped
        self.possible_agents = list(raw.possible_agents)
        self.agents = self.possible_agents[:]
        mask = spaces.Box(0.0, 1.0, shape=(NUM_ACTIONS,), dtype=np.float32)
        self.observation_spaces = {
            agent: spaces.Dict({"observations": raw.observation_space(agent)["observation"], "action_mask": mask})
            for agent in self.possible_agents}
        self.action_spaces = {agent: raw.action_space(agent) for agent in self.possible_agents}

    @staticmethod
    def _convert(obs: dict) -> dict:
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        agent = self.aec.agent_selection
        return {agent: self._convert(self.aec.observe(agent))}, {}

    def step(self, action_dict: dict):
        self.aec.step(action_dict[self.aec.agent_selection])
        obs, rewards, terminateds, truncateds, infos = {}, {}, {}, {}, {}
        while self.aec.agents:                  # after the end: each agent's last step, then it leaves
            agent = self.aec.agent_selection
            observation, reward, terminated, truncated, info = self.aec.last()
            obs[agent], rewards[agent] = self._convert(observation), float(reward)
            terminateds[agent], truncateds[agent], infos[agent] = terminated, truncated, info
            if not (terminated or truncated):
                break
            self.aec.step(None)
        over = not self.aec.agents
        terminateds["__all__"] = over and all(terminateds.values())
        truncateds["__all__"] = over and not terminateds["__all__"]
        return obs, rewards, terminateds, truncateds, infos
