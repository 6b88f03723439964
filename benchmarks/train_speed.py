"""Learner steps per second of MaskablePPO on the batched engine, and where the time goes.

    OPENBLAS_NUM_THREADS=1 python benchmarks/train_speed.py --steps 200000

One training process (`training/batched_vec_env.BatchedVecEnv`, numba threads for the games and the
compiled bots, one torch thread) per opponent mix: random tables only, random and snapshot tables
(0.7/0.3, the quickstart's mix), snapshot tables only, three bankers (compiled, `bot_tables.py`), three
`mcts:iterations=200` (a search bot per table, `search_tables.py`). The snapshots are frozen copies of
the learner's initial policy (what a run holds before its first scheduled snapshot; their cost does not
depend on their weights). Split: collecting rollouts (engine, observations, the learner's and the
snapshots' forward passes) and the PPO update. The first PPO iteration is a warm-up and is not counted.
The defaults are configs/champion.yaml's (256 games x 64 steps per iteration, minibatch 1024, 4 epochs,
two hidden layers of 128).
"""
from __future__ import annotations

import argparse
import copy
import time

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback

from nefertiti_env.training.batched_vec_env import BatchedVecEnv

MIXES = {"random": {"random": 1.0}, "random+snapshot": {"random": 0.7, "snapshot": 0.3}, "snapshot": {"snapshot": 1.0},
         "banker": {"banker": 1.0}, "mcts": {"mcts:iterations=200": 1.0},
         "champion": {"banker": 0.4, "snapshot": 0.3, "greedy": 0.1, "collector": 0.1, "random": 0.1}}


class Clock(BaseCallback):
    """Wall time in rollouts and in updates, from the second rollout on."""

    def __init__(self):
        super().__init__()
        self.rollout = self.update = 0.0
        self.steps = 0
        self._mark = None
        self._rollouts = 0

    def _on_rollout_start(self) -> None:
        now = time.perf_counter()
        if self._rollouts > 1:
            self.update += now - self._mark
        self._mark = now

    def _on_rollout_end(self) -> None:
        now = time.perf_counter()
        self._rollouts += 1
        if self._rollouts > 1:
            self.rollout += now - self._mark
            self.steps += self.model.n_steps * self.model.n_envs
        self._mark = now

    def _on_step(self) -> bool:
        return True


def measure(mix: dict, steps: int, args) -> dict:
    env = BatchedVecEnv(args.n_envs, num_players=args.players, opponents=mix, seed=args.seed, observation="v1")
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs,
                        policy_kwargs={"net_arch": [int(x) for x in args.net_arch.split(",")]}, seed=args.seed,
                        device="cpu")
    if "snapshot" in mix:
        for _ in range(args.snapshots):
            env.env_method("add_snapshot", copy.deepcopy(model.policy))
    clock = Clock()
    model.learn(steps, callback=clock)
    # the last update ends after the last rollout: time it as the mean of the others
    updates = max(1, clock._rollouts - 2)
    total = clock.rollout + clock.update * (updates + 1) / updates
    return {"steps": clock.steps, "rollout_s": clock.rollout, "update_s": total - clock.rollout,
            "steps_per_s": clock.steps / total, "collect_steps_per_s": clock.steps / clock.rollout}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=200_000, help="learner steps per mix (default 200,000)")
    parser.add_argument("--n-envs", type=int, default=256, help="games stepped together (default 256)")
    parser.add_argument("--n-steps", type=int, default=64, help="steps per env per PPO iteration (default 64)")
    parser.add_argument("--batch-size", type=int, default=1024, help="PPO minibatch (default 1024)")
    parser.add_argument("--n-epochs", type=int, default=4, help="PPO epochs per iteration (default 4)")
    parser.add_argument("--net-arch", default="128,128", help="hidden layers (default 128,128)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--snapshots", type=int, default=3,
                        help="snapshots in the pool (default 3; configs/champion.yaml's pool holds 20 from 5M steps on)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mixes", default=",".join(MIXES), help=f"comma-separated, of {', '.join(MIXES)}")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print(f"| opponents | learner steps/s | collecting only, steps/s | time collecting | time in PPO updates |")
    print("|---|---|---|---|---|")
    for name in args.mixes.split(","):
        r = measure(MIXES[name], args.steps, args)
        share = r["rollout_s"] / (r["rollout_s"] + r["update_s"])
        print(f"| {name} | {r['steps_per_s']:,.0f} | {r['collect_steps_per_s']:,.0f} | {share:.0%} | {1 - share:.0%} |",
              flush=True)


if __name__ == "__main__":
    main()
