"""Multi-agent PPO with action masking in Ray RLlib: one shared policy plays every seat.

    python examples/rllib_ppo.py --players 3 --iterations 5 --env-runners 2

Uses RLlib's `ActionMaskingTorchRLModule` (illegal actions get -inf logits) on
`NefertitiMultiAgentEnv` (docs/adapters.md, Ray RLlib). Needs Ray RLlib and torch (the `rllib` extra
leaves torch to you, so it can be the one you already have):
`pip install -c constraints.txt -e ".[rllib]" torch`.
"""
import argparse

import ray
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

from nefertiti_env.adapters.rllib import NefertitiMultiAgentEnv


def build(players: int, env_runners: int, batch: int, seed: int):
    return (
        PPOConfig()
        .environment(NefertitiMultiAgentEnv, env_config={"num_players": players, "reward": "rank"})
        .env_runners(num_env_runners=env_runners, rollout_fragment_length="auto")
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": RLModuleSpec(
            module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [64, 64]})}))
        .training(train_batch_size_per_learner=batch, minibatch_size=min(batch, 128), num_epochs=1, lr=3e-4)
        .debugging(seed=seed)
    ).build_algo()


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4, 5))
    parser.add_argument("--iterations", type=int, default=5, help="training iterations (default 5)")
    parser.add_argument("--env-runners", type=int, default=2, help="RLlib env runner processes (default 2)")
    parser.add_argument("--batch", type=int, default=1000, help="env steps per iteration (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    # the learner runs in this process (RLlib's local learner): a small policy updates fastest on one
    # thread, torch's default (every core) is several times slower on a shared machine (docs/training.md,
    # Keeping your own scripts fast); Ray gives each env runner one OpenMP thread itself
    torch.set_num_threads(1)
    ray.init(num_cpus=args.env_runners + 1, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        algo = build(args.players, args.env_runners, args.batch, args.seed)
        results = []
        for i in range(args.iterations):
            result = algo.train()
            runners = result["env_runners"]
            print(f"iteration {i + 1}: {runners['num_env_steps_sampled_lifetime']} env steps, "
                  f"{runners.get('num_episodes_lifetime', 0)} games, "
                  f"mean episode length {runners.get('episode_len_mean', float('nan')):.0f}")
            results.append(result)
        algo.stop()
        return results
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
