"""The champion's bar: its win rate against three bankers and against three MCTS bots.

    python benchmarks/champion_bar.py                        # the shipped champion, 400 games each
    python benchmarks/champion_bar.py --model runs/champion  # a run folder or model file instead
    python benchmarks/champion_bar.py --bot champion:search=800   # any bot spec in the learner's seat
    python benchmarks/champion_bar.py --ray auto             # on a Ray cluster (docs/cluster.md)

4-player games (beginner setup, base characters, no Memphis: the table it was trained for), the
learner at seat i % 4 of game i, the same deals for both baselines (game seed = --seed + i, fixed in
advance), seats rotated (`training.evaluation`, the trainer's own evaluation and game loop). A win is
being among the winners. The bar: >= 50% against banker with the 95% Wilson interval's lower bound
above 45%, and >= 35% against mcts (its default budget) with the lower bound above 25%. The
learner's CPU time per decision is reported too.
"""
from __future__ import annotations

import argparse
import sys
import time

from nefertiti_env.agents.champion import CHAMPION_FILE
from nefertiti_env.agents.ppo import model_file
from nefertiti_env.training.evaluation import evaluate

BAR = {"banker": (0.50, 0.45), "mcts": (0.35, 0.25)}      # baseline: (win rate, interval lower bound)
TABLE = dict(num_players=4, setup="beginner", memphis=False, characters="base")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(CHAMPION_FILE), help="model .pt or run folder (default: the shipped champion)")
    parser.add_argument("--bot", help="a bot spec in the learner's seat instead of --model, e.g. champion:search=800 "
                                      "or ppo:path=runs/champion:search=800")
    parser.add_argument("--games", type=int, default=400, help="games per baseline (default 400)")
    parser.add_argument("--baselines", default="banker,mcts", help="comma-separated bot specs (default banker,mcts)")
    parser.add_argument("--seed", type=int, default=20_261_124, help="seed of game 0 (default 20261124)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--ray", metavar="ADDRESS", help="play on the Ray cluster at ADDRESS (or auto) instead of "
                                                        "--workers processes (docs/cluster.md)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    model = None if args.bot else str(model_file(args.model))
    results = evaluate(model, args.baselines.split(","), args.games, TABLE, seed=args.seed, workers=args.workers,
                       bot=args.bot, ray=args.ray)
    print(f"learner: {args.bot or args.model}")
    print("| against 3x | games | wins | win rate | 95% Wilson interval | bar | met |")
    print("|---|---|---|---|---|---|---|")
    met = True
    for r in results:
        low, high = r.ci
        rate, floor = BAR.get(r.baseline.split(":")[0], (None, None))
        ok = rate is None or (r.win_rate >= rate and low > floor)
        met &= ok
        bar = f">= {rate:.0%}, low > {floor:.0%}" if rate is not None else "-"
        print(f"| {r.baseline} | {r.games} | {r.wins} | {r.win_rate:.1%} | [{low:.1%}, {high:.1%}] | {bar} | "
              f"{'yes' if ok else 'no'} |")
    per_decision = sum(r.seconds for r in results) / max(sum(r.decisions for r in results), 1)
    print(f"learner's thinking: {per_decision * 1000:.2f} CPU ms per decision (every decision)")
    print(f"{time.perf_counter() - start:,.0f} s on {f'the Ray cluster at {args.ray}' if args.ray else f'{args.workers} workers'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
