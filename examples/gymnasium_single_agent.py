"""Train sb3-contrib's MaskablePPO on the registered single-agent view, through gymnasium.make.

    python examples/gymnasium_single_agent.py --steps 2048 --players 3

The learner takes a random seat each episode; greedy or random bots play the other
seats inside the environment (docs/adapters.md, Gymnasium).
"""
import argparse

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import nefertiti_env  # noqa: F401  (registers nefertiti/NefertitiSingleAgent-v0)


def main(argv=None) -> float:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=2048, help="learner steps to train (default 2048)")
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4, 5), help="table size (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    # a small policy updates fastest on one thread; torch's default (every core) spins idle threads,
    # several times slower on a shared machine (docs/training.md, Keeping your own scripts fast)
    torch.set_num_threads(1)
    env = gymnasium.make("nefertiti/NefertitiSingleAgent-v0", num_players=args.players, opponents={"random": 1.0})
    model = MaskablePPO("MlpPolicy", env, n_steps=min(args.steps, 512), batch_size=64, seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.steps)
    obs, info = env.reset(seed=args.seed)
    total, done = 0.0, False
    while not done:            # one masked greedy episode of the trained policy
        masks = env.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=masks, deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        total, done = total + reward, terminated or truncated
    print(f"seat {info['seat']} vs {info['opponents']}: reward {total:+.0f}, score {info['score']}, win {info['win']}")
    return total


if __name__ == "__main__":
    main()
