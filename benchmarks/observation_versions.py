"""Observation v0 vs the compact v1: sizes, non-zero entries, encoder time per call and the PPO
update's share of the learner's CPU time. Prints figures; asserts nothing.

    python benchmarks/observation_versions.py                 # sizes, non-zeros, encoder time (~20 s)
    python benchmarks/observation_versions.py --ppo-steps 16384   # also the PPO update share (~1 min)

Non-zeros: over `--games` four-player random games, every decision, the deciding seat's vector.
Encoder time: best of 5 over positions sampled from those games. PPO share: PPO settings of the
former quickstart (n_steps 256, batch 512, 4 epochs, net [256, 256]), 16 games of the batched engine
against random bots (the trainer's env), torch on one thread, CPU time of `model.train()` over all of
`learn()`.
"""
from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import OBSERVATIONS


def sizes_and_speed(games: int) -> None:
    rng = np.random.default_rng(0)
    nonzero = {name: [] for name in OBSERVATIONS}
    ever = {name: np.zeros(v.size, bool) for name, v in OBSERVATIONS.items()}
    positions = []
    for seed in range(games):
        g = NefertitiGame(num_players=4, seed=seed)
        while not g.is_over():
            seat = g.current_player
            for name, version in OBSERVATIONS.items():
                vector = version.observe(g, seat)
                nonzero[name].append(np.count_nonzero(vector))
                ever[name] |= vector != 0
            if rng.random() < 0.02:
                positions.append((g.clone(), seat))
            legal = g.legal_actions()
            g.apply(legal[rng.integers(len(legal))])
    print(f"{len(nonzero['v0']):,} decisions over {games} four-player random games")
    for name, version in OBSERVATIONS.items():
        number = max(1, 20_000 // len(positions))
        best = min(timeit.repeat(lambda: [version.observe(g, s) for g, s in positions], number=number, repeat=5))
        print(f"{name}: {version.size:,} floats, non-zero per observation median {np.median(nonzero[name]):.0f}, "
              f"ever non-zero {ever[name].sum():,}, {best / (number * len(positions)) * 1e6:.1f} us per call")


def ppo_share(steps: int) -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from nefertiti_env.training.batched_vec_env import BatchedVecEnv

    torch.set_num_threads(1)
    for name in OBSERVATIONS:
        venv = BatchedVecEnv(16, num_players=4, observation=name)
        model = MaskablePPO("MlpPolicy", venv, n_steps=256, batch_size=512, n_epochs=4, seed=0,
                            policy_kwargs={"net_arch": [256, 256]}, device="cpu")
        update, train = [0.0], model.train

        def timed_train():
            start = time.process_time()
            train()
            update[0] += time.process_time() - start

        model.train = timed_train
        start = time.process_time()
        model.learn(steps)
        total = time.process_time() - start
        print(f"{name}: {steps / total:,.0f} learner steps per CPU second, PPO update {update[0] / total:.0%} of it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=50, help="random games for the non-zero counts (default 50)")
    parser.add_argument("--ppo-steps", type=int, default=0, help="learner steps per version for the PPO share "
                        "(0, the default: skip it)")
    args = parser.parse_args()
    sizes_and_speed(args.games)
    if args.ppo_steps:
        ppo_share(args.ppo_steps)


if __name__ == "__main__":
    main()
