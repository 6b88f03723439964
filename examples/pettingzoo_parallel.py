"""Play Nefertiti through PettingZoo's Parallel API and collect the global state a centralised critic sees.

    python examples/pettingzoo_parallel.py --players 3 --seed 0

`turn_based_aec_to_parallel` turns the AEC env into a ParallelEnv: every step takes
a dict of actions, of which only the deciding agent's counts (the others' masks are
all zero). `env.state()` is the global state vector (docs/adapters.md, PettingZoo).
"""
import argparse

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import nefertiti_env


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4, 5))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    env = turn_based_aec_to_parallel(nefertiti_env.raw_env(num_players=args.players, reward="rank"))
    rng = np.random.default_rng(args.seed)
    observations, infos = env.reset(seed=args.seed)
    states, returns = [env.state()], dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {}
        for agent, obs in observations.items():
            legal = np.flatnonzero(obs["action_mask"])
            actions[agent] = int(rng.choice(legal)) if len(legal) else 0   # only the deciding agent's action counts
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += reward
        if env.agents:
            states.append(env.state())
    print(f"{len(states)} steps, state vectors of {states[0].size}; returns {returns}")
    return returns


if __name__ == "__main__":
    main()
