"""A mixture of tables on the batched engine: one `BatchedVecEnv` per table, concatenated into one VecEnv.

The batched engine steps all its games under one rules array R (`NefertitiVectorEnv`: the
observation plan, the heuristic bots' tables and the kernel's player count are R's), so rows of
different tables cannot share one batch. Each table gets its own batch of `n_envs` rows (split by
the weights, `config.split_envs`), and the policy sees their rows stacked: rows of table 0 first.
The action space is the same at every table, and so is the observation when every table uses one
ruleset (v2 adds which table it is). Each table's batch is seeded from the run's seed and its index,
so adding a table leaves the others' games unchanged.
"""
from __future__ import annotations

import numpy as np
from .batched_vec_env import OPPONENT_PARTS, BatchedVecEnv, CompiledVecEnv


def table_seed(seed: int, table: int) -> int:
    """The seed of table `table`'s batch in a mixture seeded `seed` (independent streams per table)."""
    return int(np.random.SeedSequence([seed, table]).generate_state(1, np.uint64)[0] >> np.uint64(1))


class TableMixVecEnv(CompiledVecEnv):
    """tables: (label, n_envs, options) per table; the other keywords are BatchedVecEnv's, shared unless a
    table's options name them (its own opponents, say). info per env: BatchedVecEnv's keys and `table`, the
    label of the table its row plays."""

    def __init__(self, tables: list[tuple[str, int, dict]], seed: int = 0, **common):
        self.labels = [label for label, _, _ in tables]
        self.parts = [BatchedVecEnv(n, seed=table_seed(seed, j), **{**common, **options})
                      for j, (_, n, options) in enumerate(tables)]
        shapes = {part.observation_space.shape for part in self.parts}
        if len(shapes) > 1:
            raise ValueError(f"the tables' observations differ in size ({sorted(shapes)}): use one ruleset")
        self.bounds = np.cumsum([0] + [part.num_envs for part in self.parts])
        super().__init__(int(self.bounds[-1]), self.parts[0].observation_space, self.parts[0].action_space)
        self._actions = None

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        for j, part in enumerate(self.parts):
            if seed is not None:
                part.seed(table_seed(seed, j))
        obs = np.concatenate([part.reset() for part in self.parts])
        self._reset_seeds()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, dones, infos = [], [], [], []
        for j, part in enumerate(self.parts):
            part.step_async(self._actions[self.bounds[j]:self.bounds[j + 1]])
            part_obs, part_rewards, part_dones, part_infos = part.step_wait()
            obs.append(part_obs)
            rewards.append(part_rewards)
            dones.append(part_dones)
            infos += [{**entry, "table": self.labels[j]} for entry in part_infos]
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        return np.concatenate([part.action_masks() for part in self.parts])

    def timing(self) -> dict:
        """The tables' timings, summed."""
        parts = [part.timing() for part in self.parts]
        return {"opponent_seconds": {k: sum(t["opponent_seconds"][k] for t in parts) for k in OPPONENT_PARTS},
                "searched_decisions": sum(t["searched_decisions"] for t in parts)}

    def _add_snapshot(self, snapshot) -> None:
        """A new opponent for the games to come at every table's snapshot tables."""
        for part in self.parts:
            part._add_snapshot(snapshot)
