"""Search self-play's speed: searched decisions per second of `training.search_games` (expert iteration's data).

    python benchmarks/search_selfplay.py                          # an untrained [256, 256] v2 policy as the prior
    python benchmarks/search_selfplay.py --model runs/whole_game  # a trained one
    python benchmarks/search_selfplay.py --games 4 --iterations 800 --workers 2

Plays --games self-play games at each of four tables (2p base, 3p expansion + Memphis, 4p base, 5p
expansion + advanced), every seat searched by the compiled MCTS with the policy as its prior, after
one warm-up game (numba's compile and the model's load are not counted). Reports searched decisions
(rows of training data) per CPU second of this process and per wall second.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from nefertiti_env import NUM_ACTIONS
from nefertiti_env.agents import policy_file
from nefertiti_env.agents.ppo import model_file
from nefertiti_env.encoding.table import V2_SIZE
from nefertiti_env.training.search_games import search_games

TABLES = [dict(num_players=2), dict(num_players=3, memphis=True, characters="expansion"), dict(num_players=4),
          dict(num_players=5, characters="expansion", setup="advanced")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="model .pt or run folder (default: an untrained [256, 256] v2 policy)")
    parser.add_argument("--games", type=int, default=2, help="games per table (default 2)")
    parser.add_argument("--iterations", type=int, default=800, help="MCTS iterations per decision (default 800)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1; CPU time is this process's)")
    parser.add_argument("--seed", type=int, default=100, help="seed of the first game (default 100)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        model = str(model_file(args.model)) if args.model else str(Path(folder) / "untrained.pt")
        if not args.model:
            policy_file.save(model, policy_file.build_policy({"obs_size": V2_SIZE, "num_actions": NUM_ACTIONS,
                                                              "net_arch": [256, 256]}))
        search_games(model, TABLES[:1], 1, seed=0, iterations=8)
        cpu, wall = time.process_time(), time.perf_counter()
        data = search_games(model, TABLES, args.games, seed=args.seed, iterations=args.iterations,
                            workers=args.workers)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    rows = len(data.obs)
    print(f"{rows:,} searched decisions ({args.iterations} iterations each) in {len(TABLES) * args.games} games: "
          f"{rows / cpu:,.0f} per CPU second of this process, {rows / wall:,.0f} per wall second "
          f"({args.workers} worker(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
