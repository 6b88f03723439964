"""How much storing a policy's actor in float16 (`policy_file.save_actor`, as the champion's league ships)
changes its play: games of the float32 policy against n-1 bankers at the bar's eight tables, and at each of its
decisions the most likely legal action of both copies compared.

    python benchmarks/float16_moves.py RUN_A/final_model.pt RUN_B/final_model.pt --games 12

Per model: its decisions, how many most likely actions differ, and the largest and median difference of the
legal actions' logits. The float32 policy's moves drive the games, so both copies judge the same positions.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_bar import TABLES  # noqa: E402  (the bar's tables)

from nefertiti_env import NefertitiGame  # noqa: E402
from nefertiti_env.agents import make_bot  # noqa: E402
from nefertiti_env.agents.policy_file import save_actor  # noqa: E402
from nefertiti_env.agents.ppo import PPOAgent, model_file  # noqa: E402


def compare(full: PPOAgent, half: PPOAgent, games: int) -> tuple[int, int, list[float]]:
    """(decisions, changed most likely actions, each decision's largest logit difference)."""
    decisions, changed, gaps = 0, 0, []
    for options in TABLES.values():
        n = options["num_players"]
        for g in range(games):
            game = NefertitiGame(seed=1000 + g, **options)
            bankers = [make_bot("banker", seed=10 * g + s) for s in range(n)]
            while not game.is_over():
                seat = game.current_player
                if seat != g % n:
                    game.apply(bankers[seat].act(game, seat))
                    continue
                legal = game.legal_actions()
                a, b = full.logits(game, seat)[legal], half.logits(game, seat)[legal]
                decisions += 1
                changed += int(np.argmax(a) != np.argmax(b))
                gaps.append(float(np.abs(a - b).max()))
                game.apply(legal[int(np.argmax(a))])
    return decisions, changed, gaps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="+", help="model .pt files or run folders (float32)")
    parser.add_argument("--games", type=int, default=12, help="games per table for each model (default 12)")
    args = parser.parse_args(argv)
    print("| model | decisions | most likely action changed | largest logit difference | median |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for k, model in enumerate(args.models):
            half = Path(tmp) / f"actor{k}.pt"
            save_actor(model_file(model), half)
            decisions, changed, gaps = compare(PPOAgent(model), PPOAgent(half), args.games)
            print(f"| {model} | {decisions} | {changed} | {max(gaps):.4f} | {np.median(gaps):.4f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
